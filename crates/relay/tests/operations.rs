//! The relay as an operator runs it: the probes follow PostgreSQL, /metrics counts streams exactly
//! and is guarded on the main address, SIGTERM drains (streams end with `retry:`, a waiting
//! long-poll answers, the process exits in time, nothing pending is lost), and the log has one
//! JSON line per request with its id and never a token. Each against the real binary.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use http_support::postgres::Postgres;
use http_support::{create_body, mint_with, now_secs, TempDir};
use reqwest::{header, StatusCode};
use serde_json::{json, Value};

const TOKEN: &str = "operations-service-token-0123456789abcdef";
const SECRET: &str = "operations-jwt-secret-0123456789abcdef0123";
const BINARY: &str = env!("CARGO_BIN_EXE_koder-elicitation-relay");

/// A person's token for this file's relays.
fn person(user: &str, workspace: &str) -> String {
    mint_with(
        &json!({"sub": user, "workspace": workspace, "exp": now_secs() + 3600,
                "aud": http_support::AUDIENCE}),
        SECRET,
    )
}

// ---------------------------------------------------------------------------------------------
// A relay process: its URL, its stderr lines, killed when dropped.

struct RelayProcess {
    child: Child,
    url: String,
    stderr: Arc<Mutex<Vec<String>>>,
    client: reqwest::Client,
}

impl RelayProcess {
    /// Starts the binary on `database` with `extra` flags; waits for its `listening on` line.
    fn start(cwd: &Path, database: &str, extra: &[&str]) -> RelayProcess {
        let mut child = Command::new(BINARY)
            .current_dir(cwd)
            .env_remove("KODER_RELAY_SERVICE_TOKEN")
            .env_remove("KODER_RELAY_JWT_SECRET")
            .env_remove("KODER_RELAY_DATABASE")
            .env_remove("KODER_RELAY_METRICS_LISTEN")
            .env_remove("KODER_RELAY_DRAIN_TIMEOUT")
            .env_remove("KODER_RELAY_LOG_FORMAT")
            .env("KODER_RELAY_SERVICE_TOKEN", TOKEN)
            .env("KODER_RELAY_JWT_SECRET", SECRET)
            .args(["--listen", "127.0.0.1:0", "--database", database])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the relay");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let lines = Arc::clone(&stderr);
        let pipe = child.stderr.take().expect("stderr");
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                lines.lock().unwrap().push(line);
            }
        });
        let stdout = child.stdout.take().expect("stdout");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let line = receiver
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no `listening on` line: {:?}", stderr.lock().unwrap()));
        let url = line
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        RelayProcess {
            child,
            url,
            stderr,
            client: koder_elicitation_relay_client::http_client().unwrap(),
        }
    }

    fn stderr_lines(&self) -> Vec<String> {
        self.stderr.lock().unwrap().clone()
    }

    /// The JSON log lines so far.
    fn log(&self) -> Vec<Value> {
        self.stderr_lines()
            .iter()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// `http://ADDR` of `--metrics-listen`, from the `listening` log line.
    fn metrics_url(&self) -> String {
        let address = self
            .log()
            .into_iter()
            .find(|line| line["message"] == "listening")
            .and_then(|line| line["metrics_address"].as_str().map(str::to_string))
            .unwrap_or_else(|| panic!("no metrics address in {:?}", self.stderr_lines()));
        format!("http://{address}")
    }

    async fn get(&self, path: &str, token: Option<&str>) -> (StatusCode, String) {
        get(&self.client, &format!("{}{path}", self.url), token).await
    }

    async fn create(&self, body: Value) -> String {
        let response = self
            .client
            .post(format!("{}/v1/elicitations", self.url))
            .bearer_auth(TOKEN)
            .header("content-type", "application/json")
            .body((body).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
        let created: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        created["id"].as_str().unwrap().to_string()
    }

    async fn open_stream(&self, token: &str) -> reqwest::Response {
        self.client
            .get(format!("{}/v1/stream", self.url))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
    }

    fn terminate(&self) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(sent.success());
    }

    /// The exit code once it exits within `within`; `None` when it did not.
    fn wait_exit(&mut self, within: Duration) -> Option<i32> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for RelayProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn get(client: &reqwest::Client, url: &str, token: Option<&str>) -> (StatusCode, String) {
    let mut request = client.get(url).timeout(Duration::from_secs(5));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.text().await.unwrap())
}

/// Reads a streaming response to its end (within `within`), as text.
async fn read_to_end(mut response: reqwest::Response, within: Duration) -> Option<String> {
    let mut text = String::new();
    tokio::time::timeout(within, async {
        while let Ok(Some(chunk)) = response.chunk().await {
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await
    .ok()?;
    Some(text)
}

/// The value of an unlabelled sample in Prometheus text.
fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

/// Polls `url` until it answers `want` (or `within` passes); returns how long it took.
async fn until_status(
    client: &reqwest::Client,
    url: &str,
    want: StatusCode,
    within: Duration,
) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < within {
        let answered = client
            .get(url)
            .timeout(Duration::from_secs(3))
            .send()
            .await
            .map(|response| response.status());
        if answered.ok() == Some(want) {
            return Some(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_follows_postgresql_while_livez_stays_up() {
    let postgres = Postgres::start();
    let temp = TempDir::new("ops-ready");
    let relay = RelayProcess::start(&temp.0, &postgres.url, &[]);
    let livez = format!("{}/livez", relay.url);
    let readyz = format!("{}/readyz", relay.url);
    assert_eq!(relay.get("/livez", None).await.0, StatusCode::OK);
    let (status, body) = relay.get("/readyz", None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let ana = person("ana", "acme");
    let open = relay.open_stream(&ana).await;
    assert_eq!(open.status(), StatusCode::OK);

    postgres.stop().unwrap();
    let took = until_status(
        &relay.client,
        &readyz,
        StatusCode::SERVICE_UNAVAILABLE,
        Duration::from_secs(5),
    )
    .await
    .expect("/readyz turns 503 once PostgreSQL stops");
    assert!(took < Duration::from_secs(2), "/readyz took {took:?}");
    let (status, body) = relay.get("/readyz", None).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    let reason: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(reason["status"], "unready");
    assert!(
        reason["reason"].as_str().is_some_and(|r| !r.is_empty()),
        "{body}"
    );
    assert_eq!(relay.get("/livez", None).await.0, StatusCode::OK);
    // The open stream was ended with a retry: hint, and a new one is turned away for now.
    let ended = read_to_end(open, Duration::from_secs(5))
        .await
        .unwrap_or_else(|| {
            panic!(
                "the stream ended while the link is down: {:?}",
                relay.stderr_lines()
            )
        });
    assert!(ended.contains("retry:"), "{ended:?}");
    let refused = relay.open_stream(&ana).await;
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(refused.headers().contains_key(header::RETRY_AFTER));

    let restarted = postgres.start_again().unwrap();
    assert_eq!(restarted, postgres.url, "a restart keeps the port");
    until_status(
        &relay.client,
        &readyz,
        StatusCode::OK,
        Duration::from_secs(30),
    )
    .await
    .expect("/readyz returns to 200 after PostgreSQL restarts");
    until_status(
        &relay.client,
        &livez,
        StatusCode::OK,
        Duration::from_secs(1),
    )
    .await
    .expect("/livez is 200");
    assert_eq!(relay.open_stream(&ana).await.status(), StatusCode::OK);

    // Another replica's change reaches this one through the LISTEN link, and its lag is measured.
    let other = RelayProcess::start(&temp.0, &postgres.url, &[]);
    other.create(create_body("ana", "acme", "")).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, text) = relay.get("/metrics", Some(TOKEN)).await;
        let heard = sample(&text, "koder_relay_notify_lag_seconds_count");
        if heard == Some(1.0) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the lag of the other's change: {heard:?}\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (_, text) = other.get("/metrics", Some(TOKEN)).await;
    assert_eq!(
        sample(&text, "koder_relay_notify_lag_seconds_count"),
        Some(0.0),
        "a replica's own changes are not heard back"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_open_streams_exactly_and_need_the_token_on_the_main_address() {
    let temp = TempDir::new("ops-metrics");
    let database = format!("sqlite://{}", temp.0.join("relay.db").display());
    let relay = RelayProcess::start(
        &temp.0,
        &database,
        &["--metrics-listen", "127.0.0.1:0", "--log-format", "json"],
    );
    let private = relay.metrics_url();

    let (status, body) = relay.get("/metrics", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(
        relay.get("/metrics", Some(&person("ana", "acme"))).await.0,
        StatusCode::UNAUTHORIZED,
        "a person's token is not the service token"
    );
    let (status, text) = get(&relay.client, &format!("{private}/metrics"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        sample(&text, "koder_relay_streams_open"),
        Some(0.0),
        "{text}"
    );

    let mut streams = Vec::new();
    for index in 0..5 {
        let response = relay
            .open_stream(&person(&format!("user{}", index % 3), "acme"))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        streams.push(response);
    }
    let (status, text) = relay.get("/metrics", Some(TOKEN)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        sample(&text, "koder_relay_streams_open"),
        Some(5.0),
        "{text}"
    );

    drop(streams.drain(..2));
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (_, text) = get(&relay.client, &format!("{private}/metrics"), None).await;
        let open = sample(&text, "koder_relay_streams_open");
        if open == Some(3.0) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "3 streams left open, scraped {open:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // A create and an accepted answer are counted; the other one stays pending.
    let answered = relay.create(create_body("ana", "acme", "")).await;
    relay.create(create_body("ana", "acme", "")).await;
    let response = relay
        .client
        .post(format!("{}/v1/elicitations/{answered}/result", relay.url))
        .bearer_auth(person("ana", "acme"))
        .header("content-type", "application/json")
        .body((json!({"action": "accept", "content": {"city": "Porto"}})).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let (_, text) = relay.get("/metrics", Some(TOKEN)).await;
    assert_eq!(
        sample(&text, "koder_relay_elicitations_created_total"),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            "koder_relay_elicitations_settled_total{outcome=\"accept\"}"
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "koder_relay_elicitations_pending"),
        Some(1.0),
        "{text}"
    );
    assert!(
        text.contains("koder_relay_http_request_duration_seconds_count{method=\"POST\",route=\"/v1/elicitations/{id}/result\"} 1"),
        "requests by route template, not by path: {text}"
    );
    assert!(!text.contains(&answered), "no id in the metrics");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_streams_answers_the_long_poll_and_loses_nothing() {
    let temp = TempDir::new("ops-drain");
    let database = format!("sqlite://{}", temp.0.join("relay.db").display());
    let mut relay = RelayProcess::start(&temp.0, &database, &["--drain-timeout", "5s"]);
    let id = relay.create(create_body("ana", "acme", "")).await;
    let ana = person("ana", "acme");
    let mut streams = Vec::new();
    for _ in 0..2 {
        let response = relay.open_stream(&ana).await;
        assert_eq!(response.status(), StatusCode::OK);
        streams.push(response);
    }
    let poll = {
        let client = relay.client.clone();
        let url = format!("{}/v1/elicitations/{id}/result?wait=30", relay.url);
        tokio::spawn(async move {
            let started = Instant::now();
            let response = client.get(url).bearer_auth(TOKEN).send().await.unwrap();
            let status = response.status();
            let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
            (status, body, started.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;

    let signalled = Instant::now();
    relay.terminate();
    for stream in streams {
        let text = read_to_end(stream, Duration::from_secs(5))
            .await
            .expect("the stream ends on SIGTERM");
        assert!(text.contains("event: elicitation"), "{text:?}");
        assert!(
            text.contains("\nretry:"),
            "ends with a retry: hint: {text:?}"
        );
    }
    let (status, body, waited) = tokio::time::timeout(Duration::from_secs(5), poll)
        .await
        .expect("the long-poll answers on SIGTERM")
        .unwrap();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "pending", "{body}");
    assert!(
        waited < Duration::from_secs(10),
        "the poll waited {waited:?}"
    );
    let code = relay.wait_exit(Duration::from_secs(7));
    assert_eq!(code, Some(0), "exits by itself within the drain timeout");
    assert!(signalled.elapsed() < Duration::from_secs(7));

    let restarted = RelayProcess::start(&temp.0, &database, &[]);
    let (status, body) = restarted
        .get(&format!("/v1/elicitations/{id}/result"), Some(TOKEN))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["status"],
        "pending"
    );
    let (status, body) = restarted
        .get("/v1/elicitations?status=pending", Some(&ana))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains(&id), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_json_line_per_request_with_its_id_and_never_a_token() {
    let temp = TempDir::new("ops-log");
    let database = format!("sqlite://{}", temp.0.join("relay.db").display());
    let mut relay = RelayProcess::start(&temp.0, &database, &["--log-format", "json"]);
    let response = relay
        .client
        .post(format!("{}/v1/elicitations", relay.url))
        .bearer_auth(TOKEN)
        .header("x-request-id", "ops-test-7f3a")
        .header("content-type", "application/json")
        .body((create_body("ana", "acme", "")).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(response.headers()["x-request-id"], "ops-test-7f3a");
    let id = serde_json::from_str::<Value>(&response.text().await.unwrap()).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    // An id that is not sane is replaced by a fresh one.
    let response = relay
        .client
        .get(format!("{}/v1/elicitations?status=pending", relay.url))
        .bearer_auth(person("ana", "acme"))
        .header("x-request-id", "has spaces in it")
        .send()
        .await
        .unwrap();
    let made = response.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(made.len(), 32, "{made}");
    // An answer whose content must not be logged, and a stream ticket in a query string.
    let ana = person("ana", "acme");
    let answer = relay
        .client
        .post(format!("{}/v1/elicitations/{id}/result", relay.url))
        .bearer_auth(&ana)
        .header("content-type", "application/json")
        .body((json!({"action": "accept", "content": {"city": "Secretville"}})).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    let (status, _) = relay
        .get("/v1/stream?ticket=not-a-real-ticket-5c1d", None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    relay.terminate();
    assert_eq!(relay.wait_exit(Duration::from_secs(10)), Some(0));
    // The reader thread has the last lines once the pipe closed.
    std::thread::sleep(Duration::from_millis(200));

    let lines = relay.stderr_lines();
    let log = relay.log();
    assert_eq!(log.len(), lines.len(), "every line is JSON: {lines:?}");
    let tagged: Vec<&Value> = log
        .iter()
        .filter(|line| line["request_id"] == "ops-test-7f3a")
        .collect();
    assert_eq!(tagged.len(), 1, "one line for the request: {lines:?}");
    let line = tagged[0];
    assert_eq!(line["route"], "/v1/elicitations");
    assert_eq!(line["method"], "POST");
    assert_eq!(line["status"], 201);
    assert!(line["latency_ms"].as_f64().is_some(), "{line}");
    assert_eq!(line["level"], "INFO");
    assert!(
        log.iter().any(|line| line["request_id"] == made.as_str()),
        "the made id is logged too"
    );
    let answered = log
        .iter()
        .find(|line| line["route"] == "/v1/elicitations/{id}/result" && line["method"] == "POST")
        .expect("the answer's line");
    assert_eq!(answered["status"], 200);
    let everything = lines.join("\n");
    for secret in [
        TOKEN,
        SECRET,
        ana.as_str(),
        "Secretville",
        "not-a-real-ticket-5c1d",
    ] {
        assert!(!everything.contains(secret), "{secret} is in the log");
    }
    assert!(!everything.contains(&id), "no path with an id is logged");
}

#[tokio::test]
async fn a_draining_relay_is_unready_and_refuses_streams_but_still_serves() {
    let relay = http_support::Relay::start().await;
    let ana = http_support::person("ana", "acme");
    let (status, _) = relay
        .call(reqwest::Method::GET, "/readyz", None, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    relay.server().drain();
    let (status, body) = relay
        .call(reqwest::Method::GET, "/readyz", None, None)
        .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["status"], "unready");
    assert!(
        body["reason"].as_str().unwrap().contains("draining"),
        "{body}"
    );
    let (status, _) = relay.call(reqwest::Method::GET, "/livez", None, None).await;
    assert_eq!(status, StatusCode::OK);
    let refused = relay
        .client
        .get(format!("{}/v1/stream", relay.url))
        .bearer_auth(&ana)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(refused.headers().contains_key(header::RETRY_AFTER));
    // Creates and answers still work: they are in the database, whichever replica serves next.
    let id = relay.create_id(create_body("ana", "acme", "")).await;
    let asked = Instant::now();
    let (status, result) = relay.result(&id, 20.0).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "a long-poll answers at once"
    );
    assert_eq!(result["status"], "pending");
    let answer = json!({"action": "accept", "content": {"city": "Porto"}});
    assert_eq!(relay.answer(&ana, &id, answer).await.0, StatusCode::OK);
}
