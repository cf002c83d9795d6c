//! Both stores keep the same promises (one set of checks, run against SQLite in a temp file and
//! against a throwaway PostgreSQL from scripts/pg-temp.sh), and PostgreSQL replicas share their
//! changes through NOTIFY while only one writer wins.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::future::join_all;
use koder_elicitation_relay::events::{Event, EventKind, EventSink};
use koder_elicitation_relay::listen::Listening;
use koder_elicitation_relay::store::postgres::PostgresStore;
use koder_elicitation_relay::store::sqlite::SqliteStore;
use koder_elicitation_relay::store::{
    Created, NewElicitation, Record, Status, Store, Tenant, TenantFilter,
};
use serde_json::{json, Value};
use tokio::sync::mpsc;

const EVENT_WAIT: Duration = Duration::from_secs(5);

// ---------------------------------------------------------------------------------------------
// Fixtures: a temp dir that removes itself, and a PostgreSQL that stops itself.

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("koder-relay-store-{tag}-{}", unique()));
        std::fs::create_dir_all(&path).expect("create a temp dir");
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A PostgreSQL started by scripts/pg-temp.sh; stopped on drop, also when a check failed.
struct Postgres {
    dir: TempDir,
    url: String,
}

fn pg_temp(action: &str, dir: &TempDir) -> Result<String, String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/pg-temp.sh");
    let output = Command::new("bash")
        .arg(script)
        .arg(action)
        .arg(&dir.0)
        .output()
        .map_err(|error| format!("cannot run {script}: {error}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    } else {
        Err(format!(
            "scripts/pg-temp.sh {action} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

impl Postgres {
    fn start() -> Postgres {
        let dir = TempDir::new("pg");
        let started = std::time::Instant::now();
        let url = pg_temp("start", &dir).unwrap_or_else(|error| {
            panic!("PostgreSQL is required for these tests and could not start: {error}")
        });
        eprintln!("PostgreSQL started in {:?} at {url}", started.elapsed());
        Postgres { dir, url }
    }

    fn stop(&self) {
        pg_temp("stop", &self.dir).unwrap_or_else(|error| panic!("{error}"));
    }

    fn restart(&self) {
        self.stop();
        let url = pg_temp("start", &self.dir).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(url, self.url, "a restart keeps the port");
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if let Err(error) = pg_temp("stop", &self.dir) {
            eprintln!("{error}");
        }
    }
}

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
    store: Arc<PostgresStore>,
    heard: mpsc::UnboundedReceiver<Heard>,
    listening: Listening,
}

async fn replica(url: &str) -> Replica {
    let store = Arc::new(PostgresStore::connect(url).await.expect("connect"));
    let (sender, heard) = mpsc::unbounded_channel();
    let listening = Listening::start(
        url,
        store.origin(),
        Arc::clone(&store) as Arc<dyn Store>,
        Arc::new(Recorder(sender)),
    )
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
async fn create_new(store: &dyn Store, new: NewElicitation) -> Record {
    match store.create(new).await.expect("create") {
        Created::New(event) => {
            assert_eq!(event.kind, EventKind::Created);
            (*event.record).clone()
        }
        Created::Existing(record) => panic!("expected a new record, got {record:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// The one set of checks both stores must pass. `space` keeps the tenants of one run apart.

async fn check_store_promises(store: Arc<dyn Store>) {
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
        store.get(&first.id).await.expect("get"),
        Some(first.clone())
    );
    assert_eq!(store.get("no-such-id").await.expect("get"), None);

    let everything = store
        .pending(&filter(&user, "w1", None))
        .await
        .expect("pending");
    assert_eq!(ids(&everything), [first.id.as_str(), second.id.as_str()]);
    assert_eq!(everything, [first.clone(), second.clone()]);
    let one_conversation = store
        .pending(&filter(&user, "w1", Some("c2")))
        .await
        .expect("pending");
    assert_eq!(ids(&one_conversation), [second.id.as_str()]);
    let other_workspace = store
        .pending(&filter(&user, "w2", None))
        .await
        .expect("pending");
    assert_eq!(ids(&other_workspace), [elsewhere.id.as_str()]);
    let other_person = store
        .pending(&filter(&other_user, "w1", Some("c1")))
        .await
        .expect("pending");
    assert_eq!(ids(&other_person), [someone_else.id.as_str()]);
    assert!(store
        .pending(&filter(&user, "w1", Some("c3")))
        .await
        .expect("pending")
        .is_empty());

    // Idempotency: a repeat with the same key returns the first record and creates nothing.
    let key = format!("key-{space}");
    let mut keyed = new_elicitation(&tenant(&user, "w1", "c1"), t0 + 3, later);
    keyed.idempotency_key = Some(key.clone());
    let original = create_new(store.as_ref(), keyed).await;
    let mut repeat = new_elicitation(&tenant(&user, "w1", "c1"), t0 + 4, later + 1);
    repeat.idempotency_key = Some(key);
    let repeat_id = repeat.id.clone();
    let answered = store.create(repeat).await.expect("repeat create");
    assert_eq!(answered, Created::Existing(Box::new(original.clone())));
    assert_eq!(store.get(&repeat_id).await.expect("get"), None);
    assert_eq!(
        store
            .pending(&filter(&user, "w1", None))
            .await
            .expect("pending")
            .len(),
        3
    );
    // Concurrent repeats of a fresh key: one record, every caller gets it.
    let racing_key = format!("race-{space}");
    let racers = (0..10).map(|index| {
        let store = Arc::clone(&store);
        let mut new = new_elicitation(&tenant(&user, "w9", "c1"), t0 + index, later);
        new.idempotency_key = Some(racing_key.clone());
        tokio::spawn(async move {
            let created = store.create(new).await.expect("racing create");
            (
                matches!(created, Created::New(_)),
                created.record().id.clone(),
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
        let id = first.id.clone();
        tokio::spawn(async move {
            let result = json!({"action": "accept", "content": {"name": format!("n{index}")}});
            let won = store
                .finish(&id, Status::Settled, &result, t0 + 10)
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
    let settled = store.get(&first.id).await.expect("get").expect("present");
    assert_eq!(settled.status, Status::Settled);
    assert_eq!(settled.result.as_ref(), Some(winning_result));
    assert_eq!(settled.finished_at, Some(t0 + 10));
    assert_eq!(*winning_event.record, settled, "the event carries the row");
    let withdraw = json!({"action": "cancel"});
    assert!(store
        .finish(&first.id, Status::Withdrawn, &withdraw, t0 + 11)
        .await
        .expect("finish")
        .is_none());
    assert_eq!(store.get(&first.id).await.expect("get"), Some(settled));
    assert!(store
        .finish(&second.id, Status::Pending, &withdraw, t0)
        .await
        .is_err());
    let withdrawn = store
        .finish(&second.id, Status::Withdrawn, &withdraw, t0 + 12)
        .await
        .expect("withdraw")
        .expect("withdrawn");
    assert!(same_change(&withdrawn, EventKind::Withdrawn, &second));
    assert_eq!(withdrawn.record.status, Status::Withdrawn);
    assert!(store
        .finish("no-such-id", Status::Settled, &withdraw, t0)
        .await
        .expect("finish unknown")
        .is_none());
    assert_eq!(
        ids(&store
            .pending(&filter(&user, "w1", None))
            .await
            .expect("pending")),
        [original.id.as_str()]
    );

    // complete: marks once, also after settling; unknown ids are not marked.
    let completed = store
        .complete(&first.id)
        .await
        .expect("complete")
        .expect("marked");
    assert!(same_change(&completed, EventKind::Complete, &first));
    assert!(completed.record.completed);
    assert!(store
        .complete(&first.id)
        .await
        .expect("complete again")
        .is_none());
    assert!(store
        .complete("no-such-id")
        .await
        .expect("complete unknown")
        .is_none());
    let completed = store.get(&first.id).await.expect("get").expect("present");
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
    let expired = store.expire_due(t0 + 1_000).await.expect("expire");
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
            store.get(&record.id).await.expect("get").as_ref(),
            Some(record.as_ref())
        );
    }
    assert!(store
        .finish(
            &soon.id,
            Status::Settled,
            &json!({"action": "decline"}),
            t0 + 2_000
        )
        .await
        .expect("finish after expiry")
        .is_none());
    // Ten sweepers at once: the remaining due one expires exactly once.
    let sweeps = (0..10).map(|_| {
        let store = Arc::clone(&store);
        tokio::spawn(async move { store.expire_due(t0 + 5_000).await.expect("expire") })
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
        .pending(&filter(&due_space, "w1", None))
        .await
        .expect("pending")
        .is_empty());
}

// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_store_keeps_the_store_promises() {
    let dir = TempDir::new("sqlite");
    let url = format!("sqlite://{}", dir.0.join("relay.db").display());
    let store = SqliteStore::open(&url).await.expect("open");
    check_store_promises(Arc::new(store)).await;

    // Reopening the file keeps everything (and the schema statements are idempotent).
    let reopened = SqliteStore::open(&url).await.expect("reopen");
    let count: Vec<Event> = reopened.expire_due(i64::MAX).await.expect("expire");
    assert!(
        !count.is_empty(),
        "the reopened file still holds the pending ones"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_in_memory_store_keeps_the_store_promises() {
    // One connection serves every caller: a second one would see a different, empty database.
    let store = SqliteStore::open("sqlite::memory:").await.expect("open");
    check_store_promises(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_store_keeps_the_store_promises() {
    let postgres = Postgres::start();
    let store = PostgresStore::connect(&postgres.url)
        .await
        .expect("connect");
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
        let id = record.id.clone();
        tokio::spawn(async move {
            let won = replica
                .finish(
                    &id,
                    Status::Settled,
                    &json!({"action": "decline", "n": index}),
                    t0,
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
        tokio::spawn(async move { replica.expire_due(t0 + 1_000).await.expect("expire") })
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
    let replica_a = PostgresStore::connect(&postgres.url)
        .await
        .expect("reconnect A");
    let reread = replica_a.get(&record.id).await.expect("get").expect("kept");
    assert_eq!(reread.status, Status::Settled);
    assert_eq!(
        Some(reread),
        replica_b.get(&record.id).await.expect("get on B")
    );
    for expired in &due {
        let kept = replica_a
            .get(&expired.id)
            .await
            .expect("get")
            .expect("kept");
        assert_eq!(kept.status, Status::Expired);
    }
    assert!(replica_a
        .complete(&record.id)
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
    let replica_a = PostgresStore::connect(&postgres.url)
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

    postgres.restart();

    // Changes made right after the restart may be missed while B reconnects; within 30 s a
    // change on A must reach B again.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut heard_again = false;
    let mut resynced = false;
    while !heard_again && tokio::time::Instant::now() < deadline {
        let Ok(after) = replica_a
            .create(new_elicitation(
                &tenant("cy", "acme", ""),
                now_ms(),
                t0 + 600_000,
            ))
            .await
        else {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        loop {
            match tokio::time::timeout(Duration::from_millis(500), heard_by_b.recv()).await {
                Ok(Some(Some(heard))) if heard.id() == after.record().id => {
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
            .get(&before.id)
            .await
            .expect("get")
            .map(|record| record.status),
        Some(Status::Pending),
        "the restart kept the data"
    );
}
