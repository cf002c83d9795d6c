//! What both stores share around their SQL: reading a row into a [`Record`], the record a create
//! stores, and telling an idempotency-key clash from other failures.

use serde_json::Value;
use sqlx::{ColumnIndex, Decode, Row, Type};

use super::{NewElicitation, Record, Status, StoreError, Tenant};

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
pub(super) fn tenant_from_row<'r, R>(row: &'r R) -> Result<Tenant, StoreError>
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

/// The record a successful create stored.
pub(super) fn created(new: NewElicitation) -> Record {
    Record {
        id: new.id,
        tenant: new.tenant,
        request: new.request,
        server_name: new.server_name,
        created_at: new.created_at,
        expires_at: new.expires_at,
        status: Status::Pending,
        result: None,
        finished_at: None,
        completed: false,
    }
}

/// Whether a failed insert clashed with a unique column (the idempotency key, given one).
pub(super) fn is_unique_violation(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|database_error| database_error.is_unique_violation())
}

fn parse_json(text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text)
        .map_err(|error| StoreError(format!("stored JSON is invalid: {error}")))
}
