//! What both stores share around their SQL: reading a row into a [`Record`], what a create's
//! INSERT comes to, and the event a changed row announces.

use std::future::Future;

use serde_json::Value;
use sqlx::{ColumnIndex, Decode, Row, Type};

use super::{Created, NewElicitation, Record, Status, StoreError, Tenant};
use crate::events::{Event, EventKind};

/// A row of `koder_elicitations` as a [`Record`]; stored JSON or a status that does not parse is
/// a storage error, never a panic.
pub(super) fn record_from_row<'r, R>(row: &'r R) -> Result<Record, StoreError>
where
    R: Row,
    &'static str: ColumnIndex<R>,
    String: Decode<'r, R::Database> + Type<R::Database>,
    Option<String>: Decode<'r, R::Database> + Type<R::Database>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
    Option<i64>: Decode<'r, R::Database> + Type<R::Database>,
    bool: Decode<'r, R::Database> + Type<R::Database>,
{
    let status_name: String = row.try_get("status")?;
    let status = Status::parse(&status_name)
        .ok_or_else(|| StoreError(format!("unknown status {status_name:?} in the database")))?;
    let request_text: String = row.try_get("request")?;
    let result_text: Option<String> = row.try_get("result")?;
    Ok(Record {
        id: row.try_get("id")?,
        tenant: tenant_from_row(row)?,
        request: parse_json(&request_text)?,
        server_name: row.try_get("server_name")?,
        created_at: row.try_get("created_at")?,
        expires_at: row.try_get("expires_at")?,
        status,
        result: result_text.as_deref().map(parse_json).transpose()?,
        finished_at: row.try_get("finished_at")?,
        completed: row.try_get("completed")?,
    })
}

/// The tenant columns of a row.
fn tenant_from_row<'r, R>(row: &'r R) -> Result<Tenant, StoreError>
where
    R: Row,
    &'static str: ColumnIndex<R>,
    String: Decode<'r, R::Database> + Type<R::Database>,
{
    Ok(Tenant {
        user_id: row.try_get("user_id")?,
        workspace_id: row.try_get("workspace_id")?,
        conversation_id: row.try_get("conversation_id")?,
    })
}

/// A record found by its tenant and idempotency key, with the digest of the request that made it
/// (`None` for a row the previous version wrote, which kept none).
#[derive(Debug)]
pub(super) struct Keyed {
    pub(super) record: Record,
    pub(super) request_digest: Option<String>,
}

/// A row selected with `request_digest` as a [`Keyed`].
pub(super) fn keyed_from_row<'r, R>(row: &'r R) -> Result<Keyed, StoreError>
where
    R: Row,
    &'static str: ColumnIndex<R>,
    String: Decode<'r, R::Database> + Type<R::Database>,
    Option<String>: Decode<'r, R::Database> + Type<R::Database>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
    Option<i64>: Decode<'r, R::Database> + Type<R::Database>,
    bool: Decode<'r, R::Database> + Type<R::Database>,
{
    Ok(Keyed {
        record: record_from_row(row)?,
        request_digest: row.try_get("request_digest")?,
    })
}

/// What a create's INSERT came to: the new record; or, when its idempotency key was used
/// before in the same tenant (found with `by_key`), that first record for the same request and
/// [`Created::KeyReused`] for a different one.
pub(super) async fn created_or_existing<Found>(
    inserted: Result<Event, sqlx::Error>,
    new: NewElicitation,
    by_key: impl FnOnce(Tenant, String) -> Found,
) -> Result<Created, StoreError>
where
    Found: Future<Output = Result<Option<Keyed>, StoreError>>,
{
    let error = match inserted {
        Ok(event) => return Ok(Created::New(event)),
        Err(error) => error,
    };
    let unique_violation = error
        .as_database_error()
        .is_some_and(|database_error| database_error.is_unique_violation());
    if let (true, Some(key)) = (unique_violation, new.idempotency_key) {
        if let Some(existing) = by_key(new.tenant, key).await? {
            return Ok(
                if same_request(
                    existing.request_digest.as_deref(),
                    new.request_digest.as_deref(),
                ) {
                    Created::Existing(Box::new(existing.record))
                } else {
                    Created::KeyReused
                },
            );
        }
    }
    Err(error.into())
}

/// Whether a repeat asks for what the first create did. A digest missing on either side (a row
/// from before digests were kept) cannot tell a difference, so it counts as the same.
fn same_request(stored: Option<&str>, repeated: Option<&str>) -> bool {
    match (stored, repeated) {
        (Some(stored), Some(repeated)) => stored == repeated,
        _ => true,
    }
}

/// The event a changed row announces, when a conditional change returned one.
pub(super) fn changed<'r, R>(
    kind: EventKind,
    row: Option<&'r R>,
) -> Result<Option<Event>, StoreError>
where
    R: Row,
    &'static str: ColumnIndex<R>,
    String: Decode<'r, R::Database> + Type<R::Database>,
    Option<String>: Decode<'r, R::Database> + Type<R::Database>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
    Option<i64>: Decode<'r, R::Database> + Type<R::Database>,
    bool: Decode<'r, R::Database> + Type<R::Database>,
{
    row.map(|row| Ok(Event::new(kind, record_from_row(row)?)))
        .transpose()
}

/// The event of a create, as its INSERT stores it.
pub(super) fn created_event(new: &NewElicitation) -> Event {
    Event::new(EventKind::Created, created(new))
}

/// The record a successful create stores.
fn created(new: &NewElicitation) -> Record {
    Record {
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
    }
}

fn parse_json(text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text)
        .map_err(|error| StoreError(format!("stored JSON is invalid: {error}")))
}
