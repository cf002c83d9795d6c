//! One elicitation's life on the terminal, kept by the core's [`Session`]: the deadline, the
//! countdown, the server's cancel and URL-mode completion. The session decides; this module only
//! feeds it the clock and the signals that arrive from outside (another thread for `connect`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use koder_mcp_elicitation_core::policy::Announcements;
use koder_mcp_elicitation_core::reply::{CancelSource, Ending};
use koder_mcp_elicitation_core::scope::Tenant;
use koder_mcp_elicitation_core::session::{self, Admit, Change, Session, Ticket};

/// The terminal answers by return value, so the session keeps nothing but the rules' state.
type TerminalSession = Session<(), ()>;

/// Signals another thread may raise while a prompt is open.
#[derive(Debug, Clone, Default)]
pub struct Signals {
    server_cancel: Arc<AtomicBool>,
    completed: Arc<AtomicBool>,
    stop_waiting: Arc<AtomicBool>,
}

impl Signals {
    /// New, unraised signals.
    pub fn new() -> Signals {
        Signals::default()
    }

    /// The server withdrew the request (`notifications/cancelled`): end the prompt, send nothing.
    pub fn cancel_from_server(&self) {
        self.server_cancel.store(true, Ordering::SeqCst);
    }

    /// The server reported the URL-mode elicitation complete.
    pub fn complete(&self) {
        self.completed.store(true, Ordering::SeqCst);
    }

    /// Nothing more will come for this elicitation (the tool call returned): end a URL-mode wait.
    pub fn stop_waiting(&self) {
        self.stop_waiting.store(true, Ordering::SeqCst);
    }

    fn server_cancelled(&self) -> bool {
        self.server_cancel.load(Ordering::SeqCst)
    }

    fn completed(&self) -> bool {
        self.completed.load(Ordering::SeqCst)
    }
}

/// Why a prompt stopped before the user answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Esc or Ctrl-C.
    UserCancel,
    Timeout,
    ServerCancel,
}

/// How a URL-mode wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitEnd {
    /// The server (or its status URL) said the page is done.
    Completed,
    /// The user pressed Enter or Esc, the server withdrew it, or the time ran out.
    Closed,
}

/// The clock and the session for one elicitation.
pub struct Lifecycle {
    session: TerminalSession,
    ticket: Ticket,
    elicitation_id: String,
    started: Instant,
    signals: Signals,
    announcements: Announcements,
    /// The first settlement, kept: a ticket settles once.
    ending: Option<Ending>,
    wait_end: Option<WaitEnd>,
}

impl Lifecycle {
    /// Starts the clock for an elicitation that closes after `timeout_ms`; with
    /// `awaits_completion` (see [`koder_mcp_elicitation_core::session::Admit`]) a consent leaves it
    /// waiting for completion.
    pub fn start(
        elicitation_id: &str,
        awaits_completion: bool,
        timeout_ms: f64,
        signals: Signals,
    ) -> Self {
        let mut session = TerminalSession::default();
        let (ticket, _) = session.admit(
            0.0,
            Admit {
                server: String::new(),
                tenant: Tenant::default(),
                elicitation_id: elicitation_id.to_string(),
                awaits_completion,
                timeout_ms,
                rate_limit: u32::MAX,
            },
            (),
            (),
        );
        Lifecycle {
            session,
            ticket,
            elicitation_id: elicitation_id.to_string(),
            started: Instant::now(),
            signals,
            announcements: Announcements::default(),
            ending: None,
            wait_end: None,
        }
    }

    fn now(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1000.0
    }

    /// Applies the outside world (clock, server signals); `Some` once the prompt must stop.
    pub fn check(&mut self) -> Option<Stop> {
        if self.signals.server_cancelled() {
            let change = self
                .session
                .close(self.ticket, Ending::Cancel(CancelSource::Server));
            self.apply(change);
        }
        if self.signals.completed() {
            let change = self.session.complete(&self.elicitation_id);
            self.apply(change);
        }
        if self.signals.stop_waiting.load(Ordering::SeqCst) {
            let change = self.session.end_wait(self.ticket);
            self.apply(change);
        }
        let now = self.now();
        for change in self.session.tick(now) {
            self.apply(Some(change));
        }
        match &self.ending {
            Some(Ending::Cancel(CancelSource::Server)) => Some(Stop::ServerCancel),
            Some(Ending::Timeout) => Some(Stop::Timeout),
            Some(Ending::Cancel(_)) => Some(Stop::UserCancel),
            Some(_) if self.wait_end.is_some() => Some(Stop::UserCancel),
            _ => None,
        }
    }

    /// Whether a URL-mode wait has ended, and how.
    pub fn wait_end(&mut self) -> Option<WaitEnd> {
        self.check();
        self.wait_end
    }

    /// Settles with the user's choice; returns the ending that holds (the first one).
    pub fn settle(&mut self, ending: Ending) -> Ending {
        let change = self.session.settle(self.ticket, ending);
        self.apply(change);
        self.ending
            .clone()
            .unwrap_or(Ending::Cancel(CancelSource::User))
    }

    /// The user ended a URL-mode wait.
    pub fn end_wait(&mut self) {
        let change = self.session.end_wait(self.ticket);
        self.apply(change);
    }

    /// The settled ending, if any.
    pub fn ending(&self) -> Option<&Ending> {
        self.ending.as_ref()
    }

    /// Whole seconds left while the countdown shows (the last 30 s).
    pub fn countdown(&self) -> Option<u64> {
        self.session.countdown_seconds(self.now())
    }

    /// Seconds to announce now (at 30 s and 10 s), once each: for line-by-line output.
    pub fn announcement(&mut self) -> Option<u64> {
        let seconds = self.countdown();
        self.announcements.on_countdown(seconds)
    }

    fn apply(&mut self, change: Option<Change<(), ()>>) {
        match change {
            Some(Change::Settled { ending, .. }) if self.ending.is_none() => {
                self.ending = Some(ending);
            }
            Some(Change::WaitEnded { end, .. }) => {
                self.wait_end = Some(match end {
                    session::WaitEnd::Completed => WaitEnd::Completed,
                    session::WaitEnd::Closed(_) => WaitEnd::Closed,
                });
            }
            Some(Change::Settled { .. }) | None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_server_cancel_stops_the_prompt_and_settles_once() {
        let signals = Signals::new();
        let mut life = Lifecycle::start("1", false, 60_000.0, signals.clone());
        assert_eq!(life.check(), None);
        signals.cancel_from_server();
        assert_eq!(life.check(), Some(Stop::ServerCancel));
        let ending = life.settle(Ending::Accept(Some(json!({}))));
        assert_eq!(ending, Ending::Cancel(CancelSource::Server));
    }

    #[test]
    fn the_deadline_times_out() {
        let mut life = Lifecycle::start("1", false, 1.0, Signals::new());
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(life.check(), Some(Stop::Timeout));
        assert_eq!(life.ending(), Some(&Ending::Timeout));
    }

    #[test]
    fn url_accept_waits_for_completion() {
        let signals = Signals::new();
        let mut life = Lifecycle::start("abc", true, 60_000.0, signals.clone());
        assert_eq!(life.settle(Ending::Accept(None)), Ending::Accept(None));
        assert_eq!(life.wait_end(), None);
        signals.complete();
        assert_eq!(life.wait_end(), Some(WaitEnd::Completed));
    }
}
