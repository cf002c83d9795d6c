//! [`RelayClient`]: the host API's calls (create, long-poll, withdraw, complete), their retries,
//! and the errors they end in.

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use reqwest::{Method, StatusCode};
use serde::Deserialize;
use serde_json::Value;

use crate::error::RelayClientError;
use crate::wire::{
    now_ms, random_id, CreateElicitation, Created, ErrorBody, HostStatus, HostView, Notify, Scope,
};

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

/// What else the relay is told about an elicitation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ElicitOptions {
    /// The MCP server's name, shown in the person's dialog.
    pub server_name: Option<String>,
    /// How long the person has, in ms (the relay clamps it to [1000, 86400000]; default 300000).
    pub timeout_ms: Option<u64>,
    /// Who the relay e-mails the question's link to (when the relay sends e-mail and the
    /// address is in one of its allowed domains).
    pub notify: Option<Notify>,
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

impl Outcome {
    /// The outcome a host view reports; `None` when a final status comes without an
    /// ElicitResult object.
    pub fn from_view(view: HostView) -> Option<Outcome> {
        match (view.status, view.result) {
            (HostStatus::Pending, _) => Some(Outcome::Pending),
            (status, Some(result)) if result.is_object() => Some(Outcome::Final {
                status: status.as_str().to_string(),
                result,
            }),
            _ => None,
        }
    }
}

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

/// The `reqwest::Client` [`RelayClient::new`] uses. Never installs anything process-wide.
///
/// Without the `rustls` feature it speaks plain HTTP only. If something else in the build turns
/// on reqwest's `rustls-no-provider` (rmcp's `reqwest-tls-no-provider` does), reqwest panics
/// building a client while no rustls crypto provider is installed: enable this crate's `rustls`
/// feature (its clients then carry their own TLS configuration) or install a provider first.
///
/// With the `rustls` feature it speaks HTTPS too, with the platform's root certificates and the
/// process's rustls crypto provider when one is installed, else ring for this client alone.
pub fn http_client() -> Result<reqwest::Client, RelayClientError> {
    let builder = reqwest::Client::builder();
    #[cfg(feature = "rustls")]
    let builder = builder.tls_backend_preconfigured(crate::tls::client_config()?);
    builder
        .build()
        .map_err(|error| RelayClientError::Setup(error.to_string()))
}

impl RelayClient {
    /// A client for the relay at `base_url` (e.g. `http://127.0.0.1:8790`, without `/v1`),
    /// on [`http_client`]. An `https://` relay needs the `rustls` feature (or
    /// [`RelayClient::with_http_client`]): without it this is a [`RelayClientError::Setup`] now
    /// rather than a failed connection on every call.
    pub fn new(
        base_url: impl Into<String>,
        service_token: impl Into<String>,
    ) -> Result<RelayClient, RelayClientError> {
        let base_url: String = base_url.into();
        #[cfg(not(feature = "rustls"))]
        if base_url
            .trim_start()
            .get(..6)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https:"))
        {
            return Err(RelayClientError::Setup(format!(
                "{base_url} needs TLS: enable the `rustls` feature of \
                 koder-elicitation-relay-client, or pass a reqwest::Client with TLS to \
                 RelayClient::with_http_client"
            )));
        }
        Ok(RelayClient::with_http_client(
            http_client()?,
            base_url,
            service_token,
        ))
    }

    /// The same with a `reqwest::Client` of the caller's: for `https` without this crate's
    /// `rustls` feature, enable a TLS feature of reqwest in the application and pass a client
    /// built with it.
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
        let body = CreateElicitation {
            scope: scope.clone(),
            request: request.clone(),
            server_name: options.server_name.clone(),
            timeout_ms: options.timeout_ms,
            notify: options.notify.clone(),
            audience: None,
            escalate: Vec::new(),
        };
        let body = serde_json::to_value(&body)
            .map_err(|error| RelayClientError::Unexpected(error.to_string()))?;
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
        serde_json::from_value(answer.clone())
            .map_err(|_| RelayClientError::Unexpected(format!("a create answered {answer}")))
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
        outcome_of(answer)
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
                // Not worth retrying: the URL is wrong, or https without TLS.
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

/// A result poll's answer as an [`Outcome`], or why it is not one.
fn outcome_of(answer: Value) -> Result<Outcome, RelayClientError> {
    serde_json::from_value::<HostView>(answer.clone())
        .ok()
        .and_then(Outcome::from_view)
        .ok_or_else(|| RelayClientError::Unexpected(format!("a result poll answered {answer}")))
}

/// A non-2xx answer (or a 2xx that is not JSON) as the error it stands for.
fn relay_error(status: StatusCode, body: Option<Value>) -> RelayClientError {
    let body = body.unwrap_or(Value::Null);
    let message = ErrorBody::deserialize(&body)
        .map(|error| error.error.message)
        .unwrap_or_else(|_| {
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

/// A fresh Idempotency-Key: a random id. Without randomness, the clock, the process and a
/// counter still keep one host's creates apart.
fn idempotency_key() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    random_id().unwrap_or_else(|_| {
        let count = COUNTER.fetch_add(1, Ordering::Relaxed);
        format!("{}-{}-{count}", now_ms(), std::process::id())
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_relay_error_keeps_the_relays_message_and_code() {
        let body = json!({
            "error": { "status": 400, "message": "requestedSchema must be an object", "jsonrpcCode": -32602 }
        });
        let error = relay_error(StatusCode::BAD_REQUEST, Some(body.clone()));
        assert_eq!(
            error,
            RelayClientError::Relay {
                status: 400,
                message: "requestedSchema must be an object".into(),
                body,
            }
        );
        assert_eq!(error.jsonrpc_code(), Some(-32602));
        assert!(!error.is_transient());
        assert_eq!(
            error.to_string(),
            "koder-elicitation-relay answered 400: requestedSchema must be an object"
        );
    }

    #[test]
    fn an_error_without_a_json_body_is_named_by_its_status() {
        let error = relay_error(StatusCode::BAD_GATEWAY, None);
        assert_eq!(
            error,
            RelayClientError::Relay {
                status: 502,
                message: "Bad Gateway".into(),
                body: Value::Null,
            }
        );
        assert!(error.is_transient(), "a 5xx is retried");
        assert_eq!(error.jsonrpc_code(), None);
        let not_json = relay_error(StatusCode::OK, None);
        let RelayClientError::Relay {
            status: 200,
            message,
            ..
        } = &not_json
        else {
            panic!("{not_json:?}")
        };
        assert_eq!(message, "an answer that is not JSON");
        // A status with no reason phrase still says something.
        let odd = relay_error(StatusCode::from_u16(599).unwrap(), Some(json!({ "x": 1 })));
        let RelayClientError::Relay {
            status: 599,
            message,
            ..
        } = &odd
        else {
            panic!("{odd:?}")
        };
        assert_eq!(message, "no message");
    }

    #[test]
    fn only_network_errors_and_5xx_are_retried() {
        assert!(RelayClientError::Unreachable("refused".into()).is_transient());
        for status in [400, 401, 404, 409, 410, 422, 429] {
            let error = relay_error(StatusCode::from_u16(status).unwrap(), None);
            assert!(!error.is_transient(), "{status}");
        }
        assert!(!RelayClientError::Setup("bad url".into()).is_transient());
        assert!(!RelayClientError::Unexpected("?".into()).is_transient());
        assert!(!RelayClientError::Cancelled.is_transient());
        assert_eq!(
            RelayClientError::Unreachable("connection refused".into()).to_string(),
            "koder-elicitation-relay unreachable: connection refused"
        );
        assert_eq!(
            RelayClientError::Cancelled.to_string(),
            "the elicitation was withdrawn"
        );
    }

    #[test]
    fn a_result_poll_reads_pending_and_final_and_refuses_the_rest() {
        assert_eq!(
            outcome_of(json!({ "status": "pending" })),
            Ok(Outcome::Pending)
        );
        assert_eq!(
            outcome_of(
                json!({ "status": "settled", "result": { "action": "accept", "content": { "a": 1 } } })
            ),
            Ok(Outcome::Final {
                status: "settled".into(),
                result: json!({ "action": "accept", "content": { "a": 1 } }),
            })
        );
        for answer in [
            json!({ "status": "expired" }),
            json!({ "status": "withdrawn", "result": "cancel" }),
            json!({ "status": "complete", "result": { "action": "accept" } }),
            json!({ "result": { "action": "accept" } }),
            json!([]),
        ] {
            assert_eq!(
                outcome_of(answer.clone()),
                Err(RelayClientError::Unexpected(format!(
                    "a result poll answered {answer}"
                )))
            );
        }
    }

    #[test]
    fn an_id_cannot_change_the_path() {
        assert_eq!(elicitation_path("0123abcd"), "/v1/elicitations/0123abcd");
        assert_eq!(
            elicitation_path("../../v1/admin?x=1#y"),
            "/v1/elicitations/v1adminx1y"
        );
    }

    #[test]
    fn idempotency_keys_are_fresh_random_ids() {
        let first = idempotency_key();
        assert_eq!(first.len(), 32);
        assert_ne!(first, idempotency_key());
    }

    #[test]
    fn the_service_token_stays_out_of_debug_output() {
        let client = RelayClient::with_http_client(
            http_client().unwrap(),
            "http://127.0.0.1:8790/",
            "secret-service-token",
        );
        let shown = format!("{client:?}");
        assert!(!shown.contains("secret-service-token"), "{shown}");
        assert!(shown.contains("\"http://127.0.0.1:8790\""), "{shown}");
    }
}
