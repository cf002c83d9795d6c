//! Reading rows into records, the same on both dialects, and whether a repeated create asks for
//! what the first did.

use serde_json::Value;
use sqlx::{ColumnIndex, Decode, Row, Type};

use super::{Record, Status, StoreError, Tenant};

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
    let status: Status = serde_json::from_value(Value::String(status_name.clone()))
        .map_err(|_| StoreError(format!("unknown status {status_name:?} in the database")))?;
    let request_text: String = row.try_get("request")?;
    let result_text: Option<String> = row.try_get("result")?;
    let team_text: Option<String> = row.try_get("audience")?;
    let answered_by_text: Option<String> = row.try_get("answered_by")?;
    Ok(Record {
        id: row.try_get("id")?,
        tenant: Tenant {
            user_id: row.try_get("user_id")?,
            workspace_id: row.try_get("workspace_id")?,
            conversation_id: row.try_get("conversation_id")?,
        },
        request: parse_json(&request_text)?,
        server_name: row.try_get("server_name")?,
        created_at: row.try_get("created_at")?,
        expires_at: row.try_get("expires_at")?,
        status,
        result: result_text.as_deref().map(parse_json).transpose()?,
        finished_at: row.try_get("finished_at")?,
        completed: row.try_get("completed")?,
        team: team_text.as_deref().map(parse_stored).transpose()?,
        escalated: row.try_get("escalated")?,
        answered_by: answered_by_text.as_deref().map(parse_stored).transpose()?,
    })
}

/// Whether a repeat asks for what the first create did. A digest missing on either side (a row
/// from before digests were kept) cannot tell a difference, so it counts as the same.
pub(super) fn same_request(stored: Option<&str>, repeated: Option<&str>) -> bool {
    stored
        .zip(repeated)
        .is_none_or(|(stored, repeated)| stored == repeated)
}

fn parse_stored<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text)
        .map_err(|error| StoreError(format!("stored JSON is invalid: {error}")))
}

fn parse_json(text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text)
        .map_err(|error| StoreError(format!("stored JSON is invalid: {error}")))
}
