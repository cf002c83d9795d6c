//! Both stores keep the same promises (one set of checks, run against SQLite in a temp file and
//! against a throwaway PostgreSQL from scripts/pg-temp.sh), and PostgreSQL replicas share their
//! changes through NOTIFY while only one writer wins.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::future::join_all;
use koder_elicitation_relay::events::{Event, EventKind, EventSink};
use koder_elicitation_relay::hub::{Hub, StreamLimits};
use koder_elicitation_relay::listen::Listening;
use koder_elicitation_relay::metrics::Metrics;
use koder_elicitation_relay::service::Elicitations;
use koder_elicitation_relay::store::{
    Actor, Created, NewElicitation, NewTicket, Outboxes, Record, RedeemedTicket, Status, Store,
    Tenant, TenantFilter,
};
use koder_elicitation_relay::{serve_with_store, Config};
use serde_json::{json, Value};
use tokio::sync::mpsc;

mod http_support;
use http_support::postgres::Postgres;
use http_support::{store_with_webhooks, TempDir};

/// The hosts' token of the relays these tests start (at least 32 bytes, as the relay requires).
const SERVICE_TOKEN: &str = "store-test-service-token-0123456789";
const EVENT_WAIT: Duration = Duration::from_secs(5);

// ---------------------------------------------------------------------------------------------
// Fixtures: the shared temp dir and throwaway PostgreSQL (tests/http_support).

fn unique() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_nanos())
        .unwrap_or_default();
    format!(
        "{}-{nanos}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as i64)
        .unwrap_or_default()
}

fn tenant(user: &str, workspace: &str, conversation: &str) -> Tenant {
    Tenant {
        user_id: user.into(),
        workspace_id: workspace.into(),
        conversation_id: conversation.into(),
    }
}

fn filter(user: &str, workspace: &str, conversation: Option<&str>) -> TenantFilter {
    TenantFilter {
        user_id: user.into(),
        workspace_id: workspace.into(),
        conversation_id: conversation.map(str::to_string),
        groups: Vec::new(),
    }
}

fn new_elicitation(tenant: &Tenant, created_at: i64, expires_at: i64) -> NewElicitation {
    NewElicitation {
        id: format!("id-{}", unique()),
        tenant: tenant.clone(),
        request: json!({
            "mode": "form",
            "message": "Your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
        }),
        server_name: Some("demo server".into()),
        created_at,
        expires_at,
        idempotency_key: None,
        request_digest: None,
        notify: None,
        team: None,
    }
}

/// A record like `record` under an id nobody stored.
fn unknown(record: &Record) -> Record {
    Record {
        id: "no-such-id".into(),
        ..record.clone()
    }
}

fn ids(records: &[Record]) -> Vec<&str> {
    records.iter().map(|record| record.id.as_str()).collect()
}

/// What a LISTEN link hands over: an event, or `None` for "start over".
type Heard = Option<Event>;

/// A sink that records what it hears, as a replica's announcer would get it.
#[derive(Debug)]
struct Recorder(mpsc::UnboundedSender<Heard>);

impl EventSink for Recorder {
    fn deliver(&self, event: &Event) {
        let _ = self.0.send(Some(event.clone()));
    }

    fn resync(&self) {
        let _ = self.0.send(None);
    }
}

/// A PostgreSQL replica as the server runs one: the store and its LISTEN link into a recorder.
struct Replica {
    store: Arc<Store>,
    heard: mpsc::UnboundedReceiver<Heard>,
    listening: Listening,
}

async fn replica(url: &str) -> Replica {
    let store = Arc::new(
        Store::open(url, Outboxes::default())
            .await
            .expect("connect"),
    );
    let (sender, heard) = mpsc::unbounded_channel();
    let elicitations = Elicitations::new(
        Arc::clone(&store),
        Arc::new(Recorder(sender)),
        Metrics::new(),
        Hub::new(StreamLimits::default()),
    );
    let listening = Listening::start(url, store.origin().expect("shared"), elicitations, None)
        .await
        .expect("listen");
    Replica {
        store,
        heard,
        listening,
    }
}

/// The next event heard, failing after [`EVENT_WAIT`] (or on a resync).
async fn next_event(heard: &mut mpsc::UnboundedReceiver<Heard>) -> Event {
    tokio::time::timeout(EVENT_WAIT, heard.recv())
        .await
        .expect("an event within 5 s")
        .expect("the link stays open")
        .expect("an event, not a resync")
}

/// The same change: kind, id and tenant (the record as each side read it may differ in time).
fn same_change(heard: &Event, kind: EventKind, record: &Record) -> bool {
    heard.kind == kind && heard.id() == record.id && *heard.tenant() == record.tenant
}

/// Nothing more arrives within a short while (catches duplicate events).
async fn assert_quiet(heard: &mut mpsc::UnboundedReceiver<Heard>) {
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        matches!(heard.try_recv(), Err(mpsc::error::TryRecvError::Empty)),
        "no further event expected"
    );
}

/// Creates a new elicitation, which must be new, and returns its record.
async fn create_new(store: &Store, new: NewElicitation) -> Record {
    match store
        .elicitations
        .create(new, &Actor::Host)
        .await
        .expect("create")
    {
        Created::New(event) => {
            assert_eq!(event.kind, EventKind::Created);
            (*event.record).clone()
        }
        Created::Existing(record) => panic!("expected a new record, got {record:?}"),
        Created::KeyReused => panic!("expected a new record, got KeyReused"),
    }
}

// ---------------------------------------------------------------------------------------------
// The one set of checks both stores must pass. `space` keeps the tenants of one run apart.

async fn check_store_promises(store: Arc<Store>) {
    let space = unique();
    let user = format!("user-{space}");
    let other_user = format!("other-{space}");
    let t0 = now_ms();
    let later = t0 + 600_000;

    // create / get / pending: oldest first whatever the insert order; scoped by user and
    // workspace; a conversation token sees its conversation only. Each create is announced as
    // the record it stored.
    let second = create_new(
        store.as_ref(),
        new_elicitation(&tenant(&user, "w1", "c2"), t0 + 2, later),
    )
    .await;
    let first = create_new(
        store.as_ref(),
        new_elicitation(&tenant(&user, "w1", "c1"), t0 + 1, later),
    )
    .await;
    let elsewhere = create_new(
        store.as_ref(),
        new_elicitation(&tenant(&user, "w2", "c1"), t0, later),
    )
    .await;
    let someone_else = create_new(
        store.as_ref(),
        new_elicitation(&tenant(&other_user, "w1", "c1"), t0, later),
    )
    .await;

    assert_eq!(first.status, Status::Pending);
    assert_eq!(first.result, None);
    assert!(!first.completed);
    assert_eq!(
        store.elicitations.get(&first.id).await.expect("get"),
        Some(first.clone())
    );
    assert_eq!(
        store.elicitations.get("no-such-id").await.expect("get"),
        None
    );

    let everything = store
        .elicitations
        .pending(&filter(&user, "w1", None))
        .await
        .expect("pending");
    assert_eq!(ids(&everything), [first.id.as_str(), second.id.as_str()]);
    assert_eq!(everything, [first.clone(), second.clone()]);
    let one_conversation = store
        .elicitations
        .pending(&filter(&user, "w1", Some("c2")))
        .await
        .expect("pending");
    assert_eq!(ids(&one_conversation), [second.id.as_str()]);
    let other_workspace = store
        .elicitations
        .pending(&filter(&user, "w2", None))
        .await
        .expect("pending");
    assert_eq!(ids(&other_workspace), [elsewhere.id.as_str()]);
    let other_person = store
        .elicitations
        .pending(&filter(&other_user, "w1", Some("c1")))
        .await
        .expect("pending");
    assert_eq!(ids(&other_person), [someone_else.id.as_str()]);
    assert!(store
        .elicitations
        .pending(&filter(&user, "w1", Some("c3")))
        .await
        .expect("pending")
        .is_empty());

    // Idempotency is per tenant. A repeat in the same tenant with the same key and the same
    // request digest returns the first record and creates nothing; with another digest it is
    // refused (KeyReused) and creates nothing.
    let key = format!("key-{space}");
    let keyed = |tenant: &Tenant, created_at: i64, digest: &str| {
        let mut new = new_elicitation(tenant, created_at, later);
        new.idempotency_key = Some(key.clone());
        new.request_digest = Some(digest.to_string());
        new
    };
    let original = create_new(
        store.as_ref(),
        keyed(&tenant(&user, "w1", "c1"), t0 + 3, "digest-a"),
    )
    .await;
    let repeat = keyed(&tenant(&user, "w1", "c1"), t0 + 4, "digest-a");
    let repeat_id = repeat.id.clone();
    let answered = store
        .elicitations
        .create(repeat, &Actor::Host)
        .await
        .expect("repeat create");
    assert_eq!(answered, Created::Existing(Box::new(original.clone())));
    assert_eq!(store.elicitations.get(&repeat_id).await.expect("get"), None);
    let changed = keyed(&tenant(&user, "w1", "c1"), t0 + 5, "digest-b");
    let changed_id = changed.id.clone();
    let refused = store
        .elicitations
        .create(changed, &Actor::Host)
        .await
        .expect("changed create");
    assert_eq!(refused, Created::KeyReused);
    assert_eq!(refused.record(), None, "nothing of the first is handed out");
    assert_eq!(
        store.elicitations.get(&changed_id).await.expect("get"),
        None
    );
    assert_eq!(
        store
            .elicitations
            .pending(&filter(&user, "w1", None))
            .await
            .expect("pending")
            .len(),
        3
    );
    // The same key with the same request in another tenant (another person, another workspace,
    // another conversation of the same person) is that tenant's own, never the first tenant's.
    let mut own_records = Vec::new();
    for other in [
        tenant(&other_user, "w1", "c1"),
        tenant(&user, "w2", "c1"),
        tenant(&user, "w1", "c2"),
    ] {
        let theirs = create_new(store.as_ref(), keyed(&other, t0 + 6, "digest-a")).await;
        assert_ne!(theirs.id, original.id);
        assert_eq!(theirs.tenant, other);
        own_records.push(theirs);
    }
    let same_person_other_conversation = own_records.pop().expect("three records");
    assert_eq!(
        ids(&store
            .elicitations
            .pending(&filter(&other_user, "w1", Some("c1")))
            .await
            .expect("pending")),
        [someone_else.id.as_str(), own_records[0].id.as_str()]
    );
    // Concurrent repeats of a fresh key: one record, every caller gets it.
    let racing_key = format!("race-{space}");
    let racers = (0..10).map(|index| {
        let store = Arc::clone(&store);
        let mut new = new_elicitation(&tenant(&user, "w9", "c1"), t0 + index, later);
        new.idempotency_key = Some(racing_key.clone());
        new.request_digest = Some("digest-race".into());
        tokio::spawn(async move {
            let created = store
                .elicitations
                .create(new, &Actor::Host)
                .await
                .expect("racing create");
            (
                matches!(created, Created::New(_)),
                created.record().expect("a record").id.clone(),
            )
        })
    });
    let raced: Vec<(bool, String)> = join_all(racers)
        .await
        .into_iter()
        .map(|joined| joined.expect("task"))
        .collect();
    assert!(raced.iter().all(|(_, id)| *id == raced[0].1), "{raced:?}");
    assert_eq!(
        raced.iter().filter(|(new, _)| *new).count(),
        1,
        "one racer made it, and only it announces"
    );
    assert_eq!(
        store
            .elicitations
            .pending(&filter(&user, "w9", None))
            .await
            .expect("pending")
            .len(),
        1
    );

    // finish: 50 concurrent answers to one elicitation, exactly one wins, is stored, and is the
    // only one to get an event.
    let finishes = (0..50).map(|index| {
        let store = Arc::clone(&store);
        let first = first.clone();
        tokio::spawn(async move {
            let result = json!({"action": "accept", "content": {"name": format!("n{index}")}});
            let won = store
                .elicitations
                .finish(
                    &first,
                    Status::Settled,
                    &result,
                    t0 + 10,
                    &Actor::Relay,
                    None,
                )
                .await
                .expect("finish");
            (won, result)
        })
    });
    let outcomes: Vec<(Option<Event>, Value)> = join_all(finishes)
        .await
        .into_iter()
        .map(|joined| joined.expect("task"))
        .collect();
    let winners: Vec<(&Event, &Value)> = outcomes
        .iter()
        .filter_map(|(won, result)| won.as_ref().map(|event| (event, result)))
        .collect();
    assert_eq!(winners.len(), 1, "exactly one of 50 finishes wins");
    let (winning_event, winning_result) = winners[0];
    assert!(same_change(winning_event, EventKind::Settled, &first));
    let settled = store
        .elicitations
        .get(&first.id)
        .await
        .expect("get")
        .expect("present");
    assert_eq!(settled.status, Status::Settled);
    assert_eq!(settled.result.as_ref(), Some(winning_result));
    assert_eq!(settled.finished_at, Some(t0 + 10));
    assert_eq!(*winning_event.record, settled, "the event carries the row");
    let withdraw = json!({"action": "cancel"});
    assert!(store
        .elicitations
        .finish(
            &first,
            Status::Withdrawn,
            &withdraw,
            t0 + 11,
            &Actor::Relay,
            None
        )
        .await
        .expect("finish")
        .is_none());
    assert_eq!(
        store.elicitations.get(&first.id).await.expect("get"),
        Some(settled)
    );
    assert!(store
        .elicitations
        .finish(&second, Status::Pending, &withdraw, t0, &Actor::Relay, None)
        .await
        .is_err());
    let withdrawn = store
        .elicitations
        .finish(
            &second,
            Status::Withdrawn,
            &withdraw,
            t0 + 12,
            &Actor::Relay,
            None,
        )
        .await
        .expect("withdraw")
        .expect("withdrawn");
    assert!(same_change(&withdrawn, EventKind::Withdrawn, &second));
    assert_eq!(withdrawn.record.status, Status::Withdrawn);
    assert!(store
        .elicitations
        .finish(
            &unknown(&first),
            Status::Settled,
            &withdraw,
            t0,
            &Actor::Relay,
            None
        )
        .await
        .expect("finish unknown")
        .is_none());
    assert_eq!(
        ids(&store
            .elicitations
            .pending(&filter(&user, "w1", None))
            .await
            .expect("pending")),
        [
            original.id.as_str(),
            same_person_other_conversation.id.as_str()
        ]
    );

    // complete: marks once, also after settling; unknown ids are not marked.
    let completed = store
        .elicitations
        .complete(&first, &Actor::Host)
        .await
        .expect("complete")
        .expect("marked");
    assert!(same_change(&completed, EventKind::Complete, &first));
    assert!(completed.record.completed);
    assert!(store
        .elicitations
        .complete(&first, &Actor::Host)
        .await
        .expect("complete again")
        .is_none());
    assert!(store
        .elicitations
        .complete(&unknown(&first), &Actor::Host)
        .await
        .expect("complete unknown")
        .is_none());
    let completed = store
        .elicitations
        .get(&first.id)
        .await
        .expect("get")
        .expect("present");
    assert!(completed.completed);
    assert_eq!(completed.status, Status::Settled);

    // expire_due: only what is due, once, with the element's timeout result, oldest first.
    let due_space = format!("due-{space}");
    let soon = create_new(
        store.as_ref(),
        new_elicitation(&tenant(&due_space, "w1", ""), t0, t0 + 1_000),
    )
    .await;
    let sooner = create_new(
        store.as_ref(),
        new_elicitation(&tenant(&due_space, "w1", ""), t0 - 1, t0 + 1_000),
    )
    .await;
    let not_yet = create_new(
        store.as_ref(),
        new_elicitation(&tenant(&due_space, "w1", ""), t0, t0 + 5_000),
    )
    .await;
    let expired = store
        .elicitations
        .expire_due(t0 + 1_000)
        .await
        .expect("expire");
    let expired_here: Vec<&Event> = expired
        .iter()
        .filter(|event| event.tenant().user_id == due_space)
        .collect();
    assert_eq!(
        expired_here
            .iter()
            .map(|event| event.id())
            .collect::<Vec<_>>(),
        [sooner.id.as_str(), soon.id.as_str()]
    );
    for event in &expired_here {
        assert_eq!(event.kind, EventKind::Expired);
        let record = &event.record;
        assert_eq!(record.status, Status::Expired);
        assert_eq!(record.result, Some(json!({"action": "cancel"})));
        assert_eq!(record.finished_at, Some(t0 + 1_000));
        assert_eq!(
            store
                .elicitations
                .get(&record.id)
                .await
                .expect("get")
                .as_ref(),
            Some(record.as_ref())
        );
    }
    assert!(store
        .elicitations
        .finish(
            &soon,
            Status::Settled,
            &json!({"action": "decline"}),
            t0 + 2_000,
            &Actor::Relay,
            None
        )
        .await
        .expect("finish after expiry")
        .is_none());
    // Ten sweepers at once: the remaining due one expires exactly once.
    let sweeps = (0..10).map(|_| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            store
                .elicitations
                .expire_due(t0 + 5_000)
                .await
                .expect("expire")
        })
    });
    let swept: Vec<String> = join_all(sweeps)
        .await
        .into_iter()
        .flat_map(|joined| joined.expect("task"))
        .filter(|event| event.tenant().user_id == due_space)
        .map(|event| event.id().to_string())
        .collect();
    assert_eq!(swept, [not_yet.id.as_str()]);
    assert!(store
        .elicitations
        .pending(&filter(&due_space, "w1", None))
        .await
        .expect("pending")
        .is_empty());
}

/// Retention: finished ones that finished by the cutoff go, a batch at a time; later ones and
/// pending ones stay; the audit trail keeps every entry.
async fn check_retention(store: &Store) {
    let t0 = now_ms();
    let space = format!("retention-{}", unique());
    let mut finished = Vec::new();
    for (index, status) in [
        Status::Settled,
        Status::Withdrawn,
        Status::Expired,
        Status::Settled,
        Status::Settled,
    ]
    .into_iter()
    .enumerate()
    {
        let record = create_new(
            store,
            new_elicitation(&tenant(&space, "w1", ""), t0, t0 + 600_000),
        )
        .await;
        store
            .elicitations
            .finish(
                &record,
                status,
                &json!({"action": "cancel"}),
                t0 + index as i64,
                &Actor::Host,
                None,
            )
            .await
            .expect("finish")
            .expect("finished");
        finished.push(record.id);
    }
    let later = create_new(
        store,
        new_elicitation(&tenant(&space, "w1", ""), t0, t0 + 600_000),
    )
    .await;
    store
        .elicitations
        .finish(
            &later,
            Status::Settled,
            &json!({"action": "decline"}),
            t0 + 1_000,
            &Actor::Host,
            None,
        )
        .await
        .expect("finish later")
        .expect("finished later");
    let pending = create_new(
        store,
        new_elicitation(&tenant(&space, "w1", ""), t0, t0 + 600_000),
    )
    .await;
    let audited = store.audit.page(0, 1_000).await.expect("audit").len();

    // Cutoff t0 + 10: the five finished by then go, two by two.
    let batches = [
        store
            .elicitations
            .purge_finished(t0 + 10, 2)
            .await
            .expect("purge"),
        store
            .elicitations
            .purge_finished(t0 + 10, 2)
            .await
            .expect("purge"),
        store
            .elicitations
            .purge_finished(t0 + 10, 2)
            .await
            .expect("purge"),
        store
            .elicitations
            .purge_finished(t0 + 10, 2)
            .await
            .expect("purge"),
    ];
    assert_eq!(batches, [2, 2, 1, 0]);
    for id in &finished {
        assert_eq!(
            store.elicitations.get(id).await.expect("get"),
            None,
            "{id} purged"
        );
    }
    assert!(store
        .elicitations
        .get(&later.id)
        .await
        .expect("get")
        .is_some());
    // Pending ones are never purged, whatever the cutoff.
    assert_eq!(
        store
            .elicitations
            .purge_finished(i64::MAX, 100)
            .await
            .expect("purge"),
        1
    );
    assert_eq!(
        ids(&store
            .elicitations
            .pending(&filter(&space, "w1", None))
            .await
            .expect("pending")),
        [pending.id.as_str()]
    );
    assert_eq!(
        store.audit.page(0, 1_000).await.expect("audit").len(),
        audited
    );
}

// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_store_keeps_the_store_promises() {
    let dir = TempDir::new("sqlite");
    let url = format!("sqlite://{}", dir.0.join("relay.db").display());
    let store = Store::open(&url, Outboxes::default()).await.expect("open");
    check_retention(&store).await;
    check_store_promises(Arc::new(store)).await;

    // Reopening the file keeps everything (and the schema statements are idempotent).
    let reopened = Store::open(&url, Outboxes::default())
        .await
        .expect("reopen");
    let count: Vec<Event> = reopened
        .elicitations
        .expire_due(i64::MAX)
        .await
        .expect("expire");
    assert!(
        !count.is_empty(),
        "the reopened file still holds the pending ones"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_in_memory_store_keeps_the_store_promises() {
    // One connection serves every caller: a second one would see a different, empty database.
    let store = Store::open("sqlite::memory:", Outboxes::default())
        .await
        .expect("open");
    check_store_promises(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_store_keeps_the_store_promises() {
    let postgres = Postgres::start();
    let store = Store::open(&postgres.url, Outboxes::default())
        .await
        .expect("connect");
    check_retention(&store).await;
    check_store_promises(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_replicas_share_changes_and_one_writer_wins() {
    let postgres = Postgres::start();
    // Both replicas start at once on a fresh database: schema creation must not race.
    let (a, b) = tokio::join!(replica(&postgres.url), replica(&postgres.url));
    let Replica {
        store: replica_a,
        heard: mut heard_by_a,
        listening: listening_a,
    } = a;
    let Replica {
        store: replica_b,
        heard: mut heard_by_b,
        listening: listening_b,
    } = b;
    let person = tenant("ana", "acme", "chat-1");
    let t0 = now_ms();

    // A change on A reaches B through NOTIFY, as the record B reads once; A announced it itself
    // and its own link skips it.
    let record = create_new(
        replica_a.as_ref(),
        new_elicitation(&person, t0, t0 + 600_000),
    )
    .await;
    let heard = next_event(&mut heard_by_b).await;
    assert!(same_change(&heard, EventKind::Created, &record));
    assert_eq!(*heard.record, record, "B read the whole record");
    assert_quiet(&mut heard_by_a).await;
    assert_eq!(
        ids(&replica_b
            .elicitations
            .pending(&filter("ana", "acme", None))
            .await
            .expect("pending")),
        [record.id.as_str()]
    );

    // Concurrent finishes from both replicas: one winner; the other replica hears one Settled.
    let finishes = (0..40).map(|index| {
        let replica = if index % 2 == 0 {
            Arc::clone(&replica_a)
        } else {
            Arc::clone(&replica_b)
        };
        let record = record.clone();
        tokio::spawn(async move {
            let won = replica
                .elicitations
                .finish(
                    &record,
                    Status::Settled,
                    &json!({"action": "decline", "n": index}),
                    t0,
                    &Actor::Relay,
                    None,
                )
                .await
                .expect("finish");
            (index % 2 == 0, won.is_some())
        })
    });
    let wins: Vec<(bool, bool)> = join_all(finishes)
        .await
        .into_iter()
        .map(|joined| joined.expect("task"))
        .filter(|(_, won)| *won)
        .collect();
    assert_eq!(wins.len(), 1, "one of 40 finishes across two replicas wins");
    let (won_on_a, _) = wins[0];
    let (winner_side, other_side) = if won_on_a {
        (&mut heard_by_a, &mut heard_by_b)
    } else {
        (&mut heard_by_b, &mut heard_by_a)
    };
    let heard = next_event(other_side).await;
    assert!(same_change(&heard, EventKind::Settled, &record));
    assert_eq!(heard.record.status, Status::Settled);
    assert_quiet(other_side).await;
    assert_quiet(winner_side).await;

    // Two replicas sweeping at once expire each due row once.
    let mut due = Vec::new();
    for index in 0..20 {
        due.push(
            create_new(
                replica_a.as_ref(),
                new_elicitation(&tenant("bo", "acme", ""), t0 + index, t0 + 1_000),
            )
            .await,
        );
    }
    let sweeps = (0..6).map(|index| {
        let replica = if index % 2 == 0 {
            Arc::clone(&replica_a)
        } else {
            Arc::clone(&replica_b)
        };
        tokio::spawn(async move {
            replica
                .elicitations
                .expire_due(t0 + 1_000)
                .await
                .expect("expire")
        })
    });
    let mut swept: Vec<String> = join_all(sweeps)
        .await
        .into_iter()
        .flat_map(|joined| joined.expect("task"))
        .map(|event| event.id().to_string())
        .collect();
    swept.sort();
    let mut expected: Vec<String> = due.iter().map(|record| record.id.clone()).collect();
    expected.sort();
    assert_eq!(swept, expected, "every due row expired exactly once");
    // Drain what B heard of A's creates and of A's expiries.
    tokio::time::sleep(Duration::from_millis(500)).await;
    while heard_by_b.try_recv().is_ok() {}
    while heard_by_a.try_recv().is_ok() {}

    // An untrusted NOTIFY on the channel is ignored; the LISTEN task keeps going.
    let raw = sqlx::PgPool::connect(&postgres.url)
        .await
        .expect("raw connection");
    for payload in [
        "garbage",
        "{}",
        r#"{"origin":"x","kind":"settled"}"#,
        r#"{"origin":"x","kind":"settled","id":"no-such-id"}"#,
        "[1,2]",
    ] {
        sqlx::query("SELECT pg_notify('koder_relay_events', $1)")
            .bind(payload)
            .execute(&raw)
            .await
            .expect("notify");
    }
    assert_quiet(&mut heard_by_b).await;
    assert!(listening_b.is_running());

    // Restarting A (drop, reconnect) loses nothing, and B still hears the new A. Dropping A's
    // link ends its LISTEN task: its listening connection goes away.
    assert_eq!(listening_connections(&raw).await, 2);
    drop(listening_a);
    drop(replica_a);
    let deadline = tokio::time::Instant::now() + EVENT_WAIT;
    while listening_connections(&raw).await != 1 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the dropped link's LISTEN connection is closed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let replica_a = Store::open(&postgres.url, Outboxes::default())
        .await
        .expect("reconnect A");
    let reread = replica_a
        .elicitations
        .get(&record.id)
        .await
        .expect("get")
        .expect("kept");
    assert_eq!(reread.status, Status::Settled);
    assert_eq!(
        Some(reread),
        replica_b
            .elicitations
            .get(&record.id)
            .await
            .expect("get on B")
    );
    for expired in &due {
        let kept = replica_a
            .elicitations
            .get(&expired.id)
            .await
            .expect("get")
            .expect("kept");
        assert_eq!(kept.status, Status::Expired);
    }
    assert!(replica_a
        .elicitations
        .complete(&record, &Actor::Host)
        .await
        .expect("complete")
        .is_some());
    let heard = next_event(&mut heard_by_b).await;
    assert!(same_change(&heard, EventKind::Complete, &record));
    assert_quiet(&mut heard_by_b).await;
}

/// Connections whose last statement was a LISTEN on the relay's channel.
async fn listening_connections(pool: &sqlx::PgPool) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity WHERE query ILIKE 'LISTEN %koder_relay_events%'",
    )
    .fetch_one(pool)
    .await
    .expect("pg_stat_activity")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_listen_task_comes_back_after_a_server_restart() {
    let postgres = Postgres::start();
    let replica_a = Store::open(&postgres.url, Outboxes::default())
        .await
        .expect("connect A");
    let Replica {
        store: replica_b,
        heard: mut heard_by_b,
        listening: listening_b,
    } = replica(&postgres.url).await;
    let t0 = now_ms();
    let before = create_new(
        &replica_a,
        new_elicitation(&tenant("cy", "acme", ""), t0, t0 + 600_000),
    )
    .await;
    let heard = next_event(&mut heard_by_b).await;
    assert!(same_change(&heard, EventKind::Created, &before));

    postgres.stop().unwrap_or_else(|error| panic!("{error}"));
    let url = postgres
        .start_again()
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(url, postgres.url, "a restart keeps the port");

    // Changes made right after the restart may be missed while B reconnects; within 30 s a
    // change on A must reach B again.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut heard_again = false;
    let mut resynced = false;
    while !heard_again && tokio::time::Instant::now() < deadline {
        let Ok(after) = replica_a
            .elicitations
            .create(
                new_elicitation(&tenant("cy", "acme", ""), now_ms(), t0 + 600_000),
                &Actor::Host,
            )
            .await
        else {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        loop {
            match tokio::time::timeout(Duration::from_millis(500), heard_by_b.recv()).await {
                Ok(Some(Some(heard)))
                    if Some(heard.id()) == after.record().map(|record| record.id.as_str()) =>
                {
                    heard_again = true;
                    break;
                }
                Ok(Some(Some(_))) => {}
                // B's link came back and it may have missed changes meanwhile: it asks for a
                // resync (the server then ends its streams, which reconnect and replay).
                Ok(Some(None)) => resynced = true,
                _ => break,
            }
        }
    }
    assert!(
        heard_again,
        "B hears A's changes again after the server restarted"
    );
    assert!(
        resynced,
        "B asked to start over, since it may have missed changes while cut off"
    );
    assert!(listening_b.is_running());
    assert_eq!(
        replica_b
            .elicitations
            .get(&before.id)
            .await
            .expect("get")
            .map(|record| record.status),
        Some(Status::Pending),
        "the restart kept the data"
    );
}

// ---------------------------------------------------------------------------------------------
// A database the previous version wrote (commit 5bf4848: a table-wide UNIQUE on
// idempotency_key, no request_digest). Opening it upgrades the table in place and keeps its rows.

const PREVIOUS_SQLITE_SCHEMA: [&str; 3] = [
    "CREATE TABLE IF NOT EXISTS koder_elicitations (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        workspace_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        request TEXT NOT NULL,
        server_name TEXT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        status TEXT NOT NULL,
        result TEXT NULL,
        finished_at BIGINT NULL,
        completed INTEGER NOT NULL DEFAULT 0,
        idempotency_key TEXT NULL UNIQUE
    )",
    "CREATE INDEX IF NOT EXISTS koder_elicitations_tenant
        ON koder_elicitations (user_id, workspace_id, status)",
    "CREATE INDEX IF NOT EXISTS koder_elicitations_due
        ON koder_elicitations (status, expires_at)",
];

const PREVIOUS_POSTGRES_SCHEMA: [&str; 3] = [
    "CREATE TABLE IF NOT EXISTS koder_elicitations (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        workspace_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        request TEXT NOT NULL,
        server_name TEXT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        status TEXT NOT NULL,
        result TEXT NULL,
        finished_at BIGINT NULL,
        completed BOOLEAN NOT NULL DEFAULT false,
        idempotency_key TEXT NULL UNIQUE
    )",
    "CREATE INDEX IF NOT EXISTS koder_elicitations_tenant
        ON koder_elicitations (user_id, workspace_id, status)",
    "CREATE INDEX IF NOT EXISTS koder_elicitations_due
        ON koder_elicitations (status, expires_at)",
];

const PREVIOUS_PENDING: &str = "previous-pending";
const PREVIOUS_SETTLED: &str = "previous-settled";
const PREVIOUS_KEY: &str = "call-1";

/// Rows as the previous version inserted them: one pending for ana with an idempotency key, one
/// settled without.
fn previous_rows(now: i64) -> [String; 2] {
    let columns = "id, user_id, workspace_id, conversation_id, request, server_name, created_at, \
                   expires_at, status, result, finished_at, completed, idempotency_key";
    let request = r#"{"message":"Old?","requestedSchema":{"type":"object","properties":{}}}"#;
    [
        format!(
            "INSERT INTO koder_elicitations ({columns}) VALUES ('{PREVIOUS_PENDING}', 'ana', \
             'acme', 'c1', '{request}', 'old server', {now}, {}, 'pending', NULL, NULL, false, \
             '{PREVIOUS_KEY}')",
            now + 600_000
        ),
        format!(
            "INSERT INTO koder_elicitations ({columns}) VALUES ('{PREVIOUS_SETTLED}', 'ana', \
             'acme', 'c1', '{request}', NULL, {now}, {}, 'settled', '{{\"action\":\"decline\"}}', \
             {now}, false, NULL)",
            now + 600_000
        ),
    ]
}

/// What the upgraded store must show: the old rows as they were, the old key still its
/// tenant's (unchanged: an old row kept no digest to differ from) and free in other tenants,
/// and the old pending one finishes.
async fn check_previous_rows_upgraded(store: &Store, now: i64) {
    let pending = store
        .elicitations
        .pending(&filter("ana", "acme", None))
        .await
        .expect("pending");
    assert_eq!(ids(&pending), [PREVIOUS_PENDING]);
    let previous = pending[0].clone();
    assert_eq!(previous.tenant, tenant("ana", "acme", "c1"));
    assert_eq!(previous.server_name.as_deref(), Some("old server"));
    assert_eq!(previous.created_at, now);
    assert_eq!(previous.request["message"], "Old?");

    let keyed = |tenant: &Tenant, digest: &str| {
        let mut new = new_elicitation(tenant, now, now + 600_000);
        new.idempotency_key = Some(PREVIOUS_KEY.into());
        new.request_digest = Some(digest.into());
        new
    };
    assert_eq!(
        store
            .elicitations
            .create(
                keyed(&tenant("ana", "acme", "c1"), "digest-a"),
                &Actor::Host
            )
            .await
            .expect("repeat"),
        Created::Existing(Box::new(previous.clone()))
    );
    // The table-wide UNIQUE is gone: bob may use ana's key, and gets his own.
    let bobs = create_new(store, keyed(&tenant("bob", "acme", "c1"), "digest-a")).await;
    assert_ne!(bobs.id, PREVIOUS_PENDING);
    // The per-tenant index took its place.
    assert_eq!(
        store
            .elicitations
            .create(
                keyed(&tenant("bob", "acme", "c1"), "digest-b"),
                &Actor::Host
            )
            .await
            .expect("changed repeat"),
        Created::KeyReused
    );

    let previous = store
        .elicitations
        .get(PREVIOUS_PENDING)
        .await
        .expect("get")
        .expect("the previous pending one is there");
    let settled = store
        .elicitations
        .finish(
            &previous,
            Status::Settled,
            &json!({"action": "accept", "content": {}}),
            now + 1,
            &Actor::Relay,
            None,
        )
        .await
        .expect("finish")
        .expect("the previous pending one finishes");
    assert_eq!(settled.record.status, Status::Settled);
    let kept = store
        .elicitations
        .get(PREVIOUS_SETTLED)
        .await
        .expect("get")
        .expect("the settled row is kept");
    assert_eq!(kept.status, Status::Settled);
    assert_eq!(kept.result, Some(json!({"action": "decline"})));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_store_upgrades_a_database_the_previous_version_wrote() {
    let dir = TempDir::new("sqlite-previous");
    let url = format!("sqlite://{}", dir.0.join("relay.db").display());
    let now = now_ms();
    let previous = sqlx::SqlitePool::connect(&format!("{url}?mode=rwc"))
        .await
        .expect("create the previous database");
    for statement in PREVIOUS_SQLITE_SCHEMA
        .into_iter()
        .map(String::from)
        .chain(previous_rows(now))
    {
        sqlx::query(sqlx::AssertSqlSafe(statement))
            .execute(&previous)
            .await
            .expect("previous version's statement");
    }
    previous.close().await;

    let store = Store::open(&url, Outboxes::default())
        .await
        .expect("open upgrades");
    check_previous_rows_upgraded(&store, now).await;
    drop(store);
    // Opening again finds the current shape and changes nothing.
    let reopened = Store::open(&url, Outboxes::default())
        .await
        .expect("reopen");
    let previous = reopened
        .elicitations
        .get(PREVIOUS_PENDING)
        .await
        .expect("get")
        .expect("kept");
    assert_eq!(previous.status, Status::Settled);
    assert_eq!(
        reopened
            .elicitations
            .pending(&filter("bob", "acme", None))
            .await
            .expect("pending")
            .len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_store_upgrades_a_database_the_previous_version_wrote() {
    let postgres = Postgres::start();
    let now = now_ms();
    let previous = sqlx::PgPool::connect(&postgres.url)
        .await
        .expect("raw connection");
    for statement in PREVIOUS_POSTGRES_SCHEMA
        .into_iter()
        .map(String::from)
        .chain(previous_rows(now))
    {
        sqlx::query(sqlx::AssertSqlSafe(statement))
            .execute(&previous)
            .await
            .expect("previous version's statement");
    }

    // Two replicas start at once on the old table: one upgrades it, under the schema lock.
    let (store, other) = tokio::join!(
        Store::open(&postgres.url, Outboxes::default()),
        Store::open(&postgres.url, Outboxes::default())
    );
    let store = store.expect("connect upgrades");
    other.expect("the other replica connects too");
    check_previous_rows_upgraded(&store, now).await;
    let reconnected = Store::open(&postgres.url, Outboxes::default())
        .await
        .expect("reconnect");
    assert_eq!(
        reconnected
            .elicitations
            .get(PREVIOUS_PENDING)
            .await
            .expect("get")
            .map(|record| record.status),
        Some(Status::Settled)
    );
}

// ---------------------------------------------------------------------------------------------
// The audit trail across PostgreSQL replicas: one chain per tenant, pages in commit order.

/// How many backends wait on a lock while running `statement%`.
async fn waiting_on_a_lock(pool: &sqlx::PgPool, statement: &str) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1",
    )
    .bind(format!("{statement}%"))
    .fetch_one(pool)
    .await
    .expect("pg_stat_activity")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_audit_changes_of_others_do_not_wait_and_pages_never_skip_a_late_commit() {
    let postgres = Postgres::start();
    let connect = || store_with_webhooks(&postgres.url);
    let (ana_replica, bob_replica) = (connect().await, connect().await);
    let now = now_ms();
    let mut late = new_elicitation(&tenant("ana", "acme", "c1"), now, now + 600_000);
    late.id = format!("late-{}", unique());
    let late_id = late.id.clone();
    // ana's change (one statement, with its audit record and its webhook row) is held before
    // its commit: an open transaction holds the id of the webhook row it queues.
    let raw = sqlx::PgPool::connect(&postgres.url).await.expect("raw");
    let mut holding = raw.begin().await.expect("begin");
    sqlx::query(
        "INSERT INTO koder_webhook_outbox (id, elicitation_id, event_type, payload, created_at, \
         next_attempt_at) VALUES ($1, $2, 'elicitation.created', '{}', 0, 0)",
    )
    .bind(format!("msg_{late_id}_created"))
    .bind(&late_id)
    .execute(&mut *holding)
    .await
    .expect("hold the webhook id");
    let late_create = tokio::spawn({
        let store = Arc::clone(&ana_replica);
        async move { store.elicitations.create(late, &Actor::Host).await }
    });
    let started = std::time::Instant::now();
    while waiting_on_a_lock(&raw, "WITH changed AS (INSERT INTO koder_elicitations").await == 0 {
        assert!(started.elapsed() < EVENT_WAIT, "ana's change never waited");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // bob's changes, on the other replica, do not wait for ana's.
    tokio::time::timeout(EVENT_WAIT, async {
        for _ in 0..2 {
            create_new(
                bob_replica.as_ref(),
                new_elicitation(&tenant("bob", "acme", "c1"), now, now + 600_000),
            )
            .await;
        }
    })
    .await
    .expect("bob's changes do not wait for ana's");
    let first_page = bob_replica.audit.page(0, 100).await.expect("audit");
    let seqs: Vec<Option<i64>> = first_page.iter().map(|entry| entry.seq).collect();
    assert_eq!(seqs, [Some(1), Some(2)]);
    assert!(first_page.iter().all(|entry| entry.tenant.user_id == "bob"));

    // ana's commits last: the next page has it, after what was shown.
    holding.rollback().await.expect("release");
    let created = late_create
        .await
        .expect("join")
        .expect("ana's change commits");
    assert!(matches!(created, Created::New(_)), "{created:?}");
    let next_page = ana_replica.audit.page(2, 100).await.expect("audit");
    assert_eq!(next_page.len(), 1, "{next_page:?}");
    assert_eq!(next_page[0].seq, Some(3));
    assert_eq!(next_page[0].elicitation_id, late_id);
    assert_eq!(next_page[0].chain_seq, 1);
}

// ---------------------------------------------------------------------------------------------
// The database's clock on PostgreSQL.

const HOUR_MS: i64 = 3_600_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_time_is_told_by_the_databases_clock() {
    let postgres = Postgres::start();
    // On one machine the two clocks agree: the measured offset is small, also when measured again.
    let store = Store::open(&postgres.url, Outboxes::default())
        .await
        .expect("connect");
    assert!(
        store.clock().offset_ms().abs() < 1_000,
        "offset {} ms",
        store.clock().offset_ms()
    );
    store.health.sync_clock().await.expect("measure again");
    assert!(store.clock().offset_ms().abs() < 1_000);
    drop(store);

    // A database whose clock runs an hour ahead of this process: its own clock_timestamp() in
    // `public`, which that database searches before pg_catalog.
    let raw = sqlx::PgPool::connect(&postgres.url)
        .await
        .expect("raw connection");
    for statement in [
        "CREATE DATABASE ahead",
        "ALTER DATABASE ahead SET search_path = public, pg_catalog",
    ] {
        sqlx::query(statement).execute(&raw).await.expect(statement);
    }
    let (server_url, _) = postgres.url.rsplit_once('/').expect("a database name");
    let ahead_url = format!("{server_url}/ahead");
    let ahead = sqlx::PgPool::connect(&ahead_url)
        .await
        .expect("connect to ahead");
    sqlx::query(
        "CREATE FUNCTION public.clock_timestamp() RETURNS timestamptz LANGUAGE sql \
         AS $$ SELECT pg_catalog.clock_timestamp() + interval '1 hour' $$",
    )
    .execute(&ahead)
    .await
    .expect("a clock an hour ahead");

    let store = Store::open(&ahead_url, Outboxes::default())
        .await
        .expect("connect");
    let offset = store.clock().offset_ms();
    assert!(
        (HOUR_MS - 1_000..HOUR_MS + 1_000).contains(&offset),
        "offset {offset} ms"
    );
    let skew = store.now_ms() - now_ms();
    assert!((HOUR_MS - 1_000..HOUR_MS + 1_000).contains(&skew), "{skew}");

    // A relay on that store judges by the database's clock: its sweeper expires one that is due
    // by the database's clock though this process's clock gives it ten more minutes, and keeps
    // one due in ten minutes by the database's clock.
    let server = serve_with_store(
        {
            let mut config = Config::new(SERVICE_TOKEN, "store-test-jwt-secret-0123456789abcdef");
            config.listen = "127.0.0.1:0".parse().expect("address");
            config.database = ahead_url.clone();
            config
        },
        Arc::new(store),
    )
    .await
    .expect("serve");
    let store = Arc::clone(server.store());
    let process_now = now_ms();
    let due = create_new(
        store.as_ref(),
        new_elicitation(
            &tenant("dee", "acme", ""),
            process_now,
            process_now + 600_000,
        ),
    )
    .await;
    let store_now = store.now_ms();
    let not_due = create_new(
        store.as_ref(),
        new_elicitation(&tenant("dee", "acme", ""), store_now, store_now + 600_000),
    )
    .await;
    let deadline = tokio::time::Instant::now() + EVENT_WAIT;
    let expired = loop {
        let record = store
            .elicitations
            .get(&due.id)
            .await
            .expect("get")
            .expect("present");
        if record.status != Status::Pending {
            break record;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the sweeper expires what the database's clock says is due"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(expired.status, Status::Expired);
    let finished_at = expired.finished_at.expect("finished");
    assert!(
        finished_at >= process_now + HOUR_MS - 1_000,
        "finished at the database's time, {} ms after this process's",
        finished_at - process_now
    );
    assert_eq!(
        store
            .elicitations
            .get(&not_due.id)
            .await
            .expect("get")
            .map(|record| record.status),
        Some(Status::Pending)
    );

    // The host API stores the database's time too: expiresAt is an hour and timeoutMs ahead.
    let response = koder_elicitation_relay_client::http_client().expect("an HTTP client")
        .post(format!("{}/v1/elicitations", server.url()))
        .header("authorization", format!("Bearer {SERVICE_TOKEN}"))
        .header("content-type", "application/json")
        .body(
            json!({
                "scope": {"userId": "dee", "workspaceId": "acme"},
                "request": {"message": "Now?", "requestedSchema": {"type": "object", "properties": {}}},
                "timeoutMs": 60_000
            })
            .to_string(),
        )
        .send()
        .await
        .expect("create over HTTP");
    assert_eq!(response.status().as_u16(), 201);
    let created: Value = serde_json::from_str(&response.text().await.expect("body")).expect("JSON");
    let ahead_by = created["expiresAt"].as_i64().expect("expiresAt") - now_ms();
    assert!(
        (HOUR_MS + 59_000..HOUR_MS + 61_000).contains(&ahead_by),
        "expiresAt is {ahead_by} ms ahead"
    );
    server.shutdown().await.expect("shutdown");
}

// ---------------------------------------------------------------------------------------------
// Stream tickets: kept by digest, redeemed once by one statement, capped per person, purged.

fn new_ticket(digest: &str, user: &str, now: i64) -> NewTicket {
    NewTicket {
        digest: digest.into(),
        filter: TenantFilter::new(user, "acme").in_conversation("chat-1"),
        token_expires_at: now + 3_600_000,
        expires_at: now + 30_000,
    }
}

async fn check_ticket_promises(store: &Store) {
    let now = now_ms();
    let prefix = unique();
    let digest = |n: usize| format!("{prefix}-{n}");
    assert!(store
        .tickets
        .issue(&new_ticket(&digest(0), "ana", now), 3, now)
        .await
        .expect("issue"));
    // Redeemed once, with the scope and the token's end it was issued with; then gone.
    assert_eq!(
        store.tickets.redeem(&digest(0), now).await.expect("redeem"),
        Some(RedeemedTicket {
            filter: TenantFilter::new("ana", "acme").in_conversation("chat-1"),
            token_expires_at: now + 3_600_000,
        })
    );
    assert_eq!(
        store.tickets.redeem(&digest(0), now).await.expect("again"),
        None
    );
    assert_eq!(
        store
            .tickets
            .redeem("never-issued", now)
            .await
            .expect("unknown"),
        None
    );

    // An expired ticket is not redeemed, and the purge deletes it.
    let user = format!("expiring-{prefix}");
    assert!(store
        .tickets
        .issue(&new_ticket(&digest(1), &user, now), 3, now)
        .await
        .expect("issue"));
    assert_eq!(
        store
            .tickets
            .redeem(&digest(1), now + 30_000)
            .await
            .expect("late"),
        None
    );
    assert!(store.tickets.purge(now + 30_000).await.expect("purge") >= 1);
    assert_eq!(
        store.tickets.redeem(&digest(1), now).await.expect("purged"),
        None
    );

    // At most `max_live` live ones per person; expired ones do not count; others are not held back.
    let capped = format!("capped-{prefix}");
    for n in 10..13 {
        assert!(store
            .tickets
            .issue(&new_ticket(&digest(n), &capped, now), 3, now)
            .await
            .expect("issue"));
    }
    assert!(!store
        .tickets
        .issue(&new_ticket(&digest(13), &capped, now), 3, now)
        .await
        .expect("over the cap"));
    assert!(store
        .tickets
        .issue(
            &new_ticket(&digest(14), &format!("other-{prefix}"), now),
            3,
            now
        )
        .await
        .expect("someone else"));
    assert!(store
        .tickets
        .issue(
            &new_ticket(&digest(15), &capped, now + 30_000),
            3,
            now + 30_000
        )
        .await
        .expect("once the others expired"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_stream_tickets_work_once_and_are_capped() {
    let dir = TempDir::new("tickets");
    let url = format!("sqlite://{}", dir.0.join("relay.db").display());
    let store = Store::open(&url, Outboxes::default()).await.expect("open");
    check_ticket_promises(&store).await;
    let memory = Store::open("sqlite::memory:", Outboxes::default())
        .await
        .expect("open");
    check_ticket_promises(&memory).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_stream_tickets_work_once_on_any_replica() {
    let postgres = Postgres::start();
    let replica_a = Store::open(&postgres.url, Outboxes::default())
        .await
        .expect("connect A");
    let replica_b = Store::open(&postgres.url, Outboxes::default())
        .await
        .expect("connect B");
    check_ticket_promises(&replica_a).await;

    // Issued on A, redeemed on B; both racing for one ticket: exactly one wins.
    let now = now_ms();
    for round in 0..20 {
        let digest = format!("race-{round}");
        assert!(replica_a
            .tickets
            .issue(&new_ticket(&digest, "ana", now), 32, now)
            .await
            .expect("issue on A"));
        let (on_a, on_b) = tokio::join!(
            replica_a.tickets.redeem(&digest, now),
            replica_b.tickets.redeem(&digest, now)
        );
        let winners = [on_a.expect("redeem on A"), on_b.expect("redeem on B")]
            .into_iter()
            .flatten()
            .count();
        assert_eq!(winners, 1, "round {round}");
    }
}
