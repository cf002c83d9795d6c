//! The push outbox on both stores (a SQLite file, and a throwaway PostgreSQL): a change queues
//! one push per subscription of its person in its own transaction (the question, a reminder
//! when asked for, the close), a claim leases them, a gone subscription takes its pushes with
//! it, and retention deletes what is done.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::time::Duration;

use http_support::postgres::Postgres;
use http_support::TempDir;
use koder_elicitation_relay::channels::outbox_of;
use koder_elicitation_relay::channels::push::store::{PushDelivery, PushStore, TABLE};
use koder_elicitation_relay::channels::push::{PushQueue, Pushes};
use koder_elicitation_relay::store::outbox::Outcome;
use koder_elicitation_relay::store::{Actor, NewElicitation, Outboxes, Status, Store, Tenant};
use serde_json::json;

const LEASE_MS: i64 = 60_000;
const REMIND_BEFORE: Duration = Duration::from_secs(60);
const ID: &str = "00000000000000000000000000000001";

fn outboxes() -> Outboxes {
    let queue = PushQueue {
        remind_before: Some(REMIND_BEFORE),
    };
    Outboxes::new(vec![outbox_of::<Pushes>(queue)])
}

/// Stores subscriptions as the subscription routes do: (id, user, workspace).
async fn subscribe(url: &str, subscriptions: &[(&str, &str, &str)]) {
    let insert = "INSERT INTO koder_push_subscriptions \
         (id, user_id, workspace_id, endpoint, p256dh, auth, created_at) \
         VALUES ($1, $2, $3, $4, 'key', 'auth', 0)";
    for (id, user, workspace) in subscriptions {
        let endpoint = format!("https://push.example.net/{id}");
        if url.starts_with("sqlite:") {
            let pool = sqlx::SqlitePool::connect(url).await.unwrap();
            sqlx::query(insert)
                .bind(id)
                .bind(user)
                .bind(workspace)
                .bind(endpoint)
                .execute(&pool)
                .await
                .unwrap();
            pool.close().await;
        } else {
            let pool = sqlx::PgPool::connect(url).await.unwrap();
            sqlx::query(insert)
                .bind(id)
                .bind(user)
                .bind(workspace)
                .bind(endpoint)
                .execute(&pool)
                .await
                .unwrap();
            pool.close().await;
        }
    }
}

fn sorted(mut claimed: Vec<PushDelivery>) -> Vec<(String, String, i64)> {
    claimed.sort_by(|a, b| a.id.cmp(&b.id));
    claimed
        .into_iter()
        .map(|push| (push.subscription_id, push.kind, push.deadline))
        .collect()
}

async fn queues_one_push_per_subscription_of_the_person(store: &Store, url: &str) {
    subscribe(
        url,
        &[
            ("phone", "ana", "acme"),
            ("laptop", "ana", "acme"),
            ("bob", "bob", "acme"),
            ("elsewhere", "ana", "other"),
        ],
    )
    .await;
    let now = store.now_ms();
    let expires_at = now + 600_000;
    store
        .elicitations
        .create(
            NewElicitation {
                id: ID.into(),
                tenant: Tenant {
                    user_id: "ana".into(),
                    workspace_id: "acme".into(),
                    conversation_id: String::new(),
                },
                request: json!({"message": "Which city?", "requestedSchema": {"type": "object", "properties": {}}}),
                server_name: Some("weather".into()),
                created_at: now,
                expires_at,
                idempotency_key: None,
                request_digest: None,
                notify: None,
                team: None,
            },
            &Actor::Host,
        )
        .await
        .unwrap();

    // The question, to ana's two in acme only; the reminders wait for their time.
    let outbox = store.outbox(&TABLE);
    let pushes = PushStore::of(store);
    let claimed = outbox
        .claim::<PushDelivery>(store.now_ms(), LEASE_MS, 10, true)
        .await
        .unwrap();
    assert!(claimed.iter().all(|push| push.attempts == 1));
    assert!(claimed.iter().all(|push| push.elicitation_id == ID));
    assert_eq!(
        sorted(claimed.clone()),
        [
            ("laptop".into(), "elicitation".into(), expires_at),
            ("phone".into(), "elicitation".into(), expires_at),
        ]
    );
    // Leased: nobody claims them again meanwhile.
    assert!(outbox
        .claim::<PushDelivery>(store.now_ms() + 1, LEASE_MS, 10, true)
        .await
        .unwrap()
        .is_empty());
    let delivered = |pushes: &[PushDelivery]| -> Vec<(String, Outcome)> {
        pushes
            .iter()
            .map(|push| (push.id.clone(), Outcome::Delivered))
            .collect()
    };
    outbox
        .record(&delivered(&claimed), store.now_ms())
        .await
        .unwrap();
    let remind_at = expires_at - 60_000;
    assert!(outbox
        .claim::<PushDelivery>(remind_at - 1, LEASE_MS, 10, true)
        .await
        .unwrap()
        .is_empty());
    let reminders = outbox
        .claim::<PushDelivery>(remind_at, 1_000, 10, true)
        .await
        .unwrap();
    assert_eq!(
        sorted(reminders.clone()),
        [
            ("laptop".into(), "reminder".into(), expires_at),
            ("phone".into(), "reminder".into(), expires_at),
        ]
    );
    outbox
        .record(&delivered(&reminders), remind_at)
        .await
        .unwrap();

    // Answered: one close each, due at once, for an hour.
    let finished_at = store.now_ms();
    let question = store.elicitations.get(ID).await.unwrap().expect("stored");
    store
        .elicitations
        .finish(
            &question,
            Status::Settled,
            &json!({"action": "accept", "content": {}}),
            finished_at,
            &Actor::Person { sub: "ana".into() },
            None,
        )
        .await
        .unwrap()
        .expect("settled");
    let closes = outbox
        .claim::<PushDelivery>(remind_at, LEASE_MS, 10, true)
        .await
        .unwrap();
    let deadline = finished_at + 3_600_000;
    assert_eq!(
        sorted(closes),
        [
            ("laptop".into(), "settled".into(), deadline),
            ("phone".into(), "settled".into(), deadline),
        ]
    );

    // The phone's push service says it is gone: it goes, with its pending close.
    assert!(store.subscriptions.remove("phone").await.unwrap());
    pushes.drop_pushes_to("phone").await.unwrap();
    assert_eq!(pushes.target("phone").await.unwrap(), None);
    assert_eq!(
        pushes.target("laptop").await.unwrap().unwrap().endpoint,
        "https://push.example.net/laptop"
    );
    let again = outbox
        .claim::<PushDelivery>(remind_at + LEASE_MS, LEASE_MS, 10, true)
        .await
        .unwrap();
    assert_eq!(
        sorted(again),
        [("laptop".into(), "settled".into(), deadline)]
    );

    // Retention deletes what is done (the laptop's two delivered pushes; the phone's went with
    // it), not what is still to send.
    assert_eq!(outbox.purge(remind_at + 1, 100).await.unwrap(), 2);
    assert_eq!(outbox.purge(remind_at + 1, 100).await.unwrap(), 0);
}

#[tokio::test]
async fn sqlite_queues_one_push_per_subscription_of_the_person() {
    let dir = TempDir::new("push-outbox");
    let url = format!("sqlite://{}", dir.0.join("relay.db").display());
    let store = Store::open(&url, outboxes()).await.unwrap();
    queues_one_push_per_subscription_of_the_person(&store, &url).await;
}

#[tokio::test]
async fn postgres_queues_one_push_per_subscription_of_the_person() {
    let postgres = Postgres::start();
    let store = Store::open(&postgres.url, outboxes()).await.unwrap();
    queues_one_push_per_subscription_of_the_person(&store, &postgres.url).await;
    queues_a_team_question_to_its_members_and_each_stage_to_whom_it_admits(&store, &postgres.url)
        .await;
}

#[tokio::test]
async fn sqlite_queues_a_team_question_to_its_members_and_each_stage_to_whom_it_admits() {
    let dir = TempDir::new("push-outbox");
    let url = format!("sqlite://{}", dir.0.join("relay.db").display());
    let store = Store::open(&url, outboxes()).await.unwrap();
    queues_a_team_question_to_its_members_and_each_stage_to_whom_it_admits(&store, &url).await;
}

/// Keeps `groups` with the subscription `id`, as a subscribe with a token's groups does.
async fn keep_groups(url: &str, id: &str, groups: &[&str]) {
    let insert =
        "INSERT INTO koder_push_subscription_groups (subscription_id, name) VALUES ($1, $2)";
    for group in groups {
        if url.starts_with("sqlite:") {
            let pool = sqlx::SqlitePool::connect(url).await.unwrap();
            sqlx::query(insert)
                .bind(id)
                .bind(group)
                .execute(&pool)
                .await
                .unwrap();
            pool.close().await;
        } else {
            let pool = sqlx::PgPool::connect(url).await.unwrap();
            sqlx::query(insert)
                .bind(id)
                .bind(group)
                .execute(&pool)
                .await
                .unwrap();
            pool.close().await;
        }
    }
}

/// A team question's push goes to its members' subscriptions (by user, and by the groups
/// kept with a subscription, in its workspace only); an escalation stage's to those it newly
/// admits, once.
async fn queues_a_team_question_to_its_members_and_each_stage_to_whom_it_admits(
    store: &Store,
    url: &str,
) {
    subscribe(
        url,
        &[
            ("t-ana", "ana", "teamco"),
            ("t-bo", "bo", "teamco"),
            ("t-lee", "lee", "teamco"),
            ("t-dan", "dan", "teamco"),
            ("t-eve", "eve", "other"),
        ],
    )
    .await;
    keep_groups(url, "t-bo", &["ops", "leads"]).await;
    keep_groups(url, "t-lee", &["leads"]).await;
    keep_groups(url, "t-dan", &["dev"]).await;
    keep_groups(url, "t-eve", &["ops"]).await;
    let team = serde_json::from_value(json!({
        "audience": {"users": ["ana"], "groups": ["ops"]},
        "escalate": [{"after": "1m", "audience": {"groups": ["leads"]}}]
    }))
    .unwrap();
    let id = "00000000000000000000000000000007";
    let now = store.now_ms();
    let created = store
        .elicitations
        .create(
            NewElicitation {
                id: id.into(),
                tenant: Tenant {
                    user_id: String::new(),
                    workspace_id: "teamco".into(),
                    conversation_id: String::new(),
                },
                request: json!({"message": "Deploy?", "requestedSchema": {"type": "object", "properties": {}}}),
                server_name: None,
                created_at: now,
                expires_at: now + 600_000,
                idempotency_key: None,
                request_digest: None,
                notify: None,
                team: Some(team),
            },
            &Actor::Host,
        )
        .await
        .unwrap();
    let record = created.record().unwrap().clone();
    let outbox = store.outbox(&TABLE);
    let claim = || async {
        let claimed = outbox
            .claim::<PushDelivery>(store.now_ms(), LEASE_MS, 10, true)
            .await
            .unwrap();
        let mut to: Vec<String> = claimed
            .iter()
            .filter(|push| push.elicitation_id == id)
            .map(|push| format!("{}:{}", push.subscription_id, push.kind))
            .collect();
        to.sort();
        to
    };
    assert_eq!(claim().await, ["t-ana:elicitation", "t-bo:elicitation"]);
    let escalated = store
        .elicitations
        .escalate(&record, 1, store.now_ms(), &Actor::Relay)
        .await
        .unwrap();
    assert_eq!(escalated.map(|event| event.record.escalated), Some(1));
    // bo was told already; the lead is new. Once: a repeat changes nothing.
    assert_eq!(claim().await, ["t-lee:elicitation"]);
    assert!(store
        .elicitations
        .escalate(&record, 1, store.now_ms(), &Actor::Relay)
        .await
        .unwrap()
        .is_none());
    assert!(claim().await.is_empty());
}
