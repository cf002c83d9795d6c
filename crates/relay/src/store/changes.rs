//! Every change to an elicitation, written once for both dialects: its conditional statement
//! (so exactly one writer wins), and beside it, for the row it changed, the audit record and
//! what each channel that is on queues for it (`crate::channels`). All of it commits together:
//! - on PostgreSQL, a change whose row is known beforehand (all but an expiry sweep) is one
//!   statement: the change, with what it writes beside it as CTEs over its `RETURNING`, and
//!   `pg_notify` on the replicas' channel. One round trip, and the row's lock is held only
//!   while that statement runs;
//! - otherwise (SQLite's group committer, an expiry sweep on PostgreSQL) the statement runs
//!   first, then what each changed row writes beside it, in the committer's transaction.

use std::sync::Arc;

use serde_json::Value;
use sqlx::postgres::PgPool;
use sqlx::{AssertSqlSafe, Row};
use tokio::sync::Notify;

use super::beside::{bound, Arg, Beside, BesideText};
use super::clock::Clock;
use super::db::{either, Connection, Either};
use super::journal;
use super::outbox::{Outboxes, Queued};
use super::postgres::EVENTS_CHANNEL;
use super::rows::{record_from_row, same_request};
use super::{Created, NewElicitation, Record, Status, StoreError};
use crate::audience::TeamStages;
use crate::audit::Recorded;
use crate::events::{Event, EventKind};
use crate::record::Actor;
use koder_elicitation_relay_protocol::AnsweredBy;

/// One change to make.
#[derive(Debug, Clone)]
pub(super) enum Change {
    /// A new pending elicitation, idempotent by its key.
    Create {
        new: Box<NewElicitation>,
        actor: Actor,
    },
    /// A pending one settled, withdrawn or expired, at `at` (settled by `answered_by`).
    Finish {
        record: Box<Record>,
        status: Status,
        result: Value,
        at: i64,
        actor: Actor,
        answered_by: Option<AnsweredBy>,
    },
    /// A pending team question reaching escalation stage `stage` (from the one before it).
    Escalate {
        record: Box<Record>,
        stage: i64,
        at: i64,
        actor: Actor,
    },
    /// URL-mode completion.
    Complete { record: Box<Record>, actor: Actor },
    /// Every pending one due at `at`, expired.
    ExpireDue { at: i64 },
}

/// What a change came to.
#[derive(Debug, Clone)]
pub(super) enum Applied {
    /// A create's outcome.
    Created(Created),
    /// The events of the rows it changed (none when it was not this change's to make).
    Changed(Vec<Event>),
}

/// What every change needs besides itself.
#[derive(Debug, Clone)]
pub(super) struct ChangeContext {
    /// This replica's id in its notifications (PostgreSQL; unused on SQLite).
    pub(super) origin: String,
    /// The deployment's clock.
    pub(super) clock: Clock,
    /// What each channel that is on queues for a change.
    pub(super) outboxes: Outboxes,
    /// Told after every change that recorded audit entries, so the sealer seals them.
    pub(super) recorded: Arc<Notify>,
}

/// Every column of a record, for `SELECT` and `RETURNING`.
macro_rules! record_columns {
    () => {
        "id, user_id, workspace_id, conversation_id, request, server_name, \
         created_at, expires_at, status, result, finished_at, completed, audience, escalated, \
         answered_by"
    };
}
pub(super) use record_columns;

/// A changing statement, returning the changed rows; `params` values of its own, then (on
/// PostgreSQL) the origin and the kind of the notification.
struct Changing {
    statement: &'static str,
    params: usize,
}

const INSERT: Changing = Changing {
    statement: "INSERT INTO koder_elicitations (id, user_id, workspace_id, conversation_id, \
     request, server_name, created_at, expires_at, status, result, finished_at, completed, \
     idempotency_key, request_digest, audience) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', NULL, NULL, FALSE, $9, $10, $11) \
     ON CONFLICT DO NOTHING",
    params: 11,
};

const FINISH: Changing = Changing {
    statement: "UPDATE koder_elicitations SET status = $1, result = $2, finished_at = $3, \
     answered_by = $5 WHERE id = $4 AND status = 'pending'",
    params: 5,
};

/// Stage `$1` reached, only from the stage before it and only while pending: once each.
const ESCALATE: Changing = Changing {
    statement: "UPDATE koder_elicitations SET escalated = $1 \
     WHERE id = $2 AND escalated = $1 - 1 AND status = 'pending'",
    params: 2,
};

const COMPLETE: Changing = Changing {
    statement: "UPDATE koder_elicitations SET completed = TRUE WHERE id = $1 AND NOT completed",
    params: 1,
};

const EXPIRE_DUE: Changing = Changing {
    statement: "UPDATE koder_elicitations \
     SET status = 'expired', result = '{\"action\":\"cancel\"}', finished_at = $1 \
     WHERE status = 'pending' AND expires_at <= $1",
    params: 1,
};

impl Changing {
    /// The statement alone: on PostgreSQL also notifying the replicas of each changed row.
    /// Only the id travels: each replica reads the record once.
    fn alone(&self, postgres: bool) -> String {
        self.joined(postgres, &[])
    }

    /// The statement with `besides` as CTEs over its `RETURNING` (PostgreSQL; on SQLite the
    /// statement alone, as it has no CTEs that write).
    fn joined(&self, postgres: bool, besides: &[Beside]) -> String {
        let returning = format!("{} RETURNING {}", self.statement, record_columns!());
        if !postgres {
            return returning;
        }
        let mut text = format!("WITH changed AS ({returning})");
        // Each beside's own $1… follow the statement's values, the origin and the kind.
        let mut taken = self.params + 2;
        for (index, beside) in besides.iter().enumerate() {
            text.push_str(&format!(
                ", beside_{index} AS ({})",
                renumbered(&beside.text.joined, taken)
            ));
            taken += beside.args.len();
        }
        text.push_str(&format!(
            " SELECT {}, pg_notify('{EVENTS_CHANNEL}', json_build_object('origin', ${}::text, \
             'kind', ${}::text, 'id', id)::text)::text AS notified FROM changed",
            record_columns!(),
            self.params + 1,
            self.params + 2
        ));
        text
    }
}

/// `text` with every `$N` moved to `$(N + by)`.
fn renumbered(text: &str, by: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        match rest[..digits].parse::<usize>() {
            Ok(number) => out.push_str(&(number + by).to_string()),
            Err(_) => out.push_str(&rest[..digits]),
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

/// The record a tenant's idempotency key made, with the digest of its request.
const BY_IDEMPOTENCY_KEY: &str = concat!(
    "SELECT ",
    record_columns!(),
    ", request_digest FROM koder_elicitations WHERE user_id = $1 AND workspace_id = $2 ",
    "AND conversation_id = $3 AND idempotency_key = $4"
);

impl Change {
    /// The event each row it changes announces.
    fn kind(&self) -> Result<EventKind, StoreError> {
        match self {
            Change::Create { .. } => Ok(EventKind::Created),
            Change::Finish { status, .. } => EventKind::finishing(*status)
                .ok_or_else(|| StoreError("cannot finish an elicitation as pending".into())),
            Change::Complete { .. } => Ok(EventKind::Complete),
            Change::ExpireDue { .. } => Ok(EventKind::Expired),
            Change::Escalate { .. } => Ok(EventKind::Escalated),
        }
    }

    /// Who made it, as the audit trail records it.
    fn actor(&self) -> &Actor {
        match self {
            Change::Create { actor, .. }
            | Change::Finish { actor, .. }
            | Change::Escalate { actor, .. }
            | Change::Complete { actor, .. } => actor,
            Change::ExpireDue { .. } => &Actor::Relay,
        }
    }

    /// When it was made, by the deployment's clock.
    fn at(&self, clock: &Clock) -> i64 {
        match self {
            Change::Create { new, .. } => new.created_at,
            Change::Finish { at, .. } | Change::Escalate { at, .. } | Change::ExpireDue { at } => {
                *at
            }
            Change::Complete { .. } => clock.now_ms(),
        }
    }

    /// Its statement and that statement's values.
    fn statement(&self) -> (&'static Changing, Vec<Arg>) {
        match self {
            Change::Create { new, .. } => (
                &INSERT,
                vec![
                    Arg::Text(new.id.clone()),
                    Arg::Text(new.tenant.user_id.clone()),
                    Arg::Text(new.tenant.workspace_id.clone()),
                    Arg::Text(new.tenant.conversation_id.clone()),
                    Arg::Text(new.request.to_string()),
                    Arg::OptionalText(new.server_name.clone()),
                    Arg::Int(new.created_at),
                    Arg::Int(new.expires_at),
                    Arg::OptionalText(new.idempotency_key.clone()),
                    Arg::OptionalText(new.request_digest.clone()),
                    Arg::OptionalText(new.team.as_ref().map(json_text)),
                ],
            ),
            Change::Finish {
                record,
                status,
                result,
                at,
                answered_by,
                ..
            } => (
                &FINISH,
                vec![
                    Arg::Text(status.as_str().to_string()),
                    Arg::Text(result.to_string()),
                    Arg::Int(*at),
                    Arg::Text(record.id.clone()),
                    Arg::OptionalText(answered_by.as_ref().map(json_text)),
                ],
            ),
            Change::Escalate { record, stage, .. } => (
                &ESCALATE,
                vec![Arg::Int(*stage), Arg::Text(record.id.clone())],
            ),
            Change::Complete { record, .. } => (&COMPLETE, vec![Arg::Text(record.id.clone())]),
            Change::ExpireDue { at } => (&EXPIRE_DUE, vec![Arg::Int(*at)]),
        }
    }

    /// The one event it makes if it changes its row, known before it runs: all but an expiry
    /// sweep. (What it writes beside itself is the same whatever else the row holds by then:
    /// the change sets what those inserts read, and the rest of a record never changes.)
    fn expected(&self, kind: EventKind) -> Option<Event> {
        let record = match self {
            Change::Create { new, .. } => Record {
                id: new.id.clone(),
                tenant: new.tenant.clone(),
                request: new.request.clone(),
                server_name: new.server_name.clone(),
                created_at: new.created_at,
                expires_at: new.expires_at,
                status: Status::Pending,
                result: None,
                finished_at: None,
                completed: false,
                team: new.team.clone(),
                escalated: 0,
                answered_by: None,
            },
            Change::Finish {
                record,
                status,
                result,
                at,
                answered_by,
                ..
            } => Record {
                status: *status,
                result: Some(result.clone()),
                finished_at: Some(*at),
                answered_by: answered_by.clone(),
                ..(**record).clone()
            },
            Change::Escalate { record, stage, .. } => Record {
                escalated: *stage,
                ..(**record).clone()
            },
            Change::Complete { record, .. } => Record {
                completed: true,
                ..(**record).clone()
            },
            Change::ExpireDue { .. } => return None,
        };
        Some(Event::new(kind, record))
    }
}

/// The values of a change's notification after its own: this replica and the event's kind
/// (bound on both dialects, used on PostgreSQL).
fn notification(kind: EventKind, context: &ChangeContext) -> [Arg; 2] {
    [
        Arg::Text(context.origin.clone()),
        Arg::Text(kind.event_name().to_string()),
    ]
}

/// What `event`, made by `change` at `at`, writes beside it: its audit record, and what each
/// channel that is on queues for it.
fn besides(event: &Event, change: &Change, at: i64, context: &ChangeContext) -> Vec<Beside> {
    let created = match change {
        Change::Create { new, .. } => Some(&**new),
        _ => None,
    };
    let queued = Queued {
        event,
        created,
        reminded: None,
        at,
    };
    let mut besides = vec![journal::record(Recorded::of(event, change.actor(), at))];
    if let Some(team) = created.and_then(|new| new.team.as_ref()) {
        besides.push(audience_rows(&event.record.id, team));
    }
    besides.extend(context.outboxes.rows(&queued));
    besides
}

/// A team question's audience rows (`koder_elicitation_audience`), written with its create.
fn audience_rows(id: &str, team: &TeamStages) -> Beside {
    let rows = team.rows();
    let mut args = vec![Arg::Text(id.to_string())];
    let values: Vec<String> = rows
        .into_iter()
        .map(|(stage, kind, name)| {
            args.push(Arg::Text(name));
            // The stage and kind are the relay's own numbers and words, not a caller's text.
            format!("({stage}, '{kind}', CAST(${} AS TEXT))", args.len())
        })
        .collect();
    Beside {
        text: BesideText::around(
            "INSERT INTO koder_elicitation_audience (elicitation_id, stage, kind, name) \
             SELECT $1, v.column1, v.column2, v.column3 FROM ",
            &format!(", (VALUES {}) AS v", values.join(", ")),
        ),
        args,
    }
}

/// A stored JSON column's text.
fn json_text(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}

/// Makes `change` on `connection`, inside the caller's transaction: the statement, then what
/// each changed row writes beside it. Committing is the caller's.
pub(super) async fn apply(
    connection: Connection<'_>,
    change: &Change,
    context: &ChangeContext,
) -> Result<Applied, StoreError> {
    let kind = change.kind()?;
    let at = change.at(&context.clock);
    let (statement, args) = change.statement();
    let postgres = matches!(connection, Either::Postgres(_));
    either!(connection, |db| {
        let text = statement.alone(postgres);
        let rows = bound(
            sqlx::query(AssertSqlSafe(text)),
            args.into_iter().chain(notification(kind, context)),
        )
        .fetch_all(&mut *db)
        .await?;
        let events = events_of(kind, &rows)?;
        if events.is_empty() {
            if let Change::Create { new, .. } = change {
                return Ok(Applied::Created(key_used(&mut *db, new).await?));
            }
        }
        for event in &events {
            for beside in besides(event, change, at, context) {
                // Built from the stores' constants and filters: no caller's text is in it.
                bound(sqlx::query(AssertSqlSafe(beside.text.alone)), beside.args)
                    .execute(&mut *db)
                    .await?;
            }
        }
        Ok(applied(change, events))
    })
}

/// Makes `change` in one statement on PostgreSQL when its event is known beforehand (see the
/// module's documentation); an expiry sweep in a transaction of its own.
pub(super) async fn apply_on_postgres(
    pool: &PgPool,
    change: &Change,
    context: &ChangeContext,
) -> Result<Applied, StoreError> {
    let kind = change.kind()?;
    let Some(expected) = change.expected(kind) else {
        let mut transaction = pool.begin().await?;
        let applied = apply(Either::Postgres(&mut *transaction), change, context).await?;
        transaction.commit().await?;
        return Ok(applied);
    };
    let at = change.at(&context.clock);
    let besides = besides(&expected, change, at, context);
    let (statement, args) = change.statement();
    let text = statement.joined(true, &besides);
    let values = args
        .into_iter()
        .chain(notification(kind, context))
        .chain(besides.into_iter().flat_map(|beside| beside.args));
    // Built from this module's constants only: no caller's text is in it.
    let rows = bound(sqlx::query(AssertSqlSafe(text)), values)
        .fetch_all(pool)
        .await?;
    let events = events_of(kind, &rows)?;
    if events.is_empty() {
        if let Change::Create { new, .. } = change {
            let mut connection = pool.acquire().await?;
            return Ok(Applied::Created(key_used(&mut *connection, new).await?));
        }
    }
    Ok(applied(change, events))
}

/// The events of the rows a change returned, oldest first.
fn events_of<'r, R>(kind: EventKind, rows: &'r [R]) -> Result<Vec<Event>, StoreError>
where
    R: Row,
    &'static str: sqlx::ColumnIndex<R>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    bool: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let mut events = rows
        .iter()
        .map(|row| Ok(Event::new(kind, record_from_row(row)?)))
        .collect::<Result<Vec<_>, StoreError>>()?;
    events.sort_by(|a, b| (a.record.created_at, a.id()).cmp(&(b.record.created_at, b.id())));
    Ok(events)
}

/// What a change that made `events` came to.
fn applied(change: &Change, mut events: Vec<Event>) -> Applied {
    if let Change::Create { .. } = change {
        if let Some(created) = events.pop() {
            return Applied::Created(Created::New(created));
        }
    }
    Applied::Changed(events)
}

/// A create that inserted nothing: the tenant's idempotency key was used before (or the id is
/// taken, which no key explains).
async fn key_used<'c, C, DB>(db: &'c mut C, new: &NewElicitation) -> Result<Created, StoreError>
where
    DB: sqlx::Database,
    for<'e> &'e mut C: sqlx::Executor<'e, Database = DB>,
    String: for<'e> sqlx::Encode<'e, DB> + sqlx::Type<DB>,
    Option<String>: for<'e> sqlx::Encode<'e, DB> + sqlx::Type<DB>,
    i64: for<'e> sqlx::Encode<'e, DB> + sqlx::Type<DB>,
    DB::Arguments: sqlx::IntoArguments<DB>,
    &'static str: sqlx::ColumnIndex<DB::Row>,
    for<'r> String: sqlx::Decode<'r, DB>,
    for<'r> Option<String>: sqlx::Decode<'r, DB>,
    for<'r> i64: sqlx::Decode<'r, DB>,
    for<'r> Option<i64>: sqlx::Decode<'r, DB> + sqlx::Type<DB>,
    for<'r> bool: sqlx::Decode<'r, DB> + sqlx::Type<DB>,
{
    let Some(key) = &new.idempotency_key else {
        return Err(StoreError(format!("the id {} is taken", new.id)));
    };
    let args = [
        Arg::Text(new.tenant.user_id.clone()),
        Arg::Text(new.tenant.workspace_id.clone()),
        Arg::Text(new.tenant.conversation_id.clone()),
        Arg::Text(key.clone()),
    ];
    let row = bound(sqlx::query(BY_IDEMPOTENCY_KEY), args)
        .fetch_optional(&mut *db)
        .await?
        .ok_or_else(|| StoreError("an idempotency key conflicts with no row".into()))?;
    // `None` for a row the previous version wrote, which kept no digest.
    let digest: Option<String> = row.try_get("request_digest")?;
    let same = same_request(digest.as_deref(), new.request_digest.as_deref());
    Ok(if same {
        Created::Existing(Box::new(record_from_row(&row)?))
    } else {
        Created::KeyReused
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::beside::beside;

    #[test]
    fn changes_notify_on_the_channel_replicas_listen_on() {
        for statement in [INSERT, FINISH, COMPLETE, EXPIRE_DUE, ESCALATE] {
            assert!(statement
                .alone(true)
                .contains(&format!("pg_notify('{EVENTS_CHANNEL}'")));
            assert!(!statement.alone(false).contains("pg_notify"));
        }
    }

    #[test]
    fn a_joined_change_numbers_each_beside_after_the_values_before_it() {
        let record = Beside {
            text: beside!("INSERT INTO a (x, y) SELECT $1, $2 FROM ", ""),
            args: vec![Arg::Int(1), Arg::Int(2)],
        };
        let row = Beside {
            text: beside!("INSERT INTO b (x) SELECT $1 FROM ", " WHERE $1 > 0"),
            args: vec![Arg::Int(3)],
        };
        let text = FINISH.joined(true, &[record, row]);
        // FINISH has 5 values, then the origin ($6) and the kind ($7).
        assert!(text.contains(
            "beside_0 AS (INSERT INTO a (x, y) SELECT $8, $9 FROM changed), \
             beside_1 AS (INSERT INTO b (x) SELECT $10 FROM changed WHERE $10 > 0)"
        ));
        assert!(text.contains("'origin', $6::text, 'kind', $7::text"));
        assert_eq!(renumbered("$1 || $10, $2", 4), "$5 || $14, $6");
        assert_eq!(FINISH.joined(false, &[]), FINISH.alone(false));
    }
}
