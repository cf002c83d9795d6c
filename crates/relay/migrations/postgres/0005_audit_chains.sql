-- One audit chain per tenant (user and workspace), so a change locks only its tenant's head
-- (no more advisory lock shared by every change of every replica), and checkpoints over every
-- chain's head.
--
-- The entries written so far stay one chain, keyed '' (the single chain), in their order and
-- with their hashes: chain_seq is their seq. A new entry's chain is the JSON array
-- [user_id, workspace_id].
--
-- seq (the order GET /v1/audit pages in) becomes NULL at insert and is given after commit, in
-- batches, by whoever reads the trail: a page then never skips an entry that commits late.
ALTER TABLE koder_audit
    ADD COLUMN chain TEXT NOT NULL DEFAULT '',
    ADD COLUMN chain_seq BIGINT NOT NULL DEFAULT 0;
UPDATE koder_audit SET chain_seq = seq;
ALTER TABLE koder_audit
    DROP CONSTRAINT koder_audit_pkey,
    ALTER COLUMN seq DROP NOT NULL,
    ADD CONSTRAINT koder_audit_pkey PRIMARY KEY (chain, chain_seq);
CREATE UNIQUE INDEX koder_audit_seq ON koder_audit (seq);
CREATE INDEX koder_audit_chain_order ON koder_audit (chain, seq);
CREATE INDEX koder_audit_unsequenced ON koder_audit (chain, chain_seq) WHERE seq IS NULL;

-- Each chain's head: how many entries it has. A change takes its next place here, which locks
-- the row until the change commits.
CREATE TABLE koder_audit_heads (
    chain TEXT PRIMARY KEY,
    chain_seq BIGINT NOT NULL
);
INSERT INTO koder_audit_heads (chain, chain_seq)
    SELECT '', max(seq) FROM koder_audit HAVING count(*) > 0;

-- Checkpoints: the hash over every chain's head once the trail reached seq (see the relay's
-- audit_checkpoint module).
CREATE TABLE koder_audit_checkpoints (
    seq BIGINT PRIMARY KEY,
    at BIGINT NOT NULL,
    chains BIGINT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX koder_audit_checkpoints_hash ON koder_audit_checkpoints (hash);
