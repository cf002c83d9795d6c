//! The wire contract of koder-elicitation-relay, in one place: what hosts send
//! ([`CreateElicitation`]), what the relay answers ([`Created`], [`HostView`], [`StatusView`],
//! [`ElicitationList`], [`StreamTicket`], [`ErrorBody`]), what people's streams carry
//! ([`StreamEvent`]), what webhooks POST ([`WebhookEvent`]) and what `GET /v1/audit` lists
//! ([`AuditLine`], [`AuditCheckpoint`]), and Web Push's key and subscriptions ([`PushKey`],
//! [`PushSubscriptionBody`], [`PushSubscriptionCreated`], [`PushSubscriptionList`]) and what a
//! push carries ([`PushPayload`]); answer links ([`LinkCreated`], [`LinkView`], [`LinkPageView`]). The relay
//! parses and renders with these types and its Rust client uses the same ones; `crates/relay/openapi.json` is checked against them by a test, so the three cannot
//! drift. Field names, and which fields are left out when empty, are the JSON on the wire.

#![deny(missing_docs, missing_debug_implementations)]

mod audit;
mod create;
mod duration;
mod escalate;
mod events;
mod ids;
mod links;
mod push;
mod push_payload;
mod team;
mod views;
mod webhook;

pub use audit::{AuditCheckpoint, AuditLine};
pub use create::{
    Addresses, CreateElicitation, Created, InvalidBody, Notify, Scope, DEFAULT_TIMEOUT_MS,
    MAX_EMAIL_CHARS, MAX_FIELD_CHARS, MAX_LANGUAGE_CHARS, MAX_NOTIFY_ADDRESSES,
    MIN_REMIND_AFTER_MS, TIMEOUT_RANGE_MS,
};
pub use duration::{duration_text, parse_duration_ms};
pub use escalate::{parse_escalate, EscalateStage, MAX_ESCALATE_STAGES};
pub use events::{IdEvent, SettledEvent, StreamEvent};
pub use ids::{now_ms, random_id};
pub use koder_mcp_elicitation_core::scope::Tenant;
pub use links::{
    LinkAnswer, LinkChoice, LinkCreated, LinkElicitation, LinkOneTap, LinkPageView, LinkToken,
    LinkView,
};
pub use push::{
    PushKey, PushSubscriptionBody, PushSubscriptionCreated, PushSubscriptionKeys,
    PushSubscriptionList, PushSubscriptionView, MAX_PUSH_ENDPOINT_CHARS, MAX_PUSH_KEY_CHARS,
};
pub use push_payload::{PushAction, PushAnswer, PushPayload, ShownNotification};
pub use team::{AnsweredBy, Members, MAX_AUDIENCE_GROUPS, MAX_AUDIENCE_USERS, MAX_MEMBER_CHARS};
pub use views::{
    ContentError, ElicitationList, ElicitationView, ErrorBody, ErrorDetail, HostStatus, HostView,
    PublicStatus, StatusView, StreamTicket, ViewScope,
};
pub use webhook::{WebhookElicitation, WebhookEscalated, WebhookEscalation, WebhookEvent};
