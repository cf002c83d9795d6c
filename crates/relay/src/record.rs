//! What an elicitation is as the relay keeps it: who it is for, where it is in its life, the
//! scope a person's token admits, and who changed it. Stores keep these; events carry them.

use koder_elicitation_relay_protocol::{AnsweredBy, Notify};
use serde_json::{json, Value};

use crate::audience::{Audience, TeamStages};

/// Where an elicitation is in its life, stored under the names the host API shows. `complete`
/// is not a status but a flag ([`Record::completed`]): URL-mode completion may come before or
/// after the person's consent.
pub use koder_elicitation_relay_protocol::HostStatus as Status;

/// Who an elicitation is for: the core's tenant (user, workspace, conversation; the
/// conversation empty when the host gave none). Made by the host API from a checked body; its
/// [`Audience`] says who may answer it.
pub use koder_mcp_elicitation_core::scope::Tenant;

/// What a person's token lets them see: one user in one workspace, and optionally one
/// conversation only ([`Audience::admits`]); the wire's scope. Only authentication makes one.
pub use koder_elicitation_relay_protocol::Scope as TenantFilter;

/// A new elicitation, already checked by the core.
#[derive(Debug, Clone)]
pub struct NewElicitation {
    /// The fresh random id (32 hex characters).
    pub id: String,
    /// Who it is for.
    pub tenant: Tenant,
    /// The request as the host sent it (the element parses it again when showing it).
    pub request: Value,
    /// The MCP server's name, shown in the dialog.
    pub server_name: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at: i64,
    /// When it expires, ms since the Unix epoch.
    pub expires_at: i64,
    /// The host's `Idempotency-Key`, unique per tenant: a second create in the same tenant with
    /// the same key returns the first record when its request digest matches.
    pub idempotency_key: Option<String>,
    /// SHA-256 (hex) of what the host asked for, compared when an idempotency key repeats.
    pub request_digest: Option<String>,
    /// Who else to tell, and how (the create body's `notify`), already accepted by every
    /// channel it names.
    pub notify: Option<Notify>,
    /// A team question's audience (then the tenant's user is empty).
    pub team: Option<TeamStages>,
}

/// One stored elicitation.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Its id.
    pub id: String,
    /// Who it is for.
    pub tenant: Tenant,
    /// The request as the host sent it.
    pub request: Value,
    /// The MCP server's name.
    pub server_name: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at: i64,
    /// Expiry time, ms since the Unix epoch.
    pub expires_at: i64,
    /// Where it is in its life.
    pub status: Status,
    /// The `ElicitResult`, once settled, expired or withdrawn.
    pub result: Option<Value>,
    /// When it left `pending`, ms since the Unix epoch.
    pub finished_at: Option<i64>,
    /// Whether the host reported URL-mode completion.
    pub completed: bool,
    /// A team question's audience, every stage (none for one person's).
    pub team: Option<TeamStages>,
    /// The escalation stages reached (0 before any).
    pub escalated: i64,
    /// Who settled it, once settled.
    pub answered_by: Option<AnsweredBy>,
}

impl Record {
    /// Whether it may still be answered at `now_ms` (ms since the Unix epoch): pending and its
    /// time not up.
    pub fn is_open(&self, now_ms: i64) -> bool {
        self.status == Status::Pending && self.expires_at > now_ms
    }

    /// Who may answer it: its person, or its team's stages reached so far.
    pub fn audience(&self) -> Audience {
        match &self.team {
            None => Audience::of(&self.tenant),
            Some(team) => Audience::Team {
                elicitation: self.id.clone(),
                workspace: self.tenant.workspace_id.clone(),
                conversation: Some(self.tenant.conversation_id.clone()).filter(|id| !id.is_empty()),
                stages: team.members(),
                from: 0,
                to: usize::try_from(self.escalated).unwrap_or(0),
            },
        }
    }

    /// Who answered it, as the host, the members and the webhooks are told: always for a team's
    /// question, and for anyone's when the answer came through a link (a push action, an e-mail
    /// choice, the answer page), which is no person's token. A one-person question answered on
    /// the person's own stream keeps it stored only: the person is the scope's user already.
    pub fn told_answered_by(&self) -> Option<AnsweredBy> {
        self.answered_by
            .as_ref()
            .filter(|by| self.team.is_some() || matches!(by, AnsweredBy::Link { .. }))
            .cloned()
    }

    /// The result of a finished elicitation (`{"action":"cancel"}` if somehow none was stored).
    pub fn result_or_cancel(&self) -> Value {
        self.result
            .clone()
            .unwrap_or_else(|| json!({"action": "cancel"}))
    }
}

#[cfg(test)]
impl Record {
    /// A record for unit tests: ana's in workspace `w`, with no conversation.
    pub(crate) fn example(id: &str, status: Status, request: Value) -> Record {
        Record {
            id: id.to_string(),
            tenant: Tenant {
                user_id: "ana".into(),
                workspace_id: "w".into(),
                conversation_id: String::new(),
            },
            request,
            server_name: None,
            created_at: 1,
            expires_at: 2,
            status,
            result: None,
            finished_at: None,
            completed: false,
            team: None,
            escalated: 0,
            answered_by: None,
        }
    }
}

/// Who made a change: the host (service token), a person (their verified token's `sub`),
/// whoever held an answer link (its id), or the relay itself (expiry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// A host, with the service token.
    Host,
    /// A person, by the `sub` of their verified token.
    Person {
        /// The token's `sub`.
        sub: String,
    },
    /// Whoever held an answer link: its id (never its token).
    Link {
        /// The link's id.
        id: String,
    },
    /// The relay (an elicitation expired).
    Relay,
}

impl Actor {
    /// As the journal names it: `host`, `person:<sub>`, `link:<id>` or `relay`.
    pub fn name(&self) -> String {
        match self {
            Actor::Host => "host".to_string(),
            Actor::Person { sub } => format!("person:{sub}"),
            Actor::Link { id } => format!("link:{id}"),
            Actor::Relay => "relay".to_string(),
        }
    }
}
