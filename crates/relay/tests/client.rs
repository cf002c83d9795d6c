//! The Rust host helper (the `koder-elicitation-relay-client` crate) against real parts: the relay
//! served in-process on a fresh SQLite file, the TypeScript SDK v2 MCP server
//! (tests/peers/mrtr-server.mjs, over stdio with `node`) whose tools elicit, an rmcp client with
//! `RelayElicitationHandler`, and a person answering over the people's API with their JWT. The
//! tools' own results prove what the server received (a remembered approval's `_meta.persist`
//! too, from tests/peers/approval-server.mjs).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use koder_elicitation_relay::{serve, Config, Server};
use koder_elicitation_relay_client::{
    http_client, ElicitOptions, RelayClient, RelayClientError, RelayElicitationHandler, Scope,
};
use rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{json, Value};

const SERVICE_TOKEN: &str = "test-service-token-0123456789abcdef";
const JWT_SECRET: &str = "test-jwt-secret-0123456789abcdef";
const IDENTITY: &str = "Who is booking the table?";

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A relay on a fresh SQLite file in its own temp dir, removed afterwards.
struct Relay {
    server: Option<Server>,
    dir: PathBuf,
}

impl Relay {
    async fn start() -> Relay {
        let dir = std::env::temp_dir().join(format!(
            "koder-relay-client-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let mut config = Config::new(SERVICE_TOKEN, JWT_SECRET);
        config.listen = "127.0.0.1:0".parse().unwrap();
        config.database = format!("sqlite://{}", dir.join("relay.db").display());
        let server = serve(config).await.expect("the relay starts");
        Relay {
            server: Some(server),
            dir,
        }
    }

    fn url(&self) -> String {
        self.server.as_ref().unwrap().url()
    }

    fn client(&self) -> RelayClient {
        RelayClient::new(self.url(), SERVICE_TOKEN).unwrap()
    }

    async fn stop(mut self) {
        if let Some(server) = self.server.take() {
            server.shutdown().await.unwrap();
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A person with their own user id, answering over HTTP with an HS256 JWT.
struct Person {
    scope: Scope,
    token: String,
    base_url: String,
    http: reqwest::Client,
}

impl Person {
    fn new(relay: &Relay) -> Person {
        let user = format!("u_rust_{}", NEXT.fetch_add(1, Ordering::SeqCst));
        let exp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
            + 600;
        let token = encode(
            &Header::new(Algorithm::HS256),
            &json!({ "sub": user, "workspace": "w_rust", "aud": "koder-elicitation-relay", "exp": exp }),
            &EncodingKey::from_secret(JWT_SECRET.as_bytes()),
        )
        .unwrap();
        Person {
            scope: Scope::new(user, "w_rust").in_conversation("c_1"),
            token,
            base_url: relay.url(),
            http: http_client().unwrap(),
        }
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base_url))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let bytes = response.bytes().await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    async fn pending(&self) -> Vec<Value> {
        let (status, body) = self
            .call(
                reqwest::Method::GET,
                "/v1/elicitations?status=pending",
                None,
            )
            .await;
        assert_eq!(status, 200, "{body}");
        body["elicitations"].as_array().unwrap().clone()
    }

    /// Waits until `count` elicitations are pending for this person.
    async fn wait_for_pending(&self, count: usize) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let pending = self.pending().await;
            if pending.len() >= count {
                return pending;
            }
            assert!(
                Instant::now() < deadline,
                "expected {count} pending, have {pending:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn answer(&self, id: &str, result: Value) -> (u16, Value) {
        self.call(
            reqwest::Method::POST,
            &format!("/v1/elicitations/{id}/result"),
            Some(result),
        )
        .await
    }

    async fn status(&self, id: &str) -> String {
        let (_, body) = self
            .call(
                reqwest::Method::GET,
                &format!("/v1/elicitations/{id}/status"),
                None,
            )
            .await;
        body["status"].as_str().unwrap().to_string()
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// An rmcp client with the relay adapter, on the SDK v2 MRTR peer over stdio.
async fn mcp_client(
    handler: RelayElicitationHandler,
    lifecycle: ClientLifecycleMode,
) -> RunningService<RoleClient, RelayElicitationHandler> {
    mcp_client_of("tests/peers/mrtr-server.mjs", handler, lifecycle).await
}

/// An rmcp client with the relay adapter, on the SDK v2 peer `script` over stdio.
async fn mcp_client_of(
    script: &str,
    handler: RelayElicitationHandler,
    lifecycle: ClientLifecycleMode,
) -> RunningService<RoleClient, RelayElicitationHandler> {
    let root = workspace_root();
    assert!(
        root.join("node_modules/@modelcontextprotocol/server")
            .exists(),
        "node_modules is missing: run `npm ci` at the workspace root"
    );
    let mut command = tokio::process::Command::new("node");
    command.arg(root.join(script));
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("node runs the MCP server");
    handler
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("the MCP client connects")
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Calls `two_forms` and answers both questions as the person; the tool's text.
async fn book_a_table(lifecycle: ClientLifecycleMode) -> String {
    let relay = Relay::start().await;
    let person = Person::new(&relay);
    let handler = RelayElicitationHandler::new(relay.client(), person.scope.clone());
    let service = mcp_client(handler, lifecycle).await;
    let call = service.call_tool(CallToolRequestParams::new("two_forms"));
    let answering = async {
        let mut answered: Vec<String> = Vec::new();
        while answered.len() < 2 {
            let pending = person.wait_for_pending(1).await;
            for view in pending {
                let id = view["id"].as_str().unwrap().to_string();
                if answered.contains(&id) {
                    continue;
                }
                // The server's name comes from its MCP handshake (its title).
                assert_eq!(view["serverName"], "MRTR test peer");
                assert_eq!(view["scope"]["conversationId"], "c_1");
                let content = if view["request"]["message"] == IDENTITY {
                    json!({ "name": "Ada Lovelace", "email": "ada@example.com" })
                } else {
                    json!({ "seats": 3, "seating": "outdoor" })
                };
                let (status, body) = person
                    .answer(&id, json!({ "action": "accept", "content": content }))
                    .await;
                assert_eq!(status, 200, "{body}");
                answered.push(id);
            }
        }
    };
    let (result, ()) = tokio::join!(call, answering);
    let result = result.expect("the tool call completes");
    assert!(person.pending().await.is_empty(), "nothing left to answer");
    let _ = service.cancel().await;
    relay.stop().await;
    text(&result)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_on_2025_11_25_gets_what_the_person_answered() {
    assert_eq!(
        book_a_table(ClientLifecycleMode::Initialize).await,
        "Received identity: accept {\"name\":\"Ada Lovelace\",\"email\":\"ada@example.com\"}; \
         preferences: accept {\"seats\":3,\"seating\":\"outdoor\"}.\n\
         Booked 3 outdoor seat(s) for Ada Lovelace <ada@example.com>: both answers passed the \
         server's zod schemas.\n\
         Protocol revision: 2025-11-25."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_on_2026_07_28_gets_what_the_person_answered() {
    assert_eq!(
        book_a_table(ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        })
        .await,
        "Received identity: accept {\"name\":\"Ada Lovelace\",\"email\":\"ada@example.com\"}; \
         preferences: accept {\"seats\":3,\"seating\":\"outdoor\"}.\n\
         Booked 3 outdoor seat(s) for Ada Lovelace <ada@example.com>: both answers passed the \
         server's zod schemas.\n\
         Protocol revision: 2026-07-28."
    );
}

/// Calls `run_command` on the approval peer; the person chooses "remember for this session";
/// the tool's text.
async fn approve_and_remember(lifecycle: ClientLifecycleMode) -> String {
    let relay = Relay::start().await;
    let person = Person::new(&relay);
    let handler = RelayElicitationHandler::new(relay.client(), person.scope.clone());
    let service = mcp_client_of("tests/peers/approval-server.mjs", handler, lifecycle).await;
    let mut params = CallToolRequestParams::new("run_command");
    params.arguments = json!({ "command": "cargo test" }).as_object().cloned();
    let call = service.call_tool(params);
    let remembered =
        json!({ "action": "accept", "content": {}, "_meta": { "persist": "session" } });
    let answering = async {
        let [shown] = <[Value; 1]>::try_from(person.wait_for_pending(1).await).unwrap();
        // The person's view carries the request's `_meta`, what "remember" is offered from.
        assert_eq!(
            shown["request"]["_meta"]["persist"],
            json!(["session", "always"])
        );
        assert_eq!(shown["request"]["_meta"]["codex_approval_kind"], "exec");
        let id = shown["id"].as_str().unwrap();
        let (status, body) = person.answer(id, remembered.clone()).await;
        assert_eq!(status, 200, "{body}");
    };
    let (result, ()) = tokio::join!(call, answering);
    let result = result.expect("the tool call completes");
    let _ = service.cancel().await;
    relay.stop().await;
    text(&result)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remembered_approval_reaches_the_server_on_both_revisions() {
    let modern = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    for (lifecycle, revision) in [
        (ClientLifecycleMode::Initialize, "2025-11-25"),
        (modern, "2026-07-28"),
    ] {
        assert_eq!(
            approve_and_remember(lifecycle).await,
            format!("Ran `cargo test`; _meta.persist: session, remembered.\nProtocol revision: {revision}.")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_call_withdraws_its_elicitations() {
    let relay = Relay::start().await;
    let person = Person::new(&relay);
    let handler = RelayElicitationHandler::new(relay.client(), person.scope.clone());
    let service = mcp_client(
        handler,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await;
    let shown = {
        let call = service.call_tool(CallToolRequestParams::new("two_forms"));
        tokio::select! {
            result = call => panic!("the call ended before anyone answered: {result:?}"),
            shown = person.wait_for_pending(2) => shown,
        }
        // The call (and with it both handlers) is dropped here: the host gave up.
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while !person.pending().await.is_empty() {
        assert!(Instant::now() < deadline, "still pending after the drop");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for view in shown {
        let id = view["id"].as_str().unwrap();
        assert_eq!(person.status(id).await, "withdrawn");
        let (status, body) = person.answer(id, json!({ "action": "decline" })).await;
        assert_eq!(status, 410, "{body}");
        assert_eq!(body["error"]["status"], 410);
    }
    let _ = service.cancel().await;
    relay.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicit_cancelled_withdraws_and_says_so() {
    let relay = Relay::start().await;
    let person = Person::new(&relay);
    let client = relay.client();
    let (cancel, cancelled) = tokio::sync::oneshot::channel::<()>();
    let request = json!({
        "message": "Proceed?",
        "requestedSchema": { "type": "object", "properties": {} }
    });
    let asking = client.elicit(&person.scope, request, async {
        let _ = cancelled.await;
    });
    let person_side = async {
        let shown = person.wait_for_pending(1).await;
        let _ = cancel.send(());
        shown
    };
    let (answer, shown) = tokio::join!(asking, person_side);
    assert_eq!(answer, Err(RelayClientError::Cancelled));
    let id = shown[0]["id"].as_str().unwrap();
    // The withdraw happened before `elicit` returned.
    assert_eq!(person.status(id).await, "withdrawn");
    let (status, _) = person.answer(id, json!({ "action": "cancel" })).await;
    assert_eq!(status, 410);
    relay.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicit_returns_the_answer_or_cancel_when_it_expires() {
    let relay = Relay::start().await;
    let person = Person::new(&relay);
    let client = relay.client();
    let request = json!({
        "message": "Your city?",
        "requestedSchema": { "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] }
    });
    let never = std::future::pending::<()>();
    let asking = client.elicit(&person.scope, request.clone(), never);
    let answering = async {
        let shown = person.wait_for_pending(1).await;
        assert_eq!(shown[0]["request"], request);
        let id = shown[0]["id"].as_str().unwrap().to_string();
        // The relay checks the content against the schema before the host sees it.
        let (status, body) = person
            .answer(&id, json!({ "action": "accept", "content": {} }))
            .await;
        assert_eq!(status, 422, "{body}");
        person
            .answer(
                &id,
                json!({ "action": "accept", "content": { "city": "Porto" } }),
            )
            .await
    };
    let (answer, (status, _)) = tokio::join!(asking, answering);
    assert_eq!(status, 200);
    assert_eq!(
        answer,
        Ok(json!({ "action": "accept", "content": { "city": "Porto" } }))
    );

    // Nobody answers within its time: the relay expires it as cancel.
    let options = ElicitOptions {
        server_name: Some("Weather".into()),
        timeout_ms: Some(1000),
        notify: None,
    };
    let started = Instant::now();
    let expired = client
        .elicit_with(
            &person.scope,
            request,
            &options,
            std::future::pending(),
            |_| {},
        )
        .await;
    assert_eq!(expired, Ok(json!({ "action": "cancel" })));
    assert!(started.elapsed() >= Duration::from_millis(900));
    relay.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_error_carries_the_relays_message() {
    let relay = Relay::start().await;
    let person = Person::new(&relay);
    let request =
        json!({ "message": "Proceed?", "requestedSchema": { "type": "object", "properties": {} } });

    let wrong_token = RelayClient::new(relay.url(), "not-the-service-token").unwrap();
    let refused = wrong_token
        .elicit(&person.scope, request, std::future::pending())
        .await;
    let Err(RelayClientError::Relay {
        status,
        message,
        body,
    }) = refused.clone()
    else {
        panic!("expected a relay error, got {refused:?}");
    };
    assert_eq!(status, 401);
    assert_eq!(body["error"]["message"], message.as_str());
    let shown = refused.unwrap_err().to_string();
    assert_eq!(
        shown,
        format!("koder-elicitation-relay answered 401: {message}")
    );

    // A request the relay's core refuses: 400 with the JSON-RPC code the adapter answers with.
    let invalid = relay
        .client()
        .elicit(
            &person.scope,
            json!({ "message": "No schema", "requestedSchema": "not a schema" }),
            std::future::pending(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&invalid, RelayClientError::Relay { status: 400, .. }),
        "{invalid:?}"
    );
    assert_eq!(invalid.jsonrpc_code(), Some(-32602));
    assert!(person.pending().await.is_empty(), "nothing was created");
    relay.stop().await;
}

/// A 2025-11-25 MCP server on the TypeScript SDK v2 (run with `node --eval` from the workspace
/// root, so it finds node_modules) whose `sign_in` tool asks for a URL-mode elicitation and, once
/// accepted, reports its completion (`notifications/elicitation/complete`).
const URL_COMPLETION_SERVER: &str = r#"
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
serveStdio(() => {
  const mcp = new McpServer({ name: 'url-completion-peer', version: '1.0.0' });
  mcp.registerTool('sign_in', { description: 'URL mode with a completion' }, async (ctx) => {
    const elicitationId = 'sign-in-flow-1';
    const result = await ctx.mcpReq.elicitInput({
      mode: 'url', message: 'Sign in on the page.', url: 'https://example.com/sign-in', elicitationId,
    });
    if (result.action === 'accept') await mcp.server.createElicitationCompletionNotifier(elicitationId)();
    return { content: [{ type: 'text', text: `sign_in: ${result.action}` }] };
  });
  return mcp;
});
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_completion_reaches_the_relay() {
    let relay = Relay::start().await;
    let person = Person::new(&relay);
    let handler = RelayElicitationHandler::new(relay.client(), person.scope.clone());
    let mut command = tokio::process::Command::new("node");
    command
        .args(["--input-type=module", "--eval", URL_COMPLETION_SERVER])
        .current_dir(workspace_root());
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("node runs the MCP server");
    let service = handler
        .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
        .await
        .expect("the MCP client connects");
    let call = service.call_tool(CallToolRequestParams::new("sign_in"));
    let answering = async {
        let shown = person.wait_for_pending(1).await;
        assert_eq!(shown[0]["request"]["elicitationId"], "sign-in-flow-1");
        let id = shown[0]["id"].as_str().unwrap().to_string();
        let (status, body) = person.answer(&id, json!({ "action": "accept" })).await;
        assert_eq!(status, 200, "{body}");
        id
    };
    let (result, id) = tokio::join!(call, answering);
    assert_eq!(
        text(&result.expect("the tool call completes")),
        "sign_in: accept"
    );
    // The server's completion went through the adapter to the relay: the person's page sees it.
    let deadline = Instant::now() + Duration::from_secs(10);
    while person.status(&id).await != "complete" {
        assert!(
            Instant::now() < deadline,
            "the completion never reached the relay"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = service.cancel().await;
    relay.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_relay_is_retried_then_reported_and_a_bad_url_at_once() {
    // A port nobody listens on: every try fails to connect, through the retry window (2 s; the
    // last backoff that would overrun it is not waited).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = listener.local_addr().unwrap();
    drop(listener);
    let scope = Scope::new("u", "w");
    let request =
        json!({ "message": "Proceed?", "requestedSchema": { "type": "object", "properties": {} } });
    let client = RelayClient::new(format!("http://{closed}"), SERVICE_TOKEN)
        .unwrap()
        .retrying_for(Duration::from_secs(2));
    let started = Instant::now();
    let answer = client
        .elicit(&scope, request.clone(), std::future::pending())
        .await;
    assert!(
        matches!(answer, Err(RelayClientError::Unreachable(_))),
        "{answer:?}"
    );
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "gave up after {:?}",
        started.elapsed()
    );

    // A URL this client cannot use is not retried.
    let started = Instant::now();
    let client = RelayClient::new("not a url", SERVICE_TOKEN).unwrap();
    let answer = client.elicit(&scope, request, std::future::pending()).await;
    assert!(
        matches!(answer, Err(RelayClientError::Setup(_))),
        "{answer:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}
