//! [`RelayElicitationHandler`]: an rmcp [`ClientHandler`] whose `elicitation/create` goes
//! through the relay, so an MCP client running on a server asks the right person in their
//! browser.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use koder_elicitation_relay_client::{RelayClient, RelayElicitationHandler, Scope};
//! let relay = RelayClient::new("http://127.0.0.1:8790", "service-token")?;
//! let handler = RelayElicitationHandler::new(relay, Scope::new("user-1", "workspace-1"));
//! // rmcp::ServiceExt::serve(handler, transport).await?; then call tools as usual.
//! # let _ = handler; Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientCapabilities, ClientConfig, CustomNotification, ElicitRequestParams, ElicitResult,
    ElicitationCapability, ErrorData, FormElicitationCapability, Implementation, ProtocolVersion,
    UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleClient};
use rmcp::ClientHandler;
use serde_json::{json, Value};

use crate::client::{ElicitOptions, RelayClient};
use crate::error::RelayClientError;
use crate::wire::{Created, Scope};

/// The JSON-RPC code the relay reports when its core refused the request itself.
const INVALID_PARAMS: i64 = -32602;

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
        // rmcp hands the request's `_meta` over in the context, not in the params: put it back,
        // so the person sees what the server offered (`_meta.persist`: "remember").
        if let Some(object) = request.as_object_mut() {
            if !object.contains_key("_meta") && !context.meta.0 .0.is_empty() {
                let meta = Value::Object(context.meta.0 .0.clone());
                object.insert("_meta".into(), meta);
            }
        }
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
            Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
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
