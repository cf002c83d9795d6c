//! Every change to an elicitation, written once for both dialects: its conditional statement
//! (so exactly one writer wins), then for each row it changed the audit entry, the webhook row
//! and the push rows (one per subscription of the person), all inside the transaction its
//! committer runs: on PostgreSQL one per change, on SQLite one per batch of queued changes
//! (`sqlite::GroupCommit`). Only the statement's NOTIFY differs by dialect: on PostgreSQL the
//! statement also sends `pg_notify` on the replicas' channel.

use serde_json::Value;
use sqlx::Row;

use super::clock::Clock;
use super::db::{either, Connection, Dialects};
use super::journal;
use super::outbox::{WebhookRows, ENQUEUE};
use super::push_outbox::{PushQueue, PUSH_ENQUEUE};
use super::rows::{record_from_row, same_request};
use super::{Created, NewElicitation, Status, StoreError};
use crate::events::{Event, EventKind};
use crate::record::Actor;

/// One change to make.
#[derive(Debug, Clone)]
pub(super) enum Change {
    /// A new pending elicitation, idempotent by its key.
    Create { new: NewElicitation, actor: Actor },
    /// A pending one settled, withdrawn or expired, at `at`.
    Finish {
        id: String,
        status: Status,
        result: Value,
        at: i64,
        actor: Actor,
    },
    /// URL-mode completion.
    Complete { id: String, actor: Actor },
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
    /// The webhook row of an event, when webhooks are on.
    pub(super) webhook_rows: Option<WebhookRows>,
    /// Which pushes an event queues, when Web Push is on.
    pub(super) push: Option<PushQueue>,
}

/// Every column of a record, for `SELECT` and `RETURNING`.
macro_rules! record_columns {
    () => {
        "id, user_id, workspace_id, conversation_id, request, server_name, \
         created_at, expires_at, status, result, finished_at, completed"
    };
}
pub(super) use record_columns;

/// A changing statement returning the changed rows; on PostgreSQL wrapped to also notify the
/// replicas of each (`$origin`, `$kind`: its last two parameters, bound on both dialects and
/// unused on SQLite). Only the id travels: each replica reads the record once.
macro_rules! changing {
    ($statement:literal, $origin:literal, $kind:literal) => {
        Dialects {
            sqlite: concat!($statement, " RETURNING ", record_columns!()),
            postgres: concat!(
                "WITH changed AS (",
                $statement,
                " RETURNING ",
                record_columns!(),
                ") SELECT ",
                record_columns!(),
                ", pg_notify('koder_relay_events', json_build_object('origin', ",
                $origin,
                "::text, 'kind', ",
                $kind,
                "::text, 'id', id)::text)::text AS notified FROM changed"
            ),
        }
    };
}

const INSERT: Dialects = changing!(
    "INSERT INTO koder_elicitations (id, user_id, workspace_id, conversation_id, request, \
     server_name, created_at, expires_at, status, result, finished_at, completed, \
     idempotency_key, request_digest) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', NULL, NULL, FALSE, $9, $10) \
     ON CONFLICT DO NOTHING",
    "$11",
    "$12"
);

const FINISH: Dialects = changing!(
    "UPDATE koder_elicitations SET status = $1, result = $2, finished_at = $3 \
     WHERE id = $4 AND status = 'pending'",
    "$5",
    "$6"
);

const COMPLETE: Dialects = changing!(
    "UPDATE koder_elicitations SET completed = TRUE WHERE id = $1 AND NOT completed",
    "$2",
    "$3"
);

const EXPIRE_DUE: Dialects = changing!(
    "UPDATE koder_elicitations \
     SET status = 'expired', result = '{\"action\":\"cancel\"}', finished_at = $1 \
     WHERE status = 'pending' AND expires_at <= $1",
    "$2",
    "$3"
);

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
        }
    }

    /// Who made it, as the audit trail records it.
    fn actor(&self) -> &Actor {
        match self {
            Change::Create { actor, .. }
            | Change::Finish { actor, .. }
            | Change::Complete { actor, .. } => actor,
            Change::ExpireDue { .. } => &Actor::Relay,
        }
    }

    /// When it was made, by the deployment's clock.
    fn at(&self, clock: &Clock) -> i64 {
        match self {
            Change::Create { new, .. } => new.created_at,
            Change::Finish { at, .. } | Change::ExpireDue { at } => *at,
            Change::Complete { .. } => clock.now_ms(),
        }
    }
}

/// Makes `change` on `connection`, inside the caller's transaction: the statement, then each
/// changed row's audit entry, webhook row and push rows. Committing is the caller's.
pub(super) async fn apply(
    connection: Connection<'_>,
    change: &Change,
    context: &ChangeContext,
) -> Result<Applied, StoreError> {
    let origin = context.origin.as_str();
    either!(connection, |db, dialect| {
        let kind = change.kind()?;
        let query = match change {
            Change::Create { new, .. } => sqlx::query(dialect(INSERT))
                .bind(&new.id)
                .bind(&new.tenant.user_id)
                .bind(&new.tenant.workspace_id)
                .bind(&new.tenant.conversation_id)
                .bind(new.request.to_string())
                .bind(&new.server_name)
                .bind(new.created_at)
                .bind(new.expires_at)
                .bind(&new.idempotency_key)
                .bind(&new.request_digest),
            Change::Finish {
                id,
                status,
                result,
                at,
                ..
            } => sqlx::query(dialect(FINISH))
                .bind(status.as_str())
                .bind(result.to_string())
                .bind(*at)
                .bind(id),
            Change::Complete { id, .. } => sqlx::query(dialect(COMPLETE)).bind(id),
            Change::ExpireDue { at } => sqlx::query(dialect(EXPIRE_DUE)).bind(*at),
        };
        let rows = query
            .bind(origin)
            .bind(kind.event_name())
            .fetch_all(&mut *db)
            .await?;
        let mut events = rows
            .iter()
            .map(|row| Ok(Event::new(kind, record_from_row(row)?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        events.sort_by(|a, b| (a.record.created_at, a.id()).cmp(&(b.record.created_at, b.id())));
        if let (Change::Create { new, .. }, None) = (change, events.first()) {
            // Nothing inserted: the tenant's idempotency key was used before.
            let Some(key) = &new.idempotency_key else {
                return Err(StoreError(format!("the id {} is taken", new.id)));
            };
            let row = sqlx::query(BY_IDEMPOTENCY_KEY)
                .bind(&new.tenant.user_id)
                .bind(&new.tenant.workspace_id)
                .bind(&new.tenant.conversation_id)
                .bind(key)
                .fetch_optional(&mut *db)
                .await?
                .ok_or_else(|| StoreError("an idempotency key conflicts with no row".into()))?;
            // `None` for a row the previous version wrote, which kept no digest.
            let digest: Option<String> = row.try_get("request_digest")?;
            let same = same_request(digest.as_deref(), new.request_digest.as_deref());
            return Ok(Applied::Created(if same {
                Created::Existing(Box::new(record_from_row(&row)?))
            } else {
                Created::KeyReused
            }));
        }
        let at = change.at(&context.clock);
        // Several events (an expiry sweep) lock their chains' heads in one order, so two
        // replicas sweeping at once never wait on each other in a circle.
        for event in journal::in_lock_order(&events) {
            journal::append(
                &mut *db,
                dialect(journal::INSERT),
                event,
                change.actor(),
                at,
            )
            .await?;
            if let Some(row) = context.webhook_rows.and_then(|rows| rows(event)) {
                sqlx::query(ENQUEUE)
                    .bind(&row.id)
                    .bind(&row.elicitation_id)
                    .bind(row.event_type)
                    .bind(&row.payload)
                    .bind(context.clock.now_ms())
                    .execute(&mut *db)
                    .await?;
            }
            let pushes = context.push.map(|push| push.rows(event, at));
            for rows in pushes.into_iter().flatten() {
                sqlx::query(PUSH_ENQUEUE)
                    .bind(&rows.elicitation_id)
                    .bind(rows.kind.as_str())
                    .bind(at)
                    .bind(rows.deadline)
                    .bind(rows.due)
                    .bind(&rows.user_id)
                    .bind(&rows.workspace_id)
                    .execute(&mut *db)
                    .await?;
            }
        }
        if let Change::Create { .. } = change {
            if let Some(created) = events.pop() {
                return Ok(Applied::Created(Created::New(created)));
            }
        }
        Ok(Applied::Changed(events))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::postgres::EVENTS_CHANNEL;

    #[test]
    fn changes_notify_on_the_channel_replicas_listen_on() {
        for statement in [INSERT, FINISH, COMPLETE, EXPIRE_DUE] {
            assert!(statement
                .postgres
                .contains(&format!("pg_notify('{EVENTS_CHANNEL}'")));
            assert!(!statement.sqlite.contains("pg_notify"));
        }
    }
}
