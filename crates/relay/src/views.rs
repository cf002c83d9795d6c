//! The views of an elicitation, built from a record with the wire contract's types: the host's,
//! the element's, and each event as streams send it (rendered once per replica, beside the events,
//! so the hub and the routes send the same thing).

use koder_elicitation_relay_protocol::{
    ElicitationView, HostView, IdEvent, LinkElicitation, LinkView, PublicStatus, SettledEvent,
    StatusView, StreamEvent,
};
use serde_json::Value;

use crate::audience::Audience;
use crate::events::{Event, EventKind};
use crate::record::{Record, Status};

/// One event as streams send it: rendered once, shared by every stream that should see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    /// Who may answer it: the hub's channels it goes to, and what each stream's token must be
    /// admitted by.
    pub audience: Audience,
    /// The SSE event name.
    pub name: &'static str,
    /// The SSE data: one line of JSON.
    pub data: String,
}

/// The status people see: expired/withdrawn, else `complete` once completed, else settled or
/// pending.
pub fn status_view(record: &Record) -> StatusView {
    let status = match record.status {
        Status::Expired => PublicStatus::Expired,
        Status::Withdrawn => PublicStatus::Withdrawn,
        _ if record.completed => PublicStatus::Complete,
        Status::Settled => PublicStatus::Settled,
        Status::Pending => PublicStatus::Pending,
    };
    StatusView { status }
}

/// The host's view: `{"status":"pending"}` or `{"status","result"}`, with `answeredBy` once
/// answered, and a team question's `audience` and `escalated`.
pub fn host_view(record: &Record) -> HostView {
    HostView {
        answered_by: record.told_answered_by(),
        audience: record.team.as_ref().map(|team| team.audience.clone()),
        escalated: record.team.as_ref().map(|_| record.escalated),
        ..answer_view(record)
    }
}

/// What the person who answered is told: `{"status","result"}`, their own answer.
pub fn answer_view(record: &Record) -> HostView {
    HostView::of(
        record.status,
        (record.status != Status::Pending).then(|| record.result_or_cancel()),
    )
}

/// The element's view of one elicitation (stream events and the pending list) at `now_ms`:
/// `expiresInMs` is the time left by the relay's clock, so a browser with a wrong clock still
/// shows it for as long as it has.
pub fn elicitation_view(record: &Record, now_ms: i64) -> ElicitationView {
    ElicitationView {
        id: record.id.clone(),
        request: record.request.clone(),
        server_name: record.server_name.clone(),
        created_at: record.created_at,
        expires_at: record.expires_at,
        expires_in_ms: ElicitationView::time_left_ms(record.expires_at, now_ms),
        scope: record.tenant.clone(),
    }
}

/// What a link shows of its elicitation at `now_ms`: while pending, the question (request,
/// server name, time left); once over, only its id and how it ended, never the request nor
/// the answer.
pub fn link_view(record: &Record, now_ms: i64) -> LinkView {
    let pending = record.status == Status::Pending;
    LinkView {
        elicitation: LinkElicitation {
            id: record.id.clone(),
            status: record.status,
            request: pending.then(|| record.request.clone()),
            server_name: record.server_name.clone().filter(|_| pending),
            expires_at: pending.then_some(record.expires_at),
            expires_in_ms: pending
                .then(|| ElicitationView::time_left_ms(record.expires_at, now_ms)),
        },
    }
}

/// An event as streams send it, rendered at `now_ms`; `None` when streams have nothing to show
/// (a new one already over by the time it is heard).
pub fn rendered(event: &Event, now_ms: i64) -> Option<Outgoing> {
    let record = &event.record;
    let id = || IdEvent {
        id: record.id.clone(),
    };
    let data = match event.kind {
        EventKind::Created => {
            if !record.is_open(now_ms) {
                return None;
            }
            StreamEvent::Elicitation(elicitation_view(record, now_ms))
        }
        EventKind::Settled => StreamEvent::Settled(SettledEvent {
            id: record.id.clone(),
            action: record
                .result_or_cancel()
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("cancel")
                .to_string(),
            answered_by: record.told_answered_by(),
        }),
        EventKind::Expired => StreamEvent::Expired(id()),
        EventKind::Withdrawn => StreamEvent::Withdrawn(id()),
        EventKind::Complete => StreamEvent::Complete(id()),
        // A new question to those the stage newly admits, and to nobody else.
        EventKind::Escalated => {
            if !record.is_open(now_ms) {
                return None;
            }
            let stage = usize::try_from(record.escalated).unwrap_or(0);
            return Some(Outgoing {
                audience: record.audience().newly_at(stage),
                name: "elicitation",
                data: StreamEvent::Elicitation(elicitation_view(record, now_ms)).data(),
            });
        }
    };
    Some(Outgoing {
        audience: record.audience(),
        name: data.name(),
        data: data.data(),
    })
}

/// Text safe in HTML content and in quoted attributes (the answer page, an e-mail's HTML part).
pub(crate) fn escape_html(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}
