//! What changed: one elicitation created, settled, expired, withdrawn or completed. Stores return
//! these (they know nothing of who listens), and whatever listens gets them through an
//! [`EventSink`].

use std::sync::Arc;

use crate::record::{Record, Status, Tenant};

/// What changed, as streams and long-polls hear it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A new pending elicitation.
    Created,
    /// The person answered.
    Settled,
    /// It expired unanswered.
    Expired,
    /// The host withdrew it.
    Withdrawn,
    /// The host reported URL-mode completion.
    Complete,
    /// A team question reached its next escalation stage (`Record::escalated`): newly admitted
    /// members' streams hear of it as a new question.
    Escalated,
}

impl EventKind {
    /// The SSE event name (`elicitation` for a new one).
    pub fn event_name(self) -> &'static str {
        match self {
            EventKind::Created => "elicitation",
            EventKind::Settled => "settled",
            EventKind::Expired => "expired",
            EventKind::Withdrawn => "withdrawn",
            EventKind::Complete => "complete",
            EventKind::Escalated => "escalated",
        }
    }

    /// The kind an event name stands for (used between replicas).
    pub fn parse(name: &str) -> Option<EventKind> {
        [
            EventKind::Created,
            EventKind::Settled,
            EventKind::Expired,
            EventKind::Withdrawn,
            EventKind::Complete,
            EventKind::Escalated,
        ]
        .into_iter()
        .find(|kind| kind.event_name() == name)
    }

    /// The event a finished status publishes.
    pub fn finishing(status: Status) -> Option<EventKind> {
        match status {
            Status::Pending => None,
            Status::Settled => Some(EventKind::Settled),
            Status::Expired => Some(EventKind::Expired),
            Status::Withdrawn => Some(EventKind::Withdrawn),
        }
    }
}

/// One change to one elicitation, with the record as the change left it, so that nobody who
/// hears of it needs to read the row again.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The elicitation after the change.
    pub record: Arc<Record>,
}

impl Event {
    /// An event of `kind` about `record`.
    pub fn new(kind: EventKind, record: Record) -> Event {
        Event {
            kind,
            record: Arc::new(record),
        }
    }

    /// The elicitation's id.
    pub fn id(&self) -> &str {
        &self.record.id
    }

    /// Whose elicitation it is.
    pub fn tenant(&self) -> &Tenant {
        &self.record.tenant
    }
}

/// Where events go: in a relay, rendered once and fanned out to the streams and long-polls of
/// this replica.
pub trait EventSink: Send + Sync + std::fmt::Debug + 'static {
    /// Delivers one change.
    fn deliver(&self, event: &Event);

    /// Changes may have been missed (a link to the other replicas was down): everyone listening
    /// should start over from the store.
    fn resync(&self);
}
