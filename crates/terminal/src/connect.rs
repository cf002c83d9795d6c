//! `koder-elicit connect`: an MCP client on rmcp, the official Rust SDK. It advertises form and
//! URL elicitation, calls one tool, answers every `elicitation/create` on the terminal, follows
//! `notifications/elicitation/complete` and `notifications/cancelled`, and returns the tool's
//! result.
//!
//! [`TerminalClient`] is also the worked example of the library inside
//! `ClientHandler::create_elicitation`.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use koder_mcp_elicitation_core::reply::{CancelSource, Ending};
use koder_mcp_elicitation_core::request::{parse_request, ParseOptions, Request};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig,
    ClientNotification, ClientRequest, CustomNotification, ElicitRequestParams, ElicitResult,
    ElicitationCapability, ErrorData, FormElicitationCapability, Implementation, JsonObject,
    ServerResult, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext, RoleClient};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{json, Value};
use tokio::sync::oneshot;

use crate::lifecycle::Signals;
use crate::{ElicitError, Elicitation, Options};

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
/// the element makes).
pub fn request_from_params(
    params: &ElicitRequestParams,
    local_id: &str,
) -> Result<Request, ErrorData> {
    let value = serde_json::to_value(params)
        .map_err(|error| ErrorData::invalid_params(error.to_string(), None))?;
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

impl ClientHandler for TerminalClient {
    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let request = request_from_params(&params, &context.id.to_string())?;
        let signals = Signals::new();
        let mut options = self.options.clone();
        options.signals = signals.clone();
        options.server_name = context.peer.peer_info().and_then(|info| {
            info.server_info
                .as_ref()
                .map(|server| server.title.clone().unwrap_or_else(|| server.name.clone()))
        });
        self.register(&request.elicitation_id, &signals);
        let turn = self.shared.terminal.clone().lock_owned().await;
        if context.ct.is_cancelled() {
            // Withdrawn while another prompt had the terminal: never shown, nothing sent.
            self.unregister(&request.elicitation_id);
            return Err(ErrorData::internal_error(CancelSource::Server.name(), None));
        }
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
            let ending = elicitation.ask();
            let accepted = matches!(ending, Ok(Ending::Accept(_)));
            if let Ok(ending) = &ending {
                let _ = elicitation.report(ending);
            }
            // The server needs the answer now; a URL-mode wait goes on after it.
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
        let elicitation = ElicitationCapability::new()
            .with_form(FormElicitationCapability::new().with_schema_validation(true))
            .with_url(UrlElicitationCapability::new());
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(elicitation);
        ClientConfig::new(
            capabilities,
            Implementation::new("koder-elicit", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// The tool's result out of the server's reply.
fn call_result(result: ServerResult) -> Result<CallToolResult, Box<dyn std::error::Error>> {
    match result {
        ServerResult::CallToolResult(result) => Ok(result),
        other => Err(format!("the server answered the call with {other:?}").into()),
    }
}

/// Connects, calls the tool, answers elicitations on the terminal, and returns the result.
pub async fn run(connect: Connect) -> Result<ConnectOutcome, Box<dyn std::error::Error>> {
    install_tls_provider();
    let client = TerminalClient::new(connect.options.clone());
    let service = match &connect.target {
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
            client.clone().serve(transport).await?
        }
        Target::Http(url) => {
            let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.as_str());
            client.clone().serve(transport).await?
        }
    };
    let mut params = CallToolRequestParams::new(connect.tool.clone());
    params.arguments = connect.arguments.clone();
    let peer = service.peer().clone();
    let handle = peer
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await?;
    let call_id = handle.id.clone();
    let mut response = std::pin::pin!(handle.await_response());
    let limit = connect.call_timeout.unwrap_or(Duration::MAX);
    let outcome = tokio::select! {
        response = &mut response => ConnectOutcome::Result(call_result(response?)?),
        _ = tokio::time::sleep(limit) => {
            // Cancel the call with a plain notification: rmcp stops reading a request's stream
            // when it cancels the request itself, and that stream is where the server sends the
            // withdrawal (`notifications/cancelled`) of the elicitation it has open.
            let cancel = CustomNotification::new(
                "notifications/cancelled",
                Some(json!({"requestId": call_id, "reason": "call timeout"})),
            );
            peer.send_notification(ClientNotification::CustomNotification(cancel))
                .await?;
            ConnectOutcome::CallTimedOut
        }
    };
    client.settle_down(Duration::from_secs(5)).await;
    let _ = service.cancel().await;
    Ok(outcome)
}
