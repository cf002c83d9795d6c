//! A running relay: the store chosen by the database URL, the HTTP server (and the metrics
//! address, when asked for), the expiry sweeper, the outbox workers (webhooks, pushes) and, on
//! PostgreSQL, the LISTEN link to the other replicas. Every task belongs to the [`Server`] and stops with it (on [`Server::shutdown`] or on
//! drop). Stopping drains first: streams end with a `retry:` hint and long-polls answer at once,
//! so clients move to another replica; nothing pending is lost, since it is in the database.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use koder_mcp_elicitation_core::i18n::Catalog;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::api::{self, AppState};
use crate::auth::Auth;
use crate::channels::delivery::SHUTDOWN_WAIT;
use crate::channels::push::PushSubscriptions;
use crate::channels::Relay;
use crate::config::Config;
use crate::hub::Hub;
use crate::listen::Listening;
use crate::metrics::Metrics;
use crate::service::links::LinkKey;
use crate::service::{
    sweeper, Announcer, Audit, Elicitations, Health, Links, OutboxWakes, Tickets,
};
use crate::store::{redact_database, Store};

/// Why the relay could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The configuration cannot work (bad origin, unsupported database URL, a short secret, a key
    /// set that cannot be read).
    #[error("{0}")]
    Config(String),
    /// The database could not be opened.
    #[error("cannot open the database: {0}")]
    Database(String),
    /// The address could not be bound.
    #[error("cannot listen: {0}")]
    Bind(std::io::Error),
}

/// Opens the store, binds, and starts serving and sweeping.
pub async fn serve(config: Config) -> Result<Server, ServeError> {
    let store = Store::open(&config.database, config.outboxes())
        .await
        .map_err(|error| ServeError::Database(error.0))?;
    serve_with_store(config, Arc::new(store)).await
}

/// Like [`serve`], on a store already open (tests share one between servers), which must queue
/// to the outboxes the configuration turns on ([`Store::open`] with [`Config::outboxes`]).
pub async fn serve_with_store(config: Config, store: Arc<Store>) -> Result<Server, ServeError> {
    config.check().map_err(ServeError::Config)?;
    if !store.outboxes().agree(&config.outboxes()) {
        return Err(ServeError::Config(
            "the store was opened with other outboxes (webhooks, Web Push, e-mail) than \
             the configuration turns on"
                .into(),
        ));
    }
    let hub = Hub::new(config.streams);
    let channels = config.channels();
    let metrics = Metrics::with_channels(channels.metrics());
    let (draining, draining_rx) = watch::channel(false);
    let (stopping, stopping_rx) = watch::channel(false);
    let push = config.push.clone().map(Arc::new);
    let wakes = OutboxWakes::default();
    let announcer = Announcer::new(hub.clone(), store.clock().clone(), wakes.clone());
    let elicitations = Elicitations::new(
        Arc::clone(&store),
        Arc::new(announcer),
        metrics.clone(),
        hub.clone(),
    );
    let links = config.answer_page.clone().map(|page| {
        let counts = metrics.links().clone();
        Links::new(
            elicitations.clone(),
            store.links.clone(),
            Arc::new(page),
            counts,
            LinkKey::from_service_token(config.auth.service_token.expose()),
        )
    });
    // Their outbound clients are built now, before anything listens: a failure stops the start.
    let relay = Relay {
        store: Arc::clone(&store),
        elicitations: elicitations.clone(),
        links: links.clone(),
    };
    let notify = channels.notify_checks();
    let delivery = channels
        .workers(&relay, &metrics, &stopping_rx)
        .map_err(ServeError::Config)?;
    wakes.set(delivery.iter().map(|(wake, _)| Arc::clone(wake)).collect());
    // Listening before serving: no other replica's change after the first request is missed.
    let listening = match store.origin() {
        Some(origin) => {
            let listening = Listening::start(
                &config.database,
                origin,
                elicitations.clone(),
                Some(metrics.clone()),
            );
            Some(listening.await.map_err(|error| {
                ServeError::Database(format!(
                    "cannot listen for other replicas' changes: {error} ({})",
                    redact_database(&config.database)
                ))
            })?)
        }
        None => None,
    };
    let clock = store.clock();
    let state = AppState {
        elicitations: elicitations.clone(),
        tickets: Tickets {
            store: store.tickets.clone(),
            clock: clock.clone(),
        },
        notify,
        push: push.map(|settings| PushSubscriptions {
            settings,
            store: store.subscriptions.clone(),
            clock: clock.clone(),
        }),
        links,
        audit: Audit {
            store: store.audit.clone(),
        },
        health: Health {
            database: store.health.clone(),
            elicitations: store.elicitations.clone(),
        },
        hub: hub.clone(),
        auth: Arc::new(Auth::new(&config.auth).await.map_err(ServeError::Config)?),
        messages: Arc::new(Catalog::new()),
        shutdown: draining_rx,
        metrics: metrics.clone(),
        link: listening.as_ref().map(Listening::link),
    };
    let (http, local_addr, metrics_addr) = bind_http(&config, state, &stopping_rx).await?;
    let workers = delivery
        .into_iter()
        .map(|(_, worker)| tokio::spawn(worker))
        .collect();
    let sweeper = tokio::spawn(sweeper::sweep(
        elicitations.clone(),
        Arc::clone(&store),
        config.retention,
        config.audit_checkpoint_interval,
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
        elicitations,
        metrics,
        listening,
        draining,
        stopping,
        drain_timeout: config.drain_timeout,
        http,
        sweeper: Some(sweeper),
        workers,
    })
}

/// The HTTP servers: the API on `--listen`, and the operators' routes on `--metrics-listen`
/// when set; each serves until `stopping` turns true. Their tasks, then both bound addresses.
async fn bind_http(
    config: &Config,
    state: AppState,
    stopping: &watch::Receiver<bool>,
) -> Result<
    (
        Vec<JoinHandle<std::io::Result<()>>>,
        SocketAddr,
        Option<SocketAddr>,
    ),
    ServeError,
> {
    let operations = api::operations_router(state.clone());
    let app = api::router(state, &config.allow_origins).map_err(ServeError::Config)?;
    let (main, local_addr) = bind(config.listen).await?;
    let mut http = vec![serve_http(main, app, stopping.clone())];
    let mut metrics_addr = None;
    if let Some(address) = config.metrics_listen {
        let (listener, bound) = bind(address).await?;
        metrics_addr = Some(bound);
        http.push(serve_http(listener, operations, stopping.clone()));
    }
    Ok((http, local_addr, metrics_addr))
}

async fn bind(address: SocketAddr) -> Result<(tokio::net::TcpListener, SocketAddr), ServeError> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(ServeError::Bind)?;
    let bound = listener.local_addr().map_err(ServeError::Bind)?;
    Ok((listener, bound))
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

/// A running relay.
#[derive(Debug)]
pub struct Server {
    local_addr: SocketAddr,
    metrics_addr: Option<SocketAddr>,
    store: Arc<Store>,
    hub: Hub,
    /// The lifecycle its routes and workers change elicitations through.
    elicitations: Elicitations,
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
    /// The outbox workers: webhooks with `--webhook-url`, pushes with a VAPID key, e-mails with
    /// `--smtp-url`.
    workers: Vec<JoinHandle<()>>,
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
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Its streams and long-polls.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    /// The lifecycle (create, answer, escalate, …) its routes and workers share.
    pub fn elicitations(&self) -> &Elicitations {
        &self.elicitations
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
        for mut worker in std::mem::take(&mut self.workers) {
            // A batch in flight ends within its attempts' timeout; past that, its rows' lease
            // runs out and they are sent again (same webhook-id, same push Topic).
            if tokio::time::timeout(SHUTDOWN_WAIT, &mut worker)
                .await
                .is_err()
            {
                worker.abort();
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
        for worker in self.workers.drain(..) {
            worker.abort();
        }
        for http in self.http.drain(..) {
            http.abort();
        }
    }
}
