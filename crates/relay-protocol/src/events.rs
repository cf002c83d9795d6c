//! What a person's stream (`GET /v1/stream`) carries: one named server-sent event per change.

use serde::{Deserialize, Serialize};

use crate::views::ElicitationView;

/// `settled`: the person answered, with which action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettledEvent {
    /// The elicitation.
    pub id: String,
    /// `accept`, `decline` or `cancel`.
    pub action: String,
    /// Who answered it (never what they answered), when someone did.
    #[serde(
        rename = "answeredBy",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub answered_by: Option<crate::AnsweredBy>,
}

/// `expired`, `withdrawn` and `complete`: only which elicitation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdEvent {
    /// The elicitation.
    pub id: String,
}

/// One event of a person's stream: its name and its data.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// `elicitation`: a new pending one to show.
    Elicitation(ElicitationView),
    /// `settled`: answered (here or in another tab).
    Settled(SettledEvent),
    /// `expired`: nobody answered in time.
    Expired(IdEvent),
    /// `withdrawn`: the host gave up on it.
    Withdrawn(IdEvent),
    /// `complete`: URL-mode completion was reported.
    Complete(IdEvent),
}

impl StreamEvent {
    /// The SSE event name.
    pub fn name(&self) -> &'static str {
        match self {
            StreamEvent::Elicitation(_) => "elicitation",
            StreamEvent::Settled(_) => "settled",
            StreamEvent::Expired(_) => "expired",
            StreamEvent::Withdrawn(_) => "withdrawn",
            StreamEvent::Complete(_) => "complete",
        }
    }

    /// The SSE data: the event's JSON on one line.
    pub fn data(&self) -> String {
        let data = match self {
            StreamEvent::Elicitation(view) => serde_json::to_string(view),
            StreamEvent::Settled(settled) => serde_json::to_string(settled),
            StreamEvent::Expired(event)
            | StreamEvent::Withdrawn(event)
            | StreamEvent::Complete(event) => serde_json::to_string(event),
        };
        // Plain structs with string keys always serialize.
        data.unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_named_and_carry_one_line_of_json() {
        let settled = StreamEvent::Settled(SettledEvent {
            id: "e1".into(),
            action: "accept".into(),
            answered_by: None,
        });
        assert_eq!(settled.name(), "settled");
        assert_eq!(settled.data(), r#"{"id":"e1","action":"accept"}"#);
        let gone = StreamEvent::Withdrawn(IdEvent { id: "e1".into() });
        assert_eq!(
            (gone.name(), gone.data().as_str()),
            ("withdrawn", r#"{"id":"e1"}"#)
        );
    }
}
