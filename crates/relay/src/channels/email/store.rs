//! The e-mail outbox's table (`koder_email_outbox`, see the `0011_email_outbox` migrations): the
//! row a create queues beside itself when its host asked for an e-mail ([`EmailQueue`],
//! committed with the create), and the row a claim returns. A row holds the address, the
//! language and times: the message is made from the elicitation when it is sent.

use std::time::Duration;

use koder_elicitation_relay_protocol::Notify;

use crate::record::NewElicitation;
use crate::store::beside::{beside, Arg, Beside, BesideText};
use crate::store::outbox::{outbox_table, Claimed, OutboxTable, Queue, Queued};
use crate::time::millis;

/// Which e-mails creates queue: given to the store when e-mail is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EmailQueue {
    /// How long after the create the message is due (`--email-after`).
    pub after: Duration,
}

/// The insert of a create's e-mail beside it (`$1` the elicitation, `$2` the address, `$3` the
/// language, `$4` now, `$5` the deadline, `$6` when it is due); a repeat is a no-op.
const ENQUEUE: BesideText = beside!(
    "INSERT INTO koder_email_outbox \
     (id, address, language, created_at, deadline, attempts, next_attempt_at) \
     SELECT $1, $2, $3, $4, $5, 0, $6 FROM ",
    " WHERE TRUE ON CONFLICT (id) DO NOTHING"
);

impl Queue for EmailQueue {
    fn rows(&self, change: &Queued<'_>) -> Vec<Beside> {
        let Some(new) = change.created else {
            return Vec::new();
        };
        new.notify
            .iter()
            .map(|notify| self.enqueue(new, notify))
            .collect()
    }
}

impl EmailQueue {
    /// What a create of `new` asking for an e-mail (`notify`) writes beside itself.
    fn enqueue(&self, new: &NewElicitation, notify: &Notify) -> Beside {
        let after = millis(self.after);
        Beside {
            text: ENQUEUE,
            args: vec![
                Arg::Text(new.id.clone()),
                Arg::Text(notify.email.clone()),
                Arg::OptionalText(notify.language.clone()),
                Arg::Int(new.created_at),
                Arg::Int(new.expires_at),
                Arg::Int(new.created_at.saturating_add(after)),
            ],
        }
    }
}

/// The table's statements.
pub const TABLE: OutboxTable = outbox_table!(
    "koder_email_outbox",
    "id, address, language, deadline, attempts",
    false
);

/// One claimed e-mail: where it goes, and how many attempts it has had, this one included.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct EmailDelivery {
    /// The elicitation it tells of (also the row's id).
    pub id: String,
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
