//! The push outbox's table (`koder_push_outbox`, see the `0007_push_outbox` migrations): the rows
//! a change queues inside its own transaction, one per subscription of the elicitation's person
//! ([`PushQueue`]), the row a claim returns, where a subscription sends to, and dropping the
//! pushes of a subscription its push service says is gone. A row holds ids, a kind and times:
//! the message is read from the elicitation when the push is sent.

use std::time::Duration;

use crate::audience::Audience;
use crate::events::{Event, EventKind};
use crate::store::beside::{Arg, Beside, BesideText};
use crate::store::db::{either, Database};
use crate::store::outbox::{outbox_table, Claimed, OutboxTable, Queue, Queued};
use crate::store::{Store, StoreError};
use crate::time::millis;

/// What a push tells of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushKind {
    /// A new question.
    Elicitation,
    /// The same question again, shortly before it expires (`--push-remind-before`).
    Reminder,
    /// The same question again, `notify.remindAfter` after the create.
    RemindAfter,
    /// The question is over (answered, withdrawn or expired): close its notification.
    Settled,
}

impl PushKind {
    /// The name the outbox keeps.
    pub fn as_str(self) -> &'static str {
        match self {
            PushKind::Elicitation => "elicitation",
            PushKind::Reminder => "reminder",
            PushKind::RemindAfter => "remind-after",
            PushKind::Settled => "settled",
        }
    }

    /// The kind a kept name stands for.
    pub fn parse(name: &str) -> Option<PushKind> {
        [
            PushKind::Elicitation,
            PushKind::Reminder,
            PushKind::RemindAfter,
            PushKind::Settled,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == name)
    }
}

/// How a close is worth sending after the question ended: long enough for a device that was
/// offline a while to have its notification closed, short enough that retries stop.
pub const SETTLED_DEADLINE: Duration = Duration::from_secs(3600);

/// Which pushes the changes queue: given to the store when Web Push is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PushQueue {
    /// One more push this long before a question expires, when set.
    pub remind_before: Option<Duration>,
}

/// One set of rows to queue for an event: one per subscription of the person.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PushRows {
    elicitation_id: String,
    kind: PushKind,
    /// When the first attempt is due.
    due: i64,
    /// Never sent after this.
    deadline: i64,
    /// Whose subscriptions are told.
    audience: Audience,
}

impl PushQueue {
    /// The rows an event queues at `now_ms`: a new question's push (and its reminder, when one
    /// is asked for and still ahead), or an ended one's close; nothing for URL-mode completion.
    /// When the question is `reminded` (`notify.remindAfter`), one more push instead.
    fn pushes_for(&self, event: &Event, reminded: bool, now_ms: i64) -> Vec<PushRows> {
        let record = &event.record;
        let rows = |kind, due, deadline| PushRows {
            elicitation_id: record.id.clone(),
            kind,
            due,
            deadline,
            audience: record.audience(),
        };
        if reminded {
            return vec![rows(PushKind::RemindAfter, now_ms, record.expires_at)];
        }
        match event.kind {
            EventKind::Created => {
                let mut queued = vec![rows(PushKind::Elicitation, now_ms, record.expires_at)];
                if let Some(before) = self.remind_before {
                    let due = record.expires_at.saturating_sub(millis(before));
                    if due > now_ms {
                        queued.push(rows(PushKind::Reminder, due, record.expires_at));
                    }
                }
                queued
            }
            EventKind::Settled | EventKind::Expired | EventKind::Withdrawn => {
                let ended = record.finished_at.unwrap_or(now_ms);
                let deadline = ended.saturating_add(millis(SETTLED_DEADLINE));
                vec![rows(PushKind::Settled, now_ms, deadline)]
            }
            // The stage's members who have no push for it yet (a row per subscription and
            // kind: those told before keep theirs).
            EventKind::Escalated => {
                let mut queued = rows(PushKind::Elicitation, now_ms, record.expires_at);
                queued.audience = record.audience();
                vec![queued]
            }
            EventKind::Complete => Vec::new(),
        }
    }
}

/// Queues one push of `$1` (the elicitation) of kind `$2` per subscription `s` its audience's
/// filter keeps (its values from `$6`), due at `$5`, never sent after `$4`, queued at `$3`. The
/// row's id names the elicitation, the kind and the subscription, so a repeat is a no-op.
const ENQUEUE_BEFORE: &str = "INSERT INTO koder_push_outbox \
     (id, subscription_id, elicitation_id, kind, created_at, deadline, attempts, next_attempt_at) \
     SELECT CAST($1 AS TEXT) || '.' || CAST($2 AS TEXT) || '.' || s.id, \
     s.id, $1, $2, $3, $4, 0, $5 FROM koder_push_subscriptions s, ";
/// The first placeholder of the audience's filter, after the five values above.
const FILTER_FIRST: usize = 6;

impl Queue for PushQueue {
    fn rows(&self, change: &Queued<'_>) -> Vec<Beside> {
        self.pushes_for(change.event, change.reminded.is_some(), change.at)
            .into_iter()
            .map(|rows| enqueue(rows, change.at))
            .collect()
    }
}

/// What queuing `rows` at `now_ms` writes beside its change.
fn enqueue(rows: PushRows, now_ms: i64) -> Beside {
    let filter = rows.audience.push_rows("s", FILTER_FIRST);
    let after = format!(" WHERE {} ON CONFLICT (id) DO NOTHING", filter.sql);
    let mut args = vec![
        Arg::Text(rows.elicitation_id),
        Arg::Text(rows.kind.as_str().to_string()),
        Arg::Int(now_ms),
        Arg::Int(rows.deadline),
        Arg::Int(rows.due),
    ];
    args.extend(filter.binds.into_iter().map(Arg::Text));
    Beside {
        text: BesideText::around(ENQUEUE_BEFORE, &after),
        args,
    }
}

/// The table's statements.
pub const TABLE: OutboxTable = outbox_table!(
    "koder_push_outbox",
    "id, subscription_id, elicitation_id, kind, deadline, attempts",
    false
);

/// One claimed push: what to send, and how many attempts it has had, this one included.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PushDelivery {
    /// The row's id.
    pub id: String,
    /// The subscription it goes to.
    pub subscription_id: String,
    /// The elicitation it tells of.
    pub elicitation_id: String,
    /// `elicitation`, `reminder` or `settled` ([`PushKind`]).
    pub kind: String,
    /// Never sent after this (ms since the Unix epoch).
    pub deadline: i64,
    /// Attempts so far, counting the one this claim is for.
    pub attempts: i64,
}

/// Where a subscription's pushes go, and the keys they are encrypted to.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PushTarget {
    /// The push service's URL for this browser.
    pub endpoint: String,
    /// The browser's P-256 key, base64url.
    pub p256dh: String,
    /// The browser's auth secret, base64url.
    pub auth: String,
    /// The BCP 47 tag its pushes are worded in; `None`: en-US.
    pub language: Option<String>,
}

impl Claimed for PushDelivery {
    fn id(&self) -> &str {
        &self.id
    }
}

/// What the push channel reads and deletes beside its outbox.
#[derive(Debug, Clone)]
pub struct PushStore {
    database: Database,
}

impl PushStore {
    /// What the push channel reads beside its outbox in `store`.
    pub fn of(store: &Store) -> PushStore {
        PushStore {
            database: store.outbox(&TABLE).database().clone(),
        }
    }

    /// Where the subscription `id` sends to; `None` when it is gone.
    pub async fn target(&self, id: &str) -> Result<Option<PushTarget>, StoreError> {
        either!(self.database.reader(), |pool| {
            Ok(sqlx::query_as::<_, PushTarget>(
                "SELECT endpoint, p256dh, auth, language FROM koder_push_subscriptions \
                 WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(pool)
            .await?)
        })
    }

    /// Deletes every push queued for the subscription `id` (removed: its push service said it
    /// is gone).
    pub async fn drop_pushes_to(&self, id: &str) -> Result<(), StoreError> {
        either!(self.database.writer(), |pool| {
            sqlx::query("DELETE FROM koder_push_outbox WHERE subscription_id = $1")
                .bind(id)
                .execute(pool)
                .await?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Record, Status, Tenant};
    use serde_json::json;

    fn record(status: Status, finished_at: Option<i64>) -> Record {
        Record {
            id: "e1".into(),
            tenant: Tenant {
                user_id: "u".into(),
                workspace_id: "w".into(),
                conversation_id: "c".into(),
            },
            request: json!({"message": "hi"}),
            server_name: None,
            created_at: 1_000,
            expires_at: 601_000,
            status,
            result: None,
            finished_at,
            completed: false,
            team: None,
            escalated: 0,
            answered_by: None,
        }
    }

    #[test]
    fn a_create_queues_its_push_and_a_reminder_still_ahead() {
        let created = Event::new(EventKind::Created, record(Status::Pending, None));
        let plain = PushQueue::default().pushes_for(&created, false, 1_000);
        assert_eq!(plain.len(), 1);
        assert_eq!(plain[0].kind, PushKind::Elicitation);
        assert_eq!((plain[0].due, plain[0].deadline), (1_000, 601_000));
        let reminding = PushQueue {
            remind_before: Some(Duration::from_secs(60)),
        };
        let rows = reminding.pushes_for(&created, false, 1_000);
        assert_eq!(rows[1].kind, PushKind::Reminder);
        assert_eq!((rows[1].due, rows[1].deadline), (541_000, 601_000));
        // A reminder that would be due at once is not queued.
        let late = PushQueue {
            remind_before: Some(Duration::from_secs(600)),
        };
        assert_eq!(late.pushes_for(&created, false, 1_000).len(), 1);
    }

    #[test]
    fn an_end_queues_a_close_and_completion_nothing() {
        let settled = Event::new(EventKind::Settled, record(Status::Settled, Some(5_000)));
        let rows = PushQueue::default().pushes_for(&settled, false, 5_000);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].kind, PushKind::Settled);
        assert_eq!(rows[0].deadline, 5_000 + 3_600_000);
        let complete = Event::new(EventKind::Complete, record(Status::Pending, None));
        assert!(PushQueue::default()
            .pushes_for(&complete, false, 5_000)
            .is_empty());
        assert_eq!(PushKind::parse("reminder"), Some(PushKind::Reminder));
        assert_eq!(PushKind::parse("other"), None);
    }
}
