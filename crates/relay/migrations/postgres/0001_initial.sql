-- The schema the relay kept before versioned migrations, statement for statement. IF NOT EXISTS
-- lets this first migration adopt a database that relay made (the store brings an older shape
-- up to this one first): on such a database it creates only what is missing.

CREATE TABLE IF NOT EXISTS koder_elicitations (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    request TEXT NOT NULL,
    server_name TEXT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    status TEXT NOT NULL,
    result TEXT NULL,
    finished_at BIGINT NULL,
    completed BOOLEAN NOT NULL DEFAULT false,
    idempotency_key TEXT NULL,
    request_digest TEXT NULL
);

CREATE INDEX IF NOT EXISTS koder_elicitations_tenant
    ON koder_elicitations (user_id, workspace_id, status);

CREATE INDEX IF NOT EXISTS koder_elicitations_due
    ON koder_elicitations (status, expires_at);

CREATE UNIQUE INDEX IF NOT EXISTS koder_elicitations_idempotency
    ON koder_elicitations (user_id, workspace_id, conversation_id, idempotency_key);

-- One-use stream tickets, kept by the SHA-256 digest of each (never the ticket itself).
CREATE TABLE IF NOT EXISTS koder_stream_tickets (
    digest TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    conversation_id TEXT NULL,
    token_expires_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS koder_stream_tickets_person
    ON koder_stream_tickets (user_id, workspace_id, expires_at);
