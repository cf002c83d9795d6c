//! SQLite's one writer commits every change queued when it is free in one transaction: raced
//! from many tasks, each change still gets its own result (and its own event), a change that
//! fails fails alone, and each elicitation is settled exactly once.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::future::join_all;
use futures_util::FutureExt;
use http_support::TempDir;
use koder_elicitation_relay::events::{Event, EventKind, EventSink};
use koder_elicitation_relay::hub::{Hub, StreamLimits};
use koder_elicitation_relay::metrics::Metrics;
use koder_elicitation_relay::service::Elicitations;
use koder_elicitation_relay::store::{
    Actor, Created, NewElicitation, Outboxes, Record, Status, Store, Tenant,
};
use serde_json::{json, Value};
use tokio::sync::mpsc;

const ELICITATIONS: usize = 100;

fn new_elicitation(store: &Store, index: usize) -> NewElicitation {
    let now = store.now_ms();
    NewElicitation {
        id: format!("{index:032x}"),
        tenant: Tenant {
            user_id: format!("user-{}", index % 7),
            workspace_id: "acme".into(),
            conversation_id: String::new(),
        },
        request: json!({"message": format!("Question {index}"), "requestedSchema": {"type": "object", "properties": {}}}),
        server_name: None,
        created_at: now,
        expires_at: now + 600_000,
        idempotency_key: None,
        request_digest: None,
        notify: None,
        team: None,
    }
}

/// What racer `racer` answers elicitation `index` with: different for each racer.
fn answer(index: usize, racer: usize) -> Value {
    json!({"action": "accept", "content": {"index": index, "racer": racer}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn raced_changes_each_get_their_own_result_and_one_settle_each() {
    let dir = TempDir::new("group-commit");
    let url = format!("sqlite://{}", dir.0.join("relay.db").display());
    let store = Arc::new(Store::open(&url, Outboxes::default()).await.expect("open"));

    // 100 creates at once: each its own new record.
    let creates = (0..ELICITATIONS).map(|index| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            let new = new_elicitation(&store, index);
            (index, store.elicitations.create(new, &Actor::Host).await)
        })
    });
    let mut records = vec![None; ELICITATIONS];
    for joined in join_all(creates).await {
        let (index, created) = joined.expect("task");
        match created.expect("create") {
            Created::New(event) => {
                assert_eq!(event.kind, EventKind::Created);
                assert_eq!(event.id(), format!("{index:032x}"));
                records[index] = Some((*event.record).clone());
            }
            other => panic!("{index}: expected a new record, got {other:?}"),
        }
    }
    let records: Arc<Vec<Record>> = Arc::new(records.into_iter().flatten().collect());

    // 200 settles at once, two racers per elicitation, with 20 changes that cannot be made
    // (finishing as pending) among them.
    let mut tasks = Vec::new();
    for index in 0..ELICITATIONS {
        for racer in 0..2 {
            let (store, records) = (Arc::clone(&store), Arc::clone(&records));
            tasks.push(tokio::spawn(async move {
                let record = &records[index];
                let result = answer(index, racer);
                let now = store.now_ms();
                let person = Actor::Person {
                    sub: format!("racer-{racer}"),
                };
                let settled = store
                    .elicitations
                    .finish(record, Status::Settled, &result, now, &person, None)
                    .await;
                (Some((index, racer)), settled)
            }));
        }
        if index % 5 == 0 {
            let (store, records) = (Arc::clone(&store), Arc::clone(&records));
            tasks.push(tokio::spawn(async move {
                let refused = store
                    .elicitations
                    .finish(
                        &records[index],
                        Status::Pending,
                        &json!({}),
                        0,
                        &Actor::Relay,
                        None,
                    )
                    .await;
                (None, refused)
            }));
        }
    }
    let mut winners: HashMap<usize, usize> = HashMap::new();
    let mut refused = 0;
    for joined in join_all(tasks).await {
        match joined.expect("task") {
            (Some((index, racer)), settled) => {
                let Some(event) = settled.expect("a settle gets its own answer") else {
                    continue;
                };
                // The event is this racer's own change: its elicitation, its result.
                assert_eq!(event.kind, EventKind::Settled);
                assert_eq!(event.id(), format!("{index:032x}"));
                assert_eq!(event.record.result, Some(answer(index, racer)));
                assert_eq!(
                    winners.insert(index, racer),
                    None,
                    "{index} was settled twice"
                );
            }
            (None, outcome) => {
                assert!(outcome.is_err(), "finishing as pending is refused");
                refused += 1;
            }
        }
    }
    assert_eq!(refused, ELICITATIONS / 5);
    assert_eq!(
        winners.len(),
        ELICITATIONS,
        "every elicitation settled once"
    );

    // The rows and the audit trail agree: each settled with its winner's answer, once.
    for (index, racer) in &winners {
        let stored = store
            .elicitations
            .get(&format!("{index:032x}"))
            .await
            .expect("get")
            .expect("kept");
        assert_eq!(stored.status, Status::Settled);
        assert_eq!(stored.result, Some(answer(*index, *racer)));
    }
    let entries = store.audit.page(0, 10_000).await.expect("audit");
    let settles = entries
        .iter()
        .filter(|entry| entry.action == "answered:accept")
        .count();
    assert_eq!(settles, ELICITATIONS);
    assert_eq!(entries.len(), 2 * ELICITATIONS);
    let mut settled_ids: Vec<_> = entries
        .iter()
        .filter(|entry| entry.action == "answered:accept")
        .map(|entry| entry.elicitation_id.clone())
        .collect();
    settled_ids.sort();
    settled_ids.dedup();
    assert_eq!(settled_ids.len(), ELICITATIONS, "one settle each");
}

/// A sink that passes on what it hears, as this replica's announcer would get it.
#[derive(Debug)]
struct Recorder(mpsc::UnboundedSender<Event>);

impl EventSink for Recorder {
    fn deliver(&self, event: &Event) {
        let _ = self.0.send(event.clone());
    }

    fn resync(&self) {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_whose_caller_stops_waiting_is_still_made_and_announced() {
    let dir = TempDir::new("group-commit-dropped");
    let url = format!("sqlite://{}", dir.0.join("relay.db").display());
    let store = Arc::new(Store::open(&url, Outboxes::default()).await.expect("open"));
    let (sender, mut heard) = mpsc::unbounded_channel();
    let service = Elicitations::new(
        Arc::clone(&store),
        Arc::new(Recorder(sender)),
        Metrics::new(),
        Hub::new(StreamLimits::default()),
    );

    // The caller (a request, say) is dropped after its first poll, while its change waits for
    // the writer.
    let new = new_elicitation(&store, 7);
    let id = new.id.clone();
    // Polled once, then dropped: a timer would fire late on a busy machine, after the commit.
    let gave_up = service.create(new).now_or_never();
    assert!(gave_up.is_none(), "the caller stopped waiting");

    let event = tokio::time::timeout(std::time::Duration::from_secs(5), heard.recv())
        .await
        .expect("announced within 5 s")
        .expect("an event");
    assert_eq!(event.kind, EventKind::Created);
    assert_eq!(event.id(), id);
    let stored = store.elicitations.get(&id).await.expect("get");
    assert_eq!(stored.map(|record| record.status), Some(Status::Pending));
}
