//! Two replicas on one PostgreSQL database. Each keeps the pending elicitations it heard of in
//! memory, so an answer, a withdraw or a long-poll needs no read; what one replica keeps may
//! already be over on the other. These check that it is only ever a shortcut: an elicitation
//! ended on one replica and then answered, withdrawn or waited for on the other is settled once,
//! with the first result, and every caller is told how it really ended.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::time::{Duration, Instant};

use http_support::postgres::Postgres;
use http_support::{create_body, person, Relay};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const ROUNDS: usize = 12;

fn answer(city: &str) -> Value {
    json!({"action": "accept", "content": {"city": city}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_one_replica_ended_is_settled_once_when_the_other_still_held_it_as_pending() {
    let postgres = Postgres::start();
    let first = Relay::start_with(|config| config.database = postgres.url.clone()).await;
    let second = Relay::start_with(|config| config.database = postgres.url.clone()).await;
    let ana = person("ana", "acme");
    // The second replica hears of every creation on the first through its stream's link.
    let mut heard = second.stream(&ana).await;
    for round in 0..ROUNDS {
        let id = first.create_id(create_body("ana", "acme", "c1")).await;
        loop {
            let message = heard.expect().await;
            if message.event == "elicitation" && message.data["id"] == json!(id) {
                break;
            }
        }
        // Both hold it as pending now. The second settles it; the first is asked right after,
        // before (or as) its link tells it.
        let (status, settled) = second.answer(&ana, &id, answer("Lisbon")).await;
        assert_eq!(status, StatusCode::OK, "{settled}");
        let later = match round % 3 {
            0 => first.answer(&ana, &id, answer("Porto")).await,
            1 => {
                let path = format!("/v1/elicitations/{id}");
                first
                    .call(
                        Method::DELETE,
                        &path,
                        Some(http_support::SERVICE_TOKEN),
                        None,
                    )
                    .await
            }
            _ => first.result(&id, 5.0).await,
        };
        match round % 3 {
            // Another result for one already answered conflicts.
            0 => assert_eq!(later.0, StatusCode::CONFLICT, "{}", later.1),
            // A withdraw, or a long-poll, gets the answer as it stands, at once.
            _ => {
                assert_eq!(later.0, StatusCode::OK, "{}", later.1);
                assert_eq!(later.1["status"], json!("settled"), "{}", later.1);
                assert_eq!(later.1["result"], answer("Lisbon"), "{}", later.1);
            }
        }
        // Both replicas say the same: settled once, with the first answer.
        for relay in [&first, &second] {
            let started = Instant::now();
            let (status, view) = relay.result(&id, 0.0).await;
            assert_eq!(status, StatusCode::OK);
            assert_eq!(view["status"], json!("settled"), "round {round}: {view}");
            assert_eq!(view["result"], answer("Lisbon"), "round {round}: {view}");
            assert!(started.elapsed() < Duration::from_secs(2));
        }
    }
}
