//! The OpenAPI document (crates/relay/openapi.json) against the routers: it describes exactly the
//! routes the relay serves (each audience's router, but the operators' probes), every reference
//! in it resolves, every error answer is the one JSON error object, and each API names its own
//! security scheme.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeSet;

use axum::http::Method;
use koder_elicitation_relay::api::{self, documented_routes as served_routes};
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
    let routes = served_routes();
    let served = pairs(&routes);
    assert_eq!(served.len(), routes.len(), "ROUTES lists a route twice");
    let documented = documented_routes(&doc);
    let undocumented: Vec<_> = served.difference(&documented).collect();
    let not_served: Vec<_> = documented.difference(&served).collect();
    assert!(
        undocumented.is_empty() && not_served.is_empty(),
        "served but not in openapi.json: {undocumented:?}\nin openapi.json but not served: {not_served:?}"
    );
}

/// (METHOD, path) pairs as the document spells them.
fn pairs(routes: &[(Method, &str)]) -> BTreeSet<(String, String)> {
    routes
        .iter()
        .map(|(method, path)| (method.to_string(), path.to_string()))
        .collect()
}

#[test]
fn each_audience_router_is_in_the_document_and_nothing_else_is() {
    let documented = documented_routes(&document());
    let probes = pairs(api::operations::probes().served());
    let mut served = BTreeSet::new();
    for (audience, routes) in [
        ("hosts", api::host::routes()),
        ("people", api::people::routes()),
        ("link holders", api::links::routes()),
        ("operations", api::operations::routes()),
    ] {
        for route in pairs(routes.served()) {
            if probes.contains(&route) {
                assert!(
                    !documented.contains(&route),
                    "the probe {route:?} is documented"
                );
                continue;
            }
            assert!(
                documented.contains(&route),
                "{audience} serve {route:?}, which openapi.json does not list"
            );
            assert!(served.insert(route.clone()), "{route:?} has two routers");
        }
    }
    let not_served: Vec<_> = documented.difference(&served).collect();
    assert!(
        not_served.is_empty(),
        "in openapi.json but in no router: {not_served:?}"
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
            // Public: the document, the push key, and the link holders' routes (their token
            // is in the body).
            continue;
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

// The document against the wire types (crates/relay-protocol): every type's JSON, in each of its
// shapes, validates against the schema the document gives it; a key the schema does not declare
// fails; and every property the document declares is carried by some sample, so neither side can
// gain or lose a field alone.

mod wire {
    use std::collections::{BTreeMap, BTreeSet};

    use koder_elicitation_relay_protocol::{
        random_id, AnsweredBy, AuditCheckpoint, AuditLine, ContentError, CreateElicitation,
        Created, ElicitationList, ElicitationView, ErrorBody, ErrorDetail, HostStatus, HostView,
        IdEvent, LinkAnswer, LinkChoice, LinkCreated, LinkElicitation, LinkOneTap, LinkPageView,
        LinkToken, LinkView, Members, Notify, PublicStatus, PushKey, PushSubscriptionBody,
        PushSubscriptionCreated, PushSubscriptionKeys, PushSubscriptionList, PushSubscriptionView,
        Scope, SettledEvent, StatusView, StreamEvent, StreamTicket, ViewScope, WebhookElicitation,
        WebhookEscalation, WebhookEvent,
    };
    use koder_mcp_elicitation_core::pattern::Pattern;
    use serde::de::DeserializeOwned;
    use serde::Serialize;
    use serde_json::{json, Value};

    use super::document;

    /// Keywords that only annotate.
    const ANNOTATIONS: [&str; 5] = ["description", "title", "default", "example", "examples"];

    /// What the samples met: each object schema (by JSON pointer) with the properties it
    /// declares, and the properties some sample carried.
    #[derive(Default)]
    pub struct Coverage {
        declared: BTreeMap<String, BTreeSet<String>>,
        carried: BTreeSet<(String, String)>,
    }

    /// Validates `value` against the schema at `pointer`, strictly: where a schema declares
    /// properties, a key it does not declare is an error (whatever `additionalProperties` says,
    /// the types must not carry undocumented fields). Errors say where.
    pub fn check(
        doc: &Value,
        pointer: &str,
        value: &Value,
        at: &str,
        coverage: &mut Coverage,
    ) -> Result<(), String> {
        let schema = doc
            .pointer(pointer.trim_start_matches('#'))
            .ok_or_else(|| format!("{pointer} does not resolve"))?;
        let object = schema
            .as_object()
            .ok_or_else(|| format!("{pointer} is not a schema"))?;
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            return check(doc, reference, value, at, coverage);
        }
        for (keyword, rule) in object {
            let fail = |what: String| Err(format!("{at}: {what} ({pointer}/{keyword})"));
            match keyword.as_str() {
                "type" => {
                    let types: Vec<&str> = match rule {
                        Value::String(one) => vec![one.as_str()],
                        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
                        _ => return fail("a malformed type".into()),
                    };
                    if !types.iter().any(|name| is_type(value, name)) {
                        return fail(format!("{value} is not {types:?}"));
                    }
                }
                "enum" => {
                    if !rule.as_array().is_some_and(|items| items.contains(value)) {
                        return fail(format!("{value} is not one of {rule}"));
                    }
                }
                "const" => {
                    if rule != value {
                        return fail(format!("{value} is not {rule}"));
                    }
                }
                "required" => {
                    for name in rule.as_array().into_iter().flatten() {
                        let name = name.as_str().unwrap_or_default();
                        if value.is_object() && value.get(name).is_none() {
                            return fail(format!("{name} is missing"));
                        }
                    }
                }
                "properties" => {
                    let properties = rule.as_object().ok_or("properties is not an object")?;
                    coverage
                        .declared
                        .insert(pointer.to_string(), properties.keys().cloned().collect());
                    if let Some(fields) = value.as_object() {
                        for (name, field) in fields {
                            if !properties.contains_key(name) {
                                return fail(format!("{name} is not in the document"));
                            }
                            coverage.carried.insert((pointer.to_string(), name.clone()));
                            let inner = format!("{pointer}/properties/{name}");
                            check(doc, &inner, field, &format!("{at}.{name}"), coverage)?;
                        }
                    }
                }
                "additionalProperties" => {
                    if let (Value::Object(_), Some(fields)) = (rule, value.as_object()) {
                        if object.get("properties").is_none() {
                            let inner = format!("{pointer}/additionalProperties");
                            for (name, field) in fields {
                                check(doc, &inner, field, &format!("{at}.{name}"), coverage)?;
                            }
                        }
                    }
                }
                "items" => {
                    for (index, item) in value.as_array().into_iter().flatten().enumerate() {
                        check(
                            doc,
                            &format!("{pointer}/items"),
                            item,
                            &format!("{at}[{index}]"),
                            coverage,
                        )?;
                    }
                }
                "oneOf" => {
                    let branches = rule.as_array().ok_or("oneOf is not an array")?;
                    let mut passing = Vec::new();
                    for index in 0..branches.len() {
                        let mut branch = Coverage::default();
                        let inner = format!("{pointer}/oneOf/{index}");
                        if check(doc, &inner, value, at, &mut branch).is_ok() {
                            passing.push(branch);
                        }
                    }
                    if passing.len() != 1 {
                        return fail(format!(
                            "{value} matches {} branches, not one",
                            passing.len()
                        ));
                    }
                    for branch in passing {
                        coverage.declared.extend(branch.declared);
                        coverage.carried.extend(branch.carried);
                    }
                }
                "minimum" | "maximum" => {
                    let (Some(bound), Some(number)) = (rule.as_f64(), value.as_f64()) else {
                        continue;
                    };
                    if (keyword == "minimum" && number < bound)
                        || (keyword == "maximum" && number > bound)
                    {
                        return fail(format!("{number} is out of bounds"));
                    }
                }
                "minLength" | "maxLength" => {
                    let (Some(bound), Some(text)) = (rule.as_u64(), value.as_str()) else {
                        continue;
                    };
                    let length = text.chars().count() as u64;
                    if (keyword == "minLength" && length < bound)
                        || (keyword == "maxLength" && length > bound)
                    {
                        return fail(format!("{text:?} has the wrong length"));
                    }
                }
                "pattern" => {
                    let pattern = Pattern::compile(rule.as_str().unwrap_or_default())
                        .map_err(|error| format!("{pointer}: {error:?}"))?;
                    if value.as_str().is_some_and(|text| !pattern.is_match(text)) {
                        return fail(format!("{value} does not match {rule}"));
                    }
                }
                annotation if ANNOTATIONS.contains(&annotation) => {}
                unknown => return fail(format!("the check does not know the keyword {unknown}")),
            }
        }
        Ok(())
    }

    fn is_type(value: &Value, name: &str) -> bool {
        match name {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            "null" => value.is_null(),
            _ => false,
        }
    }

    /// The JSON of `value`, which must read back as the same value.
    fn json_of<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(value: &T) -> Value {
        let json = serde_json::to_value(value).unwrap();
        let back: T = serde_json::from_value(json.clone())
            .unwrap_or_else(|error| panic!("{json} does not read back: {error}"));
        assert_eq!(&back, value);
        json
    }

    fn id() -> String {
        random_id().unwrap()
    }

    fn view_scope() -> ViewScope {
        ViewScope {
            user_id: "ana".into(),
            workspace_id: "acme".into(),
            conversation_id: String::new(),
        }
    }

    fn view(server_name: Option<&str>) -> ElicitationView {
        ElicitationView {
            id: id(),
            request: json!({"message": "Which city?", "requestedSchema": {"type": "object", "properties": {}}}),
            server_name: server_name.map(str::to_string),
            created_at: 1_000,
            expires_at: 301_000,
            expires_in_ms: 300_000,
            scope: view_scope(),
        }
    }

    fn accepted() -> Value {
        json!({"action": "accept", "content": {"city": "Lisbon", "guests": 2, "terrace": true, "diets": ["vegan"]}})
    }

    fn audit_line(action: &str, digest: &str) -> AuditLine {
        AuditLine {
            seq: 1,
            chain: r#"["u1","w1"]"#.into(),
            chain_seq: 1,
            at: 1_000,
            elicitation_id: id(),
            scope: view_scope(),
            actor: "host".into(),
            action: action.into(),
            digest: digest.into(),
            prev_hash: "0".repeat(64),
            hash: "a".repeat(64),
        }
    }

    fn webhook(event_type: &str, status: HostStatus, finished: bool) -> WebhookEvent {
        WebhookEvent {
            event_type: event_type.into(),
            timestamp: "2026-11-18T11:06:40.000Z".into(),
            data: WebhookElicitation {
                id: id(),
                scope: ViewScope {
                    conversation_id: "c1".into(),
                    ..view_scope()
                },
                server_name: finished.then(|| "Weather".to_string()),
                status,
                created_at: 1_000,
                expires_at: 301_000,
                finished_at: finished.then_some(2_000),
                result: finished.then(accepted),
                answered_by: None,
                answer_url: None,
            },
        }
    }

    fn link_view(status: HostStatus, server_name: Option<&str>) -> LinkView {
        let pending = status == HostStatus::Pending;
        LinkView {
            elicitation: LinkElicitation {
                id: id(),
                status,
                request: pending.then(|| json!({"message": "Which city?", "requestedSchema": {"type": "object", "properties": {}}})),
                server_name: server_name.map(str::to_string),
                expires_at: pending.then_some(301_000),
                expires_in_ms: pending.then_some(299_500),
            },
        }
    }

    /// A link's view for the page; `one_tap` `Some(question)` gives it the choices of a
    /// boolean with that question (none with no properties).
    fn link_page_view(status: HostStatus, one_tap: Option<Option<&str>>) -> LinkPageView {
        let choice = |title: &str, result: Value| LinkChoice {
            title: title.into(),
            result,
        };
        LinkPageView {
            elicitation: link_view(status, None).elicitation,
            one_tap: one_tap.map(|question| LinkOneTap {
                message: "Deploy build 42?".into(),
                question: question.map(str::to_string),
                choices: vec![
                    choice("Yes", json!({"action": "accept", "content": {"ok": true}})),
                    choice("No", json!({"action": "accept", "content": {"ok": false}})),
                    choice("Reject", json!({"action": "decline"})),
                ],
            }),
        }
    }

    fn push_body(expiration_time: Option<f64>, language: Option<&str>) -> PushSubscriptionBody {
        let browser = koder_web_push::Receiver::generate();
        PushSubscriptionBody {
            endpoint: "https://fcm.googleapis.com/fcm/send/abc".into(),
            expiration_time,
            keys: PushSubscriptionKeys {
                p256dh: browser.p256dh_base64url(),
                auth: browser.auth_base64url(),
            },
            language: language.map(str::to_string),
        }
    }

    fn error(jsonrpc_code: Option<i32>, errors: Vec<ContentError>) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail {
                status: if errors.is_empty() { 400 } else { 422 },
                message: "message is required".into(),
                jsonrpc_code,
                errors,
            },
        }
    }

    /// Each component schema with the JSON of every shape its type takes; the first is the
    /// type with nothing optional set.
    pub fn samples() -> Vec<(&'static str, Vec<Value>)> {
        let host_view = |status, result: Option<Value>| HostView::of(status, result);
        let status = |status| json_of(&StatusView { status });
        vec![
            (
                "Scope",
                vec![
                    // A team question's scope (its create names an `audience`).
                    json!({"workspaceId": "acme"}),
                    json_of(&Scope::new("ana", "acme")),
                    json_of(&Scope::new("ana", "acme").in_conversation("c1")),
                ],
            ),
            (
                "CreateElicitation",
                vec![
                    json_of(&CreateElicitation {
                        scope: Scope::new("ana", "acme"),
                        request: json!({"message": "Hi"}),
                        server_name: None,
                        timeout_ms: None,
                        notify: None,
                        audience: None,
                        escalate: Vec::new(),
                    }),
                    json_of(&CreateElicitation {
                        scope: Scope::new("ana", "acme"),
                        request: json!({"message": "Hi"}),
                        server_name: Some("Weather".into()),
                        timeout_ms: Some(60_000),
                        notify: Some(Notify {
                            email: vec!["ana@example.com".into(), "bo@example.com".into()].into(),
                            language: Some("pt-BR".into()),
                            remind_after_ms: Some(600_000),
                        }),
                        audience: None,
                        escalate: Vec::new(),
                    }),
                    json!({
                        "scope": {"workspaceId": "acme"},
                        "request": {"message": "Deploy?"},
                        "audience": {"users": ["ana"], "groups": ["oncall"]},
                        "escalate": [{"after": "10m", "audience": {"groups": ["leads"]},
                                      "notify": {"email": "leads@example.com"}}]
                    }),
                ],
            ),
            (
                "Created",
                vec![json_of(&Created {
                    id: id(),
                    expires_at: 301_000,
                })],
            ),
            (
                "HostOutcome",
                vec![
                    json_of(&host_view(HostStatus::Pending, None)),
                    json_of(&host_view(HostStatus::Settled, Some(accepted()))),
                    // A remembered approval: the answer's `_meta` returns to the host.
                    json_of(&host_view(
                        HostStatus::Settled,
                        Some(
                            json!({"action": "accept", "content": {}, "_meta": {"persist": "session"}}),
                        ),
                    )),
                    json_of(&host_view(
                        HostStatus::Expired,
                        Some(json!({"action": "cancel"})),
                    )),
                    // A question for a team, pending, then answered by a member.
                    json_of(&HostView {
                        audience: Some(Members {
                            users: vec!["ana".into()],
                            groups: vec!["oncall".into()],
                        }),
                        escalated: Some(0),
                        ..host_view(HostStatus::Pending, None)
                    }),
                    json_of(&HostView {
                        answered_by: Some(AnsweredBy::Person {
                            user_id: "ana".into(),
                            name: Some("Ana".into()),
                        }),
                        audience: Some(Members {
                            users: Vec::new(),
                            groups: vec!["oncall".into()],
                        }),
                        escalated: Some(1),
                        ..host_view(HostStatus::Settled, Some(accepted()))
                    }),
                    json_of(&host_view(
                        HostStatus::Withdrawn,
                        Some(json!({"action": "cancel"})),
                    )),
                ],
            ),
            (
                "Settled",
                vec![json_of(&host_view(
                    HostStatus::Settled,
                    Some(json!({"action": "decline"})),
                ))],
            ),
            (
                "StatusView",
                vec![
                    status(PublicStatus::Pending),
                    status(PublicStatus::Complete),
                    status(PublicStatus::Settled),
                    status(PublicStatus::Expired),
                    status(PublicStatus::Withdrawn),
                ],
            ),
            (
                "Elicitation",
                vec![json_of(&view(None)), json_of(&view(Some("Weather")))],
            ),
            (
                "ElicitationList",
                vec![
                    json_of(&ElicitationList {
                        elicitations: Vec::new(),
                    }),
                    json_of(&ElicitationList {
                        elicitations: vec![view(None)],
                    }),
                ],
            ),
            (
                "StreamTicket",
                vec![json_of(&StreamTicket {
                    ticket: id(),
                    expires_in_ms: 30_000,
                })],
            ),
            (
                "AuditEntry",
                vec![
                    json_of(&audit_line("created", &"b".repeat(64))),
                    json_of(&audit_line("answered:accept", &"c".repeat(64))),
                    json_of(&audit_line("completed", "")),
                ],
            ),
            (
                "AuditCheckpoint",
                vec![json_of(&AuditCheckpoint {
                    seq: 40,
                    at: 1_000,
                    chains: 2,
                    hash: "d".repeat(64),
                })],
            ),
            (
                "Error",
                vec![
                    json_of(&error(None, Vec::new())),
                    json_of(&error(Some(-32602), Vec::new())),
                    json_of(&error(
                        None,
                        vec![ContentError {
                            path: "/email".into(),
                            keyword: "format".into(),
                            message: "Enter an email address".into(),
                        }],
                    )),
                ],
            ),
            (
                "PushKey",
                vec![json_of(&PushKey {
                    public_key: koder_web_push::VapidKey::generate().public_key_base64url(),
                })],
            ),
            (
                "PushSubscriptionBody",
                vec![
                    json_of(&push_body(None, None)),
                    json_of(&push_body(Some(1_900_000_000_000.0), Some("pt-BR"))),
                ],
            ),
            (
                "PushSubscriptionCreated",
                vec![json_of(&PushSubscriptionCreated { id: id() })],
            ),
            (
                "PushSubscriptionList",
                vec![
                    json_of(&PushSubscriptionList {
                        subscriptions: Vec::new(),
                    }),
                    json_of(&PushSubscriptionList {
                        subscriptions: vec![PushSubscriptionView {
                            id: id(),
                            endpoint: "https://fcm.googleapis.com/fcm/send/abc".into(),
                            created_at: 1_000,
                        }],
                    }),
                ],
            ),
            (
                "WebhookEscalation",
                vec![json_of(&WebhookEscalation { id: id(), stage: 1 })],
            ),
            (
                "WebhookEvent",
                vec![
                    json_of(&webhook("elicitation.created", HostStatus::Pending, false)),
                    json_of(&webhook("elicitation.settled", HostStatus::Settled, true)),
                    json_of(&WebhookEvent {
                        data: WebhookElicitation {
                            answered_by: Some(AnsweredBy::Link {
                                link: "l1".into(),
                                email: Some("ana@example.com".into()),
                            }),
                            ..webhook("elicitation.settled", HostStatus::Settled, true).data
                        },
                        ..webhook("elicitation.settled", HostStatus::Settled, true)
                    }),
                    json_of(&WebhookEvent {
                        data: WebhookElicitation {
                            answer_url: Some("https://relay.example.com/answer/#t=abc".into()),
                            ..webhook("elicitation.created", HostStatus::Pending, false).data
                        },
                        ..webhook("elicitation.created", HostStatus::Pending, false)
                    }),
                ],
            ),
            (
                "LinkCreated",
                vec![json_of(&LinkCreated {
                    url: "https://relay.example.com/answer/#t=abc".into(),
                    expires_at: 301_000,
                })],
            ),
            (
                "LinkToken",
                vec![json_of(&LinkToken {
                    token: "a".repeat(43),
                })],
            ),
            (
                "LinkAnswer",
                vec![json_of(&LinkAnswer {
                    token: "a".repeat(43),
                    result: accepted(),
                })],
            ),
            (
                "LinkView",
                vec![
                    json_of(&link_view(HostStatus::Settled, None)),
                    json_of(&link_view(HostStatus::Pending, None)),
                    json_of(&link_view(HostStatus::Pending, Some("Weather"))),
                    json_of(&link_view(HostStatus::Expired, None)),
                    json_of(&link_view(HostStatus::Withdrawn, None)),
                ],
            ),
            (
                "LinkPageView",
                vec![
                    json_of(&link_page_view(HostStatus::Settled, None)),
                    json_of(&link_page_view(
                        HostStatus::Pending,
                        Some(Some("Deploy now")),
                    )),
                    json_of(&link_page_view(HostStatus::Pending, Some(None))),
                ],
            ),
        ]
    }

    /// Every event a stream sends.
    pub fn stream_events() -> Vec<StreamEvent> {
        let id_event = || IdEvent { id: id() };
        vec![
            StreamEvent::Elicitation(view(None)),
            StreamEvent::Settled(SettledEvent {
                id: id(),
                action: "accept".into(),
                answered_by: None,
            }),
            StreamEvent::Settled(SettledEvent {
                id: id(),
                action: "accept".into(),
                answered_by: Some(AnsweredBy::Person {
                    user_id: "ana".into(),
                    name: Some("Ana".into()),
                }),
            }),
            StreamEvent::Expired(id_event()),
            StreamEvent::Withdrawn(id_event()),
            StreamEvent::Complete(id_event()),
        ]
    }

    #[test]
    fn every_wire_type_matches_its_schema_field_for_field() {
        let doc = document();
        let mut coverage = Coverage::default();
        for (name, shapes) in samples() {
            let pointer = format!("#/components/schemas/{name}");
            for (index, shape) in shapes.iter().enumerate() {
                check(&doc, &pointer, shape, name, &mut coverage)
                    .unwrap_or_else(|error| panic!("{name} sample {index}: {error}"));
            }
            // Nothing optional set: exactly the required fields, so an optional one is left out
            // as the document says.
            let schema = &doc["components"]["schemas"][name];
            if let Some(required) = schema.get("required") {
                let mut required: Vec<&str> = required
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                let mut present: Vec<&str> = shapes[0]
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(String::as_str)
                    .collect();
                required.sort_unstable();
                present.sort_unstable();
                assert_eq!(present, required, "{name} with nothing optional set");
            }
        }
        let events = &doc["paths"]["/v1/stream"]["get"]["responses"]["200"]["x-sse-events"];
        for event in stream_events() {
            let reference = events[event.name()]["$ref"]
                .as_str()
                .unwrap_or_else(|| panic!("{} is not documented", event.name()));
            let data: Value = serde_json::from_str(&event.data()).unwrap();
            check(&doc, reference, &data, event.name(), &mut coverage)
                .unwrap_or_else(|error| panic!("{error}"));
        }
        // Every schema of the document is some type's, and every property it declares is
        // carried by some sample.
        let met: BTreeSet<String> = coverage
            .declared
            .keys()
            .map(|pointer| pointer.split('/').nth(3).unwrap_or_default().to_string())
            .collect();
        for name in doc["components"]["schemas"].as_object().unwrap().keys() {
            let free_form = doc["components"]["schemas"][name]
                .get("properties")
                .is_none()
                && doc["components"]["schemas"][name].get("oneOf").is_none();
            assert!(
                free_form || met.contains(name),
                "no wire type is checked against {name}"
            );
        }
        for (pointer, properties) in &coverage.declared {
            for property in properties {
                assert!(
                    coverage
                        .carried
                        .contains(&(pointer.clone(), property.clone())),
                    "{pointer} declares {property}, which no wire type carries"
                );
            }
        }
    }

    #[test]
    fn the_check_catches_a_field_added_dropped_or_retyped() {
        let doc = document();
        let created = "#/components/schemas/Created";
        let mut coverage = Coverage::default();
        let good = json!({"id": id(), "expiresAt": 1});
        assert!(check(&doc, created, &good, "Created", &mut coverage).is_ok());
        for bad in [
            json!({"id": id(), "expiresAt": 1, "extra": true}),
            json!({"id": id()}),
            json!({"id": id(), "expiresAt": "soon"}),
            json!({"id": "XYZ", "expiresAt": 1}),
        ] {
            assert!(
                check(&doc, created, &bad, "Created", &mut coverage).is_err(),
                "{bad}"
            );
        }
        let outcome = "#/components/schemas/HostOutcome";
        assert!(check(
            &doc,
            outcome,
            &json!({"status": "settled"}),
            "HostOutcome",
            &mut coverage
        )
        .is_err());
        assert!(check(
            &doc,
            outcome,
            &json!({"status": "complete", "result": {"action": "cancel"}}),
            "HostOutcome",
            &mut coverage
        )
        .is_err());
    }
}
