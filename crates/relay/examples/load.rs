//! Load generator for the relay (issue 25, item 8). Numbers only: nothing here asserts a timing.
//!
//! Opens one SSE stream per person, then creates elicitations through the host API with bounded
//! concurrency; each host long-polls its result while the person answers the `elicitation` event
//! as soon as it arrives. Every tenth answer is followed by a second, different answer (it must get
//! 409), and every tenth one (offset by five) races two different answers (exactly one may win).
//! With two relays, streams are spread over both, hosts create on one and long-poll on the other,
//! and people answer on their stream's relay. Prints one JSON object with every figure.
//!
//! ```text
//! cargo run --release -p koder-elicitation-relay --example load -- \
//!   --relay http://127.0.0.1:8790 --pid 1234 [--relay URL --pid PID] \
//!   --service-token T --jwt-secret S [--streams 1000] [--elicitations 10000] [--hosts 64] \
//!   [--people N] [--conflict-every 10] [--wait 30] [--give-up 120]
//! ```
//!
//! `bench/relay.mjs` (`npm run bench:relay`) starts the relays and runs this.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use koder_elicitation_relay_client::wire::ElicitationView;
use koder_elicitation_relay_client::{Created, Outcome, RelayClient};
use reqwest::{Client, StatusCode};
use serde_json::{json, Map, Value};
use tokio::sync::Semaphore;

mod support;
use support::{millis, mint_token, round3, rss_bytes, summary, warm_up, Failure, WORKSPACE};

/// Every figure the bench can be told to change.
#[derive(Debug, Clone, clap::Parser)]
#[command(about = "Load generator for the relay: prints one JSON object with every figure")]
struct Options {
    /// A relay's URL (once or twice).
    #[arg(long = "relay", required = true, value_parser = relay_url)]
    relays: Vec<String>,
    /// The relay's process id, in --relay's order: its memory and CPU.
    #[arg(long = "pid")]
    pids: Vec<u32>,
    /// The database server's main process (PostgreSQL's postmaster): its CPU and its children's.
    #[arg(long)]
    db_pid: Option<u32>,
    #[arg(long, env = "KODER_RELAY_SERVICE_TOKEN", hide_env_values = true)]
    service_token: String,
    #[arg(long, env = "KODER_RELAY_JWT_SECRET", hide_env_values = true)]
    jwt_secret: String,
    #[arg(long, default_value_t = 1000, value_parser = at_least::<1>)]
    streams: usize,
    /// Distinct people behind the streams (default: one per stream); fewer people share
    /// the relay's per-person channel, which tells its cost from a connection's.
    #[arg(long, value_parser = at_least::<1>)]
    people: Option<usize>,
    #[arg(long, default_value_t = 10_000)]
    elicitations: usize,
    #[arg(long, default_value_t = 64, value_parser = at_least::<1>)]
    hosts: usize,
    #[arg(long, default_value_t = 10, value_parser = at_least::<2>)]
    conflict_every: usize,
    /// Seconds a host's long-poll waits.
    #[arg(long = "wait", default_value_t = 30)]
    wait_seconds: u64,
    /// Seconds a host keeps polling before it gives up.
    #[arg(long = "give-up", default_value = "120", value_parser = seconds)]
    give_up: Duration,
}

fn relay_url(url: &str) -> Result<String, String> {
    Ok(url.trim_end_matches('/').to_string())
}

fn at_least<const LEAST: usize>(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(count) if count >= LEAST => Ok(count),
        _ => Err(format!("a whole number of at least {LEAST}")),
    }
}

fn seconds(text: &str) -> Result<Duration, std::num::ParseIntError> {
    Ok(Duration::from_secs(text.parse()?))
}

/// One stream's person: their token and the relay the stream (and their answers) use.
#[derive(Debug)]
struct Person {
    user_id: String,
    token: String,
    relay: usize,
}

/// What happened to one elicitation, on the generator's monotonic clock.
#[derive(Debug, Default)]
struct Slot {
    create_sent: Option<Instant>,
    shown: Option<Instant>,
    answer_sent: Option<Instant>,
    host_returned: Option<Instant>,
    /// The answers that got 200 (more than one different answer: settled twice).
    accepted_answers: Vec<String>,
    host_status: Option<String>,
    host_result: Option<Value>,
    /// Whether the event had to cross replicas (created on one, streamed from the other).
    shown_across: bool,
    /// Whether the settle had to cross replicas (answered on one, long-polled on the other).
    settled_across: bool,
}

/// How each kind of second answer went (its JSON is the figure as printed).
#[derive(Debug, Default, serde::Serialize)]
struct Tally {
    sent: AtomicU64,
    got409: AtomicU64,
    got200: AtomicU64,
    other: AtomicU64,
}

impl Tally {
    fn count(&self, status: StatusCode) {
        self.sent.fetch_add(1, Ordering::Relaxed);
        let bucket = match status {
            StatusCode::CONFLICT => &self.got409,
            StatusCode::OK => &self.got200,
            _ => &self.other,
        };
        bucket.fetch_add(1, Ordering::Relaxed);
    }
}

/// Counters every task adds to.
#[derive(Debug, Default)]
struct Counters {
    duplicate_events: AtomicU64,
    misrouted_events: AtomicU64,
    foreign_events: AtomicU64,
    create_errors: AtomicU64,
    answer_errors: AtomicU64,
    poll_errors: AtomicU64,
    polls_still_pending: AtomicU64,
    stream_reconnects: AtomicU64,
    streams_open: AtomicUsize,
    answers_in_flight: AtomicUsize,
    second_answers: Tally,
    raced_answers: Tally,
}

#[derive(Debug)]
struct Shared {
    options: Options,
    people: Vec<Person>,
    slots: Vec<Mutex<Slot>>,
    counters: Counters,
    http: Client,
    /// The hosts' long-polls, one client per relay.
    polls: Vec<RelayClient>,
    stopping: AtomicBool,
}

impl Shared {
    fn slot(&self, seq: usize) -> Option<MutexGuard<'_, Slot>> {
        self.slots
            .get(seq)
            .map(|slot| slot.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The relay `index` names, counting round (the second answer of a race goes to the next).
    fn relay(&self, index: usize) -> &str {
        let relays = &self.options.relays;
        relays.get(index % relays.len()).map_or("", String::as_str)
    }
}

/// What the bench reads of a process's or a thread's `stat` in /proc.
#[derive(Debug)]
struct Stat {
    name: String,
    parent: Option<u32>,
    /// User + system (fields 14 and 15).
    cpu_seconds: f64,
}

fn read_stat(path: impl AsRef<std::path::Path>) -> Option<Stat> {
    let stat = std::fs::read_to_string(path).ok()?;
    let (head, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let number = |index: usize| fields.get(index)?.parse::<u64>().ok();
    // after ")" the fields start at 3 (state), so ppid (4) is index 1, utime (14) index 11 and
    // stime (15) index 12. USER_HZ is 100 on every Linux we run on.
    Some(Stat {
        name: head
            .split_once('(')
            .map_or("?", |(_, name)| name)
            .to_string(),
        parent: number(1).and_then(|ppid| u32::try_from(ppid).ok()),
        cpu_seconds: (number(11)? + number(12)?) as f64 / 100.0,
    })
}

/// User + system CPU seconds of a process (`self`: this one).
fn cpu_seconds(pid: &str) -> Option<f64> {
    Some(read_stat(format!("/proc/{pid}/stat"))?.cpu_seconds)
}

/// CPU seconds of a process and its direct children (PostgreSQL's backends).
fn tree_cpu_seconds(root: u32) -> Option<f64> {
    let mut total = cpu_seconds(&root.to_string())?;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let is_pid = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.bytes().all(|b| b.is_ascii_digit()));
        let child = is_pid
            .then(|| read_stat(entry.path().join("stat")))
            .flatten();
        if let Some(child) = child.filter(|child| child.parent == Some(root)) {
            total += child.cpu_seconds;
        }
    }
    Some(total)
}

/// The whole machine's CPU seconds so far, from /proc/stat.
#[derive(Debug, Clone, Copy)]
struct MachineCpu {
    busy: f64,
    idle: f64,
    stolen: f64,
}

fn machine_cpu() -> Option<MachineCpu> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let ticks: Vec<f64> = line
        .split_whitespace()
        .filter_map(|field| field.parse().ok())
        .collect();
    let field = |index: usize| ticks.get(index).copied().unwrap_or(0.0);
    // user nice system idle iowait irq softirq steal
    Some(MachineCpu {
        busy: (field(0) + field(1) + field(2) + field(5) + field(6)) / 100.0,
        idle: (field(3) + field(4)) / 100.0,
        stolen: field(7) / 100.0,
    })
}

/// One kind of thread's CPU seconds and context switches.
#[derive(Debug, Clone, Copy, Default)]
struct ThreadUsage {
    cpu_seconds: f64,
    voluntary_switches: f64,
    involuntary_switches: f64,
}

/// CPU seconds and context switches of a process's threads, summed by thread name (tokio's
/// workers, sqlx's SQLite workers, …): where a relay's time goes.
fn thread_usage(pid: u32) -> BTreeMap<String, ThreadUsage> {
    let mut usage: BTreeMap<String, ThreadUsage> = BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return usage;
    };
    for task in tasks.flatten() {
        let path = task.path();
        let Some(stat) = read_stat(path.join("stat")) else {
            continue;
        };
        let status = std::fs::read_to_string(path.join("status")).unwrap_or_default();
        let count = |key: &str| {
            let value = status.lines().find_map(|line| line.strip_prefix(key));
            value
                .and_then(|value| value.trim().parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        let entry = usage.entry(stat.name).or_default();
        entry.cpu_seconds += stat.cpu_seconds;
        entry.voluntary_switches += count("voluntary_ctxt_switches:");
        entry.involuntary_switches += count("nonvoluntary_ctxt_switches:");
    }
    usage
}

/// What each kind of thread did between two [`thread_usage`] readings.
fn thread_usage_delta(
    before: &BTreeMap<String, ThreadUsage>,
    after: &BTreeMap<String, ThreadUsage>,
) -> Value {
    let delta = after.iter().map(|(name, now)| {
        let then = before.get(name).copied().unwrap_or_default();
        let usage = json!({
            "cpuSeconds": round3(now.cpu_seconds - then.cpu_seconds),
            "voluntarySwitches": now.voluntary_switches - then.voluntary_switches,
            "involuntarySwitches": now.involuntary_switches - then.involuntary_switches,
        });
        (name.clone(), usage)
    });
    Value::Object(delta.collect())
}

/// Opens one person's stream; `Ok` once the relay answered it with a success status.
async fn open_stream(shared: &Shared, person: &Person) -> Result<reqwest::Response, Failure> {
    let response = shared
        .http
        .get(format!("{}/v1/stream", shared.relay(person.relay)))
        .bearer_auth(&person.token)
        .header("accept", "text/event-stream")
        .send()
        .await?;
    Ok(response.error_for_status()?)
}

/// Reads a person's stream until it ends, answering each new elicitation at once.
async fn read_stream(shared: Arc<Shared>, person_index: usize, response: reqwest::Response) {
    let body = axum::http::Response::<reqwest::Body>::from(response).into_body();
    let mut events = sse_stream::SseStream::new(body);
    while let Some(Ok(event)) = events.next().await {
        if let ("elicitation", Some(data)) = (event.event.as_deref().unwrap_or(""), event.data) {
            on_elicitation(&shared, person_index, &data, Instant::now());
        }
    }
}

fn on_elicitation(shared: &Arc<Shared>, person_index: usize, data: &str, seen: Instant) {
    let counters = &shared.counters;
    let view = serde_json::from_str::<ElicitationView>(data).ok();
    let seq = view.as_ref().and_then(|view| {
        let number = view.server_name.as_deref()?.strip_prefix("bench-")?;
        number.parse::<usize>().ok()
    });
    let (Some(view), Some(seq)) = (view, seq) else {
        counters.foreign_events.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let Some(person) = shared.people.get(person_index) else {
        return;
    };
    let for_user = view.scope.user_id.as_str();
    let target = shared.people.get(seq % shared.people.len());
    if for_user != person.user_id || target.map(|target| target.user_id.as_str()) != Some(for_user)
    {
        counters.misrouted_events.fetch_add(1, Ordering::Relaxed);
        return;
    }
    {
        let Some(mut slot) = shared.slot(seq) else {
            counters.foreign_events.fetch_add(1, Ordering::Relaxed);
            return;
        };
        if slot.shown.is_some() {
            // A replay after a lag or a reconnect: the element ignores ids it already shows.
            counters.duplicate_events.fetch_add(1, Ordering::Relaxed);
            return;
        }
        slot.shown = Some(seen);
    }
    counters.answers_in_flight.fetch_add(1, Ordering::SeqCst);
    let shared = Arc::clone(shared);
    tokio::spawn(async move {
        answer(&shared, person_index, seq, &view.id).await;
        shared
            .counters
            .answers_in_flight
            .fetch_sub(1, Ordering::SeqCst);
    });
}

async fn post_answer(
    shared: &Shared,
    relay: usize,
    token: &str,
    id: &str,
    text: &str,
) -> Result<StatusCode, Failure> {
    let response = shared
        .http
        .post(format!(
            "{}/v1/elicitations/{id}/result",
            shared.relay(relay)
        ))
        .bearer_auth(token)
        .json(&json!({"action": "accept", "content": {"answer": text}}))
        .send()
        .await?;
    let status = response.status();
    response.bytes().await?;
    Ok(status)
}

/// The person's answer; for some, a second different one after it or racing it.
async fn answer(shared: &Shared, person_index: usize, seq: usize, id: &str) {
    let Some(person) = shared.people.get(person_index) else {
        return;
    };
    let (first, second) = (format!("first-{seq}"), format!("second-{seq}"));
    let every = shared.options.conflict_every;
    if let Some(mut slot) = shared.slot(seq) {
        slot.answer_sent = Some(Instant::now());
    }
    if seq % every == every / 2 {
        // Two different answers at once, the second through the other relay when there are two.
        let (a, b) = tokio::join!(
            post_answer(shared, person.relay, &person.token, id, &first),
            post_answer(shared, person.relay + 1, &person.token, id, &second),
        );
        record_answer(shared, seq, first, a, Some(&shared.counters.raced_answers));
        record_answer(shared, seq, second, b, Some(&shared.counters.raced_answers));
        return;
    }
    let answered = post_answer(shared, person.relay, &person.token, id, &first).await;
    if !record_answer(shared, seq, first, answered, None) || !seq.is_multiple_of(every) {
        return;
    }
    let again = post_answer(shared, person.relay, &person.token, id, &second).await;
    record_answer(
        shared,
        seq,
        second,
        again,
        Some(&shared.counters.second_answers),
    );
}

/// Keeps `text` as an accepted answer of `seq` when it got 200, counting its status in `tally`
/// (a second or raced answer) or, without one, counting anything but 200 as an error; whether
/// it got 200.
fn record_answer(
    shared: &Shared,
    seq: usize,
    text: String,
    result: Result<StatusCode, Failure>,
    tally: Option<&Tally>,
) -> bool {
    let accepted = matches!(result, Ok(StatusCode::OK));
    if accepted {
        if let Some(mut slot) = shared.slot(seq) {
            slot.accepted_answers.push(text);
        }
    }
    match (result, tally) {
        (Ok(status), Some(tally)) => tally.count(status),
        (Ok(StatusCode::OK), None) => {}
        _ => {
            shared
                .counters
                .answer_errors
                .fetch_add(1, Ordering::Relaxed);
        }
    }
    accepted
}

/// One host: create, then long-poll (on the other relay when there are two) until it is not pending.
async fn host(shared: &Shared, seq: usize) {
    let counters = &shared.counters;
    let person_index = seq % shared.people.len();
    let Some(person) = shared.people.get(person_index) else {
        return;
    };
    let body = json!({
        "scope": {"userId": person.user_id, "workspaceId": WORKSPACE},
        "request": {
            "method": "elicitation/create",
            "params": {
                "message": format!("Load bench elicitation {seq}"),
                "requestedSchema": {
                    "type": "object",
                    "properties": {"answer": {"type": "string", "title": "Answer"}},
                    "required": ["answer"],
                },
            },
        },
        "serverName": format!("bench-{seq}"),
        "timeoutMs": 600_000,
    });
    // Half the creates land on the person's stream's relay and half on the other; the long-poll
    // is always on the relay the create did not use.
    let relays = shared.options.relays.len();
    let create_relay = (seq / 2) % relays;
    let poll_relay = (create_relay + 1) % relays;
    if let Some(mut slot) = shared.slot(seq) {
        slot.create_sent = Some(Instant::now());
        slot.shown_across = create_relay != person.relay % relays;
        slot.settled_across = poll_relay != person.relay % relays;
    }
    let created = shared
        .http
        .post(format!("{}/v1/elicitations", shared.relay(create_relay)))
        .bearer_auth(&shared.options.service_token)
        .json(&body)
        .send()
        .await;
    let id = match created {
        Ok(response) if response.status() == StatusCode::CREATED => response
            .json::<Created>()
            .await
            .ok()
            .map(|created| created.id),
        _ => None,
    };
    let Some(id) = id else {
        counters.create_errors.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let deadline = Instant::now() + shared.options.give_up;
    let Some(poll) = shared.polls.get(poll_relay) else {
        return;
    };
    while Instant::now() < deadline {
        match poll.result(&id, shared.options.wait_seconds).await {
            Ok(Outcome::Pending) => {
                counters.polls_still_pending.fetch_add(1, Ordering::Relaxed);
            }
            Ok(Outcome::Final { status, result }) => {
                if let Some(mut slot) = shared.slot(seq) {
                    slot.host_returned = Some(Instant::now());
                    slot.host_status = Some(status);
                    slot.host_result = Some(result);
                }
                return;
            }
            Err(_) => {
                counters.poll_errors.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Whether the host's result is exactly the accepted answer `text`.
fn result_is(result: Option<&Value>, text: &str) -> bool {
    result.is_some_and(|result| {
        result.get("action").and_then(Value::as_str) == Some("accept")
            && result.get("content") == Some(&json!({"answer": text}))
    })
}

/// Keeps one person's stream open (reconnecting as the element does) until the bench stops.
async fn keep_stream(shared: Arc<Shared>, person_index: usize, first: reqwest::Response) {
    let mut response = Some(first);
    loop {
        if let Some(response) = response.take() {
            shared.counters.streams_open.fetch_add(1, Ordering::SeqCst);
            read_stream(Arc::clone(&shared), person_index, response).await;
            shared.counters.streams_open.fetch_sub(1, Ordering::SeqCst);
        }
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        let counters = &shared.counters;
        counters.stream_reconnects.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(500)).await;
        let Some(person) = shared.people.get(person_index) else {
            return;
        };
        response = open_stream(&shared, person).await.ok();
    }
}

async fn run(options: Options) -> Result<Value, Failure> {
    let relay_count = options.relays.len();
    let people_count = options.people.unwrap_or(options.streams);
    let people = (0..options.streams)
        .map(|index| {
            let user_id = format!("person-{:05}", index % people_count);
            let token = mint_token(&options.jwt_secret, &user_id, Map::new())?;
            Ok(Person {
                user_id,
                token,
                relay: index % relay_count,
            })
        })
        .collect::<Result<Vec<_>, Failure>>()?;
    // This application's choice, made here: reqwest's rustls is on in this build (the client
    // crate's `rustls` feature, and the workspace's terminal), and needs a process-wide crypto
    // provider to build the client below.
    koder_elicitation_relay_client::install_default_crypto_provider();
    let http = Client::builder()
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(10))
        .pool_idle_timeout(Duration::from_secs(90))
        .build()?;
    let shared = Arc::new(Shared {
        slots: (0..options.elicitations)
            .map(|_| Mutex::new(Slot::default()))
            .collect(),
        people,
        options: options.clone(),
        counters: Counters::default(),
        polls: (options.relays.iter())
            .map(|url| RelayClient::with_http_client(http.clone(), url, &options.service_token))
            .collect(),
        http,
        stopping: AtomicBool::new(false),
    });

    // Each relay warmed before the baseline (support::warm_up says why).
    for (index, relay) in options.relays.iter().enumerate() {
        let token = shared.people.get(index).map_or("", |p| p.token.as_str());
        warm_up(relay, token).await?;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_before: Vec<Option<u64>> = options.pids.iter().map(|&pid| rss_bytes(pid)).collect();

    // 1. Streams, 50 opening at a time.
    let opened_at = Instant::now();
    let opening = Arc::new(Semaphore::new(50));
    let mut openers = Vec::with_capacity(options.streams);
    for person_index in 0..options.streams {
        let shared = Arc::clone(&shared);
        let opening = Arc::clone(&opening);
        openers.push(tokio::spawn(async move {
            let permit = opening.acquire_owned().await.ok();
            let person = shared.people.get(person_index)?;
            let response = open_stream(&shared, person).await.ok()?;
            drop(permit);
            Some(tokio::spawn(keep_stream(
                Arc::clone(&shared),
                person_index,
                response,
            )))
        }));
    }
    let opened = futures_util::future::join_all(openers).await.into_iter();
    let stream_tasks: Vec<_> = opened.filter_map(|opener| opener.ok().flatten()).collect();
    let streams_failed = options.streams - stream_tasks.len();
    let streams_open_seconds = opened_at.elapsed().as_secs_f64();
    // Let the relays finish each stream's replay of pending (none) and settle their allocations.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_streams: Vec<Option<u64>> = options.pids.iter().map(|&pid| rss_bytes(pid)).collect();

    // 2. Elicitations: `hosts` in flight at a time.
    let relay_cpu_before: Vec<Option<f64>> = options
        .pids
        .iter()
        .map(|pid| cpu_seconds(&pid.to_string()))
        .collect();
    let own_cpu_before = cpu_seconds("self");
    let threads_before: Vec<_> = options.pids.iter().map(|&pid| thread_usage(pid)).collect();
    let db_cpu_before = options.db_pid.and_then(tree_cpu_seconds);
    let machine_before = machine_cpu();
    let started = Instant::now();
    let hosts = Arc::new(Semaphore::new(options.hosts));
    let mut host_tasks = Vec::with_capacity(options.elicitations);
    for seq in 0..options.elicitations {
        let permit = Arc::clone(&hosts).acquire_owned().await?;
        let shared = Arc::clone(&shared);
        host_tasks.push(tokio::spawn(async move {
            host(&shared, seq).await;
            drop(permit);
        }));
    }
    for task in host_tasks {
        task.await?;
    }
    // The last answers may still be on their way: up to 30 s more for them.
    let answering = || shared.counters.answers_in_flight.load(Ordering::SeqCst) > 0;
    let answers_due = Instant::now() + Duration::from_secs(30);
    while answering() && Instant::now() < answers_due {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let answers_done = !answering();
    let elapsed = started.elapsed().as_secs_f64();
    let spent = |after: Option<f64>, before: Option<f64>| Some(round3(after? - before?));
    let relay_cpu: Vec<Option<f64>> = (options.pids.iter().zip(&relay_cpu_before))
        .map(|(pid, before)| spent(cpu_seconds(&pid.to_string()), *before))
        .collect();
    let own_cpu = spent(cpu_seconds("self"), own_cpu_before);
    let db_cpu = spent(options.db_pid.and_then(tree_cpu_seconds), db_cpu_before);
    let machine = machine_cpu().zip(machine_before).map(|(after, before)| {
        json!({
            "busySeconds": round3(after.busy - before.busy),
            "idleSeconds": round3(after.idle - before.idle),
            "stealSeconds": round3(after.stolen - before.stolen),
        })
    });
    let threads: Vec<Value> = options
        .pids
        .iter()
        .zip(&threads_before)
        .map(|(&pid, before)| thread_usage_delta(before, &thread_usage(pid)))
        .collect();
    let rss_after: Vec<Option<u64>> = options.pids.iter().map(|&pid| rss_bytes(pid)).collect();
    let streams_open_at_end = shared.counters.streams_open.load(Ordering::SeqCst);
    shared.stopping.store(true, Ordering::SeqCst);
    for task in &stream_tasks {
        task.abort();
    }

    // 3. Figures.
    // Each latency with whether it crossed replicas (two relays only).
    let (mut to_shown, mut to_host) = (Vec::new(), Vec::new());
    let (mut lost, mut settled_twice, mut never_shown, mut host_statuses) =
        (0u64, 0u64, 0u64, BTreeMap::<String, u64>::new());
    for slot in &shared.slots {
        let slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let (Some(sent), Some(shown)) = (slot.create_sent, slot.shown) {
            let latency = millis(shown.saturating_duration_since(sent));
            to_shown.push((latency, slot.shown_across));
        }
        if slot.shown.is_none() {
            never_shown += 1;
        }
        *host_statuses
            .entry(slot.host_status.clone().unwrap_or_else(|| "none".into()))
            .or_default() += 1;
        let winner = slot.accepted_answers.first();
        let twice = slot.accepted_answers.len() > 1
            || (slot.host_status.as_deref() == Some("settled")
                && winner.is_some_and(|text| !result_is(slot.host_result.as_ref(), text)));
        if twice {
            settled_twice += 1;
            continue;
        }
        match (winner, slot.host_status.as_deref()) {
            (Some(text), Some("settled")) if result_is(slot.host_result.as_ref(), text) => {
                if let (Some(answered), Some(returned)) = (slot.answer_sent, slot.host_returned) {
                    let latency = millis(returned.saturating_duration_since(answered));
                    to_host.push((latency, slot.settled_across));
                }
            }
            _ => lost += 1,
        }
    }
    // The summary of the latencies that crossed replicas or not as `across` says, or of all.
    let by_path = |latencies: &[(f64, bool)], across: Option<bool>| {
        let on_path = latencies
            .iter()
            .filter(|(_, crossed)| across.is_none_or(|a| a == *crossed));
        summary(on_path.map(|(latency, _)| *latency).collect())
    };
    let counters = &shared.counters;
    let memory: Vec<Value> = options
        .pids
        .iter()
        .enumerate()
        .map(|(index, pid)| {
            let before = rss_before.get(index).copied().flatten();
            let streams = rss_streams.get(index).copied().flatten();
            let after = rss_after.get(index).copied().flatten();
            let streams_here = shared
                .people
                .iter()
                .filter(|person| person.relay == index)
                .count();
            let per_stream = before
                .zip(streams)
                .map(|(before, streams)| (streams as f64 - before as f64) / streams_here as f64);
            json!({
                "pid": pid,
                "relay": options.relays.get(index),
                "streams": streams_here,
                "rssBeforeBytes": before,
                "rssStreamsOpenBytes": streams,
                "rssAfterRunBytes": after,
                "perStreamBytes": per_stream.map(f64::round),
            })
        })
        .collect();
    let worst_per_stream = memory
        .iter()
        .filter_map(|replica| replica.get("perStreamBytes").and_then(Value::as_f64))
        .max_by(f64::total_cmp);
    Ok(json!({
        "relays": options.relays.len(),
        "streams": options.streams,
        "people": people_count,
        "streamsFailed": streams_failed,
        "streamsOpenSeconds": round3(streams_open_seconds),
        "streamsOpenAtEnd": streams_open_at_end,
        "streamReconnects": counters.stream_reconnects.load(Ordering::Relaxed),
        "elicitations": options.elicitations,
        "hosts": options.hosts,
        "seconds": round3(elapsed),
        "perSecond": round3(options.elicitations as f64 / elapsed),
        "lost": lost,
        "settledTwice": settled_twice,
        "neverShown": never_shown,
        "hostStatuses": host_statuses,
        "secondAnswers": counters.second_answers,
        "racedAnswers": counters.raced_answers,
        "createToShownMs": by_path(&to_shown, None),
        "answerToHostMs": by_path(&to_host, None),
        "byReplicaPath": (relay_count > 1).then(|| json!({
            "createToShownMs": {"sameReplica": by_path(&to_shown, Some(false)), "crossReplica": by_path(&to_shown, Some(true))},
            "answerToHostMs": {"sameReplica": by_path(&to_host, Some(false)), "crossReplica": by_path(&to_host, Some(true))},
        })),
        "memory": memory,
        "perStreamBytes": worst_per_stream.map(f64::round),
        "duplicateEvents": counters.duplicate_events.load(Ordering::Relaxed),
        "misroutedEvents": counters.misrouted_events.load(Ordering::Relaxed),
        "foreignEvents": counters.foreign_events.load(Ordering::Relaxed),
        "errors": {
            "create": counters.create_errors.load(Ordering::Relaxed),
            "answer": counters.answer_errors.load(Ordering::Relaxed),
            "poll": counters.poll_errors.load(Ordering::Relaxed),
        },
        "answersSettledBeforeEnd": answers_done,
        "pollsStillPending": counters.polls_still_pending.load(Ordering::Relaxed),
        "cpuSeconds": {
            "relays": relay_cpu,
            "generator": own_cpu,
            "database": db_cpu,
            "machine": machine,
        },
        "relayThreads": threads,
    }))
}

#[tokio::main]
async fn main() {
    match run(<Options as clap::Parser>::parse()).await {
        Ok(figures) => println!("{figures}"),
        Err(error) => {
            eprintln!("load: {error}");
            std::process::exit(1);
        }
    }
}
