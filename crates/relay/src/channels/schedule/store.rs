//! The schedule's table (`koder_elicitation_timers`, see the `0014_schedule` migrations): the
//! timers a create writes beside itself ([`TimerQueue`]: a reminder when its `notify` asks for
//! one, one per `escalate` stage), and the row a claim returns. It is an outbox like the channels' (claimed with a lease,
//! marked delivered once fired), so each timer fires on one replica, once.

use koder_elicitation_relay_protocol::Notify;

use crate::record::NewElicitation;
use crate::store::beside::{beside, Arg, Beside, BesideText};
use crate::store::outbox::{outbox_table, Claimed, OutboxTable, Queue, Queued};

/// A reminder's kind in the table.
const REMINDER: &str = "reminder";
/// An escalation stage's kind in the table.
const ESCALATE: &str = "escalate";

/// The insert of one timer beside its create (`$1` its id, `$2` the elicitation, `$3` its
/// kind, `$4` its stage, `$5` what it mails, `$6` now, `$7` the deadline, `$8` when it is due);
/// a repeat is a no-op.
const ENQUEUE: BesideText = beside!(
    "INSERT INTO koder_elicitation_timers \
     (id, elicitation_id, kind, stage, notify, created_at, deadline, attempts, next_attempt_at) \
     SELECT $1, $2, $3, $4, $5, $6, $7, 0, $8 FROM ",
    " WHERE TRUE ON CONFLICT (id) DO NOTHING"
);

/// A timer of a question's schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timer {
    /// `notify.remindAfter`.
    Reminder,
    /// Escalation stage k (from 1).
    Stage(i64),
}

/// The timers creates write: always on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimerQueue;

impl Queue for TimerQueue {
    fn rows(&self, change: &Queued<'_>) -> Vec<Beside> {
        let Some(new) = change.created else {
            return Vec::new();
        };
        let reminder = new.notify.as_ref().and_then(|notify| {
            let after = notify.remind_after_ms?;
            Some(timer(new, Timer::Reminder, after, Some(notify)))
        });
        // A stage's audience and addresses are the question's own (`record.team`).
        let stages = new.team.iter().flat_map(|team| team.escalate.iter());
        let stages = (1..)
            .zip(stages)
            .map(|(stage, escalation)| timer(new, Timer::Stage(stage), escalation.after_ms, None));
        reminder
            .into_iter()
            .chain(stages)
            // One that would come after the question's time is never written.
            .filter(|(_, due)| *due < new.expires_at)
            .map(|(beside, _)| beside)
            .collect()
    }
}

/// The row of `new`'s timer `kind`, due `after_ms` after the create, mailing `notify`; and
/// when it is due.
fn timer(
    new: &NewElicitation,
    kind: Timer,
    after_ms: i64,
    notify: Option<&Notify>,
) -> (Beside, i64) {
    let (name, stage) = match kind {
        Timer::Reminder => (REMINDER, 0),
        Timer::Stage(stage) => (ESCALATE, stage),
    };
    let due = new.created_at.saturating_add(after_ms);
    let notify = notify.and_then(|notify| serde_json::to_string(notify).ok());
    let beside = Beside {
        text: ENQUEUE,
        args: vec![
            Arg::Text(format!("{}.{name}.{stage}", new.id)),
            Arg::Text(new.id.clone()),
            Arg::Text(name.to_string()),
            Arg::Int(stage),
            Arg::OptionalText(notify),
            Arg::Int(new.created_at),
            Arg::Int(new.expires_at),
            Arg::Int(due),
        ],
    };
    (beside, due)
}

/// The table's statements.
pub const TABLE: OutboxTable = outbox_table!(
    "koder_elicitation_timers",
    "id, elicitation_id, kind, stage, notify, deadline, attempts",
    false
);

/// One claimed timer.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct TimerRow {
    /// The row's id.
    pub id: String,
    /// The question it is for.
    pub elicitation_id: String,
    /// `reminder` or `escalate`.
    pub kind: String,
    /// An escalation's stage (from 1); 0 for a reminder.
    pub stage: i64,
    /// What a reminder mails (the create's `notify`, JSON), if anything.
    pub notify: Option<String>,
    /// Never fired after this (ms since the Unix epoch): the question's expiry.
    pub deadline: i64,
    /// Attempts so far, counting the one this claim is for.
    pub attempts: i64,
}

impl TimerRow {
    /// Which timer it is; `None` for a kind this relay does not know.
    pub fn timer(&self) -> Option<Timer> {
        match self.kind.as_str() {
            REMINDER => Some(Timer::Reminder),
            ESCALATE => Some(Timer::Stage(self.stage)),
            _ => None,
        }
    }
}

impl Claimed for TimerRow {
    fn id(&self) -> &str {
        &self.id
    }
}
