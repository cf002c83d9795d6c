-- E-mail to several people: one outbox row per address and kind of message. New rows have ids
-- '<elicitation>.<kind>.<address>' and name their elicitation; rows queued before this have the
-- elicitation's id as theirs and elicitation_id NULL. kind: 'question' (the first message),
-- 'reminder' (notify.remindAfter) or 'stage<k>' (escalation stage k's addresses).
ALTER TABLE koder_email_outbox ADD COLUMN elicitation_id TEXT NULL;
ALTER TABLE koder_email_outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'question';
-- The address a message's link was mailed to (answeredBy.email for an answer through it).
ALTER TABLE koder_answer_links ADD COLUMN email TEXT NULL;
-- The schedule: what happens to a question later if it is still open then, one row per timer,
-- inserted in the create's transaction and fired once (claimed like an outbox row: due at
-- next_attempt_at, leased, marked delivered once fired). kind: 'reminder' or 'escalate' (stage:
-- its number, from 1; 0 for a reminder). notify: what a reminder mails (the create's notify,
-- JSON), NULL for a stage (its addresses are the question's own). Times are ms since the Unix
-- epoch.
CREATE TABLE IF NOT EXISTS koder_elicitation_timers (
    id TEXT PRIMARY KEY,
    elicitation_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    stage BIGINT NOT NULL DEFAULT 0,
    notify TEXT NULL,
    created_at BIGINT NOT NULL,
    -- Never fired after this: the elicitation's expiry.
    deadline BIGINT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    delivered_at BIGINT NULL,
    failed_at BIGINT NULL,
    last_error TEXT NULL
);

-- What the worker claims: timers neither fired nor given up on, by due time.
CREATE INDEX IF NOT EXISTS koder_elicitation_timers_due
    ON koder_elicitation_timers (next_attempt_at)
    WHERE delivered_at IS NULL AND failed_at IS NULL;
