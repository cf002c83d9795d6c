//! Elicitations that belong together: the entries of one MCP 2026-07-28 `input_required` round,
//! which a client answers together in one retry. A surface names the batch each elicitation joins
//! (the web element: `elicit()` calls sharing one `AbortSignal`, as SDK v2 and `elicitInputs`
//! pass one per round); the session keeps the rules here:
//!
//! - the queue line counts the whole batch, so its second elicitation shows "2 of 2" even though the
//!   first already left the queue;
//! - a user's cancel of one elicitation (Esc, close, the cancel button) cancels the rest of its
//!   batch still open or queued, each with its own cancel, so one Esc ends the call as cancel.
//!   Accept, decline, a timeout or a server's withdrawal leave the others alone.
//!
//! An elicitation counts the members of its batch that left the queue while it was held, so a
//! signal reused for later calls, once the earlier ones are answered, counts afresh.

use crate::reply::{CancelSource, Ending};

/// Identifies a batch inside a surface.
pub type BatchId = u64;

/// The queue line "position of total" for the elicitation on screen: `held` elicitations open or
/// queued, `done_before_front` of its batch (or -32042 flow) already answered. `None` when there
/// is only one to show.
pub fn queue_position(held: usize, done_before_front: usize) -> Option<(usize, usize)> {
    let total = held + done_before_front;
    (held > 0 && total > 1).then_some((done_before_front + 1, total))
}

/// Whether an elicitation that ended this way takes the rest of its batch with it (with the same
/// ending): only the user's cancel does. The person stopped the whole request; asking its other
/// questions would make them press Esc once per question, for an answer already decided.
pub fn ends_the_rest(ending: &Ending) -> bool {
    matches!(ending, Ending::Cancel(CancelSource::User))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_line_counts_the_batch() {
        assert_eq!(queue_position(1, 0), None, "one alone shows no position");
        assert_eq!(queue_position(2, 0), Some((1, 2)));
        assert_eq!(queue_position(1, 1), Some((2, 2)), "the second of a round");
        assert_eq!(queue_position(3, 1), Some((2, 4)));
        assert_eq!(queue_position(0, 2), None, "nothing on screen");
    }

    #[test]
    fn only_the_users_cancel_ends_the_rest() {
        assert!(ends_the_rest(&Ending::Cancel(CancelSource::User)));
        for ending in [
            Ending::Accept(None),
            Ending::Decline { reason: None },
            Ending::Timeout,
            Ending::Cancel(CancelSource::Server),
            Ending::Cancel(CancelSource::Workspace),
            Ending::Cancel(CancelSource::RateLimit),
            Ending::Cancel(CancelSource::Detached),
        ] {
            assert!(!ends_the_rest(&ending), "{ending:?}");
        }
    }
}
