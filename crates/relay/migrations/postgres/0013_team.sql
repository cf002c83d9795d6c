-- Questions for a team (see "Questions for a team" in the relay's manual). A team question has
-- user_id '' (no token's sub is empty) and its audience as rows: stage 0 is the create's
-- `audience`, stage k (1 to 3) the k-th `escalate` stage's. A person is in it when a row with
-- stage <= escalated names their sub (kind 'user') or one of their token's groups (kind 'group').
CREATE TABLE koder_elicitation_audience (
    elicitation_id TEXT NOT NULL,
    stage INTEGER NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (elicitation_id, stage, kind, name)
);
CREATE INDEX koder_elicitation_audience_member ON koder_elicitation_audience (kind, name);
-- audience: the stages as the create gave them (JSON: {"audience": {"users", "groups"},
-- "escalate": [{"after", "audience", "notify"}, …]}), NULL for a one-person question.
-- escalated: the stages reached so far. answered_by: who settled it (JSON), NULL before.
ALTER TABLE koder_elicitations ADD COLUMN audience TEXT NULL;
ALTER TABLE koder_elicitations ADD COLUMN escalated BIGINT NOT NULL DEFAULT 0;
ALTER TABLE koder_elicitations ADD COLUMN answered_by TEXT NULL;
-- The groups of the token that last stored a push subscription: a group question's pushes go
-- to the subscriptions whose groups it names. Stream tickets keep their token's groups too
-- (JSON array, '[]' for none).
CREATE TABLE koder_push_subscription_groups (
    subscription_id TEXT NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (subscription_id, name)
);
ALTER TABLE koder_stream_tickets ADD COLUMN token_groups TEXT NOT NULL DEFAULT '[]';
