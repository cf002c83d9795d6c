//! The channels a question reaches people by, each a folder implementing [`Channel`]: webhooks
//! to the host, Web Push to the person's browsers, e-mail with the question's link. Each has its
//! own outbox table (a migration pair), run by the one generic outbox store
//! (`crate::store::outbox`) and the one delivery loop ([`delivery`]): a change queues rows in its
//! own transaction (the channel's [`Queue`]), a worker per channel claims them, attempts each
//! once and keeps what came of it. The relay's channels are the one list in [`registry`].
//!
//! Adding a channel: a folder here with its settings (its flags, parsed in `cli`), its queue, its
//! `Channel` impl and its table's statements; its migration pair; one line in [`registry`].

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use koder_elicitation_relay_protocol::Notify;
use tokio::sync::watch;
use tokio::sync::Notify as Wake;

use crate::metrics::Metrics;
use crate::service::{Elicitations, Links};
use crate::store::outbox::{Claimed, OutboxChannel, OutboxTable, Outboxes, Outcome, Queue};
use crate::store::Store;

/// The one loop every channel's worker runs, and its backoff helpers.
pub mod delivery;

/// The outbound HTTP client: its own TLS, no redirects, a per-attempt timeout.
pub mod http;

/// E-mail: the question's link, over SMTP.
pub mod email;

/// Web Push to the person's browsers.
pub mod push;

/// Webhooks to the host (Standard Webhooks).
pub mod webhooks;

/// A question's schedule: reminders and escalation stages, fired once when due.
pub mod schedule;

/// What one attempt came to: what its outbox keeps, and its label in the channel's
/// `koder_relay_<name>_deliveries_total{outcome}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// What the outbox keeps.
    pub outcome: Outcome,
    /// The metric's `outcome` label.
    pub label: &'static str,
}

/// One channel as its worker runs it.
pub trait Channel: Send + Sync + 'static {
    /// Its name (`webhook`, `push`, `email`): in logs, in its metric's name
    /// (`koder_relay_<name>_deliveries_total`) and in the links it makes.
    const NAME: &'static str;
    /// Its metric's help text.
    const METRIC_HELP: &'static str;
    /// Its outbox table's statements.
    const TABLE: &'static OutboxTable;
    /// Whether most changes queue nothing to it: a claim then reads whether anything is due
    /// before it takes the writer.
    const MOSTLY_EMPTY: bool;
    /// A claimed row.
    type Row: Claimed;

    /// One attempt at `row` (claimed, its attempt counted): checks, sends, and says what came
    /// of it and when to try again.
    fn attempt(&self, row: &Self::Row) -> impl Future<Output = Attempt> + Send;
}

/// A channel's settings, as its flags give them: what a create may ask of it, what changes
/// queue to it and how to run it.
pub trait Settings: Clone + Send + Sync + 'static {
    /// The channel they run.
    type Channel: Channel;

    /// Whether a create may ask what `notify` asks of the channel (on with `settings`, or off):
    /// else why not, for the host's developer (a 422). Nothing to check by default.
    fn accepts(settings: Option<&Self>, notify: &Notify) -> Result<(), String> {
        let _ = (settings, notify);
        Ok(())
    }

    /// What a change queues to the channel.
    fn queue(&self) -> Arc<dyn Queue>;

    /// The channel, ready to run in `relay` (its outbound clients built now, so a failure
    /// stops the start).
    fn channel(&self, relay: &Relay) -> Result<Self::Channel, String>;
}

/// The outbox of the channel `C`, changes queueing to it what `queue` says (for a store opened
/// without a configuration).
pub fn outbox_of<C: Channel>(queue: impl Queue + 'static) -> OutboxChannel {
    OutboxChannel {
        name: C::NAME,
        table: C::TABLE,
        queue: Some(Arc::new(queue)),
    }
}

impl Default for Outboxes {
    /// The questions' schedule only: on in every configuration, so two stores agree on it.
    fn default() -> Outboxes {
        Outboxes::new(vec![outbox_of::<schedule::Timers>(
            schedule::store::TimerQueue,
        )])
    }
}

/// What a channel may use of the running relay.
#[derive(Debug, Clone)]
pub struct Relay {
    /// The store: the channel's outbox, the deployment's clock.
    pub store: Arc<Store>,
    /// The elicitations, read through the service (so expiry applies).
    pub elicitations: Elicitations,
    /// The answer links, when the answer page is on.
    pub links: Option<Links>,
}

/// A channel's worker, not started yet, and what wakes it.
pub type Worker = (Arc<Wake>, Pin<Box<dyn Future<Output = ()> + Send>>);

type Starter = Box<dyn FnOnce(&Relay, &Metrics, &watch::Receiver<bool>) -> Result<Worker, String>>;

type NotifyCheck = Arc<dyn Fn(&Notify) -> Result<(), String> + Send + Sync>;

/// Every channel's check of what a create's `notify` asks ([`Settings::accepts`]).
#[derive(Clone, Default)]
pub struct NotifyChecks(Vec<NotifyCheck>);

impl NotifyChecks {
    /// Whether every channel accepts `notify`; the first refusal otherwise.
    pub fn check(&self, notify: &Notify) -> Result<(), String> {
        self.0.iter().try_for_each(|accepts| accepts(notify))
    }
}

impl std::fmt::Debug for NotifyChecks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NotifyChecks({})", self.0.len())
    }
}

/// The relay's channels: each one's outbox, and a starter for each one that is on.
#[derive(Default)]
pub struct Registry {
    outboxes: Vec<OutboxChannel>,
    metrics: Vec<(&'static str, &'static str)>,
    checks: NotifyChecks,
    starters: Vec<Starter>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("outboxes", &self.outboxes)
            .finish_non_exhaustive()
    }
}

/// The relay's channels, each on when its settings are given: the one list of channels.
pub fn registry(
    webhook: Option<&webhooks::WebhookConfig>,
    push: Option<&push::PushSettings>,
    email: Option<&email::EmailSettings>,
) -> Registry {
    let mut registry = Registry::default();
    registry.add(webhook);
    registry.add(push);
    registry.add(email);
    registry.add(Some(&schedule::ScheduleSettings));
    registry
}

impl Registry {
    /// Registers the channel `settings` run (on when given).
    fn add<S: Settings>(&mut self, settings: Option<&S>) {
        let name = S::Channel::NAME;
        self.outboxes.push(OutboxChannel {
            name,
            table: S::Channel::TABLE,
            queue: settings.map(Settings::queue),
        });
        self.metrics.push((name, S::Channel::METRIC_HELP));
        let checked = settings.cloned();
        self.checks
            .0
            .push(Arc::new(move |notify| S::accepts(checked.as_ref(), notify)));
        if let Some(settings) = settings.cloned() {
            self.starters
                .push(Box::new(move |relay, metrics, stopping| {
                    let worker = delivery::Worker {
                        channel: settings.channel(relay)?,
                        outbox: relay.store.outbox(S::Channel::TABLE),
                        clock: relay.store.clock().clone(),
                        counts: metrics.deliveries(name),
                    };
                    let wake = Arc::new(Wake::new());
                    let run = worker.run(Arc::clone(&wake), stopping.clone());
                    Ok((
                        wake,
                        Box::pin(run) as Pin<Box<dyn Future<Output = ()> + Send>>,
                    ))
                }));
        }
    }

    /// Every channel's outbox, for the store: what changes queue, what retention purges.
    pub fn outboxes(&self) -> Outboxes {
        Outboxes::new(self.outboxes.clone())
    }

    /// What every channel accepts of a create's `notify`, for the routes.
    pub fn notify_checks(&self) -> NotifyChecks {
        self.checks.clone()
    }

    /// Every channel's name and metric help, for [`Metrics::with_channels`].
    pub fn metrics(&self) -> &[(&'static str, &'static str)] {
        &self.metrics
    }

    /// The workers of the channels that are on, working in `relay` until `stopping`.
    pub fn workers(
        self,
        relay: &Relay,
        metrics: &Metrics,
        stopping: &watch::Receiver<bool>,
    ) -> Result<Vec<Worker>, String> {
        self.starters
            .into_iter()
            .map(|start| start(relay, metrics, stopping))
            .collect()
    }
}
