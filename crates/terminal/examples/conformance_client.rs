//! The client the official MCP conformance scenario `sep-2322-client-request-state` runs
//! (tests/e2e/conformance-2026-terminal.test.mjs): the terminal crate's library on rmcp, with no
//! terminal. It connects with `connect::Protocol::Auto` (the `koder-elicit connect` default),
//! lets rmcp drive the `input_required` rounds, and answers each input request through the same
//! parse and form checks as `koder-elicit prompt --answers '{}'` (the form's defaults, untouched).
//!
//!   cargo run -p koder-elicit --example conformance_client -- <server URL>
//!
//! Prints `protocol: <revision>`, then `<tool>: <result text>` per tool; exits 1 on any failure.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use koder_elicit::connect::{
    client_capabilities, elicit_result, install_tls_provider, request_from_params, Protocol,
};
use koder_elicit::{answer, Messages};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ElicitRequestParams, ElicitResult,
    ErrorData, Implementation,
};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::{ClientHandler, ClientServiceExt};
use serde_json::json;

/// The tools the scenario's mock serves that run a round (or, the last one, a plain result
/// without `resultType`).
const TOOLS: [&str; 3] = [
    "test_mrtr_echo_state",
    "test_mrtr_no_state",
    "test_mrtr_no_result_type",
];

/// Called once while a round is open: nothing of that round may ride on it.
const UNRELATED_TOOL: &str = "test_mrtr_unrelated";

struct AnsweringClient {
    messages: Messages,
    unrelated_called: AtomicBool,
}

/// The text of a tool's result, for the log.
fn result_text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join(" ")
}

impl ClientHandler for AnsweringClient {
    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let key = context.id.to_string();
        let request = request_from_params(&params, &key)?;
        if !self.unrelated_called.swap(true, Ordering::SeqCst) {
            let unrelated = context
                .peer
                .call_tool(CallToolRequestParams::new(UNRELATED_TOOL))
                .await;
            match unrelated {
                Ok(result) => println!("{UNRELATED_TOOL}: {}", result_text(&result)),
                Err(error) => println!("{UNRELATED_TOOL}: failed: {error}"),
            }
        }
        let ending = answer(&request, &json!({}), &self.messages)
            .map_err(|problems| ErrorData::invalid_params(problems.join("; "), None))?;
        eprintln!(
            "input request {key}: {:?} answered {}",
            request.message,
            ending.result().unwrap_or_default()
        );
        elicit_result(&ending).ok_or_else(|| ErrorData::internal_error("no result", None))
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            client_capabilities(),
            Implementation::new("koder-elicit-conformance", env!("CARGO_PKG_VERSION")),
        )
    }
}

async fn run(url: &str) -> Result<(), Box<dyn std::error::Error>> {
    install_tls_provider();
    let client = AnsweringClient {
        messages: Messages::new(koder_elicit::core::i18n::Locale::EnUs),
        unrelated_called: AtomicBool::new(false),
    };
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url);
    let service = client
        .serve_with_lifecycle(transport, Protocol::Auto.lifecycle())
        .await?;
    let protocol = service
        .peer()
        .peer_info()
        .map(|info| info.protocol_version.to_string())
        .unwrap_or_default();
    println!("protocol: {protocol}");
    let mut failed = false;
    for tool in TOOLS {
        match service.call_tool(CallToolRequestParams::new(tool)).await {
            Ok(result) => println!("{tool}: {}", result_text(&result)),
            Err(error) => {
                failed = true;
                println!("{tool}: failed: {error}");
            }
        }
    }
    let _ = service.cancel().await;
    if failed {
        return Err("a tool call failed".into());
    }
    Ok(())
}

fn main() -> ExitCode {
    // The runner appends the mock server's URL to the command.
    let Some(url) = std::env::args()
        .next_back()
        .filter(|arg| arg.starts_with("http"))
    else {
        eprintln!("usage: conformance_client <server URL>");
        return ExitCode::from(64);
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("conformance_client: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&url)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance_client: {error}");
            ExitCode::FAILURE
        }
    }
}
