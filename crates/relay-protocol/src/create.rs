//! `POST /v1/elicitations`: the body a host sends, and the relay's 201 answer. A body is read
//! with [`CreateElicitation::try_from`] (serde's `Deserialize` goes through it), which says in
//! one sentence what is wrong with a bad one.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use koder_mcp_elicitation_core::scope::Tenant;

use crate::escalate::{parse_escalate, EscalateStage};
use crate::team::Members;

/// The longest scope id or server name: the core's scope limit.
pub use koder_mcp_elicitation_core::limits::MAX_SCOPE_CHARS as MAX_FIELD_CHARS;

/// The longest address in `notify.email` (RFC 5321's limit on a path).
pub const MAX_EMAIL_CHARS: usize = 254;
/// The longest `notify.language` (a BCP 47 tag).
pub const MAX_LANGUAGE_CHARS: usize = 35;

/// Without `timeoutMs`, an elicitation waits this long for the person.
pub const DEFAULT_TIMEOUT_MS: i64 = 300_000;
/// The shortest and longest `timeoutMs` (others are clamped).
pub const TIMEOUT_RANGE_MS: (i64, i64) = (1_000, 86_400_000);

/// Why a body is not one the relay takes: a message for the host's developer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidBody(pub String);

impl std::fmt::Display for InvalidBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InvalidBody {}

fn invalid<T>(message: impl Into<String>) -> Result<T, InvalidBody> {
    Err(InvalidBody(message.into()))
}

/// Whose browser an elicitation goes to (the relay's tenant), as a host names it; and, in the
/// relay, what a person's token lets them see (one conversation only when it names one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "Value")]
pub struct Scope {
    /// The person: the `sub` of their token. Empty in a create body that names an `audience`
    /// instead (a question for a team).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub user_id: String,
    /// Their workspace: the workspace claim.
    pub workspace_id: String,
    /// The conversation; a token with a conversation claim only sees its own. `""` on the wire
    /// reads as none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// In the relay, the groups of the person's verified token (its groups claim); never read
    /// from a body, empty in one.
    #[serde(default, skip)]
    pub groups: Vec<String>,
}

impl Scope {
    /// A person in a workspace, in no particular conversation.
    pub fn new(user_id: impl Into<String>, workspace_id: impl Into<String>) -> Scope {
        Scope {
            user_id: user_id.into(),
            workspace_id: workspace_id.into(),
            conversation_id: None,
            groups: Vec::new(),
        }
    }

    /// The same person, in one conversation.
    pub fn in_conversation(mut self, conversation_id: impl Into<String>) -> Scope {
        self.conversation_id = Some(conversation_id.into());
        self
    }

    /// Whether an elicitation for `tenant` is in this scope, as the relay filters by a person's
    /// token: the same person, and the same conversation when the scope names one.
    pub fn admits(&self, tenant: &Tenant) -> bool {
        self.user_id == tenant.user_id
            && self.workspace_id == tenant.workspace_id
            && self
                .conversation_id
                .as_ref()
                .is_none_or(|conversation| *conversation == tenant.conversation_id)
    }
}

impl From<Scope> for Tenant {
    fn from(scope: Scope) -> Tenant {
        Tenant {
            user_id: scope.user_id,
            workspace_id: scope.workspace_id,
            conversation_id: scope.conversation_id.unwrap_or_default(),
        }
    }
}

impl TryFrom<Value> for Scope {
    type Error = InvalidBody;

    fn try_from(value: Value) -> Result<Scope, InvalidBody> {
        Scope::parse(value, true)
    }
}

impl Scope {
    /// Reads a scope; without `with_user`, `userId` must be absent (a question for a team names
    /// its `audience` instead) and reads as empty.
    fn parse(value: Value, with_user: bool) -> Result<Scope, InvalidBody> {
        let Value::Object(mut scope) = value else {
            return invalid("scope must be an object {userId, workspaceId, conversationId?}");
        };
        let mut id = |name: &str| match scope.remove(name) {
            Some(Value::String(text))
                if !text.is_empty() && text.chars().count() <= MAX_FIELD_CHARS =>
            {
                Ok(text)
            }
            _ => invalid(format!(
                "scope.{name} must be a non-empty string of at most {MAX_FIELD_CHARS} characters"
            )),
        };
        let user_id = if with_user {
            id("userId")?
        } else {
            String::new()
        };
        let workspace_id = id("workspaceId")?;
        let conversation_id = match scope.remove("conversationId") {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) if text.is_empty() => None,
            Some(Value::String(text)) if text.chars().count() <= MAX_FIELD_CHARS => Some(text),
            Some(_) => {
                return invalid(format!(
                    "scope.conversationId must be a string of at most {MAX_FIELD_CHARS} characters"
                ))
            }
        };
        Ok(Scope {
            user_id,
            workspace_id,
            conversation_id,
            groups: Vec::new(),
        })
    }
}

/// `POST /v1/elicitations`: the body a host sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "Value")]
pub struct CreateElicitation {
    /// Whose browser it goes to.
    pub scope: Scope,
    /// Any request shape the element takes; usually the `elicitation/create` params. The relay
    /// checks it with the core.
    pub request: Value,
    /// The MCP server's name, shown in the person's dialog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    /// How long the person has, in ms. Read from the wire it is already clamped to
    /// [`TIMEOUT_RANGE_MS`] (any JSON number is taken).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Who the relay e-mails the question's link to, when it sends e-mail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notify: Option<Notify>,
    /// Who may answer, for a question to a team (then `scope.userId` is empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Members>,
    /// The stages that widen a team question's audience while nobody answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub escalate: Vec<EscalateStage>,
}

/// The most addresses one `notify.email` may name.
pub const MAX_NOTIFY_ADDRESSES: usize = 20;
/// The shortest `notify.remindAfter`, in ms.
pub const MIN_REMIND_AFTER_MS: i64 = 10_000;

/// `notify` in a create body: the people to e-mail the question's link to, each their own
/// message and link, and when to remind them. The relay also checks each address against its
/// allow list (422 naming the one off it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "Value")]
pub struct Notify {
    /// The addresses (`ana@example.com`): no spaces, no control characters; one is written as
    /// a string, several as a list; none (left out) only beside `remindAfter`.
    #[serde(default, skip_serializing_if = "Addresses::is_empty")]
    pub email: Addresses,
    /// The language the messages are worded in (a BCP 47 tag, e.g. `pt-BR`); en-US without one
    /// or for one the relay does not ship.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// When the question is still open this long (ms) after the create, each address gets one
    /// reminder and each member's push subscriptions one more push.
    #[serde(
        default,
        rename = "remindAfter",
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::duration::optional_text"
    )]
    pub remind_after_ms: Option<i64>,
}

/// The addresses of `notify.email`: one (written as a string) or several (a list), distinct.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(from = "Vec<String>")]
pub struct Addresses(pub Vec<String>);

impl Addresses {
    /// Each address, in the order the host gave them.
    pub fn iter(&self) -> impl Iterator<Item = &String> {
        self.0.iter()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Vec<String>> for Addresses {
    fn from(addresses: Vec<String>) -> Addresses {
        Addresses(addresses)
    }
}

impl From<&str> for Addresses {
    fn from(address: &str) -> Addresses {
        Addresses(vec![address.to_string()])
    }
}

impl From<String> for Addresses {
    fn from(address: String) -> Addresses {
        Addresses(vec![address])
    }
}

impl Serialize for Addresses {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.as_slice() {
            [one] => serializer.serialize_str(one),
            many => many.serialize(serializer),
        }
    }
}

impl Notify {
    /// An e-mail to `email`, in the relay's default language.
    pub fn email(email: impl Into<String>) -> Notify {
        Notify {
            email: Addresses(vec![email.into()]),
            language: None,
            remind_after_ms: None,
        }
    }
}

/// One address of `notify.email` (`path` names it), as the relay takes it.
fn address(value: Value, path: &str) -> Result<String, InvalidBody> {
    // Printable ASCII or beyond, no spaces or controls: nothing that could end a header.
    let visible = |text: &str| !text.chars().any(|c| c.is_whitespace() || c.is_control());
    match value {
        Value::String(email)
            if !email.is_empty() && email.chars().count() <= MAX_EMAIL_CHARS && visible(&email) =>
        {
            Ok(email)
        }
        _ => invalid(format!(
            "{path} must be an e-mail address of at most {MAX_EMAIL_CHARS} characters, \
             without spaces"
        )),
    }
}

/// `notify.email`: one address, or a list of 1 to [`MAX_NOTIFY_ADDRESSES`] distinct ones.
fn addresses(value: Option<Value>) -> Result<Addresses, InvalidBody> {
    let list = match value {
        Some(Value::Array(list)) if !list.is_empty() && list.len() <= MAX_NOTIFY_ADDRESSES => list,
        Some(Value::Array(_)) => {
            return invalid(format!(
                "notify.email must name 1 to {MAX_NOTIFY_ADDRESSES} addresses"
            ))
        }
        Some(one) => return Ok(Addresses(vec![address(one, "notify.email")?])),
        None => return Ok(Addresses(vec![address(Value::Null, "notify.email")?])),
    };
    let mut addresses: Vec<String> = Vec::with_capacity(list.len());
    for (index, value) in list.into_iter().enumerate() {
        let email = address(value, &format!("notify.email[{index}]"))?;
        if addresses
            .iter()
            .any(|seen| seen.eq_ignore_ascii_case(&email))
        {
            return invalid(format!("notify.email[{index}] names {email} twice"));
        }
        addresses.push(email);
    }
    Ok(Addresses(addresses))
}

impl TryFrom<Value> for Notify {
    type Error = InvalidBody;

    fn try_from(value: Value) -> Result<Notify, InvalidBody> {
        let Value::Object(mut notify) = value else {
            return invalid("notify must be an object {email, language?, remindAfter?}");
        };
        // Without an address, a reminder alone (pushes to the members) is still worth asking.
        let email = match notify.remove("email") {
            None if notify.contains_key("remindAfter") => Addresses::default(),
            email => addresses(email)?,
        };
        let language = match notify.remove("language") {
            None | Some(Value::Null) => None,
            Some(Value::String(tag))
                if !tag.is_empty()
                    && tag.len() <= MAX_LANGUAGE_CHARS
                    && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') =>
            {
                Some(tag)
            }
            Some(_) => {
                return invalid(format!(
                    "notify.language must be a language tag like pt-BR (at most \
                     {MAX_LANGUAGE_CHARS} characters)"
                ))
            }
        };
        let remind_after_ms = match notify.remove("remindAfter") {
            None | Some(Value::Null) => None,
            Some(value) => Some(
                value
                    .as_str()
                    .and_then(crate::duration::parse_duration_ms)
                    .filter(|ms| *ms >= MIN_REMIND_AFTER_MS)
                    .ok_or_else(|| {
                        InvalidBody(
                            "notify.remindAfter must be a duration of at least \"10s\", like \
                             \"10m\" or \"2h\""
                                .into(),
                        )
                    })?,
            ),
        };
        Ok(Notify {
            email,
            language,
            remind_after_ms,
        })
    }
}

impl CreateElicitation {
    /// How long the person has, in ms: `timeoutMs` clamped, else [`DEFAULT_TIMEOUT_MS`].
    pub fn timeout_or_default_ms(&self) -> i64 {
        self.timeout_ms
            .map_or(DEFAULT_TIMEOUT_MS, |ms| clamped_timeout_ms(ms as f64))
    }
}

/// A timeout in ms clamped to [`TIMEOUT_RANGE_MS`], as a float first so that huge or negative
/// numbers cannot overflow.
fn clamped_timeout_ms(ms: f64) -> i64 {
    ms.clamp(TIMEOUT_RANGE_MS.0 as f64, TIMEOUT_RANGE_MS.1 as f64) as i64
}

impl TryFrom<Value> for CreateElicitation {
    type Error = InvalidBody;

    /// Checks in a fixed order (audience, scope, serverName, timeoutMs, request, notify,
    /// escalate), so a body with several
    /// faults is always told the same one first. Unknown fields are ignored.
    fn try_from(body: Value) -> Result<CreateElicitation, InvalidBody> {
        let Value::Object(mut body) = body else {
            return invalid("body must be a JSON object");
        };
        let audience = match body.remove("audience") {
            None | Some(Value::Null) => None,
            Some(audience) => Some(Members::parse(audience, "audience")?),
        };
        let scope = body.remove("scope").unwrap_or(Value::Null);
        let names_user = scope.get("userId").is_some_and(|user| !user.is_null());
        if audience.is_some() && names_user {
            return invalid("give scope.userId (one person) or audience (a team), not both");
        }
        if audience.is_none() && !names_user && scope.is_object() {
            return invalid("scope.userId (one person) or audience (a team) is required");
        }
        let scope = Scope::parse(scope, audience.is_none())?;
        let server_name = match body.remove("serverName") {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) if name.chars().count() <= MAX_FIELD_CHARS => Some(name),
            Some(_) => {
                return invalid(format!(
                    "serverName must be a string of at most {MAX_FIELD_CHARS} characters"
                ))
            }
        };
        let timeout_ms = match body.remove("timeoutMs") {
            None | Some(Value::Null) => None,
            Some(Value::Number(number)) => {
                let clamped = clamped_timeout_ms(number.as_f64().unwrap_or(f64::MAX));
                Some(u64::try_from(clamped).unwrap_or(DEFAULT_TIMEOUT_MS as u64))
            }
            Some(_) => return invalid("timeoutMs must be a number of milliseconds"),
        };
        let Some(request) = body.remove("request") else {
            return invalid("request is required");
        };
        let notify = match body.remove("notify") {
            None | Some(Value::Null) => None,
            Some(notify) => Some(Notify::try_from(notify)?),
        };
        let escalate = parse_escalate(
            body.remove("escalate").unwrap_or(Value::Null),
            timeout_ms.map_or(DEFAULT_TIMEOUT_MS, |ms| ms as i64),
        )?;
        if !escalate.is_empty() && audience.is_none() {
            return invalid("escalate needs an audience (a question for a team)");
        }
        Ok(CreateElicitation {
            scope,
            request,
            server_name,
            timeout_ms,
            notify,
            audience,
            escalate,
        })
    }
}

/// The relay's 201 answer to a create.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Created {
    /// The elicitation's id.
    pub id: String,
    /// When the relay expires it, ms since the Unix epoch.
    pub expires_at: i64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_team_question_names_an_audience_instead_of_a_user() {
        let read = |body: Value| CreateElicitation::try_from(body).map_err(|error| error.0);
        let team = read(json!({
            "scope": {"workspaceId": "w"}, "request": {},
            "audience": {"groups": ["ops"]},
            "escalate": [{"after": "1m", "audience": {"users": ["boss"]}}]
        }))
        .unwrap();
        assert_eq!(team.scope.user_id, "");
        assert_eq!(team.audience.unwrap().groups, ["ops"]);
        assert_eq!(team.escalate[0].after_ms, 60_000);
        let both = read(json!({
            "scope": {"userId": "u", "workspaceId": "w"}, "request": {},
            "audience": {"users": ["u"]}
        }));
        assert!(both.unwrap_err().contains("not both"));
        let neither = read(json!({"scope": {"workspaceId": "w"}, "request": {}}));
        assert!(neither.unwrap_err().contains("is required"));
        let alone = read(json!({
            "scope": {"userId": "u", "workspaceId": "w"}, "request": {},
            "escalate": [{"after": "1m", "audience": {"users": ["boss"]}}]
        }));
        assert!(alone.unwrap_err().contains("needs an audience"));
        let empty = read(json!({"scope": {"workspaceId": "w"}, "request": {}, "audience": {}}));
        assert!(empty.unwrap_err().contains("at least one"));
    }

    #[test]
    fn a_create_body_leaves_out_what_the_host_did_not_say() {
        let body = CreateElicitation {
            scope: Scope::new("u", "w"),
            request: json!({ "message": "Proceed?" }),
            server_name: None,
            timeout_ms: None,
            notify: None,
            audience: None,
            escalate: Vec::new(),
        };
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            json!({ "scope": { "userId": "u", "workspaceId": "w" }, "request": { "message": "Proceed?" } })
        );
        assert_eq!(body.timeout_or_default_ms(), DEFAULT_TIMEOUT_MS);
        let body = CreateElicitation {
            scope: Scope::new("u", "w").in_conversation("c"),
            server_name: Some("Weather".into()),
            timeout_ms: Some(1000),
            notify: Some(Notify {
                email: "ana@example.com".into(),
                language: Some("pt-BR".into()),
                remind_after_ms: None,
            }),
            ..body
        };
        let text = serde_json::to_string(&body).unwrap();
        assert_eq!(
            text,
            r#"{"scope":{"userId":"u","workspaceId":"w","conversationId":"c"},"request":{"message":"Proceed?"},"serverName":"Weather","timeoutMs":1000,"notify":{"email":"ana@example.com","language":"pt-BR"}}"#
        );
        assert_eq!(
            serde_json::from_str::<CreateElicitation>(&text).unwrap(),
            body
        );
        let team = Notify {
            email: vec!["ana@example.com".to_string(), "bo@example.com".to_string()].into(),
            language: None,
            remind_after_ms: Some(600_000),
        };
        let text = serde_json::to_string(&team).unwrap();
        assert_eq!(
            text,
            r#"{"email":["ana@example.com","bo@example.com"],"remindAfter":"600s"}"#
        );
        assert_eq!(serde_json::from_str::<Notify>(&text).unwrap(), team);
        let pushes_only = Notify::try_from(json!({"remindAfter": "10m"})).unwrap();
        assert!(pushes_only.email.is_empty());
        assert_eq!(
            serde_json::to_string(&pushes_only).unwrap(),
            r#"{"remindAfter":"600s"}"#
        );
        assert!(Notify::try_from(json!({})).is_err());
    }

    #[test]
    fn any_timeout_number_is_clamped_and_nulls_read_as_absent() {
        let read = |timeout: Value| {
            CreateElicitation::try_from(json!({
                "scope": { "userId": "u", "workspaceId": "w", "conversationId": null },
                "request": {}, "serverName": null, "timeoutMs": timeout
            }))
            .unwrap()
        };
        assert_eq!(read(json!(-5)).timeout_ms, Some(1_000));
        assert_eq!(read(json!(1500.7)).timeout_ms, Some(1_500));
        assert_eq!(read(json!(1e300)).timeout_ms, Some(86_400_000));
        assert_eq!(read(json!(u64::MAX)).timeout_or_default_ms(), 86_400_000);
        let absent = read(Value::Null);
        assert_eq!(absent.timeout_ms, None);
        assert_eq!(absent.server_name, None);
        assert_eq!(absent.scope.conversation_id, None);
        let tenant = Tenant::from(absent.scope);
        assert_eq!(
            (tenant.user_id.as_str(), tenant.conversation_id.as_str()),
            ("u", "")
        );
    }

    #[test]
    fn a_bad_body_is_told_what_is_wrong_in_one_sentence() {
        let long = "x".repeat(MAX_FIELD_CHARS + 1);
        let scope = json!({ "userId": "u", "workspaceId": "w" });
        for (body, message) in [
            (json!([]), "body must be a JSON object"),
            (
                json!({ "request": {} }),
                "scope must be an object {userId, workspaceId, conversationId?}",
            ),
            (
                json!({ "scope": { "userId": "", "workspaceId": "w" }, "request": {} }),
                "scope.userId must be a non-empty string of at most 256 characters",
            ),
            (
                json!({ "scope": { "userId": "u", "workspaceId": long }, "request": {} }),
                "scope.workspaceId must be a non-empty string of at most 256 characters",
            ),
            (
                json!({ "scope": { "userId": "u", "workspaceId": "w", "conversationId": 1 }, "request": {} }),
                "scope.conversationId must be a string of at most 256 characters",
            ),
            (
                json!({ "scope": scope, "request": {}, "serverName": 5 }),
                "serverName must be a string of at most 256 characters",
            ),
            (
                json!({ "scope": scope, "request": {}, "timeoutMs": "5" }),
                "timeoutMs must be a number of milliseconds",
            ),
            (json!({ "scope": scope }), "request is required"),
            (
                json!({ "scope": scope, "request": {}, "notify": "ana@example.com" }),
                "notify must be an object {email, language?, remindAfter?}",
            ),
            (
                json!({ "scope": scope, "request": {}, "notify": { "email": [] } }),
                "notify.email must name 1 to 20 addresses",
            ),
            (
                json!({ "scope": scope, "request": {}, "notify": { "email": ["a@b", "x y"] } }),
                "notify.email[1] must be an e-mail address of at most 254 characters, without spaces",
            ),
            (
                json!({ "scope": scope, "request": {}, "notify": { "email": ["a@b", "A@B"] } }),
                "notify.email[1] names A@B twice",
            ),
            (
                json!({ "scope": scope, "request": {}, "notify": { "email": "a@b", "remindAfter": "9s" } }),
                "notify.remindAfter must be a duration of at least \"10s\", like \"10m\" or \"2h\"",
            ),
            (
                json!({ "scope": scope, "request": {}, "notify": { "email": "ana@example.com\r\nBcc: x@y" } }),
                "notify.email must be an e-mail address of at most 254 characters, without spaces",
            ),
            (
                json!({ "scope": scope, "request": {}, "notify": { "email": "a@b", "language": "pt BR" } }),
                "notify.language must be a language tag like pt-BR (at most 35 characters)",
            ),
            // Several faults: the scope is named first, whatever the order of the keys.
            (
                json!({ "timeoutMs": "5", "scope": 1 }),
                "scope must be an object {userId, workspaceId, conversationId?}",
            ),
        ] {
            assert_eq!(
                CreateElicitation::try_from(body.clone()),
                Err(InvalidBody(message.to_string())),
                "{body}"
            );
            // serde reads through the same check, with the same message.
            assert_eq!(
                serde_json::from_value::<CreateElicitation>(body)
                    .unwrap_err()
                    .to_string(),
                message
            );
        }
    }

    #[test]
    fn created_reads_the_relays_json() {
        let created: Created =
            serde_json::from_value(json!({ "id": "ab", "expiresAt": 1_700_000_000_000_i64 }))
                .unwrap();
        assert_eq!(
            created,
            Created {
                id: "ab".into(),
                expires_at: 1_700_000_000_000
            }
        );
        assert!(serde_json::from_value::<Created>(json!({ "id": "ab" })).is_err());
    }
}
