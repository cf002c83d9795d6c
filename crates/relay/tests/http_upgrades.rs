//! Upgrades: a database the relay wrote before its schema was versioned (the fixture DDL, as
//! that relay ran it, with a pending elicitation in it) is adopted by this relay, and the pending
//! one lists and is answered over HTTP; a database from a newer relay is refused at start.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use http_support::postgres::Postgres;
use http_support::{city_form, person, Relay, TempDir};
use reqwest::StatusCode;
use serde_json::json;

const BEFORE_SQLITE: &str = include_str!("fixtures/before-migrations-sqlite.sql");
const BEFORE_POSTGRES: &str = include_str!("fixtures/before-migrations-postgres.sql");

const PENDING_ID: &str = "0123456789abcdef0123456789abcdef";

/// The pending row as the relay before migrations inserted it (`completed` is written as 0,
/// which both dialects take for false).
fn pending_row(completed: &str) -> String {
    let now = koder_elicitation_relay_protocol::now_ms();
    format!(
        "INSERT INTO koder_elicitations (id, user_id, workspace_id, conversation_id, request, \
         server_name, created_at, expires_at, status, result, finished_at, completed, \
         idempotency_key, request_digest) VALUES ('{PENDING_ID}', 'ana', 'acme', 'c1', '{}', \
         'weather', {now}, {}, 'pending', NULL, NULL, {completed}, 'call-1', NULL)",
        city_form(),
        now + 600_000
    )
}

/// The adopted database's pending one lists for its person, is answered, and the host reads
/// the answer.
async fn check_pending_is_answered(relay: &Relay) {
    let ana = person("ana", "acme");
    let pending = relay.pending(&ana).await;
    let ids: Vec<&str> = pending
        .iter()
        .filter_map(|item| item["id"].as_str())
        .collect();
    assert_eq!(ids, [PENDING_ID]);
    let answer = json!({"action": "accept", "content": {"city": "Lisbon"}});
    let (status, body) = relay.answer(&ana, PENDING_ID, answer.clone()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "settled");
    let (status, result) = relay.result(PENDING_ID, 0.0).await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["status"], "settled", "{result}");
    assert_eq!(result["result"], answer, "{result}");
    assert!(relay.pending(&ana).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_file_from_before_migrations_is_upgraded_and_answered() {
    let dir = TempDir::new("upgrade-sqlite");
    let url = format!("sqlite://{}", dir.0.join("relay.db").display());
    let before = sqlx::SqlitePool::connect(&format!("{url}?mode=rwc"))
        .await
        .unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(BEFORE_SQLITE))
        .execute(&before)
        .await
        .unwrap();
    sqlx::query(sqlx::AssertSqlSafe(pending_row("0")))
        .execute(&before)
        .await
        .unwrap();
    before.close().await;

    let relay = Relay::start_with(|config| config.database = url.clone()).await;
    check_pending_is_answered(&relay).await;
    drop(relay);
    // Opened again, it is already current: the answer is still there.
    let relay = Relay::start_with(|config| config.database = url.clone()).await;
    let (_, result) = relay.result(PENDING_ID, 0.0).await;
    assert_eq!(result["status"], "settled", "{result}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_database_from_before_migrations_is_upgraded_and_answered() {
    let postgres = Postgres::start();
    let before = sqlx::PgPool::connect(&postgres.url).await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(BEFORE_POSTGRES))
        .execute(&before)
        .await
        .unwrap();
    sqlx::query(sqlx::AssertSqlSafe(pending_row("false")))
        .execute(&before)
        .await
        .unwrap();
    before.close().await;

    // Two replicas start together on it: they take turns, and both serve.
    let url = postgres.url.clone();
    let (relay, other) = tokio::join!(
        Relay::start_with(|config| config.database = url.clone()),
        Relay::start_with(|config| config.database = url.clone())
    );
    check_pending_is_answered(&relay).await;
    let (_, result) = other.result(PENDING_ID, 0.0).await;
    assert_eq!(result["status"], "settled", "{result}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_from_a_newer_relay_is_refused() {
    let dir = TempDir::new("upgrade-newer");
    let path = dir.0.join("relay.db");
    let url = format!("sqlite://{}", path.display());
    drop(Relay::start_with(|config| config.database = url.clone()).await);
    let database = sqlx::SqlitePool::connect(&url).await.unwrap();
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (9999, 'from a newer relay', true, x'00', 0)",
    )
    .execute(&database)
    .await
    .unwrap();
    database.close().await;

    let mut child = Command::new(env!("CARGO_BIN_EXE_koder-elicitation-relay"))
        .args(["--database", &url, "--listen", "127.0.0.1:0"])
        .env(
            "KODER_RELAY_SERVICE_TOKEN",
            "upgrade-service-token-0123456789abcdef",
        )
        .env(
            "KODER_RELAY_JWT_SECRET",
            "upgrade-jwt-secret-0123456789abcdef0123",
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("a relay on a newer database should exit, and still ran after 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!status.success(), "exit status {status}, stderr {stderr}");
    assert!(
        stderr.contains("database schema version 9999 is newer than this relay (knows up to ")
            && stderr.contains("); upgrade the relay"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&output.stdout).is_empty());
}
