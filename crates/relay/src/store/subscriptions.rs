//! Web Push subscriptions (`koder_push_subscriptions`): each person's browsers, at most a few
//! per person, one row per person and endpoint. The routes keep them; the push delivery reads a
//! person's and removes one its push service says is gone.

use super::db::{either, Database};
use super::StoreError;

/// A subscription as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PushSubscriptionRow {
    /// 128 random bits, hex.
    pub id: String,
    /// The person (`sub` of their token).
    pub user_id: String,
    /// Their workspace.
    pub workspace_id: String,
    /// The push service's URL for this browser (on the allow list when stored).
    pub endpoint: String,
    /// The browser's P-256 public key, base64url.
    pub p256dh: String,
    /// The browser's 16-byte auth secret, base64url.
    pub auth: String,
    /// When it was first stored, ms since the Unix epoch.
    pub created_at: i64,
    /// The BCP 47 tag its pushes are worded in; `None`: en-US.
    pub language: Option<String>,
    /// The groups of the token that last posted it (`koder_push_subscription_groups`; not
    /// read back with the row).
    #[sqlx(skip)]
    pub groups: Vec<String>,
}

/// What a subscribe came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subscribed {
    /// A new subscription, with this id.
    Created(String),
    /// The person had subscribed this endpoint already: its id (its keys and language are now
    /// the ones given).
    Existing(String),
    /// The person holds as many subscriptions as allowed; nothing was stored.
    Full,
}

/// The subscriptions.
#[derive(Debug, Clone)]
pub struct SubscriptionStore {
    pub(super) database: Database,
}

impl SubscriptionStore {
    /// Stores `subscription` unless its person already has this endpoint (then its keys and
    /// language are updated and its id kept) or already holds `max_per_person` subscriptions. Replicas
    /// racing may pass the cap by a few; it bounds abuse, not exact counts.
    pub async fn subscribe(
        &self,
        subscription: &PushSubscriptionRow,
        max_per_person: i64,
    ) -> Result<Subscribed, StoreError> {
        let subscribed = self.subscribe_keys(subscription, max_per_person).await?;
        if let Subscribed::Created(id) | Subscribed::Existing(id) = &subscribed {
            self.set_groups(id, &subscription.groups).await?;
        }
        Ok(subscribed)
    }

    /// Replaces the groups kept with the subscription `id`.
    async fn set_groups(&self, id: &str, groups: &[String]) -> Result<(), StoreError> {
        either!(self.database.writer(), |pool| {
            let mut transaction = pool.begin().await?;
            sqlx::query("DELETE FROM koder_push_subscription_groups WHERE subscription_id = $1")
                .bind(id)
                .execute(&mut *transaction)
                .await?;
            for group in groups {
                sqlx::query(
                    "INSERT INTO koder_push_subscription_groups (subscription_id, name) \
                     VALUES ($1, $2) ON CONFLICT DO NOTHING",
                )
                .bind(id)
                .bind(group)
                .execute(&mut *transaction)
                .await?;
            }
            transaction.commit().await?;
            Ok(())
        })
    }

    /// [`subscribe`](Self::subscribe) without the groups.
    async fn subscribe_keys(
        &self,
        subscription: &PushSubscriptionRow,
        max_per_person: i64,
    ) -> Result<Subscribed, StoreError> {
        if let Some(id) = self.update_keys(subscription).await? {
            return Ok(Subscribed::Existing(id));
        }
        let inserted: Option<String> = either!(self.database.writer(), |pool| {
            sqlx::query_scalar(
                "INSERT INTO koder_push_subscriptions \
                 (id, user_id, workspace_id, endpoint, p256dh, auth, created_at, language) \
                 SELECT $1, $2, $3, $4, $5, $6, $7, $9 WHERE (SELECT COUNT(*) FROM \
                 koder_push_subscriptions WHERE user_id = $2 AND workspace_id = $3) < $8 \
                 ON CONFLICT (user_id, workspace_id, endpoint) DO NOTHING RETURNING id",
            )
            .bind(&subscription.id)
            .bind(&subscription.user_id)
            .bind(&subscription.workspace_id)
            .bind(&subscription.endpoint)
            .bind(&subscription.p256dh)
            .bind(&subscription.auth)
            .bind(subscription.created_at)
            .bind(max_per_person)
            .bind(&subscription.language)
            .fetch_optional(pool)
            .await?
        });
        if let Some(id) = inserted {
            return Ok(Subscribed::Created(id));
        }
        // Nothing inserted: full, or another request stored this endpoint meanwhile.
        match self.update_keys(subscription).await? {
            Some(id) => Ok(Subscribed::Existing(id)),
            None => Ok(Subscribed::Full),
        }
    }

    /// The id of the person's subscription to this endpoint, its keys and language set to the
    /// ones given.
    async fn update_keys(
        &self,
        subscription: &PushSubscriptionRow,
    ) -> Result<Option<String>, StoreError> {
        either!(self.database.writer(), |pool| {
            Ok(sqlx::query_scalar(
                "UPDATE koder_push_subscriptions SET p256dh = $4, auth = $5, language = $6 \
                 WHERE user_id = $1 AND workspace_id = $2 AND endpoint = $3 RETURNING id",
            )
            .bind(&subscription.user_id)
            .bind(&subscription.workspace_id)
            .bind(&subscription.endpoint)
            .bind(&subscription.p256dh)
            .bind(&subscription.auth)
            .bind(&subscription.language)
            .fetch_optional(pool)
            .await?)
        })
    }

    /// A person's subscriptions, oldest first.
    pub async fn list_for_person(
        &self,
        user_id: &str,
        workspace_id: &str,
    ) -> Result<Vec<PushSubscriptionRow>, StoreError> {
        either!(self.database.reader(), |pool| {
            Ok(sqlx::query_as::<_, PushSubscriptionRow>(
                "SELECT id, user_id, workspace_id, endpoint, p256dh, auth, created_at, \
                 language FROM koder_push_subscriptions WHERE user_id = $1 AND workspace_id = $2 \
                 ORDER BY created_at, id",
            )
            .bind(user_id)
            .bind(workspace_id)
            .fetch_all(pool)
            .await?)
        })
    }

    /// Deletes the person's subscription `id`; `false` when they have none by that id (unknown,
    /// or another person's).
    pub async fn delete_for_person(
        &self,
        id: &str,
        user_id: &str,
        workspace_id: &str,
    ) -> Result<bool, StoreError> {
        either!(self.database.writer(), |pool| {
            let deleted = sqlx::query(
                "DELETE FROM koder_push_subscriptions \
                 WHERE id = $1 AND user_id = $2 AND workspace_id = $3",
            )
            .bind(id)
            .bind(user_id)
            .bind(workspace_id)
            .execute(pool)
            .await?;
            Ok(deleted.rows_affected() == 1)
        })
    }

    /// Deletes subscription `id` whoever's it is (its push service answered 404 or 410: the
    /// browser unsubscribed); `false` when it was gone already.
    pub async fn remove(&self, id: &str) -> Result<bool, StoreError> {
        either!(self.database.writer(), |pool| {
            let deleted = sqlx::query("DELETE FROM koder_push_subscriptions WHERE id = $1")
                .bind(id)
                .execute(pool)
                .await?;
            Ok(deleted.rows_affected() == 1)
        })
    }
}
