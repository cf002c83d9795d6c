-- Answer links: each a capability for one elicitation, held by whoever has its URL
-- (<public-url>/answer/#t=<token>). Only the token's SHA-256 (hex) is kept, never the token;
-- id is the link's own random id, which the audit trail names when an answer comes through it.
-- A link goes with its elicitation: when retention deletes that, its links are deleted too and
-- the token is unknown from then on. created_at is ms since the Unix epoch.
CREATE TABLE koder_answer_links (
    id TEXT PRIMARY KEY,
    elicitation_id TEXT NOT NULL REFERENCES koder_elicitations (id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);
-- An elicitation's links (and what the cascade looks up when it is deleted).
CREATE INDEX koder_answer_links_elicitation ON koder_answer_links (elicitation_id);
