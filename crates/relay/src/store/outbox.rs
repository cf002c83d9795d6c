//! The outboxes, one table per channel (webhooks, Web Push, e-mail: see `crate::channels`), all
//! run by the statements written once here: the claim that leases due rows to one worker (on
//! PostgreSQL with `FOR UPDATE SKIP LOCKED`, so one replica sends each), what an attempt came
//! to, and retention. What a change queues to a channel is that channel's [`Queue`], which the
//! change runs beside itself in its own transaction ([`Outboxes`]).

use std::fmt::Debug;
use std::sync::Arc;

use sqlx::QueryBuilder;

use super::beside::Beside;
use super::db::{either, push_list, Database, Dialects};
use super::StoreError;
use koder_elicitation_relay_protocol::{EscalateStage, Notify};

use crate::events::{Event, EventKind};
use crate::record::NewElicitation;

/// What an attempt came to, as the outbox keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Done: sent.
    Delivered,
    /// Failed; try again at `next_attempt_at` (ms since the Unix epoch).
    Retry {
        /// When.
        next_attempt_at: i64,
        /// Why this one failed (short, no secrets).
        error: String,
    },
    /// Done without being sent (given up, or no longer worth sending): kept, marked failed,
    /// with the reason.
    GaveUp {
        /// Why.
        error: String,
    },
    /// The row is gone already (its channel deleted it): nothing to keep.
    Dropped,
}

/// The statements every outbox table runs alike: each has `id`, `attempts`, `next_attempt_at`,
/// `delivered_at`, `failed_at` and `last_error`. Written with [`outbox_table!`].
#[derive(Debug, Clone, Copy)]
pub struct OutboxTable {
    /// Leases due rows (`$1` now, `$2` the lease, `$3` how many), counting the attempt, and
    /// returns them.
    claim: Dialects,
    /// Marks rows delivered: the time and then the ids follow.
    delivered: &'static str,
    /// Schedules a row's next attempt (`$1` id, `$2` when, `$3` the error).
    retry: &'static str,
    /// Gives a row up (`$1` id, `$2` now, `$3` the error).
    gave_up: &'static str,
    /// Whether any row is due at `$1`.
    due: &'static str,
    /// Deletes up to `$2` rows done before `$1`: delivered ones, and given-up ones unless they
    /// stay for an operator.
    purge: &'static str,
}

/// `outbox_table!("koder_x_outbox", "id, …, attempts", keep_failed)`: the statements of the
/// outbox table, claims returning the columns named. A claim leases due rows and counts the
/// attempt; on PostgreSQL rows another replica is claiming are skipped, not waited for, and a
/// claimed row is no longer due, so each goes to one replica. With `keep_failed`, rows given up
/// on stay until an operator looks; otherwise retention deletes them too.
macro_rules! outbox_table {
    ($table:literal, $returning:literal, $keep_failed:tt) => {
        $crate::store::outbox::OutboxTable::new(
            $crate::store::db::Dialects {
                sqlite: outbox_table!(@claim $table, $returning, ""),
                postgres: outbox_table!(@claim $table, $returning, " FOR UPDATE SKIP LOCKED"),
            },
            [
                concat!("UPDATE ", $table, " SET delivered_at = "),
                concat!(
                    "UPDATE ", $table, " SET next_attempt_at = $2, last_error = $3 WHERE id = $1"
                ),
                concat!("UPDATE ", $table, " SET failed_at = $2, last_error = $3 WHERE id = $1"),
                concat!(
                    "SELECT EXISTS (SELECT 1 FROM ", $table, " WHERE delivered_at IS NULL ",
                    "AND failed_at IS NULL AND next_attempt_at <= $1)"
                ),
                concat!(
                    "DELETE FROM ", $table, " WHERE id IN (SELECT id FROM ", $table, " ",
                    "WHERE delivered_at < $1",
                    outbox_table!(@failed $keep_failed),
                    " LIMIT $2)"
                ),
            ],
        )
    };
    (@failed true) => { "" };
    (@failed false) => { " OR failed_at < $1" };
    (@claim $table:literal, $returning:literal, $lock:literal) => {
        concat!(
            "UPDATE ", $table, " SET attempts = attempts + 1, next_attempt_at = $1 + $2 ",
            "WHERE id IN (SELECT id FROM ", $table, " ",
            "WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= $1 ",
            "ORDER BY next_attempt_at LIMIT $3",
            $lock,
            ") RETURNING ",
            $returning
        )
    };
}
pub(crate) use outbox_table;

impl OutboxTable {
    /// The table's statements, as [`outbox_table!`] writes them: the claim, then delivered,
    /// retry, gave up, due and purge.
    pub const fn new(
        claim: Dialects,
        [delivered, retry, gave_up, due, purge]: [&'static str; 5],
    ) -> Self {
        OutboxTable {
            claim,
            delivered,
            retry,
            gave_up,
            due,
            purge,
        }
    }
}

/// A row a claim returns, in either dialect.
pub trait Claimed:
    for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
    + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>
    + Send
    + Sync
    + Unpin
{
    /// The row's id.
    fn id(&self) -> &str;
}

/// One channel's outbox: its table in the relay's database.
#[derive(Debug, Clone)]
pub struct Outbox {
    database: Database,
    table: &'static OutboxTable,
}

impl Outbox {
    /// The outbox kept in `table`.
    pub fn new(database: Database, table: &'static OutboxTable) -> Outbox {
        Outbox { database, table }
    }

    /// The database it is in, for what a channel reads beside its rows.
    pub(crate) fn database(&self) -> &Database {
        &self.database
    }

    /// Leases up to `limit` due rows for `lease_ms` (pushing their next attempt past it) and
    /// counts their attempt. Each row goes to one caller, across replicas too. With
    /// `when_due` (a table most changes queue nothing to) a reader answers "nothing is due"
    /// first, without taking the writer.
    pub async fn claim<T: Claimed>(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: i64,
        when_due: bool,
    ) -> Result<Vec<T>, StoreError> {
        if when_due {
            let due = either!(self.database.reader(), |pool| {
                sqlx::query_scalar::<_, bool>(self.table.due)
                    .bind(now_ms)
                    .fetch_one(pool)
                    .await?
            });
            if !due {
                return Ok(Vec::new());
            }
        }
        either!(self.database.writer(), |pool, dialect| {
            Ok(sqlx::query_as::<_, T>(dialect(self.table.claim))
                .bind(now_ms)
                .bind(lease_ms)
                .bind(limit)
                .fetch_all(pool)
                .await?)
        })
    }

    /// Keeps what each attempt of a batch came to (row id, outcome), in one transaction (one
    /// commit for the batch, not one per row).
    pub async fn record(
        &self,
        attempts: &[(String, Outcome)],
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let table = self.table;
        let delivered: Vec<&str> = attempts
            .iter()
            .filter(|(_, outcome)| *outcome == Outcome::Delivered)
            .map(|(id, _)| id.as_str())
            .collect();
        either!(self.database.writer(), |pool| {
            let mut transaction = pool.begin().await?;
            // Deliveries, the common outcome, in one statement.
            if !delivered.is_empty() {
                let mut update = QueryBuilder::new(table.delivered);
                update.push_bind(now_ms);
                update.push(", last_error = NULL WHERE id IN ");
                push_list(&mut update, delivered.iter().map(|id| id.to_string()));
                update.build().execute(&mut *transaction).await?;
            }
            for (id, outcome) in attempts {
                let (statement, at, error) = match outcome {
                    Outcome::Delivered | Outcome::Dropped => continue,
                    Outcome::Retry {
                        next_attempt_at,
                        error,
                    } => (table.retry, *next_attempt_at, error),
                    Outcome::GaveUp { error } => (table.gave_up, now_ms, error),
                };
                sqlx::query(statement)
                    .bind(id)
                    .bind(at)
                    .bind(error)
                    .execute(&mut *transaction)
                    .await?;
            }
            Ok(transaction.commit().await?)
        })
    }

    /// Deletes up to `limit` rows done before `before_ms` (retention; given-up rows too unless
    /// the table keeps them); returns how many.
    pub async fn purge(&self, before_ms: i64, limit: i64) -> Result<u64, StoreError> {
        either!(self.database.writer(), |pool| {
            let purged = sqlx::query(self.table.purge)
                .bind(before_ms)
                .bind(limit)
                .execute(pool)
                .await?;
            Ok(purged.rows_affected())
        })
    }
}

/// A question's reminder (`notify.remindAfter`) come due while it is still open, as the
/// channels hear of it: each address mailed again, each member's subscriptions pushed again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reminded {
    /// The create's `notify`, if it mailed anyone.
    pub notify: Option<Notify>,
}

/// A change, as a channel's [`Queue`] sees it.
#[derive(Debug, Clone, Copy)]
pub struct Queued<'a> {
    /// What the change made of its row (for a reminder: the question as it is).
    pub event: &'a Event,
    /// The create's own values, when the change is a create (its `notify`).
    pub created: Option<&'a NewElicitation>,
    /// The reminder, when the change is one: channels queue what it asks, and nothing for
    /// `event` itself.
    pub reminded: Option<&'a Reminded>,
    /// When the change was made (ms since the Unix epoch, the deployment's clock).
    pub at: i64,
}

impl Queued<'_> {
    /// When the change is a team question reaching an escalation stage
    /// ([`Elicitations::escalate`](crate::service::Elicitations::escalate)): the stage (from 1)
    /// and what the create said of it (its `audience`, its `notify`). A channel queues what a
    /// stage sends (its e-mails, its `elicitation.escalated` webhook) from this, in the
    /// escalation's own transaction; the push channel already queues the stage's pushes.
    pub fn escalation(&self) -> Option<(i64, &EscalateStage)> {
        if self.event.kind != EventKind::Escalated {
            return None;
        }
        let stage = self.event.record.escalated;
        let index = usize::try_from(stage.checked_sub(1)?).ok()?;
        let team = self.event.record.team.as_ref()?;
        Some((stage, team.escalate.get(index)?))
    }
}

/// What a change queues to one channel: the rows it writes beside itself, committed with it.
pub trait Queue: Send + Sync + Debug {
    /// The rows `change` writes beside itself (none for a change the channel ignores).
    fn rows(&self, change: &Queued<'_>) -> Vec<Beside>;
}

/// One channel the store knows: its outbox table (purged by retention whether or not the
/// channel is on) and, when it is on, what changes queue to it.
#[derive(Debug, Clone)]
pub struct OutboxChannel {
    /// The channel's name (`webhook`, `push`, `email`).
    pub name: &'static str,
    /// Its table.
    pub table: &'static OutboxTable,
    /// What changes queue to it; `None`: the channel is off.
    pub queue: Option<Arc<dyn Queue>>,
}

/// Every channel's outbox, and which ones changes queue to.
/// Its default (a store opened without a configuration) queues to the one channel every
/// configuration turns on, the questions' schedule (`crate::channels`).
#[derive(Debug, Clone)]
pub struct Outboxes {
    channels: Vec<OutboxChannel>,
}

impl Outboxes {
    /// Outboxes for `channels`.
    pub fn new(channels: Vec<OutboxChannel>) -> Outboxes {
        Outboxes { channels }
    }

    /// Whether `other` queues to the same channels (two servers sharing one store must).
    pub fn agree(&self, other: &Outboxes) -> bool {
        let on = |outboxes: &Outboxes| {
            let mut names: Vec<&str> = outboxes
                .channels
                .iter()
                .filter(|channel| channel.queue.is_some())
                .map(|channel| channel.name)
                .collect();
            names.sort_unstable();
            names
        };
        on(self) == on(other)
    }

    /// Whether changes queue to the channel `name` (it is on).
    pub fn queues_to(&self, name: &str) -> bool {
        self.channels
            .iter()
            .any(|channel| channel.name == name && channel.queue.is_some())
    }

    /// What the channels that are on queue for `change`.
    pub(super) fn rows(&self, change: &Queued<'_>) -> Vec<Beside> {
        self.channels
            .iter()
            .filter_map(|channel| channel.queue.as_ref())
            .flat_map(|queue| queue.rows(change))
            .collect()
    }

    /// Every channel's table, on or off.
    pub fn tables(&self) -> impl Iterator<Item = &'static OutboxTable> + '_ {
        self.channels.iter().map(|channel| channel.table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Record, Status};

    #[test]
    fn an_escalation_names_its_stage_and_what_the_create_said_of_it() {
        let mut record = Record::example("e1", Status::Pending, serde_json::json!({}));
        record.team = Some(
            serde_json::from_value(serde_json::json!({
                "audience": {"users": ["ana"]},
                "escalate": [
                    {"after": "1m", "audience": {"groups": ["leads"]}},
                    {"after": "2m", "audience": {"users": ["boss"]},
                     "notify": {"email": "boss@example.com"}}
                ]
            }))
            .unwrap(),
        );
        record.escalated = 2;
        let escalated = Event::new(EventKind::Escalated, record.clone());
        let queued = Queued {
            event: &escalated,
            created: None,
            reminded: None,
            at: 0,
        };
        let (stage, said) = queued.escalation().unwrap();
        assert_eq!(stage, 2);
        assert_eq!(said.audience.users, ["boss"]);
        assert!(said.notify.is_some());
        let settled = Event::new(EventKind::Settled, record);
        let other = Queued {
            event: &settled,
            ..queued
        };
        assert!(other.escalation().is_none());
    }
}
