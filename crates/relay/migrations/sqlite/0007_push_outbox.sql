-- The push outbox: one row per push to send to one of a person's subscriptions
-- (koder_push_subscriptions, migration 0006), inserted in the same transaction as the change it
-- tells of. It keeps only what sending needs: which subscription, which elicitation, what kind
-- of push, and until when it is worth sending. The message itself is read from the elicitation
-- when the push is sent, so nothing of it is stored here. Times are ms since the Unix epoch.
CREATE TABLE IF NOT EXISTS koder_push_outbox (
    id TEXT PRIMARY KEY,
    subscription_id TEXT NOT NULL,
    elicitation_id TEXT NOT NULL,
    -- 'elicitation' (a new question), 'reminder' (shortly before it expires) or 'settled'.
    kind TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    -- Never sent after this: the push's TTL counts down to it.
    deadline BIGINT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    delivered_at BIGINT NULL,
    failed_at BIGINT NULL,
    last_error TEXT NULL
);

-- What the delivery worker claims: rows neither delivered nor given up on, by due time.
CREATE INDEX IF NOT EXISTS koder_push_outbox_due
    ON koder_push_outbox (next_attempt_at)
    WHERE delivered_at IS NULL AND failed_at IS NULL;

-- A subscription's rows, deleted with it (404 or 410 from its push service).
CREATE INDEX IF NOT EXISTS koder_push_outbox_subscription
    ON koder_push_outbox (subscription_id);
