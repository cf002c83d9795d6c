//! Who may answer an elicitation, said once. An [`Audience`] is made from the tenant a host
//! named, and owns everything that depends on who that is: whether an authenticated person may
//! see and answer it ([`Audience::admits`]), which rows a person's pending list keeps
//! ([`Audience::pending_for`]), which hub channels hear of it ([`Audience::hub_keys`]), whose
//! push subscriptions are told of it ([`Audience::push_rows`]) and the audit chain its changes
//! go into ([`Audience::chain_key`]). Another kind of audience (a team: users and groups in a
//! workspace) is another variant here, not a change to each of those places.
//!
//! The person is only ever the scope authentication made ([`TenantFilter`]); an elicitation a
//! person may not see reads as unknown, exactly as a missing one does.

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
}

/// One person's channel on the hub: their user and workspace, every conversation of theirs
/// (a stream keeps what [`Audience::admits`] lets its token see).
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
                    && person
                        .conversation_id
                        .as_deref()
                        .is_none_or(|only| only == conversation.as_deref().unwrap_or_default())
            }
        }
    }

    /// The rows of `koder_elicitations` whose audience admits `person` (as
    /// [`admits`](Self::admits) says), placeholders numbered from `first`.
    pub fn pending_for(person: &TenantFilter, first: usize) -> SqlFilter {
        let mut columns = vec![
            ("user_id".to_string(), person.user_id.clone()),
            ("workspace_id".to_string(), person.workspace_id.clone()),
        ];
        if let Some(conversation) = &person.conversation_id {
            columns.push(("conversation_id".to_string(), conversation.clone()));
        }
        SqlFilter::equal(columns, first)
    }

    /// The hub channels its changes go to: the person's.
    pub fn hub_keys(&self) -> Vec<HubKey> {
        match self {
            Audience::Person {
                workspace, user, ..
            } => vec![HubKey {
                user: user.clone(),
                workspace: workspace.clone(),
            }],
        }
    }

    /// The push subscriptions told of it, as a condition on `koder_push_subscriptions` named
    /// `alias`, placeholders numbered from `first`: every subscription of the person (a
    /// subscription is the whole person's, never one conversation's).
    pub fn push_rows(&self, alias: &str, first: usize) -> SqlFilter {
        match self {
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
    /// (unambiguous whatever the ids hold).
    pub fn chain_key(&self) -> String {
        match self {
            Audience::Person {
                workspace, user, ..
            } => json!([user, workspace]).to_string(),
        }
    }
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
        assert_eq!(whole.sql, "user_id = $1 AND workspace_id = $2");
        assert_eq!(whole.binds, ["ana", "w1"]);
        let one = Audience::pending_for(&token("ana", "w1", Some("c1")), 3);
        assert_eq!(
            one.sql,
            "user_id = $3 AND workspace_id = $4 AND conversation_id = $5"
        );
        assert_eq!(one.binds, ["ana", "w1", "c1"]);
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
