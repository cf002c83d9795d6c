//! The JSON views of an elicitation: the host's, the element's, and each event as streams send it.

use serde_json::{json, Map, Value};

use crate::events::{Event, EventKind};
use crate::hub::Outgoing;
use crate::store::{Record, Status};

/// The status people see: expired/withdrawn, else `complete` once completed, else settled or
/// pending.
pub fn public_status(record: &Record) -> &'static str {
    match record.status {
        Status::Expired | Status::Withdrawn => record.status.as_str(),
        _ if record.completed => "complete",
        status => status.as_str(),
    }
}

/// The result of a finished elicitation (`{"action":"cancel"}` if somehow none was stored).
pub fn result_of(record: &Record) -> Value {
    record
        .result
        .clone()
        .unwrap_or_else(|| json!({"action": "cancel"}))
}

/// The host's view: `{"status":"pending"}` or `{"status","result"}`.
pub fn host_view(record: &Record) -> Value {
    match record.status {
        Status::Pending => json!({"status": "pending"}),
        status => json!({"status": status.as_str(), "result": result_of(record)}),
    }
}

/// The element's view of one elicitation (stream events and the pending list) at `now_ms`:
/// `expiresInMs` is the time left by the relay's clock, so a browser with a wrong clock still
/// shows it for as long as it has.
pub fn elicitation_view(record: &Record, now_ms: i64) -> Value {
    let mut view = Map::new();
    view.insert("id".into(), json!(record.id));
    view.insert("request".into(), record.request.clone());
    view.insert("serverName".into(), json!(record.server_name));
    view.insert("createdAt".into(), json!(record.created_at));
    view.insert("expiresAt".into(), json!(record.expires_at));
    view.insert(
        "expiresInMs".into(),
        json!(record.expires_at.saturating_sub(now_ms).max(0)),
    );
    view.insert(
        "scope".into(),
        json!({
            "userId": record.tenant.user_id,
            "workspaceId": record.tenant.workspace_id,
            "conversationId": record.tenant.conversation_id,
        }),
    );
    Value::Object(view)
}

/// An event as streams send it, rendered at `now_ms`; `None` when streams have nothing to show
/// (a new one already over by the time it is heard).
pub fn rendered(event: &Event, now_ms: i64) -> Option<Outgoing> {
    let record = &event.record;
    let data = match event.kind {
        EventKind::Created => {
            if record.status != Status::Pending || record.expires_at <= now_ms {
                return None;
            }
            elicitation_view(record, now_ms)
        }
        EventKind::Settled => {
            let action = result_of(record)
                .get("action")
                .cloned()
                .unwrap_or_else(|| json!("cancel"));
            json!({"id": record.id, "action": action})
        }
        EventKind::Expired | EventKind::Withdrawn | EventKind::Complete => {
            json!({"id": record.id})
        }
    };
    Some(Outgoing {
        tenant: record.tenant.clone(),
        name: event.kind.event_name(),
        data: data.to_string(),
    })
}
