//! Who may answer an elicitation, said once. An [`Audience`] is made from the tenant a host
//! named, and owns everything that depends on who that is: whether an authenticated person may
//! see and answer it ([`Audience::admits`]), which rows a person's pending list keeps
//! ([`Audience::pending_for`]), which hub channels hear of it ([`Audience::hub_keys`]), whose
//! push subscriptions are told of it ([`Audience::push_rows`]) and the audit chain its changes
//! go into ([`Audience::chain_key`]). Another kind of audience (a team: users and groups in a
//! workspace) is another variant here, not a change to each of those places.
//!
//! The person is only ever the scope authentication made ([`TenantFilter`], with their token's
//! groups); an elicitation a person may not see reads as unknown, exactly as a missing one does.
//!
//! A team's audience is staged (see `0013_team` migrations): stage 0 the create's `audience`,
//! stage k the k-th `escalate` stage's, kept as rows of `koder_elicitation_audience`; the stages
//! reached (`escalated`) admit.

use koder_elicitation_relay_protocol::{EscalateStage, Members};
use serde::{Deserialize, Serialize};
use serde_json::json;

// Straight from the crates that define them, so that `record` can name the audience.
use koder_elicitation_relay_protocol::Scope as TenantFilter;
use koder_mcp_elicitation_core::scope::Tenant;

/// Who may answer (and see) an elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Audience {
    /// One person in a workspace; in one conversation of theirs when `conversation` is set (a
    /// token limited to another conversation does not see it).
    Person {
        /// The workspace.
        workspace: String,
        /// The person: the `sub` of their token.
        user: String,
        /// The conversation, when the host named one.
        conversation: Option<String>,
    },
    /// A team in a workspace: the members of its stages `from..=to` (and, from a later stage
    /// on, only those no earlier stage named: who an escalation newly admits); in one
    /// conversation when `conversation` is set.
    Team {
        /// The elicitation (its audience rows are its own).
        elicitation: String,
        /// The workspace.
        workspace: String,
        /// The conversation, when the host named one.
        conversation: Option<String>,
        /// Every stage, from 0.
        stages: Vec<Members>,
        /// The first stage that admits.
        from: usize,
        /// The last stage that admits.
        to: usize,
    },
}

/// A team question's audience as its create gave it: stage 0, then each escalation stage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamStages {
    /// Stage 0: who may answer from the start.
    pub audience: Members,
    /// The later stages, with when each comes and whom it tells.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub escalate: Vec<EscalateStage>,
}

impl TeamStages {
    /// Every stage's members, from 0.
    pub fn members(&self) -> Vec<Members> {
        std::iter::once(self.audience.clone())
            .chain(self.escalate.iter().map(|stage| stage.audience.clone()))
            .collect()
    }

    /// The rows of `koder_elicitation_audience`: (stage, kind, name).
    pub fn rows(&self) -> Vec<(i64, &'static str, String)> {
        let mut rows = Vec::new();
        for (stage, members) in (0_i64..).zip(self.members()) {
            rows.extend(members.users.into_iter().map(|name| (stage, "user", name)));
            rows.extend(
                members
                    .groups
                    .into_iter()
                    .map(|name| (stage, "group", name)),
            );
        }
        rows
    }
}

/// One person's channel on the hub: their user and workspace, every conversation of theirs
/// (a stream keeps what [`Audience::admits`] lets its token see); or a workspace's team
/// channel, which every stream in the workspace also listens on (the user then empty: no
/// token's `sub` is).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HubKey {
    user: String,
    workspace: String,
}

impl HubKey {
    /// The channel an authenticated person's streams listen on.
    pub fn of(person: &TenantFilter) -> HubKey {
        HubKey {
            user: person.user_id.clone(),
            workspace: person.workspace_id.clone(),
        }
    }

    /// The team channel of a person's workspace, which their streams also listen on: a team
    /// question's changes go there, and each stream keeps what its token is admitted to.
    pub fn team_of(person: &TenantFilter) -> HubKey {
        HubKey::team(&person.workspace_id)
    }

    fn team(workspace: &str) -> HubKey {
        HubKey {
            user: String::new(),
            workspace: workspace.to_string(),
        }
    }
}

/// An SQL condition and the texts its placeholders (`$first`, `$first + 1`, …) are bound to,
/// in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlFilter {
    /// The condition, to follow `WHERE` or `AND`.
    pub sql: String,
    /// The values of its placeholders, in order.
    pub binds: Vec<String>,
}

impl SqlFilter {
    /// `column = $n AND …` over `columns` (each with its value), numbered from `first`.
    fn equal(columns: Vec<(String, String)>, first: usize) -> SqlFilter {
        let (names, binds): (Vec<String>, Vec<String>) = columns.into_iter().unzip();
        let sql = names
            .iter()
            .enumerate()
            .map(|(n, name)| format!("{name} = ${}", first + n))
            .collect::<Vec<_>>()
            .join(" AND ");
        SqlFilter { sql, binds }
    }
}

impl Audience {
    /// The audience of an elicitation for `tenant` (an empty conversation is none).
    pub fn of(tenant: &Tenant) -> Audience {
        Audience::Person {
            workspace: tenant.workspace_id.clone(),
            user: tenant.user_id.clone(),
            conversation: Some(tenant.conversation_id.clone()).filter(|id| !id.is_empty()),
        }
    }

    /// Whether `person` (a verified token's scope) may see and answer it: the same person in
    /// the same workspace, and, when the token is limited to one conversation, in that one.
    pub fn admits(&self, person: &TenantFilter) -> bool {
        match self {
            Audience::Person {
                workspace,
                user,
                conversation,
            } => {
                person.user_id == *user
                    && person.workspace_id == *workspace
                    && in_conversation(person, conversation.as_deref())
            }
            Audience::Team {
                workspace,
                conversation,
                stages,
                from,
                to,
                ..
            } => {
                let named = |stage: &Members| stage.names(&person.user_id, &person.groups);
                let reached = stages.get(*from..=*to).unwrap_or_default();
                let before = stages.get(..*from).unwrap_or_default();
                person.workspace_id == *workspace
                    && in_conversation(person, conversation.as_deref())
                    && reached.iter().any(named)
                    && !before.iter().any(named)
            }
        }
    }

    /// The audience of `record`'s team at stage `stage`: who reaching it newly admits.
    pub fn newly_at(&self, stage: usize) -> Audience {
        match self {
            Audience::Team {
                elicitation,
                workspace,
                conversation,
                stages,
                ..
            } => Audience::Team {
                elicitation: elicitation.clone(),
                workspace: workspace.clone(),
                conversation: conversation.clone(),
                stages: stages.clone(),
                from: stage,
                to: stage,
            },
            person => person.clone(),
        }
    }

    /// The rows of `koder_elicitations` whose audience admits `person` (as
    /// [`admits`](Self::admits) says), placeholders numbered from `first`: theirs as one
    /// person, and team questions in their workspace whose reached stages name them.
    pub fn pending_for(person: &TenantFilter, first: usize) -> SqlFilter {
        let mut columns = vec![
            ("workspace_id".to_string(), person.workspace_id.clone()),
            ("user_id".to_string(), person.user_id.clone()),
        ];
        if let Some(conversation) = &person.conversation_id {
            columns.push(("conversation_id".to_string(), conversation.clone()));
        }
        let SqlFilter { sql, mut binds } = SqlFilter::equal(columns, first);
        // The same conditions with the user empty (a team's), the user's placeholder reused.
        let user = first + 1;
        let mut groups = Vec::new();
        for group in &person.groups {
            groups.push(format!("${}", first + binds.len()));
            binds.push(group.clone());
        }
        let team = sql.replacen(&format!("user_id = ${user}"), "user_id = ''", 1);
        let group_rows = if groups.is_empty() {
            String::new()
        } else {
            format!(
                " OR (m.kind = 'group' AND m.name IN ({}))",
                groups.join(", ")
            )
        };
        let sql = format!(
            "(({sql}) OR ({team} AND EXISTS (SELECT 1 FROM koder_elicitation_audience m \
             WHERE m.elicitation_id = koder_elicitations.id \
             AND m.stage <= koder_elicitations.escalated \
             AND ((m.kind = 'user' AND m.name = ${user}){group_rows}))))"
        );
        SqlFilter { sql, binds }
    }

    /// The hub channels its changes go to: the person's, or their workspace's team channel.
    pub fn hub_keys(&self) -> Vec<HubKey> {
        match self {
            Audience::Person {
                workspace, user, ..
            } => vec![HubKey {
                user: user.clone(),
                workspace: workspace.clone(),
            }],
            Audience::Team { workspace, .. } => vec![HubKey::team(workspace)],
        }
    }

    /// The push subscriptions told of it, as a condition on `koder_push_subscriptions` named
    /// `alias`, placeholders numbered from `first`: every subscription of the person (a
    /// subscription is the whole person's, never one conversation's); for a team, every
    /// subscription in the workspace whose person or stored groups a stage `from..=to` names.
    pub fn push_rows(&self, alias: &str, first: usize) -> SqlFilter {
        match self {
            Audience::Team {
                workspace,
                stages,
                from,
                to,
                ..
            } => {
                // Named here, not read from the audience rows: on PostgreSQL a create's rows
                // are written by the same statement, which cannot see them yet.
                let reached = stages.get(*from..=*to).unwrap_or_default();
                let mut binds = vec![workspace.clone()];
                let mut list = |names: Vec<&String>| {
                    let mut places = Vec::new();
                    for name in names {
                        binds.push(name.clone());
                        places.push(format!("${}", first + binds.len() - 1));
                    }
                    places.join(", ")
                };
                let users = list(reached.iter().flat_map(|stage| &stage.users).collect());
                let groups = list(reached.iter().flat_map(|stage| &stage.groups).collect());
                let mut members = Vec::new();
                if !users.is_empty() {
                    members.push(format!("{alias}.user_id IN ({users})"));
                }
                if !groups.is_empty() {
                    members.push(format!(
                        "EXISTS (SELECT 1 FROM koder_push_subscription_groups g \
                         WHERE g.subscription_id = {alias}.id AND g.name IN ({groups}))"
                    ));
                }
                if members.is_empty() {
                    members.push("1 = 0".to_string());
                }
                SqlFilter {
                    sql: format!(
                        "{alias}.workspace_id = ${first} AND ({})",
                        members.join(" OR ")
                    ),
                    binds,
                }
            }
            Audience::Person {
                workspace, user, ..
            } => SqlFilter::equal(
                vec![
                    (format!("{alias}.user_id"), user.clone()),
                    (format!("{alias}.workspace_id"), workspace.clone()),
                ],
                first,
            ),
        }
    }

    /// The key of the audit chain its changes go into: the JSON array `[user, workspace]`
    /// (unambiguous whatever the ids hold); a team's is its workspace's team chain, `["",
    /// workspace]`, as the audit trail derives it from the stored tenant.
    pub fn chain_key(&self) -> String {
        match self {
            Audience::Person {
                workspace, user, ..
            } => json!([user, workspace]).to_string(),
            Audience::Team { workspace, .. } => json!(["", workspace]).to_string(),
        }
    }
}

/// Whether a token limited to one conversation is in `conversation` (none: the empty one).
fn in_conversation(person: &TenantFilter, conversation: Option<&str>) -> bool {
    person
        .conversation_id
        .as_deref()
        .is_none_or(|only| only == conversation.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tenant(conversation: &str) -> Tenant {
        Tenant {
            user_id: "ana".into(),
            workspace_id: "w1".into(),
            conversation_id: conversation.into(),
        }
    }

    fn token(user: &str, workspace: &str, conversation: Option<&str>) -> TenantFilter {
        TenantFilter {
            user_id: user.into(),
            workspace_id: workspace.into(),
            conversation_id: conversation.map(str::to_string),
            groups: Vec::new(),
        }
    }

    #[test]
    fn a_person_sees_their_own_in_their_conversation_only() {
        let in_c1 = Audience::of(&tenant("c1"));
        let in_none = Audience::of(&tenant(""));
        assert!(in_c1.admits(&token("ana", "w1", None)));
        assert!(in_c1.admits(&token("ana", "w1", Some("c1"))));
        assert!(!in_c1.admits(&token("ana", "w1", Some("c2"))));
        assert!(!in_c1.admits(&token("ana", "w2", None)));
        assert!(!in_c1.admits(&token("bob", "w1", None)));
        // A token naming the empty conversation sees those in none, as the tenant stores it.
        assert!(in_none.admits(&token("ana", "w1", Some(""))));
        assert!(!in_none.admits(&token("ana", "w1", Some("c1"))));
    }

    #[test]
    fn the_pending_filter_names_the_same_rows_as_the_check() {
        let whole = Audience::pending_for(&token("ana", "w1", None), 1);
        assert!(whole
            .sql
            .starts_with("((workspace_id = $1 AND user_id = $2) OR (workspace_id = $1 AND user_id = '' AND EXISTS"));
        assert!(whole.sql.contains("m.kind = 'user' AND m.name = $2)))"));
        assert_eq!(whole.binds, ["w1", "ana"]);
        let mut grouped = token("ana", "w1", Some("c1"));
        grouped.groups = vec!["ops".into(), "db".into()];
        let one = Audience::pending_for(&grouped, 3);
        assert!(one
            .sql
            .starts_with("((workspace_id = $3 AND user_id = $4 AND conversation_id = $5) OR"));
        assert!(one.sql.contains("m.kind = 'group' AND m.name IN ($6, $7)"));
        assert_eq!(one.binds, ["w1", "ana", "c1", "ops", "db"]);
    }

    fn team(escalated: i64) -> Audience {
        let mut record = crate::record::Record::example(
            "e1",
            crate::record::Status::Pending,
            serde_json::json!({}),
        );
        let stages: TeamStages = serde_json::from_value(serde_json::json!({
            "audience": {"users": ["ana"], "groups": ["ops"]},
            "escalate": [{"after": "1m", "audience": {"groups": ["leads"]}}]
        }))
        .unwrap();
        record.team = Some(stages);
        record.tenant.user_id = String::new();
        record.escalated = escalated;
        record.audience()
    }

    #[test]
    fn a_team_admits_its_reached_stages_in_its_workspace_only() {
        let member = |user: &str, workspace: &str, groups: &[&str]| {
            let mut person = token(user, workspace, None);
            person.groups = groups.iter().map(|group| group.to_string()).collect();
            person
        };
        let first = team(0);
        assert!(first.admits(&member("ana", "w", &[])));
        assert!(first.admits(&member("bo", "w", &["ops"])));
        assert!(!first.admits(&member("bo", "w2", &["ops"])));
        assert!(!first.admits(&member("cy", "w", &["leads"])));
        assert!(!first.admits(&member("cy", "w", &[])));
        let escalated = team(1);
        assert!(escalated.admits(&member("cy", "w", &["leads"])));
        // The escalation's own event reaches only whom the stage newly admits.
        let newly = escalated.newly_at(1);
        assert!(newly.admits(&member("cy", "w", &["leads"])));
        assert!(!newly.admits(&member("bo", "w", &["ops", "leads"])));
        assert_eq!(
            escalated.hub_keys(),
            [HubKey::team_of(&member("zed", "w", &[]))]
        );
        assert_eq!(escalated.chain_key(), r#"["","w"]"#);
        let push = newly.push_rows("s", 6);
        assert_eq!(push.binds, ["w", "leads"]);
        assert_eq!(
            push.sql,
            "s.workspace_id = $6 AND (EXISTS (SELECT 1 FROM koder_push_subscription_groups g \
             WHERE g.subscription_id = s.id AND g.name IN ($7)))"
        );
        let first = team(0).push_rows("s", 1);
        assert_eq!(first.binds, ["w", "ana", "ops"]);
        assert!(first
            .sql
            .starts_with("s.workspace_id = $1 AND (s.user_id IN ($2) OR EXISTS"));
    }

    #[test]
    fn keys_and_push_rows_are_the_whole_persons() {
        let audience = Audience::of(&tenant("c1"));
        assert_eq!(
            audience.hub_keys(),
            [HubKey::of(&token("ana", "w1", Some("c9")))]
        );
        assert_eq!(audience.chain_key(), r#"["ana","w1"]"#);
        let push = audience.push_rows("s", 6);
        assert_eq!(push.sql, "s.user_id = $6 AND s.workspace_id = $7");
        assert_eq!(push.binds, ["ana", "w1"]);
    }
}
