//! The e-mail outbox on both stores (a SQLite file, and a throwaway PostgreSQL): a create that
//! asks for an e-mail queues one row in its own transaction, due after `--email-after` and
//! worth sending until the question expires; a repeat with the same idempotency key queues
//! nothing more; a claim leases it to one caller; retention deletes what is done.

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
use koder_elicitation_relay::channels::email::store::{EmailDelivery, TABLE};
use koder_elicitation_relay::channels::email::{EmailQueue, Emails};
use koder_elicitation_relay::channels::outbox_of;
use koder_elicitation_relay::store::outbox::Outcome;
use koder_elicitation_relay::store::{Actor, NewElicitation, Outboxes, Store, Tenant};
use koder_elicitation_relay_protocol::Notify;
use serde_json::json;

const LEASE_MS: i64 = 60_000;
const AFTER: Duration = Duration::from_secs(30);

fn outboxes() -> Outboxes {
    Outboxes::new(vec![outbox_of::<Emails>(EmailQueue { after: AFTER })])
}

fn new_elicitation(id: &str, now: i64, email: Option<&str>, key: Option<&str>) -> NewElicitation {
    NewElicitation {
        id: id.into(),
        tenant: Tenant {
            user_id: "ana".into(),
            workspace_id: "acme".into(),
            conversation_id: String::new(),
        },
        request: json!({"message": "Deploy?", "requestedSchema": {"type": "object", "properties": {}}}),
        server_name: Some("deployer".into()),
        created_at: now,
        expires_at: now + 600_000,
        idempotency_key: key.map(str::to_string),
        request_digest: key.map(|_| "digest".to_string()),
        notify: email.map(|address| Notify {
            language: Some("pt-BR".into()),
            ..Notify::email(address)
        }),
        team: None,
    }
}

async fn queues_one_email_per_create_that_asks(store: &Store) {
    let now = store.now_ms();
    let with = |id, email, key| new_elicitation(id, now, email, key);
    let mailed = "00000000000000000000000000000001";
    for new in [
        with(mailed, Some("ana@example.com"), Some("k1")),
        // The same key again: the first record, nothing more queued.
        with(
            "00000000000000000000000000000002",
            Some("ana@example.com"),
            Some("k1"),
        ),
        // No e-mail asked for.
        with("00000000000000000000000000000003", None, None),
    ] {
        store.elicitations.create(new, &Actor::Host).await.unwrap();
    }
    let outbox = store.outbox(&TABLE);
    let after_ms = i64::try_from(AFTER.as_millis()).unwrap();
    assert!(
        outbox
            .claim::<EmailDelivery>(now + after_ms - 1, LEASE_MS, 10, true)
            .await
            .unwrap()
            .is_empty(),
        "not due before --email-after"
    );
    let claimed = outbox
        .claim::<EmailDelivery>(now + after_ms, LEASE_MS, 10, true)
        .await
        .unwrap();
    let row = mailed.to_string();
    assert_eq!(
        claimed,
        [EmailDelivery {
            id: mailed.into(),
            elicitation_id: mailed.into(),
            kind: "question".into(),
            address: "ana@example.com".into(),
            language: Some("pt-BR".into()),
            deadline: now + 600_000,
            attempts: 1,
        }]
    );
    // Leased: nobody claims it again meanwhile; a retry is claimed at its time.
    assert!(outbox
        .claim::<EmailDelivery>(now + after_ms + 1, LEASE_MS, 10, true)
        .await
        .unwrap()
        .is_empty());
    let retry_at = now + after_ms + 5_000;
    let retry = Outcome::Retry {
        next_attempt_at: retry_at,
        error: "transient error (421)".into(),
    };
    outbox
        .record(&[(row.clone(), retry)], now + after_ms)
        .await
        .unwrap();
    let again = outbox
        .claim::<EmailDelivery>(retry_at, LEASE_MS, 10, true)
        .await
        .unwrap();
    assert_eq!(
        again.iter().map(|row| row.attempts).collect::<Vec<_>>(),
        [2]
    );
    outbox
        .record(&[(row, Outcome::Delivered)], retry_at)
        .await
        .unwrap();
    assert!(outbox
        .claim::<EmailDelivery>(retry_at + LEASE_MS, LEASE_MS, 10, true)
        .await
        .unwrap()
        .is_empty());

    // Retention deletes it once done.
    assert_eq!(outbox.purge(retry_at, 100).await.unwrap(), 0);
    assert_eq!(outbox.purge(retry_at + 1, 100).await.unwrap(), 1);
}

#[tokio::test]
async fn sqlite_queues_one_email_per_create_that_asks() {
    let dir = TempDir::new("email-outbox");
    let url = format!("sqlite://{}", dir.0.join("relay.db").display());
    let store = Store::open(&url, outboxes()).await.unwrap();
    queues_one_email_per_create_that_asks(&store).await;
}

#[tokio::test]
async fn postgres_queues_one_email_per_create_that_asks() {
    let postgres = Postgres::start();
    let store = Store::open(&postgres.url, outboxes()).await.unwrap();
    queues_one_email_per_create_that_asks(&store).await;
}
