//! The OpenAPI document (crates/relay/openapi.json) against the router: it describes exactly the
//! routes the relay serves, every reference in it resolves, every error answer is the one JSON
//! error object, and each API names its own security scheme.

use std::collections::BTreeSet;

use koder_elicitation_relay::api::ROUTES;
use serde_json::Value;

const DOCUMENT: &str = include_str!("../openapi.json");
const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

fn document() -> Value {
    serde_json::from_str(DOCUMENT).expect("openapi.json is JSON")
}

/// Every (METHOD, path) the document describes.
fn documented_routes(doc: &Value) -> BTreeSet<(String, String)> {
    let paths = doc["paths"].as_object().expect("paths is an object");
    paths
        .iter()
        .flat_map(|(path, item)| {
            let item = item.as_object().expect("a path item is an object");
            item.keys()
                .filter(|key| METHODS.contains(&key.as_str()))
                .map(|method| (method.to_uppercase(), path.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Every operation: (METHOD, path, operation object).
fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut all = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("path item") {
            if METHODS.contains(&method.as_str()) {
                all.push((method.to_uppercase(), path.clone(), operation.clone()));
            }
        }
    }
    all
}

/// Follows a local `$ref` (`#/components/...`).
fn resolve<'d>(doc: &'d Value, value: &'d Value) -> &'d Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let pointer = reference
                .strip_prefix('#')
                .unwrap_or_else(|| panic!("{reference} is not a local reference"));
            doc.pointer(pointer)
                .unwrap_or_else(|| panic!("{reference} does not resolve"))
        }
        None => value,
    }
}

fn collect_refs(value: &Value, refs: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
                refs.push(reference.to_string());
            }
            object.values().for_each(|inner| collect_refs(inner, refs));
        }
        Value::Array(items) => items.iter().for_each(|inner| collect_refs(inner, refs)),
        _ => {}
    }
}

#[test]
fn it_is_openapi_3_1() {
    let doc = document();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["title"], "koder-elicitation-relay");
    assert_eq!(doc["info"]["version"], env!("CARGO_PKG_VERSION"));
}

#[test]
fn it_lists_exactly_the_routes_the_relay_serves() {
    let doc = document();
    let served: BTreeSet<(String, String)> = ROUTES
        .iter()
        .map(|(method, path)| (method.to_string(), path.to_string()))
        .collect();
    assert_eq!(served.len(), ROUTES.len(), "ROUTES lists a route twice");
    let documented = documented_routes(&doc);
    let undocumented: Vec<_> = served.difference(&documented).collect();
    let not_served: Vec<_> = documented.difference(&served).collect();
    assert!(
        undocumented.is_empty() && not_served.is_empty(),
        "served but not in openapi.json: {undocumented:?}\nin openapi.json but not served: {not_served:?}"
    );
}

#[test]
fn every_reference_resolves() {
    let doc = document();
    let mut refs = Vec::new();
    collect_refs(&doc, &mut refs);
    assert!(refs.len() > 20, "the document uses its components");
    for reference in refs {
        let pointer = reference
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("{reference} is not local"));
        assert!(
            doc.pointer(pointer).is_some(),
            "{reference} does not resolve"
        );
    }
}

#[test]
fn every_error_answer_is_the_json_error_object() {
    let doc = document();
    for (method, path, operation) in operations(&doc) {
        let responses = operation["responses"].as_object().expect("responses");
        for (status, response) in responses {
            let code: u16 = status.parse().expect("a numeric status");
            let response = resolve(&doc, response);
            if code < 400 {
                continue;
            }
            let schema = &response["content"]["application/json"]["schema"];
            assert_eq!(
                schema["$ref"], "#/components/schemas/Error",
                "{method} {path} {code} is not the error object"
            );
            if let Some(example) = response["content"]["application/json"].get("example") {
                assert_eq!(
                    example["error"]["status"], code,
                    "{method} {path} {code}: the example's status"
                );
            }
        }
    }
}

#[test]
fn each_api_names_its_security_scheme_and_answers_401() {
    let doc = document();
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["serviceToken"]["scheme"], "bearer");
    assert_eq!(schemes["personJwt"]["bearerFormat"], "JWT");
    // No long-lived token in a URL: only a one-use ticket goes in the query.
    assert!(schemes.get("personJwtQuery").is_none());
    assert_eq!(schemes["streamTicket"]["in"], "query");
    assert_eq!(schemes["streamTicket"]["name"], "ticket");
    assert!(
        !DOCUMENT.contains(r#""name": "access_token""#),
        "?access_token= is not documented as accepted"
    );
    for (method, path, operation) in operations(&doc) {
        let Some(security) = operation["security"].as_array() else {
            panic!("{method} {path} does not say its security");
        };
        if security.is_empty() {
            continue; // public: the document itself
        }
        let names: BTreeSet<&str> = security
            .iter()
            .flat_map(|requirement| requirement.as_object().expect("requirement").keys())
            .map(String::as_str)
            .collect();
        let host = names.contains("serviceToken");
        let person = names.contains("personJwt");
        assert!(
            host != person,
            "{method} {path} must be for hosts or people: {names:?}"
        );
        assert!(
            operation["responses"].get("401").is_some(),
            "{method} {path} has no 401"
        );
        if names.contains("streamTicket") {
            assert_eq!(path, "/v1/stream", "only the stream takes ?ticket=");
        }
    }
}

#[test]
fn the_stream_names_its_events() {
    let doc = document();
    let ok = &doc["paths"]["/v1/stream"]["get"]["responses"]["200"];
    assert!(ok["content"].get("text/event-stream").is_some());
    let events = ok["x-sse-events"].as_object().expect("x-sse-events");
    let names: Vec<&str> = events.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["elicitation", "settled", "withdrawn", "expired", "complete"]
    );
    let elicitation = resolve(&doc, &events["elicitation"]);
    let required: Vec<&str> = elicitation["required"]
        .as_array()
        .expect("required")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        required,
        [
            "id",
            "request",
            "serverName",
            "createdAt",
            "expiresAt",
            "expiresInMs",
            "scope"
        ]
    );
}
