//! The e-mail outbox (`koder_email_outbox`, see the `0011_email_outbox` migrations): the row a
//! create queues beside itself when its host asked for an e-mail ([`enqueue`], committed with
//! the create), the claim that leases due rows to one worker (the same statements as the other
//! outboxes', [`OutboxTable`]), and retention. A row holds the address, the language and times:
//! the message is made from the elicitation when it is sent.

use std::time::Duration;

use super::beside::{beside, Arg, Beside, BesideText};
use super::db::{Database, Dialects};
use super::outbox::{outbox_table, OutboxTable, Outcome};
use super::StoreError;
use crate::record::{EmailNotice, NewElicitation};

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

impl EmailQueue {
    /// What a create of `new` asking for `notice` writes beside itself.
    pub(super) fn enqueue(&self, new: &NewElicitation, notice: &EmailNotice) -> Beside {
        let after = i64::try_from(self.after.as_millis()).unwrap_or(i64::MAX);
        Beside {
            text: ENQUEUE,
            args: vec![
                Arg::Text(new.id.clone()),
                Arg::Text(notice.address.clone()),
                Arg::OptionalText(notice.language.clone()),
                Arg::Int(new.created_at),
                Arg::Int(new.expires_at),
                Arg::Int(new.created_at.saturating_add(after)),
            ],
        }
    }
}

const EMAILS: OutboxTable = outbox_table!(
    "koder_email_outbox",
    "id, address, language, deadline, attempts"
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

/// The e-mail outbox.
#[derive(Debug, Clone)]
pub struct EmailOutboxStore {
    pub(super) database: Database,
}

impl EmailOutboxStore {
    /// Leases up to `limit` due e-mails for `lease_ms` and counts their attempt. Each row goes
    /// to one caller, across replicas too.
    pub async fn claim(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: i64,
    ) -> Result<Vec<EmailDelivery>, StoreError> {
        // Woken on every change, most of which queue nothing here.
        EMAILS
            .claim_when_due(&self.database, now_ms, lease_ms, limit)
            .await
    }

    /// Keeps what each attempt of a batch came to, in one transaction.
    pub async fn record(
        &self,
        attempts: &[(String, Outcome)],
        now_ms: i64,
    ) -> Result<(), StoreError> {
        EMAILS.record(&self.database, attempts, now_ms).await
    }

    /// Deletes up to `limit` e-mails done (sent or given up) before `before_ms` (retention);
    /// returns how many. They hold a person's address, which need not stay.
    pub async fn purge_done(&self, before_ms: i64, limit: i64) -> Result<u64, StoreError> {
        EMAILS.purge_done(&self.database, before_ms, limit).await
    }
}
