//! `koder-elicit connect`: an MCP client on rmcp, the official Rust SDK. It advertises form and
//! URL elicitation, connects in the protocol revision asked for ([`Protocol`]: `server/discover`
//! for 2026-07-28, `initialize` for 2025-11-25, or a probe that falls back), calls one tool, and
//! answers every elicitation on the terminal, one at a time:
//!
//! - 2025-11-25: server-initiated `elicitation/create`, following
//!   `notifications/elicitation/complete` and `notifications/cancelled`;
//! - 2026-07-28: the `inputRequests` of each `input_required` round (rmcp's
//!   `RunningService::call_tool` drives the retries and calls the handler once per request).
//!
//! [`TerminalClient`] is also the worked example of the library inside
//! `ClientHandler::create_elicitation`.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use koder_mcp_elicitation_core::reply::{CancelSource, Ending};
use koder_mcp_elicitation_core::request::{parse_request, Mode, ParseOptions, Request};
use koder_mcp_elicitation_core::scope::Tenant;
use koder_mcp_elicitation_core::url::judge;
use koder_mcp_elicitation_core::url_rounds::{UrlConsents, UrlStep};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig,
    ClientNotification, ClientRequest, CustomNotification, ElicitRequestParams, ElicitResult,
    ElicitationCapability, ErrorData, FormElicitationCapability, Implementation, JsonObject,
    ProtocolVersion, ServerResult, UrlElicitationCapability,
};
use rmcp::service::{
    NotificationContext, Peer, PeerRequestOptions, RequestContext, RoleClient, RunningService,
};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt};
use serde_json::{json, Value};
use tokio::sync::oneshot;

use crate::lifecycle::Signals;
use crate::url_prompt::url_parts;
use crate::{ElicitError, Elicitation, Options};

/// The MCP revision `connect` speaks (`--protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// Probe with `server/discover` (2026-07-28); fall back to `initialize` (2025-11-25) when the
    /// server answers it with an error or not at all within 10 s.
    #[default]
    Auto,
    /// 2026-07-28 only: `server/discover`, elicitations inside `input_required` rounds.
    V2026_07_28,
    /// 2025-11-25 only: `initialize`, server-initiated `elicitation/create`.
    V2025_11_25,
}

impl Protocol {
    /// `auto`, `2026-07-28` or `2025-11-25`.
    pub fn from_flag(text: &str) -> Option<Protocol> {
        match text {
            "auto" => Some(Protocol::Auto),
            "2026-07-28" => Some(Protocol::V2026_07_28),
            "2025-11-25" => Some(Protocol::V2025_11_25),
            _ => None,
        }
    }

    /// rmcp's lifecycle for this choice.
    pub fn lifecycle(self) -> ClientLifecycleMode {
        match self {
            Protocol::Auto => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
            Protocol::V2026_07_28 => ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
            Protocol::V2025_11_25 => ClientLifecycleMode::Initialize,
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Protocol::Auto => "auto",
            Protocol::V2026_07_28 => "2026-07-28",
            Protocol::V2025_11_25 => "2025-11-25",
        })
    }
}

/// Where the server is.
#[derive(Debug, Clone)]
pub enum Target {
    /// A child process over stdio: the command and its arguments.
    Stdio(Vec<String>),
    /// A Streamable HTTP endpoint.
    Http(String),
}

/// What `connect` does.
#[derive(Debug, Clone)]
pub struct Connect {
    pub target: Target,
    /// The revision to speak.
    pub protocol: Protocol,
    pub tool: String,
    pub arguments: Option<JsonObject>,
    /// Give up on the call after this long: the client cancels it (`notifications/cancelled`).
    pub call_timeout: Option<Duration>,
    pub options: Options,
}

/// How a `connect` run ended.
#[derive(Debug)]
pub enum ConnectOutcome {
    /// The tool's result.
    Result(CallToolResult),
    /// `--call-timeout` passed; the call was cancelled.
    CallTimedOut,
}

/// Installs rustls's ring provider once (reqwest is built without a default one).
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The rmcp client handler that asks on the terminal.
#[derive(Clone)]
pub struct TerminalClient {
    options: Options,
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    /// One prompt on the terminal at a time.
    terminal: Arc<tokio::sync::Mutex<()>>,
    /// URL-mode elicitations by id, to route `notifications/elicitation/complete`.
    waits: Mutex<HashMap<String, Signals>>,
    /// Completions that arrived before their elicitation was registered.
    completed_early: Mutex<HashSet<String>>,
    /// Addresses the person agreed to open (2026-07-28 URL mode), so later rounds do not ask again.
    consents: Mutex<UrlConsents>,
    /// Counts the person's cancels: a question queued behind one that was cancelled is not asked.
    cancels: AtomicU64,
}

impl TerminalClient {
    /// A handler that asks with these options.
    pub fn new(options: Options) -> Self {
        TerminalClient {
            options,
            shared: Arc::new(Shared::default()),
        }
    }

    /// The call is over: ends every URL-mode wait and waits until the terminal is free. A
    /// prompt still open after `grace` (its server never withdrew it) is closed as withdrawn.
    pub async fn settle_down(&self, grace: Duration) {
        let each = |act: &dyn Fn(&Signals)| {
            if let Ok(waits) = self.shared.waits.lock() {
                waits.values().for_each(act);
            }
        };
        each(&|signals| signals.stop_waiting());
        let terminal = self.shared.terminal.clone();
        if tokio::time::timeout(grace, terminal.lock()).await.is_err() {
            each(&|signals| signals.cancel_from_server());
            let _free = terminal.lock().await;
        }
    }

    fn register(&self, elicitation_id: &str, signals: &Signals) {
        let early = self
            .shared
            .completed_early
            .lock()
            .map(|mut early| early.remove(elicitation_id))
            .unwrap_or(false);
        if early {
            signals.complete();
        }
        if let Ok(mut waits) = self.shared.waits.lock() {
            waits.insert(elicitation_id.to_string(), signals.clone());
        }
    }

    fn unregister(&self, elicitation_id: &str) {
        if let Ok(mut waits) = self.shared.waits.lock() {
            waits.remove(elicitation_id);
        }
    }
}

/// Unregisters an elicitation when its prompt (and any URL-mode wait) is over.
struct Forget<'c>(&'c TerminalClient, String);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        self.0.unregister(&self.1);
    }
}

/// rmcp's typed params back to the wire shape, then through the core's parser (the same checks
/// the element makes). rmcp fills a missing URL-mode `elicitationId` (2026-07-28) with an empty
/// string; that is taken back out, so the request reads as the 2026-07-28 kind it is.
pub fn request_from_params(
    params: &ElicitRequestParams,
    local_id: &str,
) -> Result<Request, ErrorData> {
    let mut value = serde_json::to_value(params)
        .map_err(|error| ErrorData::invalid_params(error.to_string(), None))?;
    if let Some(object) = value.as_object_mut() {
        if object.get("elicitationId").and_then(Value::as_str) == Some("") {
            object.remove("elicitationId");
        }
    }
    parse_request(
        &value,
        &ParseOptions {
            strict: false,
            local_id: local_id.to_string(),
        },
    )
    .map_err(|error| ErrorData::invalid_params(error.message, None))
}

/// The MCP result for an ending; `None` for the server's own cancel (nothing is sent).
pub fn elicit_result(ending: &Ending) -> Option<ElicitResult> {
    serde_json::from_value(ending.result()?).ok()
}

/// What a client answering on the terminal advertises: form elicitation (with schema
/// validation) and URL elicitation.
pub fn client_capabilities() -> ClientCapabilities {
    let elicitation = ElicitationCapability::new()
        .with_form(FormElicitationCapability::new().with_schema_validation(true))
        .with_url(UrlElicitationCapability::new());
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(elicitation);
    capabilities
}

/// The server's name as the prompts show it: its title when it gives one.
fn peer_server_name(peer: &Peer<RoleClient>) -> Option<String> {
    peer.peer_info().and_then(|info| {
        info.server_info
            .as_ref()
            .map(|server| server.title.clone().unwrap_or_else(|| server.name.clone()))
    })
}

/// Withdraws a prompt whose handler future is dropped (rmcp drops a round's other requests when
/// one fails, and `--call-timeout` drops the whole call): the prompt must not stay on screen.
struct WithdrawOnDrop {
    signals: Signals,
    armed: bool,
}

impl Drop for WithdrawOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.signals.cancel_from_server();
        }
    }
}

impl ClientHandler for TerminalClient {
    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        // For an `input_required` round, rmcp gives the input request's key as the id.
        let request = request_from_params(&params, &context.id.to_string())?;
        let cancels_seen = self.shared.cancels.load(Ordering::SeqCst);
        let signals = Signals::new();
        let mut withdraw = WithdrawOnDrop {
            signals: signals.clone(),
            armed: true,
        };
        let mut options = self.options.clone();
        options.signals = signals.clone();
        options.server_name = peer_server_name(&context.peer);
        self.register(&request.elicitation_id, &signals);
        // One prompt at a time, in arrival order (tokio's mutex is fair): the questions of one
        // round are asked one after the other.
        let turn = self.shared.terminal.clone().lock_owned().await;
        if context.ct.is_cancelled() {
            // Withdrawn while another prompt had the terminal: never shown, nothing sent.
            self.unregister(&request.elicitation_id);
            return Err(ErrorData::internal_error(CancelSource::Server.name(), None));
        }
        if self.shared.cancels.load(Ordering::SeqCst) != cancels_seen {
            // The person cancelled a question asked alongside this one: the whole call is
            // cancelled, so this one is not asked either.
            self.unregister(&request.elicitation_id);
            drop(turn);
            withdraw.armed = false;
            return elicit_result(&Ending::Cancel(CancelSource::User))
                .ok_or_else(|| ErrorData::internal_error("cancel", None));
        }
        // The consent memory is per connection, so one server; the core keys it by server too.
        let server = options.server_name.clone().unwrap_or_default();
        // Only a URL can have been consented to; a form is always asked.
        let consented_before = match &request.mode {
            Mode::Url(url) => self.shared.consents.lock().is_ok_and(|consents| {
                let verdict = judge(url_parts(&url.url).as_ref());
                consents.step(&Tenant::default(), &server, &request, &verdict) == UrlStep::Resume
            }),
            Mode::Form(_) => false,
        };
        let (answered, answer) = oneshot::channel::<Result<Ending, ElicitError>>();
        let client = self.clone();
        let asking = tokio::task::spawn_blocking(move || {
            let _turn = turn;
            let _forget = Forget(&client, request.elicitation_id.clone());
            let mut elicitation = match Elicitation::open(&request, &options) {
                Ok(elicitation) => elicitation,
                Err(error) => {
                    let _ = answered.send(Err(error));
                    return;
                }
            };
            let ending = if consented_before {
                elicitation.ask_again()
            } else {
                elicitation.ask()
            };
            if let Ok(ending) = &ending {
                if let Ok(mut consents) = client.shared.consents.lock() {
                    consents.settled(&Tenant::default(), &server, &request, ending);
                }
                if ending == &Ending::Cancel(CancelSource::User) {
                    client.shared.cancels.fetch_add(1, Ordering::SeqCst);
                }
                let _ = elicitation.report(ending);
            }
            let accepted = matches!(ending, Ok(Ending::Accept(_)));
            // The server needs the answer now; a URL-mode wait (2025-11-25) goes on after it.
            let _ = answered.send(ending);
            if accepted {
                let _ = elicitation.wait();
            }
        });
        let mut answer = std::pin::pin!(answer);
        let mut withdrawn = false;
        let ending = loop {
            tokio::select! {
                ending = &mut answer => break ending,
                _ = context.ct.cancelled(), if !withdrawn => {
                    withdrawn = true;
                    signals.cancel_from_server();
                }
            }
        };
        withdraw.armed = false;
        if !matches!(ending, Ok(Ok(Ending::Accept(_)))) {
            let _ = asking.await;
        }
        match ending {
            Ok(Ok(ending)) => elicit_result(&ending).ok_or_else(|| {
                // Withdrawn by the server: rmcp sends nothing for a cancelled request.
                ErrorData::internal_error(CancelSource::Server.name(), None)
            }),
            Ok(Err(error)) => Err(ErrorData::internal_error(error.to_string(), None)),
            Err(_) => Err(ErrorData::internal_error(
                "the prompt ended unexpectedly",
                None,
            )),
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
        let Some(id) = notification
            .params
            .as_ref()
            .and_then(|params| params.get("elicitationId"))
            .and_then(Value::as_str)
        else {
            return;
        };
        let known = self
            .shared
            .waits
            .lock()
            .ok()
            .and_then(|waits| waits.get(id).cloned());
        match known {
            Some(signals) => signals.complete(),
            None => {
                if let Ok(mut early) = self.shared.completed_early.lock() {
                    early.insert(id.to_string());
                }
            }
        }
    }

    fn get_info(&self) -> ClientConfig {
        // The version `initialize` offers; `server/discover` offers `Protocol::lifecycle`'s.
        ClientConfig::new(
            client_capabilities(),
            Implementation::new("koder-elicit", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }
}

/// The tool's result out of the server's reply.
fn call_result(result: ServerResult) -> Result<CallToolResult, Box<dyn std::error::Error>> {
    match result {
        ServerResult::CallToolResult(result) => Ok(result),
        other => Err(format!("the server answered the call with {other:?}").into()),
    }
}

/// An open connection to one server, with the terminal as its elicitation handler.
pub struct Connection {
    service: RunningService<RoleClient, TerminalClient>,
    client: TerminalClient,
}

impl Connection {
    /// Connects to `target` in `protocol`'s revision, asking on the terminal with `options`.
    pub async fn open(
        target: &Target,
        protocol: Protocol,
        options: Options,
    ) -> Result<Connection, Box<dyn std::error::Error>> {
        install_tls_provider();
        let client = TerminalClient::new(options);
        let service = match target {
            Target::Stdio(command) => {
                let (program, args) = command
                    .split_first()
                    .ok_or("connect: no command after --")?;
                let mut child = tokio::process::Command::new(program);
                child.args(args);
                // The server's log would draw over the prompts.
                let (transport, _) = rmcp::transport::TokioChildProcess::builder(child)
                    .stderr(std::process::Stdio::null())
                    .spawn()?;
                client
                    .clone()
                    .serve_with_lifecycle(transport, protocol.lifecycle())
                    .await?
            }
            Target::Http(url) => {
                let transport =
                    rmcp::transport::StreamableHttpClientTransport::from_uri(url.as_str());
                client
                    .clone()
                    .serve_with_lifecycle(transport, protocol.lifecycle())
                    .await?
            }
        };
        Ok(Connection { service, client })
    }

    /// The revision the server and the client agreed on, for example `2026-07-28`.
    pub fn protocol_version(&self) -> Option<String> {
        self.service
            .peer()
            .peer_info()
            .map(|info| info.protocol_version.to_string())
    }

    /// The server's name (its title when it gives one).
    pub fn server_name(&self) -> Option<String> {
        peer_server_name(self.service.peer())
    }

    /// Calls `tool`, answering its elicitations on the terminal, and returns its result. After
    /// `call_timeout` the call is cancelled and any open prompt closed.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        call_timeout: Option<Duration>,
    ) -> Result<ConnectOutcome, Box<dyn std::error::Error>> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = arguments;
        let limit = call_timeout.unwrap_or(Duration::MAX);
        let modern = self
            .service
            .peer()
            .peer_info()
            .is_some_and(|info| !info.protocol_version.has_initialize());
        let outcome = if modern {
            // 2026-07-28: rmcp retries the call round after round, asking through the handler.
            // A timeout drops the call; the open prompt sees its handler go and closes.
            tokio::select! {
                result = self.service.call_tool(params) => ConnectOutcome::Result(result?),
                _ = tokio::time::sleep(limit) => ConnectOutcome::CallTimedOut,
            }
        } else {
            self.call_legacy(params, limit).await?
        };
        self.client.settle_down(Duration::from_secs(5)).await;
        Ok(outcome)
    }

    /// 2025-11-25: one `tools/call`, with the server's own `elicitation/create` requests.
    async fn call_legacy(
        &self,
        params: CallToolRequestParams,
        limit: Duration,
    ) -> Result<ConnectOutcome, Box<dyn std::error::Error>> {
        let peer = self.service.peer().clone();
        let handle = peer
            .send_cancellable_request(
                ClientRequest::CallToolRequest(CallToolRequest::new(params)),
                PeerRequestOptions::no_options(),
            )
            .await?;
        let call_id = handle.id.clone();
        let mut response = std::pin::pin!(handle.await_response());
        Ok(tokio::select! {
            response = &mut response => ConnectOutcome::Result(call_result(response?)?),
            _ = tokio::time::sleep(limit) => {
                // Cancel the call with a plain notification: rmcp stops reading a request's
                // stream when it cancels the request itself, and that stream is where the server
                // sends the withdrawal (`notifications/cancelled`) of the elicitation it has open.
                let cancel = CustomNotification::new(
                    "notifications/cancelled",
                    Some(json!({"requestId": call_id, "reason": "call timeout"})),
                );
                peer.send_notification(ClientNotification::CustomNotification(cancel))
                    .await?;
                ConnectOutcome::CallTimedOut
            }
        })
    }

    /// Closes the connection (a stdio server's process ends with it).
    pub async fn close(self) {
        let _ = self.service.cancel().await;
    }
}

/// Connects, calls the tool, answers elicitations on the terminal, and returns the result.
pub async fn run(connect: Connect) -> Result<ConnectOutcome, Box<dyn std::error::Error>> {
    let connection = Connection::open(&connect.target, connect.protocol, connect.options).await?;
    let outcome = connection
        .call(&connect.tool, connect.arguments, connect.call_timeout)
        .await;
    connection.close().await;
    outcome
}
