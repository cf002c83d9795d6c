//! Audit checkpoints: a hash over the head of every chain once the trail reached a `seq`, kept
//! in the database every `--audit-checkpoint-interval` and logged. A chain cut back by its
//! newest entries is still a valid chain; a checkpoint an operator kept elsewhere (from the log
//! or `GET /v1/audit/checkpoint`) is what `audit verify --checkpoint HASH` holds it against.
//!
//! The hash is SHA-256 (lowercase hex) of the UTF-8 JSON text `[seq, [[chain, chain_seq,
//! hash], …]]`: `seq` the largest the trail had, then per chain its last entry with a `seq` up
//! to it, ordered by chain key (bytewise), no whitespace.

use sha2::{Digest, Sha256};

/// A chain's head as a checkpoint covers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainHead {
    /// The chain's key.
    pub chain: String,
    /// Its entry's place in the chain.
    pub chain_seq: i64,
    /// That entry's hash.
    pub hash: String,
}

/// One checkpoint, as `GET /v1/audit/checkpoint` shows it.
pub use koder_elicitation_relay_protocol::AuditCheckpoint as Checkpoint;

/// The checkpoint over `heads` (any order) once the trail reached `seq`, made at `at`.
pub fn checkpoint_over(seq: i64, at: i64, mut heads: Vec<ChainHead>) -> Checkpoint {
    Checkpoint {
        seq,
        at,
        chains: i64::try_from(heads.len()).unwrap_or(i64::MAX),
        hash: heads_hash(seq, &mut heads),
    }
}

/// A checkpoint as selected: `seq, at, chains, hash`.
pub(crate) fn checkpoint_from_row((seq, at, chains, hash): (i64, i64, i64, String)) -> Checkpoint {
    Checkpoint {
        seq,
        at,
        chains,
        hash,
    }
}

/// The hash over `heads` (sorted here by chain key) once the trail reached `seq`.
pub fn heads_hash(seq: i64, heads: &mut [ChainHead]) -> String {
    heads.sort_by(|a, b| a.chain.as_bytes().cmp(b.chain.as_bytes()));
    // Tuples serialize as JSON arrays: the heads of many chains are hashed as they are
    // written, without one big string.
    let heads: Vec<_> = heads
        .iter()
        .map(|head| (&head.chain, head.chain_seq, &head.hash))
        .collect();
    let mut hasher = Sha256::new();
    // Writing to a hasher cannot fail, nor can serializing strings and integers.
    let _ = serde_json::to_writer(&mut hasher, &(seq, heads));
    format!("{:x}", hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::sha256_hex;

    fn head(chain: &str, chain_seq: i64, hash: &str) -> ChainHead {
        ChainHead {
            chain: chain.into(),
            chain_seq,
            hash: hash.into(),
        }
    }

    #[test]
    fn the_hash_is_sha256_of_the_documented_array_in_chain_order() {
        let heads = vec![head(r#"["bob","x"]"#, 2, "b2"), head("", 5, "s5")];
        let checkpoint = checkpoint_over(9, 100, heads.clone());
        let text = r#"[9,[["",5,"s5"],["[\"bob\",\"x\"]",2,"b2"]]]"#;
        assert_eq!(checkpoint.hash, sha256_hex(text.as_bytes()));
        assert_eq!(checkpoint.chains, 2);
        // Any order in, the same hash out; another head, another hash.
        let reversed: Vec<ChainHead> = heads.iter().rev().cloned().collect();
        assert_eq!(checkpoint_over(9, 5, reversed).hash, checkpoint.hash);
        let shorter = vec![head(r#"["bob","x"]"#, 1, "b1"), head("", 5, "s5")];
        assert_ne!(checkpoint_over(9, 100, shorter).hash, checkpoint.hash);
        assert_eq!(
            checkpoint_over(0, 1, Vec::new()).hash,
            sha256_hex(b"[0,[]]")
        );
    }
}
