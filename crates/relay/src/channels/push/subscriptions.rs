//! People's Web Push subscriptions, while the relay has a VAPID key: each is checked (a push
//! service on the allow list, keys that decode) and kept for the whole person (user and
//! workspace) a token names, never for one conversation of theirs.

use std::sync::Arc;

use koder_elicitation_relay_protocol::{PushSubscriptionBody, PushSubscriptionView};
use koder_web_push::SubscriptionKeys;

use super::PushSettings;
use crate::service::{Missing, ServiceError};
use crate::store::{Clock, PushSubscriptionRow, SubscriptionStore, TenantFilter};

pub use crate::store::Subscribed;

/// The subscriptions, with the settings they are kept by.
#[derive(Debug, Clone)]
pub struct PushSubscriptions {
    /// The VAPID key, the allow list and the cap per person.
    pub settings: Arc<PushSettings>,
    pub(crate) store: SubscriptionStore,
    pub(crate) clock: Clock,
}

/// The person a subscription belongs to: a user and a workspace.
pub type Person = (String, String);

/// The person a token names. A token limited to one conversation may not manage subscriptions:
/// the pushes would tell of the person's other conversations.
pub fn whole_person(filter: TenantFilter) -> Result<Person, ServiceError> {
    if filter.conversation_id.is_some() {
        return Err(ServiceError::Forbidden(
            "a token limited to one conversation cannot manage the person's push subscriptions \
             (they receive pushes from every conversation): use a token without a conversation \
             claim"
                .into(),
        ));
    }
    Ok((filter.user_id, filter.workspace_id))
}

impl PushSubscriptions {
    /// Keeps `body` (`PushSubscription.toJSON()`) under the new `id` for `person`, with the
    /// `groups` of the token that posted it (the latest post's count), or says why not.
    pub async fn subscribe(
        &self,
        (user_id, workspace_id): Person,
        groups: Vec<String>,
        body: PushSubscriptionBody,
        id: String,
    ) -> Result<Subscribed, ServiceError> {
        self.settings
            .allow
            .check(&body.endpoint)
            .map_err(|refused| ServiceError::Invalid(refused.to_string()))?;
        SubscriptionKeys::from_base64url(&body.keys.p256dh, &body.keys.auth)
            .map_err(|error| ServiceError::Invalid(format!("keys: {error}")))?;
        let row = PushSubscriptionRow {
            id,
            user_id,
            workspace_id,
            endpoint: body.endpoint,
            p256dh: body.keys.p256dh,
            auth: body.keys.auth,
            created_at: self.clock.now_ms(),
            language: body.language,
            groups,
        };
        let cap = i64::try_from(self.settings.per_person).unwrap_or(i64::MAX);
        Ok(self.store.subscribe(&row, cap).await?)
    }

    /// The person's subscriptions, oldest first, without their keys.
    pub async fn list(&self, person: &Person) -> Result<Vec<PushSubscriptionView>, ServiceError> {
        let rows = self.store.list_for_person(&person.0, &person.1).await?;
        Ok(rows
            .into_iter()
            .map(|row| PushSubscriptionView {
                id: row.id,
                endpoint: row.endpoint,
                created_at: row.created_at,
            })
            .collect())
    }

    /// Deletes `person`'s subscription `id`; [`Missing::Subscription`] for an unknown id and
    /// another person's alike.
    pub async fn unsubscribe(&self, person: &Person, id: &str) -> Result<(), ServiceError> {
        let deleted = self
            .store
            .delete_for_person(id, &person.0, &person.1)
            .await?;
        deleted
            .then_some(())
            .ok_or(ServiceError::NotFound(Missing::Subscription))
    }
}
