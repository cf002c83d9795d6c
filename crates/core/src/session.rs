//! The life of every elicitation a surface holds: the queue, per-request deadlines, the rate
//! limit, tenant changes and detaching. Time is an input (`now` in milliseconds), so tests drive the
//! clock. Every way out goes through one place, and a ticket settles at most once: the party that
//! hears the result (`reply_to`) is owned by the entry and handed out exactly once, in the
//! [`Change::Settled`] that ends it. Elicitations may belong to a batch (one 2026-07-28 round), under
//! the rules of [`crate::batch`].

use crate::batch::{self, BatchId};
use crate::reply::{CancelSource, Ending};
use crate::scope::Tenant;

/// Identifies one elicitation inside a surface.
pub type Ticket = u64;

/// The rolling window of the rate limit.
pub const RATE_WINDOW_MS: f64 = 60_000.0;
/// The countdown shows for the last 30 seconds.
pub const COUNTDOWN_MS: f64 = 30_000.0;
/// One elicitation held by the session. `R` hears the result (a promise's resolvers, a channel);
/// `D` is whatever the surface keeps while the elicitation is held (the request, the form state).
#[derive(Debug)]
pub struct Entry<R, D> {
    pub ticket: Ticket,
    pub server: String,
    pub tenant: Tenant,
    pub elicitation_id: String,
    /// Consent leaves it waiting for completion (see [`Admit::awaits_completion`]).
    pub awaits_completion: bool,
    pub deadline: f64,
    /// URL mode after consent: the result was sent; the dialog waits for completion.
    pub waiting: bool,
    /// The batch it belongs to (see [`Session::admit_in_batch`]).
    pub batch: Option<BatchId>,
    /// How many of its batch left the queue while it was held (its queue line counts them).
    batch_done: usize,
    /// Taken exactly once, when the elicitation settles.
    reply_to: Option<R>,
    pub data: D,
}

/// What happened to a ticket. It carries what the session owned for it, so a surface can only
/// answer once: there is no other way to reach `reply_to`.
#[derive(Debug, PartialEq)]
pub enum Change<R, D> {
    /// The elicitation settled: answer `reply_to`, fire the event, send the reply. `data` is
    /// `None` when the entry stays to wait for a URL-mode completion.
    Settled {
        ticket: Ticket,
        ending: Ending,
        reply_to: R,
        data: Option<D>,
    },
    /// A URL-mode wait ended (already settled as accept): completed, or closed another way.
    WaitEnded {
        ticket: Ticket,
        end: WaitEnd,
        data: D,
    },
}

/// How a URL-mode wait ended. The accept already answered the request, so nothing more is sent.
#[derive(Debug, Clone, PartialEq)]
pub enum WaitEnd {
    /// The elicitation completed (the server's notification, a status poll, or the user saying so).
    Completed,
    /// It stopped waiting without completing: the user cancelled the wait, the server withdrew it,
    /// the timeout passed, the tenant changed or the surface went away.
    Closed(Ending),
}

impl<R, D> Change<R, D> {
    /// The ticket this change is about.
    pub fn ticket(&self) -> Ticket {
        match self {
            Change::Settled { ticket, .. } | Change::WaitEnded { ticket, .. } => *ticket,
        }
    }
}

/// The queue and its rules.
#[derive(Debug)]
pub struct Session<R, D> {
    entries: Vec<Entry<R, D>>,
    next_ticket: Ticket,
    /// Per server, the times of its admissions inside the rate window (one string per server,
    /// not per admission, so a busy minute costs 8 bytes a request).
    admissions: Vec<(String, Vec<f64>)>,
}

impl<R, D> Default for Session<R, D> {
    fn default() -> Self {
        Session {
            entries: Vec::new(),
            next_ticket: 0,
            admissions: Vec::new(),
        }
    }
}

/// What `admit` needs to know about a new elicitation.
#[derive(Debug, Clone)]
pub struct Admit {
    pub server: String,
    pub tenant: Tenant,
    pub elicitation_id: String,
    /// URL mode whose consent waits for completion: a 2025-11-25 request (it has an
    /// `elicitationId`) or a Koder envelope, as [`crate::url_rounds::waits_for_completion`] says.
    /// A 2026-07-28 URL request passes `false`: its consent settles it for good, like a form.
    pub awaits_completion: bool,
    pub timeout_ms: f64,
    /// Most elicitations shown per server per rolling minute.
    pub rate_limit: u32,
}

impl<R, D> Session<R, D> {
    /// Queues a new elicitation. Past the rate limit it settles at once as `cancel`/`rate-limit`.
    pub fn admit(
        &mut self,
        now: f64,
        admit: Admit,
        reply_to: R,
        data: D,
    ) -> (Ticket, Option<Change<R, D>>) {
        self.admit_in_batch(now, admit, None, reply_to, data)
    }

    /// [`Session::admit`], joining `batch` (`None`: on its own): the elicitations held at once
    /// with the same batch count together in the queue line, and the user's cancel of one cancels
    /// the rest ([`Session::close_in_batch`]).
    pub fn admit_in_batch(
        &mut self,
        now: f64,
        admit: Admit,
        batch: Option<BatchId>,
        reply_to: R,
        data: D,
    ) -> (Ticket, Option<Change<R, D>>) {
        self.next_ticket += 1;
        let ticket = self.next_ticket;
        if !self.admits_now(now, &admit) {
            let ending = Ending::Cancel(CancelSource::RateLimit);
            let change = Change::Settled {
                ticket,
                ending,
                reply_to,
                data: Some(data),
            };
            return (ticket, Some(change));
        }
        self.entries.push(Entry {
            ticket,
            server: admit.server,
            tenant: admit.tenant,
            elicitation_id: admit.elicitation_id,
            awaits_completion: admit.awaits_completion,
            deadline: now + admit.timeout_ms.max(0.0),
            waiting: false,
            batch,
            batch_done: 0,
            reply_to: Some(reply_to),
            data,
        });
        (ticket, None)
    }

    /// The rate limit: records the admission and says yes, or says no past the limit.
    fn admits_now(&mut self, now: f64, admit: &Admit) -> bool {
        // Forget servers whose last admission left the window, so the table stays small.
        self.admissions
            .retain(|(_, times)| times.last().is_some_and(|at| now - at < RATE_WINDOW_MS));
        if !self
            .admissions
            .iter()
            .any(|(server, _)| server == &admit.server)
        {
            self.admissions.push((admit.server.clone(), Vec::new()));
        }
        let Some(times) = self
            .admissions
            .iter_mut()
            .find_map(|(server, times)| (server == &admit.server).then_some(times))
        else {
            return false;
        };
        let expired = times
            .iter()
            .take_while(|at| now - **at >= RATE_WINDOW_MS)
            .count();
        times.drain(..expired);
        if times.len() >= admit.rate_limit as usize {
            return false;
        }
        times.push(now);
        true
    }

    /// Settles a pending elicitation. An accept of URL mode that awaits completion keeps the entry,
    /// now waiting.
    /// Unknown, already settled or waiting tickets give `None`: a ticket settles once.
    pub fn settle(&mut self, ticket: Ticket, ending: Ending) -> Option<Change<R, D>> {
        let index = self.index_of(ticket)?;
        let entry = self.entries.get_mut(index)?;
        if entry.waiting {
            return None;
        }
        if entry.awaits_completion && matches!(ending, Ending::Accept(_)) {
            let reply_to = entry.reply_to.take()?;
            entry.waiting = true;
            return Some(Change::Settled {
                ticket,
                ending,
                reply_to,
                data: None,
            });
        }
        let entry = self.take(index)?;
        Some(Change::Settled {
            ticket,
            ending,
            reply_to: entry.reply_to?,
            data: Some(entry.data),
        })
    }

    /// The user cancelled a URL-mode wait.
    pub fn end_wait(&mut self, ticket: Ticket) -> Option<Change<R, D>> {
        self.remove_waiting(ticket, WaitEnd::Closed(Ending::Cancel(CancelSource::User)))
    }

    /// The server reported a URL-mode elicitation complete. Unknown or not-yet-consented ids are ignored.
    pub fn complete(&mut self, elicitation_id: &str) -> Option<Change<R, D>> {
        self.complete_from(None, elicitation_id)
    }

    /// [`Session::complete`] for an elicitation `server` asked for (`None`: whichever server). Two
    /// servers may name their elicitations alike: one's completion must not end the other's wait.
    pub fn complete_from(
        &mut self,
        server: Option<&str>,
        elicitation_id: &str,
    ) -> Option<Change<R, D>> {
        let ticket = self
            .entries
            .iter()
            .find(|entry| {
                entry.waiting
                    && entry.elicitation_id == elicitation_id
                    && server.is_none_or(|server| entry.server == server)
            })?
            .ticket;
        self.remove_waiting(ticket, WaitEnd::Completed)
    }

    /// The user said a waiting elicitation is complete ("I've finished").
    pub fn complete_ticket(&mut self, ticket: Ticket) -> Option<Change<R, D>> {
        self.remove_waiting(ticket, WaitEnd::Completed)
    }

    fn remove_waiting(&mut self, ticket: Ticket, end: WaitEnd) -> Option<Change<R, D>> {
        let index = self.index_of(ticket)?;
        if !self.entries.get(index)?.waiting {
            return None;
        }
        let entry = self.take(index)?;
        Some(Change::WaitEnded {
            ticket,
            end,
            data: entry.data,
        })
    }

    /// Expires every elicitation whose deadline has passed.
    pub fn tick(&mut self, now: f64) -> Vec<Change<R, D>> {
        let expired: Vec<Ticket> = self
            .entries
            .iter()
            .filter(|entry| entry.deadline <= now)
            .map(|entry| entry.ticket)
            .collect();
        expired
            .into_iter()
            .filter_map(|ticket| self.close(ticket, Ending::Timeout))
            .collect()
    }

    /// The tenant changed: every elicitation of another tenant is dismissed.
    pub fn change_tenant(&mut self, tenant: &Tenant) -> Vec<Change<R, D>> {
        let stale: Vec<Ticket> = self
            .entries
            .iter()
            .filter(|entry| &entry.tenant != tenant)
            .map(|entry| entry.ticket)
            .collect();
        stale
            .into_iter()
            .filter_map(|ticket| self.close(ticket, Ending::Cancel(CancelSource::Workspace)))
            .collect()
    }

    /// The surface went away (the element left the document): nothing may be left hanging.
    pub fn detach(&mut self) -> Vec<Change<R, D>> {
        let all: Vec<Ticket> = self.entries.iter().map(|entry| entry.ticket).collect();
        all.into_iter()
            .filter_map(|ticket| self.close(ticket, Ending::Cancel(CancelSource::Detached)))
            .collect()
    }

    /// Settles a pending ticket or ends its wait, whichever applies.
    pub fn close(&mut self, ticket: Ticket, ending: Ending) -> Option<Change<R, D>> {
        let index = self.index_of(ticket)?;
        if self.entries.get(index)?.waiting {
            return self.remove_waiting(ticket, WaitEnd::Closed(ending));
        }
        // Closing is final, even for URL mode: an accept here would leave it waiting.
        let entry = self.take(index)?;
        Some(Change::Settled {
            ticket,
            ending,
            reply_to: entry.reply_to?,
            data: Some(entry.data),
        })
    }

    /// [`Session::close`], then, when the batch's rule says so ([`batch::ends_the_rest`]: the user
    /// cancelled), the rest of the ticket's batch with the same ending, in queue order. A wait
    /// that ends (the accept already answered) takes nothing with it.
    pub fn close_in_batch(&mut self, ticket: Ticket, ending: Ending) -> Vec<Change<R, D>> {
        let batch = self.get(ticket).and_then(|entry| entry.batch);
        let mut changes = Vec::new();
        let mut next = Some(ticket);
        // One call site of `close` (it is large once inlined). Each turn takes its entry out of
        // the queue, so the loop ends.
        while let Some(current) = next {
            let Some(change) = self.close(current, ending.clone()) else {
                break;
            };
            let takes_the_rest = !changes.is_empty()
                || (matches!(change, Change::Settled { .. }) && batch::ends_the_rest(&ending));
            changes.push(change);
            next = batch.filter(|_| takes_the_rest).and_then(|batch| {
                self.entries
                    .iter()
                    .find(|entry| entry.batch == Some(batch))
                    .map(|entry| entry.ticket)
            });
        }
        changes
    }

    /// The queue line for the elicitation on screen, `(position, total)`: what is held, plus what
    /// its batch already answered, plus `done_elsewhere` (a -32042 flow's completed elicitations,
    /// which the surface tracks). `None` when there is only one to show.
    pub fn queue_position(&self, done_elsewhere: usize) -> Option<(usize, usize)> {
        let batch_done = self.front().map_or(0, |entry| entry.batch_done);
        batch::queue_position(self.entries.len(), batch_done + done_elsewhere)
    }

    /// The elicitation on screen.
    pub fn front(&self) -> Option<&Entry<R, D>> {
        self.entries.first()
    }

    /// A held elicitation by ticket.
    pub fn get(&self, ticket: Ticket) -> Option<&Entry<R, D>> {
        self.entries.iter().find(|entry| entry.ticket == ticket)
    }

    /// A held elicitation by ticket, to update what the surface keeps for it.
    pub fn get_mut(&mut self, ticket: Ticket) -> Option<&mut Entry<R, D>> {
        self.entries.iter_mut().find(|entry| entry.ticket == ticket)
    }

    /// Every held elicitation, the one on screen first.
    pub fn entries(&self) -> impl Iterator<Item = &Entry<R, D>> {
        self.entries.iter()
    }

    /// How many elicitations are open or queued.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is open or queued.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The earliest deadline, to schedule the next timer.
    pub fn next_deadline(&self) -> Option<f64> {
        self.entries
            .iter()
            .map(|entry| entry.deadline)
            .min_by(f64::total_cmp)
    }

    /// Whole seconds left for the elicitation on screen while inside the countdown window.
    pub fn countdown_seconds(&self, now: f64) -> Option<u64> {
        let front = self.front()?;
        let left = front.deadline - now;
        (left <= COUNTDOWN_MS && !front.waiting).then(|| (left.max(0.0) / 1000.0).ceil() as u64)
    }

    fn index_of(&self, ticket: Ticket) -> Option<usize> {
        self.entries.iter().position(|entry| entry.ticket == ticket)
    }

    /// Removes and returns the entry at `index`, if there is one. A `Vec`, not a `VecDeque`: the
    /// queue is short, and a `VecDeque` costs the wasm kilobytes of its own.
    fn take(&mut self, index: usize) -> Option<Entry<R, D>> {
        let entry = (index < self.entries.len()).then(|| self.entries.remove(index))?;
        if entry.batch.is_some() {
            for other in self
                .entries
                .iter_mut()
                .filter(|other| other.batch == entry.batch)
            {
                other.batch_done += 1;
            }
        }
        Some(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::HashMap;

    /// The session with nothing to answer and nothing kept, as the rules see it.
    type Session = super::Session<(), ()>;
    type Change = super::Change<(), ()>;

    fn settled(ticket: Ticket, ending: Ending) -> Change {
        Change::Settled {
            ticket,
            ending,
            reply_to: (),
            data: Some(()),
        }
    }

    #[test]
    fn a_completion_names_its_server_when_two_use_the_same_elicitation_id() {
        let mut session = Session::default();
        let same_id = |server: &str| Admit {
            elicitation_id: "login".into(),
            ..admit(server, true, 1000.0)
        };
        let (alpha, _) = session.admit(0.0, same_id("alpha"), (), ());
        let (beta, _) = session.admit(0.0, same_id("beta"), (), ());
        session.settle(alpha, Ending::Accept(None));
        session.settle(beta, Ending::Accept(None));
        assert_eq!(session.complete_from(Some("gamma"), "login"), None);
        assert_eq!(
            session
                .complete_from(Some("beta"), "login")
                .map(|change| change.ticket()),
            Some(beta),
            "beta's completion ends beta's wait, though alpha's came first"
        );
        assert_eq!(session.get(alpha).map(|entry| entry.waiting), Some(true));
        assert_eq!(
            session.complete("login").map(|change| change.ticket()),
            Some(alpha)
        );
    }

    fn admit(server: &str, awaits_completion: bool, timeout_ms: f64) -> Admit {
        Admit {
            server: server.into(),
            tenant: Tenant::default(),
            elicitation_id: format!("id-{server}"),
            awaits_completion,
            timeout_ms,
            rate_limit: 10,
        }
    }

    #[test]
    fn queue_is_in_order_and_each_settles_once() {
        let mut session = Session::default();
        let (a, _) = session.admit(0.0, admit("s", false, 1000.0), (), ());
        let (b, _) = session.admit(0.0, admit("s", false, 1000.0), (), ());
        assert_eq!(session.front().map(|e| e.ticket), Some(a));
        assert_eq!(session.len(), 2);
        assert!(session
            .settle(a, Ending::Decline { reason: None })
            .is_some());
        assert_eq!(
            session.settle(a, Ending::Accept(None)),
            None,
            "a settled ticket stays settled"
        );
        assert_eq!(session.front().map(|e| e.ticket), Some(b));
    }

    #[test]
    fn deadlines_expire_as_timeout_and_the_countdown_shows_in_the_last_30_seconds() {
        let mut session = Session::default();
        let (a, _) = session.admit(0.0, admit("s", false, 300_000.0), (), ());
        assert_eq!(session.countdown_seconds(0.0), None);
        assert_eq!(session.countdown_seconds(270_000.0), Some(30));
        assert_eq!(session.countdown_seconds(290_500.0), Some(10));
        assert!(session.tick(299_999.0).is_empty());
        assert_eq!(session.tick(300_000.0), vec![settled(a, Ending::Timeout)]);
        assert!(session.is_empty());
    }

    #[test]
    fn url_accept_waits_until_complete() {
        let mut session = Session::default();
        let (a, _) = session.admit(0.0, admit("s", true, 1000.0), (), ());
        assert!(matches!(
            session.settle(a, Ending::Accept(None)),
            Some(Change::Settled { .. })
        ));
        assert_eq!(session.len(), 1, "still showing the waiting state");
        assert_eq!(session.complete("unknown"), None);
        assert_eq!(
            session.complete("id-s"),
            Some(Change::WaitEnded {
                ticket: a,
                end: WaitEnd::Completed,
                data: ()
            })
        );
        assert_eq!(session.complete("id-s"), None, "a completed id is ignored");
        let (b, _) = session.admit(0.0, admit("t", true, 1000.0), (), ());
        assert_eq!(session.complete_ticket(b), None, "not consented yet");
        session.settle(b, Ending::Accept(None));
        assert!(matches!(
            session.complete_ticket(b),
            Some(Change::WaitEnded {
                end: WaitEnd::Completed,
                ..
            })
        ));
    }

    #[test]
    fn a_consent_that_awaits_no_completion_settles_for_good() {
        let mut session = Session::default();
        // A 2026-07-28 URL request: `awaits_completion` is false (url_rounds::waits_for_completion).
        let (a, _) = session.admit(0.0, admit("s", false, 1000.0), (), ());
        assert_eq!(
            session.settle(a, Ending::Accept(None)),
            Some(settled(a, Ending::Accept(None))),
            "the entry goes with its data: nothing waits"
        );
        assert!(session.is_empty());
        assert_eq!(session.complete("id-s"), None);
    }

    #[test]
    fn a_wait_closed_without_completing_says_how() {
        let mut session = Session::default();
        let (a, _) = session.admit(0.0, admit("s", true, 1000.0), (), ());
        session.settle(a, Ending::Accept(None));
        assert_eq!(
            session.end_wait(a),
            Some(Change::WaitEnded {
                ticket: a,
                end: WaitEnd::Closed(Ending::Cancel(CancelSource::User)),
                data: ()
            })
        );
        let (b, _) = session.admit(0.0, admit("t", true, 1000.0), (), ());
        session.settle(b, Ending::Accept(None));
        assert_eq!(
            session.tick(1000.0),
            vec![Change::WaitEnded {
                ticket: b,
                end: WaitEnd::Closed(Ending::Timeout),
                data: ()
            }],
            "a wait times out at the elicitation's deadline"
        );
    }

    #[test]
    fn tenant_change_dismisses_other_tenants() {
        let mut session = Session::default();
        let (a, _) = session.admit(0.0, admit("s", false, 1000.0), (), ());
        let next = Tenant {
            workspace_id: "w2".into(),
            ..Tenant::default()
        };
        assert_eq!(
            session.change_tenant(&next),
            vec![settled(a, Ending::Cancel(CancelSource::Workspace))]
        );
    }

    #[test]
    fn the_eleventh_request_in_a_minute_is_rate_limited_per_server() {
        let mut session = Session::default();
        for i in 0..10 {
            let (_, change) = session.admit(i as f64 * 1000.0, admit("busy", false, 1e9), (), ());
            assert_eq!(change, None);
        }
        let (ticket, change) = session.admit(30_000.0, admit("busy", false, 1e9), (), ());
        assert_eq!(
            change,
            Some(settled(ticket, Ending::Cancel(CancelSource::RateLimit)))
        );
        assert_eq!(
            session
                .admit(30_000.0, admit("other", false, 1e9), (), ())
                .1,
            None
        );
        assert_eq!(
            session.admit(60_000.5, admit("busy", false, 1e9), (), ()).1,
            None,
            "the window rolls"
        );
    }

    #[test]
    fn a_batch_counts_together_in_the_queue_line() {
        let mut session = Session::default();
        let (a, _) = session.admit_in_batch(0.0, admit("s", false, 1e9), Some(7), (), ());
        let (b, _) = session.admit_in_batch(0.0, admit("s", false, 1e9), Some(7), (), ());
        assert_eq!(session.queue_position(0), Some((1, 2)));
        session.settle(a, Ending::Accept(Some(json!({}))));
        assert_eq!(
            session.queue_position(0),
            Some((2, 2)),
            "the second of the round, though the first left"
        );
        session.settle(b, Ending::Decline { reason: None });
        assert_eq!(session.queue_position(0), None);

        // The batch is forgotten once empty: the same id later starts afresh.
        let (c, _) = session.admit_in_batch(0.0, admit("s", false, 1e9), Some(7), (), ());
        assert_eq!(session.queue_position(0), None, "alone: no position");
        // Without a batch, each call is its own: the second shows no position once the first left.
        let (d, _) = session.admit(0.0, admit("s", false, 1e9), (), ());
        assert_eq!(session.queue_position(0), Some((1, 2)));
        session.settle(c, Ending::Accept(Some(json!({}))));
        assert_eq!(session.queue_position(0), None);
        assert_eq!(
            session.queue_position(1),
            Some((2, 2)),
            "a flow's count adds in"
        );
        session.settle(d, Ending::Accept(Some(json!({}))));
    }

    #[test]
    fn the_users_cancel_of_one_cancels_the_rest_of_its_batch_only() {
        let mut session = Session::default();
        let (a, _) = session.admit_in_batch(0.0, admit("s", false, 1e9), Some(1), (), ());
        let (other, _) = session.admit_in_batch(0.0, admit("s", false, 1e9), Some(2), (), ());
        let (alone, _) = session.admit(0.0, admit("s", false, 1e9), (), ());
        let (b, _) = session.admit_in_batch(0.0, admit("s", false, 1e9), Some(1), (), ());
        let user = Ending::Cancel(CancelSource::User);
        assert_eq!(
            session.close_in_batch(a, user.clone()),
            vec![settled(a, user.clone()), settled(b, user.clone())],
            "each settles with its own cancel"
        );
        let held: Vec<Ticket> = session.entries().map(|entry| entry.ticket).collect();
        assert_eq!(held, [other, alone], "another batch and a lone call stay");
        assert_eq!(
            session.close_in_batch(a, user.clone()),
            vec![],
            "a settled ticket stays settled"
        );
        assert_eq!(
            session.close_in_batch(alone, user.clone()),
            vec![settled(alone, user)]
        );
    }

    #[test]
    fn other_endings_leave_the_rest_of_the_batch() {
        let server = Ending::Cancel(CancelSource::Server);
        let mut session = Session::default();
        let (a, _) = session.admit_in_batch(0.0, admit("s", false, 1e9), Some(1), (), ());
        let (b, _) = session.admit_in_batch(0.0, admit("s", false, 1e9), Some(1), (), ());
        let (c, _) = session.admit_in_batch(0.0, admit("s", false, 1e9), Some(1), (), ());
        assert_eq!(
            session.close_in_batch(a, server.clone()),
            vec![settled(a, server)]
        );
        assert!(session
            .settle(b, Ending::Decline { reason: None })
            .is_some());
        assert_eq!(session.queue_position(0), Some((3, 3)));
        assert_eq!(session.len(), 1, "{c} is still asked");

        // A URL wait the user ends already answered accept: it takes nothing with it.
        let mut session = Session::default();
        let (waiting, _) = session.admit_in_batch(0.0, admit("u", true, 1e9), Some(4), (), ());
        let (next, _) = session.admit_in_batch(0.0, admit("u", false, 1e9), Some(4), (), ());
        session.settle(waiting, Ending::Accept(None));
        let changes = session.close_in_batch(waiting, Ending::Cancel(CancelSource::User));
        assert!(matches!(changes.as_slice(), [Change::WaitEnded { .. }]));
        assert_eq!(session.front().map(|entry| entry.ticket), Some(next));
    }

    #[test]
    fn every_interleaving_settles_each_request_exactly_once() {
        let mut rng = crate::rng::Rng(0x9e37_79b9_7f4a_7c15);
        let runs = 10_000;
        for _ in 0..runs {
            let mut session = Session::default();
            let mut settled: HashMap<Ticket, u32> = HashMap::new();
            let mut tickets = Vec::new();
            let mut now = 0.0;
            let record = |changes: Vec<Change>, settled: &mut HashMap<Ticket, u32>| {
                for change in changes {
                    if let Change::Settled { ticket, .. } = change {
                        *settled.entry(ticket).or_default() += 1;
                    }
                }
            };
            for _ in 0..(4 + rng.below(30)) {
                let pick = |rng: &mut crate::rng::Rng, tickets: &Vec<Ticket>| {
                    tickets
                        .get(rng.below(tickets.len().max(1)))
                        .copied()
                        .unwrap_or(999)
                };
                let changes: Vec<Change> = match rng.below(11) {
                    0 | 1 => {
                        let server = if rng.below(2) == 0 { "a" } else { "b" };
                        let mut request =
                            admit(server, rng.below(3) == 0, 1000.0 + rng.below(5000) as f64);
                        request.rate_limit = 1 + rng.below(6) as u32;
                        request.tenant.workspace_id = rng.below(2).to_string();
                        let batch = [None, Some(1), Some(2)]
                            .get(rng.below(3))
                            .copied()
                            .flatten();
                        let (ticket, change) = session.admit_in_batch(now, request, batch, (), ());
                        tickets.push(ticket);
                        change.into_iter().collect()
                    }
                    2 => session
                        .settle(pick(&mut rng, &tickets), Ending::Accept(Some(json!({}))))
                        .into_iter()
                        .collect(),
                    3 => session
                        .settle(pick(&mut rng, &tickets), Ending::Accept(None))
                        .into_iter()
                        .collect(),
                    4 => session
                        .settle(pick(&mut rng, &tickets), Ending::Decline { reason: None })
                        .into_iter()
                        .collect(),
                    5 => session.close_in_batch(
                        pick(&mut rng, &tickets),
                        Ending::Cancel(CancelSource::User),
                    ),
                    6 => session
                        .close(
                            pick(&mut rng, &tickets),
                            Ending::Cancel(CancelSource::Server),
                        )
                        .into_iter()
                        .collect(),
                    7 => {
                        now += rng.below(3000) as f64;
                        session.tick(now)
                    }
                    8 => session
                        .complete(&format!("id-{}", if rng.below(2) == 0 { "a" } else { "b" }))
                        .into_iter()
                        .collect(),
                    9 => session.change_tenant(&Tenant {
                        workspace_id: rng.below(2).to_string(),
                        ..Tenant::default()
                    }),
                    _ => session
                        .end_wait(pick(&mut rng, &tickets))
                        .into_iter()
                        .collect(),
                };
                record(changes, &mut settled);
            }
            record(session.detach(), &mut settled);
            assert!(session.is_empty());
            for ticket in &tickets {
                assert_eq!(
                    settled.get(ticket),
                    Some(&1),
                    "ticket {ticket} must settle exactly once"
                );
            }
            assert_eq!(
                settled.len(),
                tickets.len(),
                "nothing settles that was never admitted"
            );
        }
    }
}
