//! The host side of the relay in Rust: [`RelayClient`] posts an elicitation for a person, waits
//! (long-polling) for their answer and withdraws it when the caller gives up; and
//! [`RelayElicitationHandler`], an rmcp [`ClientHandler`] whose `create_elicitation` goes through
//! the relay, so an MCP client running on a server asks the right person in their browser.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use koder_elicitation_relay::client::{RelayClient, RelayElicitationHandler, Scope};
//! let relay = RelayClient::new("http://127.0.0.1:8790", "service-token")?;
//! let handler = RelayElicitationHandler::new(relay, Scope::new("user-1", "workspace-1"));
//! // rmcp::ServiceExt::serve(handler, transport).await?; then call tools as usual.
//! # let _ = handler; Ok(()) }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use reqwest::{Method, StatusCode};
use rmcp::model::{
    ClientCapabilities, ClientConfig, CustomNotification, ElicitRequestParams, ElicitResult,
    ElicitationCapability, ErrorData, FormElicitationCapability, Implementation, ProtocolVersion,
    UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleClient};
use rmcp::ClientHandler;
use serde::Serialize;
use serde_json::{json, Value};

/// How long one long-poll waits at the relay (`?wait=`).
const POLL_WAIT_SECONDS: u64 = 25;
/// Beyond the long-poll's own wait, the connection counts as lost after this margin.
const POLL_MARGIN: Duration = Duration::from_secs(15);
/// One create, withdraw or complete call.
const CALL_TIMEOUT: Duration = Duration::from_secs(15);
/// Network errors and 5xx answers are retried this long by default (every call is idempotent:
/// the create carries an Idempotency-Key) with a doubling backoff between these bounds.
const RETRY_FOR: Duration = Duration::from_secs(30);
const BACKOFF_FIRST: Duration = Duration::from_millis(200);
const BACKOFF_MAX: Duration = Duration::from_secs(2);
/// The relay's longest timeout (`timeoutMs` is clamped to it).
const MAX_TIMEOUT_MS: u64 = 86_400_000;
/// The JSON-RPC code the relay reports when its core refused the request itself.
const INVALID_PARAMS: i64 = -32602;

/// Whose browser an elicitation goes to (the relay's tenant).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scope {
    /// The person: the `sub` of their token.
    pub user_id: String,
    /// Their workspace: the `workspace` claim.
    pub workspace_id: String,
    /// The conversation; a token with a `conversation` claim only sees its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
}

impl Scope {
    /// A person in a workspace, in no particular conversation.
    pub fn new(user_id: impl Into<String>, workspace_id: impl Into<String>) -> Scope {
        Scope {
            user_id: user_id.into(),
            workspace_id: workspace_id.into(),
            conversation_id: None,
        }
    }

    /// The same person, in one conversation.
    pub fn in_conversation(mut self, conversation_id: impl Into<String>) -> Scope {
        self.conversation_id = Some(conversation_id.into());
        self
    }
}

/// What else the relay is told about an elicitation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ElicitOptions {
    /// The MCP server's name, shown in the person's dialog.
    pub server_name: Option<String>,
    /// How long the person has, in ms (the relay clamps it to [1000, 86400000]; default 300000).
    pub timeout_ms: Option<u64>,
}

/// The relay's answer to a create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    /// The elicitation's id.
    pub id: String,
    /// When the relay expires it, ms since the Unix epoch.
    pub expires_at: i64,
}

/// Where an elicitation is, as the host API reports it.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Still waiting for the person.
    Pending,
    /// Over: `status` is `settled`, `expired` or `withdrawn`; `result` is the ElicitResult
    /// (`{"action":"cancel"}` when it expired or was withdrawn).
    Final {
        /// `settled`, `expired` or `withdrawn`.
        status: String,
        /// The ElicitResult.
        result: Value,
    },
}

/// Why a relay call failed.
#[derive(Debug, Clone, PartialEq)]
pub enum RelayClientError {
    /// The relay could not be reached (after retrying).
    Unreachable(String),
    /// The relay answered with an error: its status, its message and its whole JSON body.
    Relay {
        /// The HTTP status.
        status: u16,
        /// The relay's message (`error.message`).
        message: String,
        /// The body: `{"error":{"status","message","jsonrpcCode"?,"errors"?}}`.
        body: Value,
    },
    /// The relay answered something this client does not understand.
    Unexpected(String),
    /// The caller cancelled; the elicitation was withdrawn.
    Cancelled,
    /// The HTTP client could not be built, or cannot make this request at all (a malformed base
    /// URL; `https` with a client built without TLS: see [`RelayClient::with_http_client`]).
    Setup(String),
}

impl RelayClientError {
    /// Network errors and 5xx answers may pass: every relay call is safe to repeat.
    fn is_transient(&self) -> bool {
        match self {
            RelayClientError::Unreachable(_) => true,
            RelayClientError::Relay { status, .. } => *status >= 500,
            _ => false,
        }
    }

    /// The JSON-RPC code the relay gave (`-32602` when its core refused the request).
    pub fn jsonrpc_code(&self) -> Option<i64> {
        match self {
            RelayClientError::Relay { body, .. } => body
                .get("error")
                .and_then(|error| error.get("jsonrpcCode"))
                .and_then(Value::as_i64),
            _ => None,
        }
    }
}

impl fmt::Display for RelayClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RelayClientError::Unreachable(why) => {
                write!(f, "koder-elicitation-relay unreachable: {why}")
            }
            RelayClientError::Relay {
                status, message, ..
            } => write!(f, "koder-elicitation-relay answered {status}: {message}"),
            RelayClientError::Unexpected(what) => {
                write!(f, "koder-elicitation-relay answered unexpectedly: {what}")
            }
            RelayClientError::Cancelled => f.write_str("the elicitation was withdrawn"),
            RelayClientError::Setup(why) => write!(f, "cannot set up the HTTP client: {why}"),
        }
    }
}

impl std::error::Error for RelayClientError {}

/// A connection to one relay's host API, holding its service token. Cheap to clone.
#[derive(Clone)]
pub struct RelayClient {
    http: reqwest::Client,
    base_url: Arc<str>,
    service_token: Arc<str>,
    retry_for: Duration,
}

impl fmt::Debug for RelayClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The service token stays out of logs.
        f.debug_struct("RelayClient")
            .field("base_url", &self.base_url)
            .field("retry_for", &self.retry_for)
            .finish_non_exhaustive()
    }
}

/// A plain `reqwest::Client`, safe to build whatever reqwest features the application enabled:
/// when its rustls is on without a crypto provider (reqwest would panic), ring is installed as
/// the process's provider, unless one already is.
pub fn http_client() -> Result<reqwest::Client, RelayClientError> {
    // An error means a provider is installed already: that one is used.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .build()
        .map_err(|error| RelayClientError::Setup(error.to_string()))
}

impl RelayClient {
    /// A client for the relay at `base_url` (e.g. `http://127.0.0.1:8790`, without `/v1`).
    pub fn new(
        base_url: impl Into<String>,
        service_token: impl Into<String>,
    ) -> Result<RelayClient, RelayClientError> {
        Ok(RelayClient::with_http_client(
            http_client()?,
            base_url,
            service_token,
        ))
    }

    /// The same with a `reqwest::Client` of the caller's. This crate builds reqwest without TLS
    /// (a relay next to the host, or behind a TLS proxy); for `https`, enable one of reqwest's TLS
    /// features in the application and pass a client built with it.
    pub fn with_http_client(
        http: reqwest::Client,
        base_url: impl Into<String>,
        service_token: impl Into<String>,
    ) -> RelayClient {
        let base_url: String = base_url.into();
        RelayClient {
            http,
            base_url: Arc::from(base_url.trim_end_matches('/')),
            service_token: Arc::from(service_token.into()),
            retry_for: RETRY_FOR,
        }
    }

    /// How long network errors and 5xx answers are retried before a call fails (default 30 s,
    /// at most a day; a long-poll keeps trying this long past the elicitation's expiry).
    pub fn retrying_for(mut self, retry_for: Duration) -> RelayClient {
        self.retry_for = retry_for.min(Duration::from_millis(MAX_TIMEOUT_MS));
        self
    }

    /// Asks the person `scope` names: posts `request` (any shape the element takes; usually the
    /// `elicitation/create` params), waits for the answer and returns the ElicitResult
    /// (`{"action":"cancel"}` when it expired). When `cancel` finishes first, the elicitation is
    /// withdrawn (the person's dialog closes) and the answer is [`RelayClientError::Cancelled`].
    pub async fn elicit(
        &self,
        scope: &Scope,
        request: Value,
        cancel: impl Future<Output = ()>,
    ) -> Result<Value, RelayClientError> {
        self.elicit_with(scope, request, &ElicitOptions::default(), cancel, |_| {})
            .await
    }

    /// [`RelayClient::elicit`] with options, and `on_created` called with the relay's id as soon
    /// as it is known (to route a URL-mode completion to it, say).
    pub async fn elicit_with(
        &self,
        scope: &Scope,
        request: Value,
        options: &ElicitOptions,
        cancel: impl Future<Output = ()>,
        on_created: impl FnOnce(&Created),
    ) -> Result<Value, RelayClientError> {
        let mut cancel = std::pin::pin!(cancel.fuse());
        let mut cancelled = false;
        // The create runs to its end even when cancelled meanwhile: once it is sent the relay may
        // hold the elicitation, and only its id lets it be withdrawn.
        let created = {
            let key = idempotency_key();
            let mut create = std::pin::pin!(self.create(scope, &request, options, &key).fuse());
            loop {
                tokio::select! {
                    created = &mut create => break created?,
                    () = &mut cancel, if !cancelled => cancelled = true,
                }
            }
        };
        on_created(&created);
        let mut withdraw = WithdrawOnDrop {
            client: self.clone(),
            id: Some(created.id.clone()),
        };
        if !cancelled {
            // The relay settles it as expired at expiresAt; unreachable past that, it is given up.
            // (At most a day away: the relay's longest timeout.)
            let remaining = u64::try_from(created.expires_at.saturating_sub(now_ms()))
                .unwrap_or_default()
                .min(MAX_TIMEOUT_MS);
            let give_up = Instant::now() + Duration::from_millis(remaining) + self.retry_for;
            let waiting = std::pin::pin!(self.wait_until_final(&created.id, give_up));
            tokio::select! {
                outcome = waiting => {
                    if let Ok(result) = &outcome {
                        withdraw.disarm();
                        return Ok(result.clone());
                    }
                    // An error: nobody will take the answer, so the person must not give one.
                    withdraw.now().await;
                    return outcome;
                }
                () = &mut cancel => {}
            }
        }
        withdraw.now().await;
        Err(RelayClientError::Cancelled)
    }

    /// `POST /v1/elicitations`, retried on network errors and 5xx with the same Idempotency-Key.
    pub async fn create(
        &self,
        scope: &Scope,
        request: &Value,
        options: &ElicitOptions,
        idempotency_key: &str,
    ) -> Result<Created, RelayClientError> {
        let mut body = json!({ "scope": scope, "request": request });
        if let Some(object) = body.as_object_mut() {
            if let Some(name) = &options.server_name {
                object.insert("serverName".into(), json!(name));
            }
            if let Some(timeout) = options.timeout_ms {
                object.insert("timeoutMs".into(), json!(timeout));
            }
        }
        let answer = retrying(Instant::now() + self.retry_for, || {
            self.call(
                Method::POST,
                "/v1/elicitations".to_string(),
                Some(&body),
                Some(idempotency_key),
                CALL_TIMEOUT,
            )
        })
        .await?;
        let id = answer.get("id").and_then(Value::as_str);
        let expires_at = answer.get("expiresAt").and_then(Value::as_i64);
        match (id, expires_at) {
            (Some(id), Some(expires_at)) => Ok(Created {
                id: id.to_string(),
                expires_at,
            }),
            _ => Err(RelayClientError::Unexpected(format!(
                "a create answered {answer}"
            ))),
        }
    }

    /// `GET /v1/elicitations/{id}/result?wait=` (one long-poll, not retried).
    pub async fn result(&self, id: &str, wait_seconds: u64) -> Result<Outcome, RelayClientError> {
        let answer = self
            .call(
                Method::GET,
                format!("{}/result?wait={wait_seconds}", elicitation_path(id)),
                None,
                None,
                Duration::from_secs(wait_seconds) + POLL_MARGIN,
            )
            .await?;
        let status = answer.get("status").and_then(Value::as_str);
        match (status, answer.get("result")) {
            (Some("pending"), _) => Ok(Outcome::Pending),
            (Some(status @ ("settled" | "expired" | "withdrawn")), Some(result))
                if result.is_object() =>
            {
                Ok(Outcome::Final {
                    status: status.to_string(),
                    result: result.clone(),
                })
            }
            _ => Err(RelayClientError::Unexpected(format!(
                "a result poll answered {answer}"
            ))),
        }
    }

    /// `DELETE /v1/elicitations/{id}`: withdraws it while pending; the final state either way.
    pub async fn withdraw(&self, id: &str) -> Result<Value, RelayClientError> {
        retrying(Instant::now() + CALL_TIMEOUT, || {
            self.call(
                Method::DELETE,
                elicitation_path(id),
                None,
                None,
                CALL_TIMEOUT,
            )
        })
        .await
    }

    /// `POST /v1/elicitations/{id}/complete`: a URL-mode elicitation's out-of-band step finished.
    pub async fn complete(&self, id: &str) -> Result<Value, RelayClientError> {
        retrying(Instant::now() + self.retry_for, || {
            self.call(
                Method::POST,
                format!("{}/complete", elicitation_path(id)),
                None,
                None,
                CALL_TIMEOUT,
            )
        })
        .await
    }

    /// Long-polls until the elicitation is over; its ElicitResult.
    async fn wait_until_final(
        &self,
        id: &str,
        give_up: Instant,
    ) -> Result<Value, RelayClientError> {
        loop {
            match retrying(give_up, || self.result(id, POLL_WAIT_SECONDS)).await? {
                Outcome::Pending => continue,
                Outcome::Final { result, .. } => return Ok(result),
            }
        }
    }

    /// One call: the JSON answer of a 2xx, else the error.
    async fn call(
        &self,
        method: Method,
        path: String,
        body: Option<&Value>,
        idempotency_key: Option<&str>,
        timeout: Duration,
    ) -> Result<Value, RelayClientError> {
        let mut builder = self
            .http
            .request(method, format!("{}{path}", self.base_url))
            .bearer_auth(&*self.service_token)
            .header("accept", "application/json")
            .timeout(timeout);
        if let Some(key) = idempotency_key {
            builder = builder.header("idempotency-key", key);
        }
        if let Some(body) = body {
            let bytes = serde_json::to_vec(body)
                .map_err(|error| RelayClientError::Unexpected(error.to_string()))?;
            builder = builder
                .header("content-type", "application/json")
                .body(bytes);
        }
        let response = builder.send().await.map_err(|error| {
            if error.is_builder() {
                // Not worth retrying: the URL is wrong, or https without a TLS-enabled client.
                RelayClientError::Setup(error.to_string())
            } else {
                RelayClientError::Unreachable(error.to_string())
            }
        })?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|error| RelayClientError::Unreachable(error.to_string()))?;
        let parsed: Option<Value> = serde_json::from_slice(&bytes).ok();
        match parsed {
            Some(answer) if status.is_success() => Ok(answer),
            parsed => Err(relay_error(status, parsed)),
        }
    }
}

fn relay_error(status: StatusCode, body: Option<Value>) -> RelayClientError {
    let body = body.unwrap_or(Value::Null);
    let message = body
        .get("error")
        .and_then(|error| error.get("message"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| {
            if status.is_success() {
                "an answer that is not JSON".to_string()
            } else {
                status
                    .canonical_reason()
                    .unwrap_or("no message")
                    .to_string()
            }
        });
    RelayClientError::Relay {
        status: status.as_u16(),
        message,
        body,
    }
}

fn elicitation_path(id: &str) -> String {
    // Ids are hex; anything else is kept from changing the path.
    let id: String = id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    format!("/v1/elicitations/{id}")
}

/// `attempt` until it succeeds, fails for good, or `deadline` passes (transient errors only).
async fn retrying<T, F, Fut>(deadline: Instant, mut attempt: F) -> Result<T, RelayClientError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, RelayClientError>>,
{
    let mut backoff = BACKOFF_FIRST;
    loop {
        match attempt().await {
            Err(error) if error.is_transient() && Instant::now() + backoff < deadline => {
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(BACKOFF_MAX);
            }
            other => return other,
        }
    }
}

/// A fresh Idempotency-Key: 128 random bits in hex. Without randomness, a key from the clock and
/// the process still keeps one host's creates apart.
fn idempotency_key() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        return format!("{}-{}-{:p}", now_ms(), std::process::id(), &bytes);
    }
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or_default()
}

/// Withdraws the elicitation unless disarmed: when the waiting future is dropped (rmcp drops a
/// handler whose call ended), the withdraw still happens, on a spawned task.
struct WithdrawOnDrop {
    client: RelayClient,
    id: Option<String>,
}

impl WithdrawOnDrop {
    fn disarm(&mut self) {
        self.id = None;
    }

    /// Withdraws now (best effort: the relay expires it anyway).
    async fn now(&mut self) {
        if let Some(id) = self.id.take() {
            let _ = self.client.withdraw(&id).await;
        }
    }
}

impl Drop for WithdrawOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let client = self.client.clone();
            runtime.spawn(async move {
                let _ = client.withdraw(&id).await;
            });
        }
    }
}

/// An rmcp [`ClientHandler`] that answers every `elicitation/create` through the relay: the
/// person `scope` names answers in their browser. Advertises form and URL elicitation. A
/// `notifications/elicitation/complete` (MCP 2025-11-25 URL mode) is passed on to the relay.
#[derive(Debug, Clone)]
pub struct RelayElicitationHandler {
    client: RelayClient,
    scope: Scope,
    options: ElicitOptions,
    /// URL-mode elicitation ids (the server's) to the relay's ids, to route completions.
    url_ids: Arc<Mutex<HashMap<String, String>>>,
}

impl RelayElicitationHandler {
    /// Asks the person `scope` names through `client`. The server's name (its title when it has
    /// one) is shown in the dialog unless [`ElicitOptions::server_name`] says otherwise.
    pub fn new(client: RelayClient, scope: Scope) -> RelayElicitationHandler {
        RelayElicitationHandler {
            client,
            scope,
            options: ElicitOptions::default(),
            url_ids: Arc::default(),
        }
    }

    /// The same with options (server name, time limit).
    pub fn with_options(mut self, options: ElicitOptions) -> RelayElicitationHandler {
        self.options = options;
        self
    }
}

impl ClientHandler for RelayElicitationHandler {
    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let mut request = serde_json::to_value(&params)
            .map_err(|error| ErrorData::invalid_params(error.to_string(), None))?;
        // rmcp fills a missing URL-mode elicitationId (2026-07-28) with "": take it back out, so
        // the request reads as the kind it is.
        let url_id = match request.as_object_mut() {
            Some(object) => match object.get("elicitationId").and_then(Value::as_str) {
                Some("") => {
                    object.remove("elicitationId");
                    None
                }
                Some(id) if object.get("mode").and_then(Value::as_str) == Some("url") => {
                    Some(id.to_string())
                }
                _ => None,
            },
            None => None,
        };
        let mut options = self.options.clone();
        if options.server_name.is_none() {
            options.server_name = peer_server_name(&context.peer);
        }
        let on_created = |created: &Created| {
            if let (Some(url_id), Ok(mut ids)) = (&url_id, self.url_ids.lock()) {
                ids.insert(url_id.clone(), created.id.clone());
            }
        };
        let answer = self
            .client
            .elicit_with(
                &self.scope,
                request,
                &options,
                context.ct.cancelled(),
                on_created,
            )
            .await;
        if let (Some(url_id), Ok(mut ids)) = (&url_id, self.url_ids.lock()) {
            // Only an accepted URL elicitation waits for its completion (2025-11-25): keep its
            // route until the completion comes; forget the others now.
            let accepted =
                matches!(&answer, Ok(result) if result.get("action") == Some(&json!("accept")));
            if !accepted {
                ids.remove(url_id);
            }
        }
        match answer {
            Ok(result) => serde_json::from_value(result.clone()).map_err(|error| {
                ErrorData::internal_error(
                    format!("the relay's result {result} is not an ElicitResult: {error}"),
                    None,
                )
            }),
            // Withdrawn because the server cancelled: rmcp sends nothing for a cancelled request.
            Err(RelayClientError::Cancelled) => Err(ErrorData::internal_error("withdrawn", None)),
            Err(error) if error.jsonrpc_code() == Some(INVALID_PARAMS) => {
                Err(ErrorData::invalid_params(error.to_string(), None))
            }
            Err(error) => Err(ErrorData::internal_error(error.to_string(), None)),
        }
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method != "notifications/elicitation/complete" {
            return;
        }
        let url_id = notification
            .params
            .as_ref()
            .and_then(|params| params.get("elicitationId"))
            .and_then(Value::as_str);
        let relay_id = url_id.and_then(|url_id| {
            self.url_ids
                .lock()
                .ok()
                .and_then(|mut ids| ids.remove(url_id))
        });
        if let Some(relay_id) = relay_id {
            let _ = self.client.complete(&relay_id).await;
        }
    }

    fn get_info(&self) -> ClientConfig {
        let elicitation = ElicitationCapability::new()
            .with_form(FormElicitationCapability::new().with_schema_validation(true))
            .with_url(UrlElicitationCapability::new());
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(elicitation);
        ClientConfig::new(
            capabilities,
            Implementation::new("koder-elicitation-relay", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }
}

/// The server's name as the dialog shows it: its title when it gives one.
fn peer_server_name(peer: &Peer<RoleClient>) -> Option<String> {
    peer.peer_info().and_then(|info| {
        info.server_info
            .as_ref()
            .map(|server| server.title.clone().unwrap_or_else(|| server.name.clone()))
    })
}
