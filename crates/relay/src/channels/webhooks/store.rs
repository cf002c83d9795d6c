//! The webhook outbox's table (`koder_webhook_outbox`, see the `0004_webhook_outbox`
//! migrations): the row a change queues beside itself, and the row a claim returns. Rows given
//! up on stay until an operator looks.

use super::{escalated_row, outbox_row};
use crate::store::beside::{beside, Arg, Beside, BesideText};
use crate::store::outbox::{outbox_table, Claimed, OutboxTable, Queue, Queued};

/// The table's statements.
pub const TABLE: OutboxTable = outbox_table!("koder_webhook_outbox", "id, payload, attempts", true);

/// One row to queue: what the webhook module makes of an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxRow {
    /// The `webhook-id`, the same on every attempt.
    pub id: String,
    /// The elicitation it tells of.
    pub elicitation_id: String,
    /// The Standard Webhooks event type.
    pub event_type: &'static str,
    /// The JSON body, byte for byte as it will be signed.
    pub payload: String,
}

/// One claimed row: what to send, and how many attempts it has had, this one included.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Delivery {
    /// The `webhook-id`, the same on every attempt.
    pub id: String,
    /// The JSON body, byte for byte as signed.
    pub payload: String,
    /// Attempts so far, counting the one this claim is for.
    pub attempts: i64,
}

impl Claimed for Delivery {
    fn id(&self) -> &str {
        &self.id
    }
}

/// The insert of one row beside its change (`$5` its time); a repeat is a no-op.
const ENQUEUE: BesideText = beside!(
    "INSERT INTO koder_webhook_outbox \
     (id, elicitation_id, event_type, payload, created_at, attempts, next_attempt_at) \
     SELECT $1, $2, $3, $4, $5, 0, $5 FROM ",
    " WHERE TRUE ON CONFLICT (id) DO NOTHING"
);

/// Every change but URL-mode completion queues one webhook.
#[derive(Debug, Clone, Copy)]
pub struct WebhookQueue;

impl Queue for WebhookQueue {
    fn rows(&self, change: &Queued<'_>) -> Vec<Beside> {
        let row = match change.escalation() {
            Some((stage, _)) => escalated_row(change.event.id(), stage, change.at),
            None if change.reminded.is_some() => None,
            None => outbox_row(change.event),
        };
        let Some(row) = row else {
            return Vec::new();
        };
        vec![Beside {
            text: ENQUEUE,
            args: vec![
                Arg::Text(row.id),
                Arg::Text(row.elicitation_id),
                Arg::Text(row.event_type.to_string()),
                Arg::Text(row.payload),
                Arg::Int(change.at),
            ],
        }]
    }
}
