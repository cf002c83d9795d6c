//! The schedule: what happens to a question later if it is still open then, a reminder
//! (`notify.remindAfter`) or an escalation stage. A create writes its timers beside itself
//! ([`store`]); the one delivery loop every channel runs claims due timers like outbox rows
//! (with a lease, `SKIP LOCKED` on PostgreSQL: one replica fires each, and a relay killed
//! before firing one leaves it to be claimed again) and fires each: a reminder through the
//! store (`Store::remind`), a stage through the service (`Elicitations::escalate`), each one
//! transaction that queues what the other channels send for it, nothing for a question that
//! ended first (or a stage already reached).

use std::sync::Arc;
use std::time::Duration;

use koder_elicitation_relay_protocol::Notify;

use crate::channels::delivery::{doubling, retry_until};
use crate::channels::{Attempt, Channel, Relay, Settings};
use crate::service::Elicitations;
use crate::store::outbox::{OutboxTable, Outcome, Queue, Reminded};
use crate::store::{Status, Store, StoreError};

/// Its table: the timers a create writes, the row a claim returns.
pub mod store;

use store::{Timer, TimerQueue, TimerRow, TABLE};

/// The first retry's wait when the store could not be written; doubling up to a minute.
const FIRST_RETRY_WAIT: Duration = Duration::from_secs(1);
/// The longest wait between attempts (the deadline ends them anyway).
const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);

/// The schedule is always on: it has no flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScheduleSettings;

impl Settings for ScheduleSettings {
    type Channel = Timers;

    fn queue(&self) -> Arc<dyn Queue> {
        Arc::new(TimerQueue)
    }

    fn channel(&self, relay: &Relay) -> Result<Timers, String> {
        Ok(Timers {
            store: Arc::clone(&relay.store),
            elicitations: relay.elicitations.clone(),
        })
    }
}

/// The schedule's worker: each claimed timer fired.
#[derive(Debug)]
pub struct Timers {
    store: Arc<Store>,
    elicitations: Elicitations,
}

impl Timers {
    /// Fires `row`, or says why not.
    async fn fire(&self, row: &TimerRow) -> Attempt {
        let now = self.store.now_ms();
        let gave_up = |label, error: &str| Attempt {
            label,
            outcome: Outcome::GaveUp {
                error: error.to_string(),
            },
        };
        if now >= row.deadline {
            return gave_up("skipped", "skipped: the question was over first");
        }
        let Some(timer) = row.timer() else {
            return gave_up("failed", "an unknown kind of timer");
        };
        let fired = match timer {
            Timer::Reminder => {
                let notify = match row.notify.as_deref().map(serde_json::from_str::<Notify>) {
                    None => None,
                    Some(Ok(notify)) => Some(notify),
                    Some(Err(_)) => return gave_up("failed", "its notify does not parse"),
                };
                let reminded = Reminded { notify };
                self.store.remind(&row.elicitation_id, &reminded, now).await
            }
            Timer::Stage(stage) => self.escalate(&row.elicitation_id, stage).await,
        };
        match fired {
            Ok(true) => {
                tracing::info!(elicitation = %row.elicitation_id, timer = %row.id, "timer fired");
                Attempt {
                    label: "fired",
                    outcome: Outcome::Delivered,
                }
            }
            Ok(false) => gave_up("skipped", "skipped: the question was over first"),
            Err(error) => {
                let wait = doubling(FIRST_RETRY_WAIT, MAX_RETRY_WAIT, row.attempts, &row.id);
                match retry_until(now, wait, row.deadline, error.to_string()) {
                    Ok(retry) => {
                        tracing::warn!(timer = %row.id, error = %retry.error, "timer not fired; retrying");
                        Attempt {
                            label: "retried",
                            outcome: retry.kept(),
                        }
                    }
                    Err(error) => gave_up("failed", &error),
                }
            }
        }
    }
}

impl Timers {
    /// Moves the question to `stage`: whether this call did (not when it ended first, or the
    /// stage was reached already). The stage before it not reached yet (its timer held by a
    /// replica that died) is an error: tried again, not skipped.
    async fn escalate(&self, elicitation_id: &str, stage: i64) -> Result<bool, StoreError> {
        if self
            .elicitations
            .escalate(elicitation_id, stage)
            .await?
            .is_some()
        {
            return Ok(true);
        }
        let now = self.store.now_ms();
        let behind = self
            .elicitations
            .get(elicitation_id)
            .await?
            .is_some_and(|record| {
                record.status == Status::Pending
                    && record.is_open(now)
                    && record.escalated < stage - 1
            });
        if behind {
            return Err(StoreError("the stage before it is not reached yet".into()));
        }
        Ok(false)
    }
}

impl Channel for Timers {
    const NAME: &'static str = "timer";
    const METRIC_HELP: &'static str = "Timers of questions' schedules (reminders, escalation \
        stages) by outcome: fired, skipped (the question was over first), retried, failed";
    const TABLE: &'static OutboxTable = &TABLE;
    // Only creates that ask for a reminder or an escalation write one.
    const MOSTLY_EMPTY: bool = true;
    type Row = TimerRow;

    async fn attempt(&self, row: &TimerRow) -> Attempt {
        self.fire(row).await
    }
}
