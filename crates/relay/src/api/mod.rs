//! The HTTP API: one router per audience (hosts with the service token, people with their token
//! or a ticket, operators), each built from its module's `routes()`, and the pieces they share
//! (body parsing that always answers JSON). Handlers parse, call a service (`crate::service`,
//! their only door) and render a view (`crate::views`). What they share is in `state`.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, Path};
use axum::handler::Handler;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::from_fn_with_state;
use axum::routing::{self, MethodRouter};
use axum::Router;
use serde_json::Value;
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::error::ApiError;
use crate::record::Record;
use crate::service::{Missing, ServiceError};
use crate::store::StoreError;

pub mod answer_page;
pub mod checks;
pub mod extract;
pub mod host;
pub mod links;
pub mod operations;
pub mod people;
pub mod push;
pub mod request_log;
pub mod state;
pub mod stream;

pub use state::AppState;

/// The largest request body accepted (413 past it).
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// One audience's routes: its router, and the (method, path) pairs it was built from
/// (`{id}` for a path's id), which nothing else lists.
#[derive(Debug)]
pub struct Routes {
    router: Router<AppState>,
    served: Vec<(Method, &'static str)>,
}

impl Routes {
    fn new() -> Routes {
        Routes {
            router: Router::new(),
            served: Vec::new(),
        }
    }

    fn get<T: 'static>(self, path: &'static str, handler: impl Handler<T, AppState>) -> Routes {
        self.add(Method::GET, path, routing::get(handler))
    }

    fn post<T: 'static>(self, path: &'static str, handler: impl Handler<T, AppState>) -> Routes {
        self.add(Method::POST, path, routing::post(handler))
    }

    fn delete<T: 'static>(self, path: &'static str, handler: impl Handler<T, AppState>) -> Routes {
        self.add(Method::DELETE, path, routing::delete(handler))
    }

    fn add(mut self, method: Method, path: &'static str, route: MethodRouter<AppState>) -> Routes {
        self.router = self.router.route(path, route);
        self.served.push((method, path));
        self
    }

    /// Every (method, path) these routes serve.
    pub fn served(&self) -> &[(Method, &'static str)] {
        &self.served
    }
}

/// The routes the OpenAPI document describes: the hosts', the people's, the link holders' and
/// the operators' but their probes (which are no part of the API), and not the answer page
/// itself.
pub fn documented_routes() -> Vec<(Method, &'static str)> {
    let probes = operations::probes().served;
    [
        host::routes(),
        people::routes(),
        links::routes(),
        operations::routes(),
    ]
    .into_iter()
    .flat_map(|routes| routes.served)
    .filter(|route| !probes.contains(route))
    .collect()
}

/// The API on the main address: the hosts', the people's and the link holders' (both with CORS
/// for `allow_origins`; empty: no CORS headers at all), the answer page (same origin: no CORS)
/// and the operators' routes; the error says which origin is not valid.
pub fn router(state: AppState, allow_origins: &[String]) -> Result<Router, String> {
    let cors = cors_layer(allow_origins)?;
    let routes = host::routes()
        .router
        .merge(people::router(cors.clone()))
        .merge(links_router(cors))
        .merge(answer_page::routes().router)
        .merge(operations::routes().router);
    Ok(finished(routes, state))
}

/// What `--metrics-listen` serves, without credentials: `/metrics` and the probes.
pub fn operations_router(state: AppState) -> Router {
    finished(operations::probes().router, state)
}

/// `routes` on `state`, answering JSON for an unknown route or method, and logged.
fn finished(routes: Router<AppState>, state: AppState) -> Router {
    let metrics = state.metrics.clone();
    routes
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
        .layer(from_fn_with_state(metrics, request_log::log_requests))
}

/// The link holders' routes, with `cors` (when on): an app's own service worker, on another
/// origin than the relay's, answers a push's action through them. Their paths are theirs alone,
/// so the layer wraps every method there (a preflight's `OPTIONS` included).
fn links_router(cors: Option<CorsLayer>) -> Router<AppState> {
    let routes = links::routes().router;
    match cors {
        Some(layer) => routes
            .method_not_allowed_fallback(method_not_allowed)
            .layer(layer),
        None => routes,
    }
}

fn cors_layer(allow_origins: &[String]) -> Result<Option<CorsLayer>, String> {
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
                    .map_err(|_| format!("--allow-origin {origin:?} is not valid"))
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

async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "no such route")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
}

/// The id a path names; a malformed one reads as unknown (`unknown`).
pub fn path_id(
    id: Result<Path<String>, PathRejection>,
    unknown: fn() -> ApiError,
) -> Result<String, ApiError> {
    id.map(|Path(id)| id).map_err(|_| unknown())
}

/// The record, or 404.
pub fn known(record: Option<Record>) -> Result<Record, ApiError> {
    record.ok_or_else(ApiError::no_such_elicitation)
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

/// A service call that could only fail by its store, answered as [`ServiceError::Store`] is.
impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        ServiceError::Store(error).into()
    }
}

/// A service's refusal as the API answers it: the one place a [`ServiceError`] gets its status.
impl From<ServiceError> for ApiError {
    fn from(error: ServiceError) -> Self {
        match error {
            ServiceError::NotFound(Missing::Elicitation) => ApiError::no_such_elicitation(),
            ServiceError::NotFound(Missing::Link) => {
                ApiError::new(StatusCode::NOT_FOUND, links::NO_SUCH_LINK)
            }
            ServiceError::NotFound(Missing::Subscription) => {
                ApiError::new(StatusCode::NOT_FOUND, push::NO_SUCH_SUBSCRIPTION)
            }
            ServiceError::Conflict(message) => ApiError::conflict(message),
            ServiceError::Forbidden(message) => ApiError::new(StatusCode::FORBIDDEN, message),
            ServiceError::Invalid(message) => ApiError::bad_request(message),
            ServiceError::Unauthorized(message) => ApiError::unauthorized(message),
            ServiceError::TooMany {
                message,
                retry_after_s,
            } => ApiError::too_many_requests(message, retry_after_s),
            ServiceError::NoRandomness(detail) => ApiError::no_randomness(detail),
            ServiceError::Store(error) => ApiError::storage_failed(error),
        }
    }
}
