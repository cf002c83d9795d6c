//! A running relay: the store chosen by the database URL, the HTTP server, the expiry sweeper and,
//! on PostgreSQL, the LISTEN link to the other replicas. Every task belongs to the [`Server`] and
//! stops with it (on [`Server::shutdown`] or on drop).

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
/// How long a graceful shutdown waits for open requests before dropping them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

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
    // Listening before serving: no other replica's change after the first request is missed.
    let listening = match shared {
        Some(origin) => Some(
            Listening::start(
                &config.database,
                &origin,
                Arc::clone(&store),
                Arc::clone(&announcer),
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
    let (shutdown, shutdown_rx) = watch::channel(false);
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
        shutdown: shutdown_rx.clone(),
    };
    let app =
        api::router(state, &config.allow_origins).map_err(|error| ServeError::Config(error.0))?;
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(ServeError::Bind)?;
    let local_addr = listener.local_addr().map_err(ServeError::Bind)?;
    let mut stop_rx = shutdown_rx.clone();
    let http = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = stop_rx.wait_for(|stopping| *stopping).await;
            })
            .await
    });
    let webhook_counts = DeliveryCounts::default();
    let webhooks = match (config.webhook.clone(), webhook_client) {
        (Some(webhook), Some(client)) => Some(tokio::spawn(webhook_worker::run(
            Arc::clone(&store),
            webhook,
            client,
            webhook_wake,
            webhook_counts.clone(),
            shutdown_rx.clone(),
        ))),
        _ => None,
    };
    let sweeper = tokio::spawn(sweep(
        Arc::clone(&store),
        announcer,
        config.retention,
        shutdown_rx,
    ));
    Ok(Server {
        local_addr,
        store,
        hub,
        listening,
        shutdown,
        http: Some(http),
        sweeper: Some(sweeper),
        webhooks,
        webhook_counts,
    })
}

/// Expires due elicitations every [`SWEEP_INTERVAL`], judged by the store's clock (measured
/// again every [`CLOCK_SYNC_INTERVAL`]), and deletes finished ones past `retention` every
/// [`retention::PURGE_INTERVAL`], until shutdown.
async fn sweep(
    store: Arc<dyn Store>,
    announcer: Arc<dyn EventSink>,
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
                eprintln!("koder-elicitation-relay: purging stream tickets failed: {error}");
            }
        }
        if last_retention.elapsed() >= retention::PURGE_INTERVAL {
            last_retention = tokio::time::Instant::now();
            match retention::purge(store.as_ref(), retention).await {
                Ok(_) => retention_failing = false,
                // Said once per outage, like the expiry sweep's.
                Err(error) if !retention_failing => {
                    retention_failing = true;
                    eprintln!(
                        "koder-elicitation-relay: deleting finished elicitations failed: {error}"
                    );
                }
                Err(_) => {}
            }
        }
        match store.expire_due(store.now_ms()).await {
            Ok(expired) => {
                failing = false;
                for event in &expired {
                    announcer.deliver(event);
                }
            }
            Err(error) => {
                // Said once per outage, not five times a second.
                if !failing {
                    eprintln!("koder-elicitation-relay: expiry sweep failed: {error}");
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
    store: Arc<dyn Store>,
    hub: Hub,
    listening: Option<Listening>,
    shutdown: watch::Sender<bool>,
    http: Option<JoinHandle<std::io::Result<()>>>,
    sweeper: Option<JoinHandle<()>>,
    /// The webhook worker, with `--webhook-url`.
    webhooks: Option<JoinHandle<()>>,
    webhook_counts: DeliveryCounts,
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

    /// Webhook deliveries so far by outcome (for `koder_relay_webhook_deliveries_total`).
    pub fn webhook_deliveries(&self) -> &DeliveryCounts {
        &self.webhook_counts
    }

    /// Whether its LISTEN link to the other replicas runs (`None` on SQLite, which has none).
    pub fn is_listening(&self) -> Option<bool> {
        self.listening.as_ref().map(Listening::is_running)
    }

    /// Stops accepting, ends streams and long-polls, waits for open requests (up to 10 s), and
    /// stops the sweeper.
    pub async fn shutdown(mut self) -> std::io::Result<()> {
        let _ = self.shutdown.send(true);
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
        let Some(mut http) = self.http.take() else {
            return Ok(());
        };
        match tokio::time::timeout(SHUTDOWN_GRACE, &mut http).await {
            Ok(Ok(result)) => result,
            Ok(Err(join_error)) => Err(std::io::Error::other(join_error)),
            Err(_) => {
                http.abort();
                Ok(())
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
        for task in [
            self.sweeper.take().map(|task| task.abort_handle()),
            self.http.take().map(|task| task.abort_handle()),
            self.webhooks.take().map(|task| task.abort_handle()),
        ]
        .into_iter()
        .flatten()
        {
            task.abort();
        }
    }
}
