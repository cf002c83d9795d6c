//! The HTTP API: the routes, and the pieces both APIs use (body parsing that always answers
//! JSON). Handlers parse, call the service (`crate::service`) and render a view. The state handlers share is in `state`, the JSON views in `views`.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::Router;
use serde_json::Value;
use tower::{Layer, ServiceExt};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::error::ApiError;

pub mod audit;
pub mod checks;
pub mod extract;
pub mod host;
pub mod people;
pub mod probes;
pub mod push;
pub mod request_log;
pub mod state;
pub mod stream;
pub mod tickets;
pub mod views;

pub use state::{now_ms, AppState};

/// The largest request body accepted (413 past it).
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// Every route: method and path (`{id}` for the elicitation id). The OpenAPI document lists the
/// same ones.
pub const ROUTES: &[(&str, &str)] = &[
    ("POST", "/v1/elicitations"),
    ("GET", "/v1/elicitations"),
    ("GET", "/v1/elicitations/{id}/result"),
    ("POST", "/v1/elicitations/{id}/result"),
    ("DELETE", "/v1/elicitations/{id}"),
    ("POST", "/v1/elicitations/{id}/complete"),
    ("GET", "/v1/elicitations/{id}/status"),
    ("GET", "/v1/stream"),
    ("POST", "/v1/stream/ticket"),
    ("GET", "/v1/audit"),
    ("GET", "/v1/audit/checkpoint"),
    ("GET", "/v1/openapi.json"),
    ("GET", "/v1/push/key"),
    ("POST", "/v1/push/subscriptions"),
    ("GET", "/v1/push/subscriptions"),
    ("DELETE", "/v1/push/subscriptions/{id}"),
];

/// The OpenAPI 3.1 document of this API, served as is.
pub const OPENAPI_DOCUMENT: &str = include_str!("../../openapi.json");

/// The routes people's browsers call (with their JWT, or none for the push key); only these get
/// CORS headers.
pub const PEOPLE_ROUTES: &[(&str, &str)] = &[
    ("GET", "/v1/elicitations"),
    ("POST", "/v1/elicitations/{id}/result"),
    ("GET", "/v1/elicitations/{id}/status"),
    ("GET", "/v1/stream"),
    ("POST", "/v1/stream/ticket"),
    ("GET", "/v1/push/key"),
    ("POST", "/v1/push/subscriptions"),
    ("GET", "/v1/push/subscriptions"),
    ("DELETE", "/v1/push/subscriptions/{id}"),
];

/// Why the router could not be built from the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouterError(pub String);

impl std::fmt::Display for RouterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RouterError {}

/// The operators' routes (no elicitation data): probes without credentials, metrics with the
/// service token on the main address. Not in the OpenAPI document, which is the hosts' and
/// people's API.
pub const OPERATIONS_ROUTES: &[(&str, &str)] =
    &[("GET", "/livez"), ("GET", "/readyz"), ("GET", "/metrics")];

/// The whole API. `allow_origins` empty: no CORS headers at all.
pub fn router(state: AppState, allow_origins: &[String]) -> Result<Router, RouterError> {
    let cors = cors_layer(allow_origins)?;
    let metrics = state.metrics.clone();
    let router = Router::new()
        .route(
            "/v1/elicitations",
            post(host::create).get(people::list_pending),
        )
        .route(
            "/v1/elicitations/{id}/result",
            get(host::result).post(people::answer),
        )
        .route("/v1/elicitations/{id}", delete(host::withdraw))
        .route("/v1/elicitations/{id}/complete", post(host::complete))
        .route("/v1/elicitations/{id}/status", get(people::status))
        .route("/v1/stream", get(stream::stream))
        .route("/v1/stream/ticket", post(tickets::issue))
        .route("/v1/audit", get(audit::list))
        .route("/v1/audit/checkpoint", get(audit::checkpoint))
        .route("/v1/openapi.json", get(openapi))
        .route("/v1/push/key", get(push::key))
        .route(
            "/v1/push/subscriptions",
            post(push::subscribe).get(push::list),
        )
        .route("/v1/push/subscriptions/{id}", delete(push::unsubscribe))
        .route("/livez", get(probes::livez))
        .route("/readyz", get(probes::readyz))
        .route("/metrics", get(probes::metrics_with_token))
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(cors, people_cors))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
        .layer(axum::middleware::from_fn_with_state(
            metrics,
            request_log::log_requests,
        ));
    Ok(router)
}

/// What `--metrics-listen` serves, without credentials: `/metrics` and the probes.
pub fn operations_router(state: AppState) -> Router {
    let metrics = state.metrics.clone();
    Router::new()
        .route("/livez", get(probes::livez))
        .route("/readyz", get(probes::readyz))
        .route("/metrics", get(probes::metrics))
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(not_found)
        .with_state(state)
        .layer(axum::middleware::from_fn_with_state(
            metrics,
            request_log::log_requests,
        ))
}

fn cors_layer(allow_origins: &[String]) -> Result<Option<CorsLayer>, RouterError> {
    if allow_origins.is_empty() {
        return Ok(None);
    }
    let origin = if allow_origins.iter().any(|origin| origin == "*") {
        AllowOrigin::any()
    } else {
        let origins = allow_origins
            .iter()
            .map(|origin| {
                HeaderValue::from_str(origin)
                    .map_err(|_| RouterError(format!("--allow-origin {origin:?} is not valid")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        AllowOrigin::list(origins)
    };
    Ok(Some(
        CorsLayer::new()
            .allow_origin(origin)
            .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
            .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE])
            .expose_headers([header::RETRY_AFTER])
            .max_age(std::time::Duration::from_secs(600)),
    ))
}

/// Puts CORS on the people's routes only (a preflight is judged by the method it asks for).
async fn people_cors(
    State(cors): State<Option<CorsLayer>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(cors) = cors else {
        return next.run(request).await;
    };
    let method = if request.method() == Method::OPTIONS {
        request
            .headers()
            .get(header::ACCESS_CONTROL_REQUEST_METHOD)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("OPTIONS")
            .to_string()
    } else {
        request.method().as_str().to_string()
    };
    let for_people = request
        .extensions()
        .get::<MatchedPath>()
        .is_some_and(|path| {
            PEOPLE_ROUTES.iter().any(|(route_method, route_path)| {
                *route_method == method && *route_path == path.as_str()
            })
        });
    if !for_people {
        return next.run(request).await;
    }
    match cors.layer(next).oneshot(request).await {
        Ok(response) => response.into_response(),
        Err(never) => match never {},
    }
}

async fn openapi() -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        OPENAPI_DOCUMENT,
    )
        .into_response()
}

async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "no such route")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
}

/// A fresh id: 128 random bits as 32 lowercase hex characters.
pub fn new_id() -> Result<String, ApiError> {
    koder_elicitation_relay_protocol::random_id().map_err(ApiError::no_randomness)
}

/// A JSON body, or the JSON error that says why not (413 past the limit, 400 otherwise).
pub fn json_body(body: Result<Bytes, BytesRejection>) -> Result<Value, ApiError> {
    let bytes = body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::payload_too_large(MAX_BODY_BYTES)
        } else {
            ApiError::bad_request("could not read the request body")
        }
    })?;
    serde_json::from_slice(&bytes)
        .map_err(|error| ApiError::bad_request(format!("body is not valid JSON: {error}")))
}
