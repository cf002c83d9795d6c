//! The e-mail outbox's table (`koder_email_outbox`, see the `0011_email_outbox` migrations): the
//! row a create queues beside itself when its host asked for an e-mail ([`EmailQueue`],
//! committed with the create, one per address), the rows a fired timer queues (a reminder, an
//! escalation stage's addresses), and the row a claim returns. A row holds the address, the
//! language and times: the message is made from the elicitation when it is sent.

use std::time::Duration;

use crate::store::beside::{beside, Arg, Beside, BesideText};
use crate::store::outbox::{outbox_table, Claimed, OutboxTable, Queue, Queued};
use crate::time::millis;

/// Which e-mails creates queue: given to the store when e-mail is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EmailQueue {
    /// How long after the create the message is due (`--email-after`).
    pub after: Duration,
}

/// The insert of one message beside its change (`$1` the row, `$2` the elicitation, `$3` its
/// kind, `$4` the address, `$5` the language, `$6` now, `$7` the deadline, `$8` when it is
/// due); a repeat is a no-op.
const ENQUEUE: BesideText = beside!(
    "INSERT INTO koder_email_outbox \
     (id, elicitation_id, kind, address, language, created_at, deadline, attempts, \
     next_attempt_at) \
     SELECT $1, $2, $3, $4, $5, $6, $7, 0, $8 FROM ",
    " WHERE TRUE ON CONFLICT (id) DO NOTHING"
);

/// The kind of a question's first message.
pub const QUESTION: &str = "question";
/// The kind of its reminder (its subject says so); an escalation stage's message is
/// `stage<k>`.
pub const REMINDER: &str = "reminder";

impl Queue for EmailQueue {
    fn rows(&self, change: &Queued<'_>) -> Vec<Beside> {
        let (notify, kind, due) = if let Some(reminded) = change.reminded {
            (reminded.notify.as_ref(), REMINDER.to_string(), change.at)
        } else if let Some((stage, escalation)) = change.escalation() {
            (
                escalation.notify.as_ref(),
                format!("stage{stage}"),
                change.at,
            )
        } else if let Some(new) = change.created {
            let due = new.created_at.saturating_add(millis(self.after));
            (new.notify.as_ref(), QUESTION.to_string(), due)
        } else {
            return Vec::new();
        };
        let Some(notify) = notify else {
            return Vec::new();
        };
        let record = &change.event.record;
        notify
            .email
            .iter()
            .enumerate()
            .map(|(index, address)| Beside {
                text: ENQUEUE,
                args: vec![
                    Arg::Text(row_id(&record.id, &kind, index, address)),
                    Arg::Text(record.id.clone()),
                    Arg::Text(kind.clone()),
                    Arg::Text(address.clone()),
                    Arg::OptionalText(notify.language.clone()),
                    Arg::Int(change.at),
                    Arg::Int(record.expires_at),
                    Arg::Int(due),
                ],
            })
            .collect()
    }
}

/// The id of the message of `kind` about `elicitation_id` to `address` (the `index`-th of its
/// list): one per address and kind, so a repeat is a no-op. The question's message to its first
/// address has the elicitation's id, as when a question had one address.
pub fn row_id(elicitation_id: &str, kind: &str, index: usize, address: &str) -> String {
    if kind == QUESTION && index == 0 {
        return elicitation_id.to_string();
    }
    format!("{elicitation_id}.{kind}.{}", address.to_ascii_lowercase())
}

/// What a message's link is made for: the elicitation and the address, not the kind, so a
/// reminder carries the same link as the first message.
pub fn link_key(elicitation_id: &str, address: &str) -> String {
    format!("{elicitation_id}/{}", address.to_ascii_lowercase())
}

/// The table's statements.
pub const TABLE: OutboxTable = outbox_table!(
    "koder_email_outbox",
    "id, COALESCE(elicitation_id, id) AS elicitation_id, kind, address, language, deadline, \
     attempts",
    false
);

/// One claimed e-mail: where it goes, and how many attempts it has had, this one included.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct EmailDelivery {
    /// The row's id.
    pub id: String,
    /// The elicitation it tells of.
    pub elicitation_id: String,
    /// What it is: the question ([`QUESTION`]), its reminder ([`REMINDER`]), or an escalation
    /// stage's message (`stage<k>`).
    pub kind: String,
    /// The person's address.
    pub address: String,
    /// The BCP 47 tag it is worded in; `None`: en-US.
    pub language: Option<String>,
    /// Never sent after this (ms since the Unix epoch): the elicitation's expiry.
    pub deadline: i64,
    /// Attempts so far, counting the one this claim is for.
    pub attempts: i64,
}

impl Claimed for EmailDelivery {
    fn id(&self) -> &str {
        &self.id
    }
}
