-- Audit entries are sealed after their change, not in it: a change records what happened in
-- koder_audit_pending (its own transaction, no lock on the chain's head), and the sealer moves
-- pending entries, oldest first, into their chains (chain_seq, prev_hash, hash) and deletes them
-- here. The chain's key is computed by the sealer from user_id and workspace_id.
CREATE TABLE koder_audit_pending (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at BIGINT NOT NULL,
    elicitation_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    digest TEXT NOT NULL
);
