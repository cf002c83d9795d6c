//! Tenant scope and the in-memory draft store. What a user typed is keyed by the whole scope and
//! can only be read back with exactly the same scope; nothing is ever written to storage.

use crate::limits::MAX_DRAFTS;
use serde_json::Value;

use crate::json::object;

/// Who the element currently works for (attributes `user-id`, `workspace-id`, `conversation-id`),
/// and who a relay's elicitation is for (`conversationId` is `""` when the host gave none; with
/// the `serde` feature, camelCase as the relay's views, webhooks and audit lines write it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "camelCase")
)]
pub struct Tenant {
    pub user_id: String,
    pub workspace_id: String,
    pub conversation_id: String,
}

/// A tenant plus one elicitation, by its origin: the server that asked and the id it asked under.
/// The key of a draft. Two servers may use the same request id (each numbers its own JSON-RPC
/// requests), so the id alone would let one server's request read what was typed for another's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Scope {
    pub tenant: Tenant,
    /// The server that asked (`serverName`, else the `server-name` attribute).
    pub server: String,
    pub elicitation_id: String,
}

impl Scope {
    /// The `scope` object of event details (the contract's four names; the server is reported
    /// where the surface shows it, not here).
    pub fn to_json(&self) -> Value {
        object([
            ("userId", self.tenant.user_id.clone().into()),
            ("workspaceId", self.tenant.workspace_id.clone().into()),
            ("conversationId", self.tenant.conversation_id.clone().into()),
            ("elicitationId", self.elicitation_id.clone().into()),
        ])
    }
}

/// Drafts of unfinished elicitations, in memory only.
#[derive(Debug, Clone)]
pub struct DraftStore<D> {
    drafts: Vec<(Scope, D)>,
}

impl<D> Default for DraftStore<D> {
    fn default() -> Self {
        DraftStore { drafts: Vec::new() }
    }
}

impl<D> DraftStore<D> {
    /// Keeps the draft for exactly this scope, replacing an older one.
    pub fn put(&mut self, scope: Scope, draft: D) {
        self.remove(&scope);
        if self.drafts.len() >= MAX_DRAFTS {
            self.drafts.remove(0);
        }
        self.drafts.push((scope, draft));
    }

    /// The draft for exactly this scope; any other scope reads nothing.
    pub fn get(&self, scope: &Scope) -> Option<&D> {
        self.drafts
            .iter()
            .find(|(key, _)| key == scope)
            .map(|(_, draft)| draft)
    }

    /// Wipes the draft for this scope (the elicitation settled).
    pub fn remove(&mut self, scope: &Scope) -> Option<D> {
        let index = self.drafts.iter().position(|(key, _)| key == scope)?;
        Some(self.drafts.remove(index).1)
    }

    /// How many drafts are held.
    pub fn len(&self) -> usize {
        self.drafts.len()
    }

    /// Whether no draft is held.
    pub fn is_empty(&self) -> bool {
        self.drafts.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(user: &str, workspace: &str, conversation: &str, id: &str) -> Scope {
        from_server("Weather", user, workspace, conversation, id)
    }

    fn from_server(
        server: &str,
        user: &str,
        workspace: &str,
        conversation: &str,
        id: &str,
    ) -> Scope {
        Scope {
            tenant: Tenant {
                user_id: user.into(),
                workspace_id: workspace.into(),
                conversation_id: conversation.into(),
            },
            server: server.into(),
            elicitation_id: id.into(),
        }
    }

    #[test]
    fn a_draft_is_read_back_only_with_the_whole_scope() {
        let mut store = DraftStore::default();
        store.put(scope("u1", "w1", "c1", "e1"), "typed");
        assert_eq!(store.get(&scope("u1", "w1", "c1", "e1")), Some(&"typed"));
        for other in [
            scope("u2", "w1", "c1", "e1"),
            scope("u1", "w2", "c1", "e1"),
            scope("u1", "w1", "c2", "e1"),
            scope("u1", "w1", "c1", "e2"),
            from_server("Other", "u1", "w1", "c1", "e1"),
        ] {
            assert_eq!(store.get(&other), None, "{other:?}");
        }
        assert_eq!(store.remove(&scope("u1", "w1", "c1", "e1")), Some("typed"));
        assert!(store.is_empty());
    }

    #[test]
    fn two_servers_asking_under_the_same_id_keep_their_own_drafts() {
        let mut store = DraftStore::default();
        store.put(from_server("Alpha", "u", "w", "c", "1"), "alpha typed");
        assert_eq!(store.get(&from_server("Beta", "u", "w", "c", "1")), None);
        store.put(from_server("Beta", "u", "w", "c", "1"), "beta typed");
        assert_eq!(
            store.remove(&from_server("Alpha", "u", "w", "c", "1")),
            Some("alpha typed")
        );
        assert_eq!(
            store.get(&from_server("Beta", "u", "w", "c", "1")),
            Some(&"beta typed")
        );
    }

    #[test]
    fn the_store_is_bounded() {
        let mut store = DraftStore::default();
        for i in 0..MAX_DRAFTS + 5 {
            store.put(scope("u", "w", "c", &i.to_string()), i);
        }
        assert_eq!(store.len(), MAX_DRAFTS);
        assert_eq!(store.get(&scope("u", "w", "c", "0")), None);
        assert!(store
            .get(&scope("u", "w", "c", &(MAX_DRAFTS + 4).to_string()))
            .is_some());
    }

    #[test]
    fn scope_json_uses_the_contract_names() {
        let value = scope("u", "w", "c", "e").to_json();
        assert_eq!(value["userId"], "u");
        assert_eq!(value["workspaceId"], "w");
        assert_eq!(value["conversationId"], "c");
        assert_eq!(value["elicitationId"], "e");
    }
}
