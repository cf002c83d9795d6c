-- Web Push subscriptions: each person's (user in a workspace) browsers, as
-- PushSubscription.toJSON() gave them. The endpoint is the push service's URL (on the relay's
-- allow list when stored); p256dh and auth are the browser's keys the payload is encrypted
-- for. One row per person and endpoint: subscribing again is the same subscription.
-- created_at is ms since the Unix epoch.
CREATE TABLE koder_push_subscriptions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX koder_push_subscriptions_person_endpoint
    ON koder_push_subscriptions (user_id, workspace_id, endpoint);
