-- The e-mail outbox: at most one row per elicitation whose host asked for an e-mail (the create
-- body's `notify.email`), inserted in the same transaction as the create. It keeps what sending
-- needs and nothing of the question: the address, the language the message is worded in, when
-- it is due (the create's time plus --email-after) and until when it is worth sending (the
-- elicitation's expiry). The message and its link are made when it is sent. Done rows (sent or
-- given up) are deleted by retention. Times are ms since the Unix epoch.
CREATE TABLE IF NOT EXISTS koder_email_outbox (
    -- The elicitation's id: one message per elicitation.
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    -- A BCP 47 tag; NULL: en-US.
    language TEXT NULL,
    created_at BIGINT NOT NULL,
    deadline BIGINT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    delivered_at BIGINT NULL,
    failed_at BIGINT NULL,
    last_error TEXT NULL
);

-- What the delivery worker claims: rows neither sent nor given up on, by due time.
CREATE INDEX IF NOT EXISTS koder_email_outbox_due
    ON koder_email_outbox (next_attempt_at)
    WHERE delivered_at IS NULL AND failed_at IS NULL;
