//! A running relay: the store chosen by the database URL, the HTTP server (and the metrics
//! address, when asked for), the expiry sweeper and, on PostgreSQL, the LISTEN link to the other
//! replicas. Every task belongs to the [`Server`] and stops with it (on [`Server::shutdown`] or on
//! drop). Stopping drains first: streams end with a `retry:` hint and long-polls answer at once,
//! so clients move to another replica; nothing pending is lost, since it is in the database.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use koder_mcp_elicitation_core::i18n::Catalog;
use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;

use crate::api::state::Announcer;
use crate::api::{self, AppState};
use crate::auth::Auth;
use crate::config::{redact_database, Config, DatabaseKind};
use crate::events::EventSink;
use crate::hub::Hub;
use crate::listen::Listening;
use crate::metrics::Metrics;
use crate::retention;
use crate::store::postgres::PostgresStore;
use crate::store::sqlite::SqliteStore;
use crate::store::Store;
use crate::webhooks::deliver;
use crate::webhooks::worker::{self as webhook_worker, DeliveryCounts};

/// How often due elicitations are expired.
pub const SWEEP_INTERVAL: Duration = Duration::from_millis(200);
/// How often the sweeper measures the store's clock again (PostgreSQL: against the database's),
/// so a process clock that drifts or steps is corrected within this long.
pub const CLOCK_SYNC_INTERVAL: Duration = Duration::from_secs(5);
/// How often expired stream tickets are deleted (a redeem ignores them anyway).
const TICKET_PURGE_INTERVAL: Duration = Duration::from_secs(30);

/// Why the relay could not start.
#[derive(Debug)]
pub enum ServeError {
    /// The configuration cannot work (bad origin, unsupported database URL, a short secret, a key
    /// set that cannot be read).
    Config(String),
    /// The database could not be opened.
    Database(String),
    /// The address could not be bound.
    Bind(std::io::Error),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Config(message) => write!(f, "{message}"),
            ServeError::Database(message) => write!(f, "cannot open the database: {message}"),
            ServeError::Bind(error) => write!(f, "cannot listen: {error}"),
        }
    }
}

impl std::error::Error for ServeError {}

/// An open store and, on PostgreSQL, the origin its notifications carry.
#[derive(Debug)]
pub struct OpenStore {
    /// The store.
    pub store: Arc<dyn Store>,
    /// `Some(origin)` for a store that replicas share (PostgreSQL): others' changes are heard by
    /// a LISTEN link, which skips this origin.
    pub shared: Option<String>,
}

/// Opens the store a database URL names (`sqlite:…` or `postgres://…`).
pub async fn open_store(url: &str) -> Result<OpenStore, ServeError> {
    open_store_with(url, false).await
}

/// Like [`open_store`]; with `webhook_outbox` every change also queues its webhook, in the
/// change's own transaction.
pub async fn open_store_with(url: &str, webhook_outbox: bool) -> Result<OpenStore, ServeError> {
    let described = |error: crate::store::StoreError| {
        ServeError::Database(format!("{} ({})", error.0, redact_database(url)))
    };
    match DatabaseKind::of(url) {
        Some(DatabaseKind::Sqlite) => Ok(OpenStore {
            store: Arc::new(
                SqliteStore::open(url)
                    .await
                    .map_err(described)?
                    .with_webhook_outbox(webhook_outbox),
            ),
            shared: None,
        }),
        Some(DatabaseKind::Postgres) => {
            let store = PostgresStore::connect(url)
                .await
                .map_err(described)?
                .with_webhook_outbox(webhook_outbox);
            Ok(OpenStore {
                shared: Some(store.origin().to_string()),
                store: Arc::new(store),
            })
        }
        None => Err(ServeError::Config(format!(
            "database URL {:?} must start with sqlite: or postgres://",
            redact_database(url)
        ))),
    }
}

/// Opens the store, binds, and starts serving and sweeping.
pub async fn serve(config: Config) -> Result<Server, ServeError> {
    let opened = open_store_with(&config.database, config.webhook.is_some()).await?;
    serve_with_store(config, opened).await
}

/// Like [`serve`], on a store already open (tests share one between servers). With webhooks
/// configured, the store must have been opened with its outbox on ([`open_store_with`]).
pub async fn serve_with_store(config: Config, opened: OpenStore) -> Result<Server, ServeError> {
    let OpenStore { store, shared } = opened;
    let hub = Hub::new(config.streams);
    let webhook_wake = Arc::new(Notify::new());
    let webhook_client = match &config.webhook {
        Some(_) => Some(deliver::client().map_err(ServeError::Config)?),
        None => None,
    };
    let mut own_announcer = Announcer::new(hub.clone(), store.clock().clone());
    if config.webhook.is_some() {
        own_announcer = own_announcer.waking(Arc::clone(&webhook_wake));
    }
    let announcer: Arc<dyn EventSink> = Arc::new(own_announcer.clone());
    let metrics = Metrics::new();
    // Listening before serving: no other replica's change after the first request is missed.
    let listening = match shared {
        Some(origin) => Some(
            Listening::start_measured(
                &config.database,
                &origin,
                Arc::clone(&store),
                Arc::clone(&announcer),
                Some(metrics.clone()),
            )
            .await
            .map_err(|error| {
                ServeError::Database(format!(
                    "cannot listen for other replicas' changes: {error} ({})",
                    redact_database(&config.database)
                ))
            })?,
        ),
        None => None,
    };
    let (draining, draining_rx) = watch::channel(false);
    let (stopping, stopping_rx) = watch::channel(false);
    let state = AppState {
        store: Arc::clone(&store),
        hub: hub.clone(),
        announcer: own_announcer,
        auth: Arc::new(
            Auth::from_config(&config)
                .await
                .map_err(ServeError::Config)?,
        ),
        messages: Arc::new(Catalog::new()),
        shutdown: draining_rx,
        metrics: metrics.clone(),
        link: listening.as_ref().map(Listening::link),
    };
    let operations = api::operations_router(state.clone());
    let app =
        api::router(state, &config.allow_origins).map_err(|error| ServeError::Config(error.0))?;
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(ServeError::Bind)?;
    let local_addr = listener.local_addr().map_err(ServeError::Bind)?;
    let metrics_listener = match config.metrics_listen {
        Some(address) => Some(
            tokio::net::TcpListener::bind(address)
                .await
                .map_err(ServeError::Bind)?,
        ),
        None => None,
    };
    let metrics_addr = match &metrics_listener {
        Some(listener) => Some(listener.local_addr().map_err(ServeError::Bind)?),
        None => None,
    };
    let mut http = vec![serve_http(listener, app, stopping_rx.clone())];
    if let Some(listener) = metrics_listener {
        http.push(serve_http(listener, operations, stopping_rx.clone()));
    }

    let webhooks = match (config.webhook.clone(), webhook_client) {
        (Some(webhook), Some(client)) => Some(tokio::spawn(webhook_worker::run(
            Arc::clone(&store),
            webhook,
            client,
            webhook_wake,
            DeliveryCounts::exported(metrics.webhooks().clone()),
            stopping_rx.clone(),
        ))),
        _ => None,
    };
    // Stops on its own when `stopping` turns true (or its sender is dropped with the server).
    tokio::spawn(crate::audit_checkpoint::run(
        Arc::clone(&store),
        config.audit_checkpoint_interval,
        stopping_rx.clone(),
    ));
    let sweeper = tokio::spawn(sweep(
        Arc::clone(&store),
        announcer,
        metrics.clone(),
        config.retention,
        stopping_rx,
    ));
    tracing::info!(
        address = %local_addr,
        metrics_address = metrics_addr.map(|address| address.to_string()),
        database = %redact_database(&config.database),
        "listening"
    );
    Ok(Server {
        local_addr,
        metrics_addr,
        store,
        hub,
        metrics,
        listening,
        draining,
        stopping,
        drain_timeout: config.drain_timeout,
        http,
        sweeper: Some(sweeper),
        webhooks,
    })
}

/// Serves `app` on `listener` until `stopping` turns true, then finishes open requests.
fn serve_http(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    stopping: watch::Receiver<bool>,
) -> JoinHandle<std::io::Result<()>> {
    tokio::spawn(async move {
        crate::http::serve(listener, app, stopping).await;
        Ok(())
    })
}

/// Expires due elicitations every [`SWEEP_INTERVAL`], judged by the store's clock (measured
/// again every [`CLOCK_SYNC_INTERVAL`]), and deletes finished ones past `retention` every
/// [`retention::PURGE_INTERVAL`], until shutdown.
async fn sweep(
    store: Arc<dyn Store>,
    announcer: Arc<dyn EventSink>,
    metrics: Metrics,
    retention: Duration,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut ticks = tokio::time::interval(SWEEP_INTERVAL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut clock_synced = tokio::time::Instant::now();
    let mut failing = false;
    let mut last_purge = tokio::time::Instant::now();
    let mut last_retention = tokio::time::Instant::now();
    let mut retention_failing = false;
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = shutdown.wait_for(|stopping| *stopping) => return,
        }
        if clock_synced.elapsed() >= CLOCK_SYNC_INTERVAL {
            clock_synced = tokio::time::Instant::now();
            // A failed measurement keeps the last offset; the sweep below reports the outage.
            let _ = store.sync_clock().await;
        }
        if last_purge.elapsed() >= TICKET_PURGE_INTERVAL {
            last_purge = tokio::time::Instant::now();
            if let Err(error) = store.purge_tickets(store.now_ms()).await {
                tracing::error!(%error, "purging stream tickets failed");
            }
        }
        if last_retention.elapsed() >= retention::PURGE_INTERVAL {
            last_retention = tokio::time::Instant::now();
            match retention::purge(store.as_ref(), retention).await {
                Ok(_) => retention_failing = false,
                // Said once per outage, like the expiry sweep's.
                Err(error) if !retention_failing => {
                    retention_failing = true;
                    tracing::error!(%error, "deleting finished elicitations failed");
                }
                Err(_) => {}
            }
        }
        match store.expire_due(store.now_ms()).await {
            Ok(expired) => {
                failing = false;
                for event in &expired {
                    metrics.count_change(event);
                    announcer.deliver(event);
                }
            }
            Err(error) => {
                // Said once per outage, not five times a second.
                if !failing {
                    tracing::error!(%error, "expiry sweep failed");
                }
                failing = true;
            }
        }
    }
}

/// A running relay.
#[derive(Debug)]
pub struct Server {
    local_addr: SocketAddr,
    metrics_addr: Option<SocketAddr>,
    store: Arc<dyn Store>,
    hub: Hub,
    metrics: Metrics,
    listening: Option<Listening>,
    /// True from the start of a drain: streams end, long-polls answer, `/readyz` says 503.
    draining: watch::Sender<bool>,
    /// True once the listeners should stop accepting and finish what is open.
    stopping: watch::Sender<bool>,
    drain_timeout: Duration,
    /// The main address's server, then the metrics address's.
    http: Vec<JoinHandle<std::io::Result<()>>>,
    sweeper: Option<JoinHandle<()>>,
    /// The webhook worker, with `--webhook-url`.
    webhooks: Option<JoinHandle<()>>,
}

impl Server {
    /// The address it listens on (the real port when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// `http://HOST:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.local_addr)
    }

    /// Its store.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Its streams and long-polls.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    /// The `--metrics-listen` address (the real port when 0 was asked for), when set.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_addr
    }

    /// Its metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// Whether its LISTEN link to the other replicas is connected now (`None` on SQLite, which
    /// has none).
    pub fn is_listening(&self) -> Option<bool> {
        self.listening.as_ref().map(Listening::is_connected)
    }

    /// Starts draining, and keeps serving: `/readyz` answers 503, open streams end with a
    /// jittered `retry:` hint, waiting long-polls answer with the current state, and new streams
    /// are refused with 503 and `Retry-After`. Everything else is still served.
    pub fn drain(&self) {
        let _ = self.draining.send(true);
    }

    /// Drains, stops accepting, waits for open requests up to the drain timeout (then drops
    /// them), and stops the sweeper.
    pub async fn shutdown(mut self) -> std::io::Result<()> {
        let deadline = tokio::time::Instant::now() + self.drain_timeout;
        self.drain();
        let _ = self.stopping.send(true);
        if let Some(sweeper) = self.sweeper.take() {
            let _ = sweeper.await;
        }
        if let Some(mut webhooks) = self.webhooks.take() {
            // A batch in flight ends within its attempts' timeout; past that, its rows' lease
            // runs out and they are sent again (same webhook-id).
            if tokio::time::timeout(webhook_worker::SHUTDOWN_WAIT, &mut webhooks)
                .await
                .is_err()
            {
                webhooks.abort();
            }
        }
        let mut outcome = Ok(());
        for mut http in std::mem::take(&mut self.http) {
            match tokio::time::timeout_at(deadline, &mut http).await {
                Ok(Ok(Ok(()))) => {}
                Ok(Ok(Err(error))) => outcome = Err(error),
                Ok(Err(join_error)) => outcome = Err(std::io::Error::other(join_error)),
                Err(_) => {
                    tracing::warn!(
                        "the drain timeout passed with requests still open: dropping them"
                    );
                    http.abort();
                }
            }
        }
        outcome
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.draining.send(true);
        let _ = self.stopping.send(true);
        if let Some(sweeper) = self.sweeper.take() {
            sweeper.abort();
        }
        if let Some(webhooks) = self.webhooks.take() {
            webhooks.abort();
        }
        for http in self.http.drain(..) {
            http.abort();
        }
    }
}
