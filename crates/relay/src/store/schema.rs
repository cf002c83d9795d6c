//! The tables both stores keep, in one copy: the elicitations table (its one flag column typed
//! per dialect), its indexes, and the stream tickets.

/// `CREATE TABLE IF NOT EXISTS <name> (…)` for the elicitations table, with `$flag` the column
/// type of a boolean in the store's dialect (SQLite has no BOOLEAN). Idempotency keys are unique
/// per tenant (an index in [`INDEXES`]), not across the table.
macro_rules! elicitations_table {
    ($name:literal, $flag:literal) => {
        concat!(
            "CREATE TABLE IF NOT EXISTS ",
            $name,
            " (
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
        completed ",
            $flag,
            ",
        idempotency_key TEXT NULL,
        request_digest TEXT NULL
    )"
        )
    };
}
pub(super) use elicitations_table;

/// The elicitations table's indexes.
pub(super) const INDEXES: [&str; 3] = [
    "CREATE INDEX IF NOT EXISTS koder_elicitations_tenant
        ON koder_elicitations (user_id, workspace_id, status)",
    "CREATE INDEX IF NOT EXISTS koder_elicitations_due
        ON koder_elicitations (status, expires_at)",
    "CREATE UNIQUE INDEX IF NOT EXISTS koder_elicitations_idempotency
        ON koder_elicitations (user_id, workspace_id, conversation_id, idempotency_key)",
];

/// One-use stream tickets, kept by the SHA-256 digest of each (never the ticket itself).
pub(super) const TICKET_SCHEMA: [&str; 2] = [
    "CREATE TABLE IF NOT EXISTS koder_stream_tickets (
        digest TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        workspace_id TEXT NOT NULL,
        conversation_id TEXT NULL,
        token_expires_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
    )",
    "CREATE INDEX IF NOT EXISTS koder_stream_tickets_person
        ON koder_stream_tickets (user_id, workspace_id, expires_at)",
];
