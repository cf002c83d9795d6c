-- The audit trail: one append-only hash chain, one entry per change, written in the change's own
-- transaction. Entries hold digests, never content; retention never deletes them.
CREATE TABLE koder_audit (
    seq BIGINT PRIMARY KEY,
    at BIGINT NOT NULL,
    elicitation_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    digest TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
