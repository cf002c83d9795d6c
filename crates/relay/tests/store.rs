//! Both stores keep the same promises (one set of checks, run against SQLite in a temp file and
//! against a throwaway PostgreSQL from scripts/pg-temp.sh), and PostgreSQL replicas share their
//! changes through NOTIFY while only one writer wins.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::future::join_all;
use koder_elicitation_relay::hub::Hub;
use koder_elicitation_relay::store::postgres::PostgresStore;
use koder_elicitation_relay::store::sqlite::SqliteStore;
use koder_elicitation_relay::store::{
    Event, EventKind, NewElicitation, NewTicket, Record, RedeemedTicket, Status, Store, Tenant,
    TenantFilter,
};
use serde_json::{json, Value};
use tokio::sync::broadcast;

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

/// The next event on `receiver`, failing after [`EVENT_WAIT`].
async fn next_event(receiver: &mut broadcast::Receiver<Event>) -> Event {
    tokio::time::timeout(EVENT_WAIT, receiver.recv())
        .await
        .expect("an event within 5 s")
        .expect("the channel stays open")
}

fn event(kind: EventKind, record: &Record) -> Event {
    Event {
        kind,
        id: record.id.clone(),
        tenant: record.tenant.clone(),
    }
}

/// Nothing more arrives within a short while (catches duplicate events).
async fn assert_quiet(receiver: &mut broadcast::Receiver<Event>) {
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        matches!(
            receiver.try_recv(),
            Err(broadcast::error::TryRecvError::Empty)
        ),
        "no further event expected"
    );
}

// ---------------------------------------------------------------------------------------------
// The one set of checks both stores must pass. `space` keeps the tenants of one run apart.

async fn check_store_promises(store: Arc<dyn Store>) {
    let space = unique();
    let user = format!("user-{space}");
    let other_user = format!("other-{space}");
    let mut events = store.hub().subscribe_tenant(&user, "w1");
    let t0 = now_ms();
    let later = t0 + 600_000;

    // create / get / pending: oldest first whatever the insert order; scoped by user and
    // workspace; a conversation token sees its conversation only.
    let second = store
        .create(new_elicitation(&tenant(&user, "w1", "c2"), t0 + 2, later))
        .await
        .expect("create");
    assert_eq!(
        next_event(&mut events).await,
        event(EventKind::Created, &second)
    );
    let first = store
        .create(new_elicitation(&tenant(&user, "w1", "c1"), t0 + 1, later))
        .await
        .expect("create");
    assert_eq!(
        next_event(&mut events).await,
        event(EventKind::Created, &first)
    );
    let elsewhere = store
        .create(new_elicitation(&tenant(&user, "w2", "c1"), t0, later))
        .await
        .expect("create");
    let someone_else = store
        .create(new_elicitation(&tenant(&other_user, "w1", "c1"), t0, later))
        .await
        .expect("create");
    assert_quiet(&mut events).await; // the other tenants' creations are not this stream's

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
    let original = store.create(keyed).await.expect("create with a key");
    assert_eq!(
        next_event(&mut events).await,
        event(EventKind::Created, &original)
    );
    let mut repeat = new_elicitation(&tenant(&user, "w1", "c1"), t0 + 4, later + 1);
    repeat.idempotency_key = Some(key);
    let repeat_id = repeat.id.clone();
    let answered = store.create(repeat).await.expect("repeat create");
    assert_eq!(answered, original);
    assert_eq!(store.get(&repeat_id).await.expect("get"), None);
    assert_quiet(&mut events).await;
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
        tokio::spawn(async move { store.create(new).await.expect("racing create").id })
    });
    let raced: Vec<String> = join_all(racers)
        .await
        .into_iter()
        .map(|joined| joined.expect("task"))
        .collect();
    assert!(raced.iter().all(|id| *id == raced[0]), "{raced:?}");
    assert_eq!(
        store
            .pending(&filter(&user, "w9", None))
            .await
            .expect("pending")
            .len(),
        1
    );

    // finish: 50 concurrent answers to one elicitation, exactly one wins and is stored.
    let waiter = store.hub().waiter(&first.id);
    let woken = waiter.notified();
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
    let outcomes: Vec<(bool, Value)> = join_all(finishes)
        .await
        .into_iter()
        .map(|joined| joined.expect("task"))
        .collect();
    let winners: Vec<&Value> = outcomes
        .iter()
        .filter(|(won, _)| *won)
        .map(|(_, result)| result)
        .collect();
    assert_eq!(winners.len(), 1, "exactly one of 50 finishes wins");
    tokio::time::timeout(EVENT_WAIT, woken)
        .await
        .expect("the long-poll waiter is woken");
    assert_eq!(
        next_event(&mut events).await,
        event(EventKind::Settled, &first)
    );
    assert_quiet(&mut events).await; // one event for one change
    let settled = store.get(&first.id).await.expect("get").expect("present");
    assert_eq!(settled.status, Status::Settled);
    assert_eq!(settled.result.as_ref(), Some(winners[0]));
    assert_eq!(settled.finished_at, Some(t0 + 10));
    let withdraw = json!({"action": "cancel"});
    assert!(!store
        .finish(&first.id, Status::Withdrawn, &withdraw, t0 + 11)
        .await
        .expect("finish"));
    assert_eq!(store.get(&first.id).await.expect("get"), Some(settled));
    assert!(store
        .finish(&second.id, Status::Pending, &withdraw, t0)
        .await
        .is_err());
    assert!(store
        .finish(&second.id, Status::Withdrawn, &withdraw, t0 + 12)
        .await
        .expect("withdraw"));
    assert_eq!(
        next_event(&mut events).await,
        event(EventKind::Withdrawn, &second)
    );
    assert!(!store
        .finish("no-such-id", Status::Settled, &withdraw, t0)
        .await
        .expect("finish unknown"));
    assert_eq!(
        ids(&store
            .pending(&filter(&user, "w1", None))
            .await
            .expect("pending")),
        [original.id.as_str()]
    );

    // complete: marks once, also after settling; unknown ids are not marked.
    assert!(store.complete(&first.id).await.expect("complete"));
    assert_eq!(
        next_event(&mut events).await,
        event(EventKind::Complete, &first)
    );
    assert!(!store.complete(&first.id).await.expect("complete again"));
    assert!(!store
        .complete("no-such-id")
        .await
        .expect("complete unknown"));
    assert_quiet(&mut events).await;
    let completed = store.get(&first.id).await.expect("get").expect("present");
    assert!(completed.completed);
    assert_eq!(completed.status, Status::Settled);

    // expire_due: only what is due, once, with the element's timeout result.
    let due_space = format!("due-{space}");
    let mut expiring = store.hub().subscribe_tenant(&due_space, "w1");
    let soon = store
        .create(new_elicitation(
            &tenant(&due_space, "w1", ""),
            t0,
            t0 + 1_000,
        ))
        .await
        .expect("create");
    let sooner = store
        .create(new_elicitation(
            &tenant(&due_space, "w1", ""),
            t0 - 1,
            t0 + 1_000,
        ))
        .await
        .expect("create");
    let not_yet = store
        .create(new_elicitation(
            &tenant(&due_space, "w1", ""),
            t0,
            t0 + 5_000,
        ))
        .await
        .expect("create");
    for _ in 0..3 {
        next_event(&mut expiring).await;
    }
    let expired = store.expire_due(t0 + 1_000).await.expect("expire");
    let expired_here: Vec<&Record> = expired
        .iter()
        .filter(|record| record.tenant.user_id == due_space)
        .collect();
    assert_eq!(
        expired_here
            .iter()
            .map(|record| record.id.as_str())
            .collect::<Vec<_>>(),
        [sooner.id.as_str(), soon.id.as_str()]
    );
    for record in &expired_here {
        assert_eq!(record.status, Status::Expired);
        assert_eq!(record.result, Some(json!({"action": "cancel"})));
        assert_eq!(record.finished_at, Some(t0 + 1_000));
        assert_eq!(
            store.get(&record.id).await.expect("get").as_ref(),
            Some(*record)
        );
    }
    assert_eq!(
        next_event(&mut expiring).await,
        event(EventKind::Expired, &sooner)
    );
    assert_eq!(
        next_event(&mut expiring).await,
        event(EventKind::Expired, &soon)
    );
    assert!(!store
        .finish(
            &soon.id,
            Status::Settled,
            &json!({"action": "decline"}),
            t0 + 2_000
        )
        .await
        .expect("finish after expiry"));
    // Ten sweepers at once: the remaining due one expires exactly once.
    let sweeps = (0..10).map(|_| {
        let store = Arc::clone(&store);
        tokio::spawn(async move { store.expire_due(t0 + 5_000).await.expect("expire") })
    });
    let swept: Vec<String> = join_all(sweeps)
        .await
        .into_iter()
        .flat_map(|joined| joined.expect("task"))
        .filter(|record| record.tenant.user_id == due_space)
        .map(|record| record.id)
        .collect();
    assert_eq!(swept, [not_yet.id.as_str()]);
    assert_eq!(
        next_event(&mut expiring).await,
        event(EventKind::Expired, &not_yet)
    );
    assert_quiet(&mut expiring).await;
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
    let store = SqliteStore::open(&url, Hub::default()).await.expect("open");
    check_store_promises(Arc::new(store)).await;

    // Reopening the file keeps everything (and the schema statements are idempotent).
    let reopened = SqliteStore::open(&url, Hub::default())
        .await
        .expect("reopen");
    let count: Vec<Record> = reopened.expire_due(i64::MAX).await.expect("expire");
    assert!(
        !count.is_empty(),
        "the reopened file still holds the pending ones"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_in_memory_store_keeps_the_store_promises() {
    // One connection serves every caller: a second one would see a different, empty database.
    let store = SqliteStore::open("sqlite::memory:", Hub::default())
        .await
        .expect("open");
    check_store_promises(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_store_keeps_the_store_promises() {
    let postgres = Postgres::start();
    let store = PostgresStore::connect(&postgres.url, Hub::default())
        .await
        .expect("connect");
    check_store_promises(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_replicas_share_changes_and_one_writer_wins() {
    let postgres = Postgres::start();
    let hub_a = Hub::default();
    let hub_b = Hub::default();
    // Both replicas start at once on a fresh database: schema creation must not race.
    let (replica_a, replica_b) = tokio::join!(
        PostgresStore::connect(&postgres.url, hub_a.clone()),
        PostgresStore::connect(&postgres.url, hub_b.clone())
    );
    let replica_a = Arc::new(replica_a.expect("connect A"));
    let replica_b = Arc::new(replica_b.expect("connect B"));
    let person = tenant("ana", "acme", "chat-1");
    let mut heard_by_a = hub_a.subscribe_tenant("ana", "acme");
    let mut heard_by_b = hub_b.subscribe_tenant("ana", "acme");
    let t0 = now_ms();

    // A change on A reaches B's hub through NOTIFY, and A's hub exactly once.
    let record = replica_a
        .create(new_elicitation(&person, t0, t0 + 600_000))
        .await
        .expect("create on A");
    assert_eq!(
        next_event(&mut heard_by_b).await,
        event(EventKind::Created, &record)
    );
    assert_eq!(
        next_event(&mut heard_by_a).await,
        event(EventKind::Created, &record)
    );
    assert_quiet(&mut heard_by_a).await;
    assert_eq!(
        ids(&replica_b
            .pending(&filter("ana", "acme", None))
            .await
            .expect("pending")),
        [record.id.as_str()]
    );

    // Concurrent finishes from both replicas: one winner, both hubs hear one Settled.
    let waiter_on_b = hub_b.waiter(&record.id);
    let woken_on_b = waiter_on_b.notified();
    let finishes = (0..40).map(|index| {
        let replica = if index % 2 == 0 {
            Arc::clone(&replica_a)
        } else {
            Arc::clone(&replica_b)
        };
        let id = record.id.clone();
        tokio::spawn(async move {
            replica
                .finish(
                    &id,
                    Status::Settled,
                    &json!({"action": "decline", "n": index}),
                    t0,
                )
                .await
                .expect("finish")
        })
    });
    let wins = join_all(finishes)
        .await
        .into_iter()
        .filter(|joined| *joined.as_ref().expect("task"))
        .count();
    assert_eq!(wins, 1, "one of 40 finishes across two replicas wins");
    tokio::time::timeout(EVENT_WAIT, woken_on_b)
        .await
        .expect("a long-poll on B is woken");
    assert_eq!(
        next_event(&mut heard_by_a).await,
        event(EventKind::Settled, &record)
    );
    assert_eq!(
        next_event(&mut heard_by_b).await,
        event(EventKind::Settled, &record)
    );
    assert_quiet(&mut heard_by_a).await;
    assert_quiet(&mut heard_by_b).await;

    // Two replicas sweeping at once expire each due row once.
    let due: Vec<Record> = join_all((0..20).map(|index| {
        replica_a.create(new_elicitation(
            &tenant("bo", "acme", ""),
            t0 + index,
            t0 + 1_000,
        ))
    }))
    .await
    .into_iter()
    .map(|created| created.expect("create"))
    .collect();
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
        .map(|record| record.id)
        .collect();
    swept.sort();
    let mut expected: Vec<String> = due.iter().map(|record| record.id.clone()).collect();
    expected.sort();
    assert_eq!(swept, expected, "every due row expired exactly once");

    // An untrusted NOTIFY on the channel is ignored; the LISTEN task keeps going.
    let raw = sqlx::PgPool::connect(&postgres.url)
        .await
        .expect("raw connection");
    for payload in [
        "garbage",
        "{}",
        r#"{"origin":"x","kind":"settled"}"#,
        "[1,2]",
    ] {
        sqlx::query("SELECT pg_notify('koder_relay_events', $1)")
            .bind(payload)
            .execute(&raw)
            .await
            .expect("notify");
    }
    assert_quiet(&mut heard_by_b).await;
    assert!(replica_b.is_listening());

    // Restarting A (drop, reconnect) loses nothing, and B still hears the new A. Dropping A
    // ends its LISTEN task: its listening connection goes away.
    assert_eq!(listening_connections(&raw).await, 2);
    drop(replica_a);
    let deadline = tokio::time::Instant::now() + EVENT_WAIT;
    while listening_connections(&raw).await != 1 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the dropped store's LISTEN connection is closed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let replica_a = PostgresStore::connect(&postgres.url, Hub::default())
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
    assert!(replica_a.complete(&record.id).await.expect("complete"));
    assert_eq!(
        next_event(&mut heard_by_b).await,
        event(EventKind::Complete, &record)
    );
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
    let replica_a = PostgresStore::connect(&postgres.url, Hub::default())
        .await
        .expect("connect A");
    let hub_b = Hub::default();
    let replica_b = PostgresStore::connect(&postgres.url, hub_b.clone())
        .await
        .expect("connect B");
    let mut heard_by_b = hub_b.subscribe_tenant("cy", "acme");
    let t0 = now_ms();
    let before = replica_a
        .create(new_elicitation(&tenant("cy", "acme", ""), t0, t0 + 600_000))
        .await
        .expect("create");
    assert_eq!(
        next_event(&mut heard_by_b).await,
        event(EventKind::Created, &before)
    );

    postgres.restart();

    // Changes made right after the restart may be missed while B reconnects; within 30 s a
    // change on A must reach B again.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut heard_again = false;
    let mut streams_ended = false;
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
                Ok(Ok(heard)) if heard.id == after.id => {
                    heard_again = true;
                    break;
                }
                Ok(Ok(_)) => {}
                // B ended its streams when its link came back, since it may have missed
                // changes meanwhile: a stream reconnects and has the pending ones replayed.
                Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) => {
                    streams_ended = true;
                    heard_by_b = hub_b.subscribe_tenant("cy", "acme");
                }
                _ => break,
            }
        }
    }
    assert!(
        heard_again,
        "B hears A's changes again after the server restarted"
    );
    assert!(
        streams_ended,
        "B ended the streams that may have missed changes while it was cut off"
    );
    assert!(replica_b.is_listening());
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

// ---------------------------------------------------------------------------------------------
// Stream tickets: kept by digest, redeemed once by one statement, capped per person, purged.

fn new_ticket(digest: &str, user: &str, now: i64) -> NewTicket {
    NewTicket {
        digest: digest.into(),
        user_id: user.into(),
        workspace_id: "acme".into(),
        conversation_id: Some("chat-1".into()),
        token_expires_at: now + 3_600_000,
        expires_at: now + 30_000,
    }
}

async fn check_ticket_promises(store: &dyn Store) {
    let now = now_ms();
    let prefix = unique();
    let digest = |n: usize| format!("{prefix}-{n}");
    assert!(store
        .issue_ticket(&new_ticket(&digest(0), "ana", now), 3, now)
        .await
        .expect("issue"));
    // Redeemed once, with the scope and the token's end it was issued with; then gone.
    assert_eq!(
        store.redeem_ticket(&digest(0), now).await.expect("redeem"),
        Some(RedeemedTicket {
            user_id: "ana".into(),
            workspace_id: "acme".into(),
            conversation_id: Some("chat-1".into()),
            token_expires_at: now + 3_600_000,
        })
    );
    assert_eq!(
        store.redeem_ticket(&digest(0), now).await.expect("again"),
        None
    );
    assert_eq!(
        store
            .redeem_ticket("never-issued", now)
            .await
            .expect("unknown"),
        None
    );

    // An expired ticket is not redeemed, and the purge deletes it.
    let user = format!("expiring-{prefix}");
    assert!(store
        .issue_ticket(&new_ticket(&digest(1), &user, now), 3, now)
        .await
        .expect("issue"));
    assert_eq!(
        store
            .redeem_ticket(&digest(1), now + 30_000)
            .await
            .expect("late"),
        None
    );
    assert!(store.purge_tickets(now + 30_000).await.expect("purge") >= 1);
    assert_eq!(
        store.redeem_ticket(&digest(1), now).await.expect("purged"),
        None
    );

    // At most `max_live` live ones per person; expired ones do not count; others are not held back.
    let capped = format!("capped-{prefix}");
    for n in 10..13 {
        assert!(store
            .issue_ticket(&new_ticket(&digest(n), &capped, now), 3, now)
            .await
            .expect("issue"));
    }
    assert!(!store
        .issue_ticket(&new_ticket(&digest(13), &capped, now), 3, now)
        .await
        .expect("over the cap"));
    assert!(store
        .issue_ticket(
            &new_ticket(&digest(14), &format!("other-{prefix}"), now),
            3,
            now
        )
        .await
        .expect("someone else"));
    assert!(store
        .issue_ticket(
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
    let store = SqliteStore::open(&url, Hub::default()).await.expect("open");
    check_ticket_promises(&store).await;
    let memory = SqliteStore::open("sqlite::memory:", Hub::default())
        .await
        .expect("open");
    check_ticket_promises(&memory).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_stream_tickets_work_once_on_any_replica() {
    let postgres = Postgres::start();
    let replica_a = PostgresStore::connect(&postgres.url, Hub::default())
        .await
        .expect("connect A");
    let replica_b = PostgresStore::connect(&postgres.url, Hub::default())
        .await
        .expect("connect B");
    check_ticket_promises(&replica_a).await;

    // Issued on A, redeemed on B; both racing for one ticket: exactly one wins.
    let now = now_ms();
    for round in 0..20 {
        let digest = format!("race-{round}");
        assert!(replica_a
            .issue_ticket(&new_ticket(&digest, "ana", now), 32, now)
            .await
            .expect("issue on A"));
        let (on_a, on_b) = tokio::join!(
            replica_a.redeem_ticket(&digest, now),
            replica_b.redeem_ticket(&digest, now)
        );
        let winners = [on_a.expect("redeem on A"), on_b.expect("redeem on B")]
            .into_iter()
            .flatten()
            .count();
        assert_eq!(winners, 1, "round {round}");
    }
}
