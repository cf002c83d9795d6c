//! Load generator for a question to a team (issue 51): numbers only, nothing here asserts a
//! timing.
//!
//! Opens one SSE stream per member of one group (each token carries `groups: ["bench-team"]`),
//! then asks the group one question at a time: the time from the create to the question shown on
//! EVERY member's stream, then one member answers and the time until every other member's stream
//! got `settled` (with `answeredBy`). Prints one JSON object with every figure, and the relay's
//! memory per open stream.
//!
//! ```text
//! cargo run --release -p koder-elicitation-relay --example team_load -- \
//!   --relay http://127.0.0.1:8790 --pid 1234 --service-token T --jwt-secret S \
//!   [--members 1000] [--questions 20]
//! ```
//!
//! `bench/relay.mjs` (`npm run bench:relay`) starts the relay and runs this.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use reqwest::{Client, StatusCode};
use serde_json::{json, Map, Value};
use tokio::sync::{Notify, Semaphore};

mod support;
use support::{millis, mint_token, round3, rss_bytes, summary, warm_up, Failure, WORKSPACE};

/// The group every member is in.
const GROUP: &str = "bench-team";

#[derive(Debug, Clone, clap::Parser)]
#[command(about = "Team load generator for the relay: prints one JSON object with every figure")]
struct Options {
    #[arg(long)]
    relay: String,
    /// The relay's process id: its memory.
    #[arg(long)]
    pid: Option<u32>,
    #[arg(long, env = "KODER_RELAY_SERVICE_TOKEN", hide_env_values = true)]
    service_token: String,
    #[arg(long, env = "KODER_RELAY_JWT_SECRET", hide_env_values = true)]
    jwt_secret: String,
    /// Members of the group, each with an open stream.
    #[arg(long, default_value_t = 1000)]
    members: usize,
    /// Questions asked of the group, one after another.
    #[arg(long, default_value_t = 20)]
    questions: usize,
    /// Seconds to wait for a question to reach every member.
    #[arg(long, default_value_t = 30)]
    give_up: u64,
}

/// What each member's stream saw of the question being measured.
#[derive(Debug, Default)]
struct Round {
    /// The question's server name (`team-<n>`) and id, once created.
    server_name: String,
    id: String,
    shown: HashMap<usize, Instant>,
    settled: HashMap<usize, Instant>,
    /// `settled` events that carried no `answeredBy`, or the answer's content.
    malformed_settles: u64,
}

#[derive(Debug)]
struct Shared {
    round: Mutex<Round>,
    /// Woken on every event that counts toward the round.
    progress: Notify,
    streams_open: AtomicUsize,
    foreign_events: AtomicU64,
}

impl Shared {
    fn round(&self) -> std::sync::MutexGuard<'_, Round> {
        self.round.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Reads one member's stream until it ends, noting when the round's question arrives and ends.
async fn read_stream(shared: Arc<Shared>, member: usize, response: reqwest::Response) {
    shared.streams_open.fetch_add(1, Ordering::SeqCst);
    let body = axum::http::Response::<reqwest::Body>::from(response).into_body();
    let mut events = sse_stream::SseStream::new(body);
    while let Some(Ok(event)) = events.next().await {
        let seen = Instant::now();
        let (Some(kind), Some(data)) = (event.event, event.data) else {
            continue;
        };
        let Ok(data) = serde_json::from_str::<Value>(&data) else {
            continue;
        };
        let mut round = shared.round();
        match kind.as_str() {
            "elicitation"
                if data.get("serverName").and_then(Value::as_str)
                    == Some(round.server_name.as_str()) =>
            {
                round.shown.entry(member).or_insert(seen);
            }
            "settled"
                if !round.id.is_empty()
                    && data.get("id").and_then(Value::as_str) == Some(round.id.as_str()) =>
            {
                if data.get("answeredBy").is_none() || data.get("content").is_some() {
                    round.malformed_settles += 1;
                }
                round.settled.entry(member).or_insert(seen);
            }
            _ => {
                shared.foreign_events.fetch_add(1, Ordering::Relaxed);
                continue;
            }
        }
        drop(round);
        shared.progress.notify_waiters();
    }
    shared.streams_open.fetch_sub(1, Ordering::SeqCst);
}

/// Waits until `done` holds of the round, or `give_up` passes; whether it held.
async fn wait_for(shared: &Shared, give_up: Duration, done: impl Fn(&Round) -> bool) -> bool {
    let deadline = Instant::now() + give_up;
    loop {
        let notified = shared.progress.notified();
        if done(&shared.round()) {
            return true;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        // Bounded: a wake-up that raced the check above is caught on the next pass.
        let _ = tokio::time::timeout(left.min(Duration::from_millis(50)), notified).await;
    }
}

async fn run(options: Options) -> Result<Value, Failure> {
    koder_elicitation_relay_client::install_default_crypto_provider();
    let http = Client::builder()
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(10))
        .build()?;
    let tokens = (0..options.members)
        .map(|member| {
            let mut claims = Map::new();
            claims.insert("groups".into(), json!([GROUP]));
            claims.insert("name".into(), json!(format!("Member {member}")));
            mint_token(&options.jwt_secret, &format!("member-{member:05}"), claims)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let shared = Arc::new(Shared {
        round: Mutex::new(Round::default()),
        progress: Notify::new(),
        streams_open: AtomicUsize::new(0),
        foreign_events: AtomicU64::new(0),
    });
    // Warmed as the load run's relays are, so the baseline is not a cold process.
    warm_up(&options.relay, tokens.first().map_or("", String::as_str)).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_before = options.pid.and_then(rss_bytes);

    // Streams, 50 opening at a time.
    let opening = Arc::new(Semaphore::new(50));
    let mut readers = Vec::with_capacity(options.members);
    for (member, token) in tokens.iter().enumerate() {
        let permit = Arc::clone(&opening).acquire_owned().await?;
        let response = http
            .get(format!("{}/v1/stream", options.relay))
            .bearer_auth(token)
            .header("accept", "text/event-stream")
            .send()
            .await?
            .error_for_status()?;
        drop(permit);
        readers.push(tokio::spawn(read_stream(
            Arc::clone(&shared),
            member,
            response,
        )));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_streams = options.pid.and_then(rss_bytes);
    let give_up = Duration::from_secs(options.give_up);
    let members = options.members;

    let (mut to_each, mut to_all, mut settle_to_all) = (Vec::new(), Vec::new(), Vec::new());
    let (mut not_shown_to_all, mut not_settled_to_all, mut malformed_settles) = (0u64, 0u64, 0u64);
    for question in 0..options.questions {
        *shared.round() = Round {
            server_name: format!("team-{question}"),
            ..Round::default()
        };
        let body = json!({
            "audience": {"groups": [GROUP]},
            "scope": {"workspaceId": WORKSPACE},
            "request": {"method": "elicitation/create", "params": {
                "message": format!("Team bench question {question}"),
                "requestedSchema": {"type": "object", "properties": {
                    "approve": {"type": "boolean", "title": "Approve?"}}},
            }},
            "serverName": format!("team-{question}"),
            "timeoutMs": 600_000,
        });
        let sent = Instant::now();
        let created = http
            .post(format!("{}/v1/elicitations", options.relay))
            .bearer_auth(&options.service_token)
            .json(&body)
            .send()
            .await?;
        if created.status() != StatusCode::CREATED {
            let status = created.status();
            let text = created.text().await.unwrap_or_default();
            return Err(format!("create answered {status}: {text}").into());
        }
        let created: Value = created.json().await?;
        let id = created.get("id").and_then(Value::as_str).unwrap_or("");
        shared.round().id = id.to_string();
        if !wait_for(&shared, give_up, |round| round.shown.len() == members).await {
            not_shown_to_all += 1;
        }
        let answerer = question % members;
        let answer_sent = {
            let round = shared.round();
            let latencies = round.shown.values().map(|shown| millis(*shown - sent));
            to_each.extend(latencies);
            if let Some(last) = round.shown.values().max() {
                to_all.push(millis(*last - sent));
            }
            Instant::now()
        };
        let token = tokens.get(answerer).map_or("", String::as_str);
        let answered = http
            .post(format!("{}/v1/elicitations/{id}/result", options.relay))
            .bearer_auth(token)
            .json(&json!({"action": "accept", "content": {"approve": true}}))
            .send()
            .await?;
        if answered.status() != StatusCode::OK {
            return Err(format!("the answer got {}", answered.status()).into());
        }
        // Every member's stream hears of the settle (the answerer's too).
        if !wait_for(&shared, give_up, |round| round.settled.len() == members).await {
            not_settled_to_all += 1;
        }
        let round = shared.round();
        malformed_settles += round.malformed_settles;
        if let Some(last) = round.settled.values().max() {
            settle_to_all.push(millis(*last - answer_sent));
        }
    }
    let streams_open_at_end = shared.streams_open.load(Ordering::SeqCst);
    for reader in &readers {
        reader.abort();
    }
    let per_stream = rss_before
        .zip(rss_streams)
        .map(|(before, open)| ((open as f64 - before as f64) / members as f64).round());
    Ok(json!({
        "members": members,
        "questions": options.questions,
        "streamsOpenAtEnd": streams_open_at_end,
        "createToShownOnEachMs": summary(to_each),
        "createToShownOnAllMs": summary(to_all),
        "answerToSettledOnAllMs": summary(settle_to_all),
        "notShownToAll": not_shown_to_all,
        "notSettledToAll": not_settled_to_all,
        "malformedSettles": malformed_settles,
        "foreignEvents": shared.foreign_events.load(Ordering::Relaxed),
        "rssBeforeBytes": rss_before,
        "rssStreamsOpenBytes": rss_streams,
        "perStreamBytes": per_stream,
        "perStreamKiB": per_stream.map(|bytes| round3(bytes / 1024.0)),
    }))
}

#[tokio::main]
async fn main() {
    match run(<Options as clap::Parser>::parse()).await {
        Ok(figures) => println!("{figures}"),
        Err(error) => {
            eprintln!("team_load: {error}");
            std::process::exit(1);
        }
    }
}
