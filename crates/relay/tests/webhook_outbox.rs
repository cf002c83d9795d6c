//! The webhook outbox on both stores (a SQLite file, and a throwaway PostgreSQL shared by two
//! stores as two replicas would): a change queues its webhook in its own transaction, a claim
//! leases rows so no other claim takes them, and on PostgreSQL two replicas claiming at once
//! split the rows between them, each row to one.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use http_support::postgres::Postgres;
use http_support::{store_with_webhooks, TempDir};
use koder_elicitation_relay::channels::webhooks::store::{Delivery, TABLE};
use koder_elicitation_relay::store::outbox::Outcome;
use koder_elicitation_relay::store::{Actor, Created, NewElicitation, Status, Store, Tenant};
use serde_json::json;

const LEASE_MS: i64 = 60_000;

fn new_elicitation(store: &Store, index: usize, key: Option<&str>) -> NewElicitation {
    let now = store.now_ms();
    NewElicitation {
        id: format!("{index:032x}"),
        tenant: Tenant {
            user_id: "u".into(),
            workspace_id: "w".into(),
            conversation_id: String::new(),
        },
        request: json!({"message": format!("Question {index}"), "requestedSchema": {"type": "object", "properties": {}}}),
        server_name: Some("Outbox test".into()),
        created_at: now,
        expires_at: now + 600_000,
        idempotency_key: key.map(str::to_string),
        request_digest: Some(format!("digest-{index}")),
        notify: None,
        team: None,
    }
}

/// The checks both stores must pass, on a store with its outbox on.
async fn queues_in_the_change_and_leases_what_it_claims(store: &Store) {
    assert!(matches!(
        store
            .elicitations
            .create(new_elicitation(store, 1, Some("key")), &Actor::Host)
            .await
            .unwrap(),
        Created::New(_)
    ));
    // The same key again creates nothing, so queues nothing.
    assert!(matches!(
        store
            .elicitations
            .create(new_elicitation(store, 1, Some("key")), &Actor::Host)
            .await
            .unwrap(),
        Created::KeyReused | Created::Existing(_)
    ));
    let question = store
        .elicitations
        .get(&format!("{:032x}", 1))
        .await
        .unwrap()
        .expect("stored");
    store
        .elicitations
        .finish(
            &question,
            Status::Settled,
            &json!({"action": "accept", "content": {}}),
            store.now_ms(),
            &Actor::Person { sub: "u".into() },
            None,
        )
        .await
        .unwrap()
        .expect("settled");
    // Finishing again changes nothing and queues nothing.
    assert!(store
        .elicitations
        .finish(
            &question,
            Status::Withdrawn,
            &json!({"action": "cancel"}),
            store.now_ms(),
            &Actor::Host,
            None
        )
        .await
        .unwrap()
        .is_none());

    let now = store.now_ms();
    let claimed = store
        .outbox(&TABLE)
        .claim::<Delivery>(now, LEASE_MS, 10, false)
        .await
        .unwrap();
    let mut ids: Vec<_> = claimed.iter().map(|delivery| delivery.id.clone()).collect();
    ids.sort();
    let id = format!("{:032x}", 1);
    assert_eq!(
        ids,
        [format!("msg_{id}_created"), format!("msg_{id}_settled")]
    );
    assert!(claimed.iter().all(|delivery| delivery.attempts == 1));
    let settled = claimed
        .iter()
        .find(|delivery| delivery.id.ends_with("_settled"))
        .unwrap();
    let body: serde_json::Value = serde_json::from_str(&settled.payload).unwrap();
    assert_eq!(body["type"], "elicitation.settled");
    assert_eq!(body["data"]["result"]["action"], "accept");

    // Leased: nobody claims them again until the lease runs out.
    assert!(store
        .outbox(&TABLE)
        .claim::<Delivery>(now + 1, LEASE_MS, 10, false)
        .await
        .unwrap()
        .is_empty());
    let again = store
        .outbox(&TABLE)
        .claim::<Delivery>(now + LEASE_MS, LEASE_MS, 10, false)
        .await
        .unwrap();
    assert_eq!(again.len(), 2);
    assert!(again.iter().all(|delivery| delivery.attempts == 2));

    // One delivered, one given up on: neither is claimed again; retention purges the delivered
    // one only.
    let later = now + 2 * LEASE_MS;
    store
        .outbox(&TABLE)
        .record(
            &[
                (format!("msg_{id}_created"), Outcome::Delivered),
                (
                    format!("msg_{id}_settled"),
                    Outcome::GaveUp {
                        error: "answered 500".into(),
                    },
                ),
            ],
            later,
        )
        .await
        .unwrap();
    assert!(store
        .outbox(&TABLE)
        .claim::<Delivery>(later + 10 * LEASE_MS, LEASE_MS, 10, false)
        .await
        .unwrap()
        .is_empty());
    assert_eq!(store.outbox(&TABLE).purge(later + 1, 100).await.unwrap(), 1);
    assert_eq!(store.outbox(&TABLE).purge(later + 1, 100).await.unwrap(), 0);
}

#[tokio::test]
async fn sqlite_queues_in_the_change_and_leases_what_it_claims() {
    let dir = TempDir::new("outbox");
    let url = format!("sqlite://{}", dir.0.join("relay.db").display());
    let store = store_with_webhooks(&url).await;
    queues_in_the_change_and_leases_what_it_claims(&store).await;
}

#[tokio::test]
async fn postgres_queues_in_the_change_and_two_replicas_claim_each_row_once() {
    let postgres = Postgres::start();
    let a: Arc<Store> = store_with_webhooks(&postgres.url).await;
    let b: Arc<Store> = store_with_webhooks(&postgres.url).await;
    queues_in_the_change_and_leases_what_it_claims(&a).await;

    for index in 100..140 {
        let store = if index % 2 == 0 { &a } else { &b };
        store
            .elicitations
            .create(new_elicitation(store, index, None), &Actor::Host)
            .await
            .unwrap();
    }
    // Both replicas claim small batches at once until nothing is due.
    let claim_all = |store: Arc<Store>| async move {
        let mut mine = Vec::new();
        loop {
            let batch = store
                .outbox(&TABLE)
                .claim::<Delivery>(store.now_ms(), LEASE_MS, 3, false)
                .await
                .unwrap();
            if batch.is_empty() {
                return mine;
            }
            mine.extend(batch.into_iter().map(|delivery| delivery.id));
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    };
    let (by_a, by_b) = tokio::join!(claim_all(Arc::clone(&a)), claim_all(Arc::clone(&b)));
    assert!(
        !by_a.is_empty() && !by_b.is_empty(),
        "both replicas took part"
    );
    let all: HashSet<_> = by_a.iter().chain(&by_b).cloned().collect();
    assert_eq!(by_a.len() + by_b.len(), 40, "each row claimed once");
    assert_eq!(all.len(), 40);
    let expected: HashSet<_> = (100..140)
        .map(|index| format!("msg_{index:032x}_created"))
        .collect();
    assert_eq!(all, expected);
}
