-- The webhook outbox: one row per event to POST to --webhook-url, inserted in the same
-- transaction as the change it tells of, so a crash between the change and the delivery loses
-- nothing. `id` is the webhook-id every attempt carries. Times are ms since the Unix epoch.
CREATE TABLE IF NOT EXISTS koder_webhook_outbox (
    id TEXT PRIMARY KEY,
    elicitation_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    delivered_at BIGINT NULL,
    failed_at BIGINT NULL,
    last_error TEXT NULL
);

-- What the delivery worker claims: rows neither delivered nor given up on, by due time.
CREATE INDEX IF NOT EXISTS koder_webhook_outbox_due
    ON koder_webhook_outbox (next_attempt_at)
    WHERE delivered_at IS NULL AND failed_at IS NULL;

-- What retention purges: delivered rows by delivery time.
CREATE INDEX IF NOT EXISTS koder_webhook_outbox_delivered
    ON koder_webhook_outbox (delivered_at)
    WHERE delivered_at IS NOT NULL;
