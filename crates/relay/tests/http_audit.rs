//! The audit trail as an auditor meets it: `GET /v1/audit` names who did what and holds no
//! content; `koder-elicitation-relay audit verify` passes on intact chains and names the entry
//! edited, deleted or swapped by hand; `GET /v1/audit/checkpoint` gives a hash that `audit verify
//! --checkpoint` holds the trail against, catching newest entries cut off; two PostgreSQL
//! replicas append at once and their chains verify; a trail written before per-tenant chains
//! migrates and still verifies; a running relay seals what changes record without anyone
//! reading, and one stopped before sealing seals it when it starts again.

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
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use http_support::postgres::Postgres;
use http_support::{create_body, person, Relay, TempDir, JWT_SECRET, SERVICE_TOKEN};
use koder_elicitation_relay::audit::GENESIS_HASH;
use koder_elicitation_relay::canonical::sha256_hex;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_koder-elicitation-relay");

/// `audit verify` on `database`: (exit code, stdout, stderr).
fn verify(database: &str) -> (Option<i32>, String, String) {
    verify_with(database, &[])
}

/// `audit verify` on `database` with more arguments.
fn verify_with(database: &str, more: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(BINARY)
        .args(["audit", "verify", "--database", database])
        .args(more)
        .env_remove("KODER_RELAY_DATABASE")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `GET /v1/audit` with the service token: the entries, one per line.
async fn audit(relay: &Relay, query: &str) -> Vec<Value> {
    audit_of(&relay.client, &relay.url, query).await
}

/// `GET /v1/audit` on the relay at `base_url` with the service token: the entries, one per line.
async fn audit_of(client: &reqwest::Client, base_url: &str, query: &str) -> Vec<Value> {
    let response = client
        .get(format!("{base_url}/v1/audit{query}"))
        .bearer_auth(SERVICE_TOKEN)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    assert_eq!(status, StatusCode::OK, "{text}");
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Runs `statements` on `database` (SQLite or PostgreSQL) as someone with write access would.
async fn tamper(database: &str, statements: &[String]) {
    if database.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(database).await.unwrap();
        for statement in statements {
            sqlx::query(sqlx::AssertSqlSafe(statement.clone()))
                .execute(&pool)
                .await
                .unwrap();
        }
        pool.close().await;
    } else {
        let pool = sqlx::PgPool::connect(database).await.unwrap();
        for statement in statements {
            sqlx::query(sqlx::AssertSqlSafe(statement.clone()))
                .execute(&pool)
                .await
                .unwrap();
        }
        pool.close().await;
    }
}

/// A careful cut: every entry after `seq` deleted, and the chains' heads rewritten to match,
/// so each chain is intact and reaches its head.
fn cut_back_to(seq: i64) -> Vec<String> {
    vec![
        format!("DELETE FROM koder_audit WHERE seq > {seq}"),
        "DELETE FROM koder_audit_heads WHERE chain NOT IN (SELECT chain FROM koder_audit)".into(),
        "UPDATE koder_audit_heads SET chain_seq = (SELECT max(a.chain_seq) FROM koder_audit a \
         WHERE a.chain = koder_audit_heads.chain)"
            .into(),
    ]
}

/// `GET /v1/audit/checkpoint` on `base_url` until it covers `seq` (within 10 s).
async fn checkpoint_covering(client: &reqwest::Client, base_url: &str, seq: i64) -> Value {
    let started = Instant::now();
    loop {
        let response = client
            .get(format!("{base_url}/v1/audit/checkpoint"))
            .bearer_auth(SERVICE_TOKEN)
            .send()
            .await
            .unwrap();
        if response.status() == StatusCode::OK {
            let checkpoint: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
            if checkpoint["seq"] == seq {
                return checkpoint;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no checkpoint covering seq {seq} within 10 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn field<'v>(entries: &'v [Value], name: &str) -> Vec<&'v str> {
    entries
        .iter()
        .map(|entry| entry[name].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_trail_names_the_answering_person_holds_no_content_and_verifies() {
    let relay = Relay::start().await;
    let database = format!("sqlite://{}", relay.dir.join("relay.db").display());
    let answered = relay.create_id(create_body("ana", "acme", "c1")).await;
    let ana = person("ana", "acme");
    let (status, body) = relay
        .answer(
            &ana,
            &answered,
            json!({"action": "accept", "content": {"city": "Lisbon-7f3a"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let withdrawn = relay.create_id(create_body("ana", "acme", "c1")).await;
    let (status, body) = relay
        .call(
            Method::DELETE,
            &format!("/v1/elicitations/{withdrawn}"),
            Some(SERVICE_TOKEN),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (status, text) = relay
        .call_text(Method::GET, "/v1/audit", Some(SERVICE_TOKEN), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(!text.contains("Lisbon-7f3a"), "no answer content: {text}");
    assert!(!text.contains("Which city?"), "no request content: {text}");
    let entries = audit(&relay, "").await;
    let seqs: Vec<i64> = entries.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, [1, 2, 3, 4]);
    assert_eq!(
        field(&entries, "action"),
        ["created", "answered:accept", "created", "withdrawn"]
    );
    assert_eq!(
        field(&entries, "actor"),
        ["host", "person:ana", "host", "host"]
    );
    assert_eq!(
        field(&entries, "elicitationId"),
        [&answered, &answered, &withdrawn, &withdrawn].map(String::as_str)
    );
    assert_eq!(
        entries[1]["scope"],
        json!({"userId": "ana", "workspaceId": "acme", "conversationId": "c1"})
    );
    assert_eq!(entries[1]["prevHash"], entries[0]["hash"]);
    assert_eq!(entries[1]["digest"].as_str().unwrap().len(), 64);
    // ana's chain, in order.
    assert!(entries
        .iter()
        .all(|entry| entry["chain"] == r#"["ana","acme"]"#));
    let places: Vec<i64> = entries
        .iter()
        .map(|e| e["chainSeq"].as_i64().unwrap())
        .collect();
    assert_eq!(places, [1, 2, 3, 4]);

    // Paging, and only hosts may read it.
    assert_eq!(
        field(&audit(&relay, "?after=2&limit=1").await, "action"),
        ["created"]
    );
    assert!(audit(&relay, "?after=4").await.is_empty());
    let (status, _) = relay
        .call_text(Method::GET, "/v1/audit?limit=0", Some(SERVICE_TOKEN), None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = relay
        .call_text(Method::GET, "/v1/audit", Some(&ana), None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let (code, stdout, stderr) = verify(&database);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.starts_with("audit chain intact: 4 entries"),
        "{stdout}"
    );

    // Edited by hand: the answering person is changed.
    let raw = sqlx::SqlitePool::connect(&database).await.unwrap();
    let edit = |sql: &'static str| {
        let raw = raw.clone();
        async move { sqlx::query(sql).execute(&raw).await.unwrap() }
    };
    edit("UPDATE koder_audit SET actor = 'person:mallory' WHERE seq = 2").await;
    let (code, stdout, stderr) = verify(&database);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stderr.contains("audit chain broken at seq 2"), "{stderr}");
    // Put back, it verifies again: the check is exact, not a guess.
    edit("UPDATE koder_audit SET actor = 'person:ana' WHERE seq = 2").await;
    assert_eq!(verify(&database).0, Some(0));
    // Two entries swapped: the answer put before its creation.
    let swap = [
        "UPDATE koder_audit SET seq = -1, chain_seq = -1 WHERE seq = 1",
        "UPDATE koder_audit SET seq = 1, chain_seq = 1 WHERE seq = 2",
        "UPDATE koder_audit SET seq = 2, chain_seq = 2 WHERE seq = -1",
    ];
    for statement in swap {
        edit(statement).await;
    }
    let (code, stdout, stderr) = verify(&database);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stderr.contains("audit chain broken at seq 1"), "{stderr}");
    for statement in swap {
        edit(statement).await;
    }
    assert_eq!(verify(&database).0, Some(0));
    // Deleted by hand.
    edit("DELETE FROM koder_audit WHERE seq = 3").await;
    let (code, _, stderr) = verify(&database);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("audit chain broken at seq 3"), "{stderr}");
    raw.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkpoints_need_the_service_token_and_catch_newest_entries_cut_off() {
    let mut relay = Relay::start_with(|config| {
        config.audit_checkpoint_interval = Duration::from_millis(100);
    })
    .await;
    let database = format!("sqlite://{}", relay.dir.join("relay.db").display());
    let ana = person("ana", "acme");
    for token in [None, Some(ana.as_str())] {
        let (status, _) = relay
            .call_text(Method::GET, "/v1/audit/checkpoint", token, None)
            .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    // Two people's changes: two chains.
    let first = relay.create_id(create_body("ana", "acme", "c1")).await;
    relay.create_id(create_body("bob", "acme", "c1")).await;
    let (status, body) = relay
        .answer(&ana, &first, json!({"action": "decline"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let checkpoint = checkpoint_covering(&relay.client, &relay.url, 3).await;
    assert_eq!(checkpoint["chains"], 2);
    let hash = checkpoint["hash"].as_str().unwrap().to_string();
    assert_eq!(hash.len(), 64);
    // It holds, and it is the hash over the heads as they are.
    let (code, stdout, stderr) = verify_with(&database, &["--checkpoint", &hash]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains(&format!(
            "heads hash {hash}; checkpoint {hash} (seq 3) holds"
        )),
        "{stdout}"
    );

    // Later changes, and a later checkpoint (the latest is the one shown).
    relay.create_id(create_body("ana", "acme", "c2")).await;
    relay.create_id(create_body("bob", "acme", "c2")).await;
    let later = checkpoint_covering(&relay.client, &relay.url, 5).await;
    assert_ne!(later["hash"], checkpoint["hash"]);
    relay.server.take().unwrap().shutdown().await.unwrap();

    // The newest entry deleted: its chain falls short of its head.
    tamper(&database, &["DELETE FROM koder_audit WHERE seq = 5".into()]).await;
    let (code, stdout, stderr) = verify(&database);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stderr.contains("newest entries were removed"), "{stderr}");
    // Cut back past the checkpoint with the heads rewritten: every chain is intact again, and
    // only the checkpoint kept elsewhere tells.
    tamper(&database, &cut_back_to(2)).await;
    let (code, stdout, stderr) = verify(&database);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.starts_with("audit chain intact: 2 entries in 2 chains"),
        "{stdout}"
    );
    let (code, stdout, stderr) = verify_with(&database, &["--checkpoint", &hash]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stderr.contains(&format!(
            "the entries checkpoint {hash} covered (up to seq 3) no longer hash to it"
        )),
        "{stderr}"
    );
    // The checkpoints deleted too: the database no longer holds it.
    tamper(&database, &["DELETE FROM koder_audit_checkpoints".into()]).await;
    let (code, stdout, stderr) = verify_with(&database, &["--checkpoint", &hash]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stderr.contains(&format!("the database holds no checkpoint {hash}")),
        "{stderr}"
    );
}

/// A relay process, killed when dropped.
struct Replica {
    child: Child,
    url: String,
}

impl Replica {
    /// Starts a relay process (killed when dropped); [`Replica::wait_listening`] waits for it.
    fn spawn(database: &str, dir: &TempDir) -> Replica {
        let child = Command::new(BINARY)
            .current_dir(&dir.0)
            .args(["--database", database, "--listen", "127.0.0.1:0"])
            .env("KODER_RELAY_SERVICE_TOKEN", SERVICE_TOKEN)
            .env("KODER_RELAY_JWT_SECRET", JWT_SECRET)
            .env("KODER_RELAY_AUDIT_CHECKPOINT_INTERVAL", "200ms")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        Replica {
            child,
            url: String::new(),
        }
    }

    /// Reads the `listening on URL` line.
    fn wait_listening(&mut self) {
        let mut line = String::new();
        BufReader::new(self.child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        self.url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_postgres_replicas_append_at_once_and_their_chains_verify() {
    const ELICITATIONS: usize = 20;
    let postgres = Postgres::start();
    let dir = TempDir::new("audit-replicas");
    // Both start at once on the empty database: they take turns migrating it.
    let mut replicas = [
        Replica::spawn(&postgres.url, &dir),
        Replica::spawn(&postgres.url, &dir),
    ];
    replicas.iter_mut().for_each(Replica::wait_listening);
    let client = koder_elicitation_relay_client::http_client().unwrap();
    let people = [person("ana", "acme"), person("bob", "acme")];
    // Each is created on one replica and answered on the other, all at once; ana's and bob's
    // chains are appended to from both replicas.
    let flows = (0..ELICITATIONS).map(|index| {
        let client = client.clone();
        let (user, token) = if index % 4 < 2 {
            ("ana", people[0].clone())
        } else {
            ("bob", people[1].clone())
        };
        let create_on = replicas[index % 2].url.clone();
        let answer_on = replicas[(index + 1) % 2].url.clone();
        async move {
            let created = client
                .post(format!("{create_on}/v1/elicitations"))
                .bearer_auth(SERVICE_TOKEN)
                .body(create_body(user, "acme", &format!("c{index}")).to_string())
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            let created: Value = serde_json::from_str(&created).unwrap();
            let id = created["id"].as_str().unwrap().to_string();
            let answered = client
                .post(format!("{answer_on}/v1/elicitations/{id}/result"))
                .bearer_auth(&token)
                .body(json!({"action": "accept", "content": {"city": "Porto"}}).to_string())
                .send()
                .await
                .unwrap();
            assert_eq!(answered.status(), StatusCode::OK);
        }
    });
    tokio::time::timeout(Duration::from_secs(60), join_all(flows))
        .await
        .expect("every create and answer within 60 s");

    let entries = audit_of(&client, &replicas[0].url, "?limit=1000").await;
    let seqs: Vec<i64> = entries.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, (1..=2 * ELICITATIONS as i64).collect::<Vec<_>>());
    for (user, chain) in [("ana", r#"["ana","acme"]"#), ("bob", r#"["bob","acme"]"#)] {
        let places: Vec<i64> = entries
            .iter()
            .filter(|entry| entry["chain"] == chain)
            .map(|entry| entry["chainSeq"].as_i64().unwrap())
            .collect();
        assert_eq!(
            places,
            (1..=ELICITATIONS as i64).collect::<Vec<_>>(),
            "{chain}"
        );
        let answers = entries
            .iter()
            .filter(|entry| {
                entry["action"] == "answered:accept" && entry["actor"] == format!("person:{user}")
            })
            .count();
        assert_eq!(answers, ELICITATIONS / 2);
    }

    let (code, stdout, stderr) = verify(&postgres.url);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.starts_with(&format!(
            "audit chain intact: {} entries in 2 chains",
            2 * ELICITATIONS
        )),
        "{stdout}"
    );
    // Either replica's checkpoint covers every entry, and holds.
    let checkpoint = checkpoint_covering(&client, &replicas[1].url, 2 * ELICITATIONS as i64).await;
    let hash = checkpoint["hash"].as_str().unwrap().to_string();
    let (code, _, stderr) = verify_with(&postgres.url, &["--checkpoint", &hash]);
    assert_eq!(code, Some(0), "{stderr}");
    drop(replicas);
    tamper(&postgres.url, &cut_back_to(30)).await;
    assert_eq!(verify(&postgres.url).0, Some(0));
    let (code, _, stderr) = verify_with(&postgres.url, &["--checkpoint", &hash]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("no longer hash to it"), "{stderr}");
}

/// `audit verify` on `database` until its summary starts with `summary` (within 10 s).
async fn verify_until(database: &str, summary: &str) -> String {
    let started = Instant::now();
    loop {
        let (code, stdout, stderr) = verify(database);
        assert_eq!(code, Some(0), "{stderr}");
        if stdout.starts_with(summary) {
            return stdout;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "not {summary:?} within 10 s: {stdout}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_relay_seals_what_changes_record_and_a_stopped_ones_are_sealed_at_its_start() {
    let dir = TempDir::new("audit-sealing");
    let database = format!("sqlite://{}", dir.0.join("relay.db").display());
    let mut relay = Replica::spawn(&format!("{database}?mode=rwc"), &dir);
    relay.wait_listening();
    let client = koder_elicitation_relay_client::http_client().unwrap();
    for conversation in ["c1", "c2"] {
        let created = client
            .post(format!("{}/v1/elicitations", relay.url))
            .bearer_auth(SERVICE_TOKEN)
            .body(create_body("ana", "acme", conversation).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(created.status(), StatusCode::CREATED);
    }
    // Nobody reads the trail: the relay seals on its own.
    verify_until(&database, "audit chain intact: 2 entries in 1 chains").await;
    drop(relay);

    // A change the relay recorded and was stopped (killed) before sealing.
    tamper(
        &database,
        &[
            "INSERT INTO koder_audit_pending (at, elicitation_id, user_id, workspace_id, \
           conversation_id, actor, action, digest) \
           VALUES (1, 'e3', 'ana', 'acme', 'c3', 'host', 'created', '')"
                .to_string(),
        ],
    )
    .await;
    let (code, stdout, stderr) = verify(&database);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.starts_with("audit chain intact: 2 entries in 1 chains")
            && stdout.contains("; 1 recorded change(s) not sealed yet, so not verified"),
        "{stdout}"
    );
    let mut restarted = Replica::spawn(&database, &dir);
    restarted.wait_listening();
    let stdout = verify_until(&database, "audit chain intact: 3 entries in 1 chains").await;
    assert!(!stdout.contains("not sealed"), "{stdout}");
    let entries = audit_of(&client, &restarted.url, "").await;
    assert_eq!(field(&entries, "elicitationId")[2], "e3");
    assert_eq!(entries[2]["chainSeq"], 3);
    assert_eq!(entries[2]["prevHash"], entries[1]["hash"]);
}

// ---------------------------------------------------------------------------------------------
// A trail written before per-tenant chains (migrations 0001 to 0004: one chain, hashed over seq).

/// The entries such a relay wrote: ana's created and answered, bob's created, one chain.
fn single_chain_entries() -> Vec<String> {
    let digest = sha256_hex(b"{}");
    let rows = [
        ("old-1", "ana", "host", "created"),
        ("old-2", "bob", "host", "created"),
        ("old-1", "ana", "person:ana", "answered:accept"),
    ];
    let mut prev_hash = GENESIS_HASH.to_string();
    let mut statements = Vec::new();
    for (index, (id, user, actor, action)) in rows.into_iter().enumerate() {
        let seq = index as i64 + 1;
        let at = 1_700_000_000_000 + seq;
        let hash = sha256_hex(
            json!([seq, at, id, user, "acme", "c1", actor, action, digest, prev_hash])
                .to_string()
                .as_bytes(),
        );
        statements.push(format!(
            "INSERT INTO koder_audit (seq, at, elicitation_id, user_id, workspace_id, \
             conversation_id, actor, action, digest, prev_hash, hash) VALUES ({seq}, {at}, \
             '{id}', '{user}', 'acme', 'c1', '{actor}', '{action}', '{digest}', '{prev_hash}', \
             '{hash}')"
        ));
        prev_hash = hash;
    }
    statements
}

/// Brings `database` to migration 0004 (the schema the single chain was written with, as the
/// relay's migrator recorded it) and writes [`single_chain_entries`].
async fn write_single_chain(database: &str, dialect: &str, dir: &TempDir) {
    let migrations = dir.0.join(format!("migrations-{dialect}"));
    std::fs::create_dir_all(&migrations).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("migrations")
        .join(dialect);
    for name in [
        "0001_initial.sql",
        "0002_audit.sql",
        "0003_retention.sql",
        "0004_webhook_outbox.sql",
    ] {
        std::fs::copy(source.join(name), migrations.join(name)).unwrap();
    }
    let migrator = sqlx::migrate::Migrator::new(migrations.as_path())
        .await
        .unwrap();
    if dialect == "sqlite" {
        let pool = sqlx::SqlitePool::connect(&format!("{database}?mode=rwc"))
            .await
            .unwrap();
        migrator.run(&pool).await.unwrap();
        pool.close().await;
    } else {
        let pool = sqlx::PgPool::connect(database).await.unwrap();
        migrator.run(&pool).await.unwrap();
        pool.close().await;
    }
    tamper(database, &single_chain_entries()).await;
    // Not migrated yet: verify says what to do rather than failing on a missing column.
    let (code, stdout, stderr) = verify(database);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stderr.contains("start this relay on it once to migrate it"),
        "{stderr}"
    );
}

/// The migrated trail: the old entries first, as they were, then the new tenant chains; all
/// verify, and an old entry edited is still caught.
async fn check_migrated(database: &str) {
    let relay = Relay::start_with(|config| config.database = database.to_string()).await;
    let ana = person("ana", "acme");
    let id = relay.create_id(create_body("ana", "acme", "c2")).await;
    let (status, body) = relay.answer(&ana, &id, json!({"action": "decline"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let entries = audit(&relay, "").await;
    let seqs: Vec<i64> = entries.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, [1, 2, 3, 4, 5]);
    assert_eq!(
        field(&entries, "chain"),
        ["", "", "", r#"["ana","acme"]"#, r#"["ana","acme"]"#]
    );
    let places: Vec<i64> = entries
        .iter()
        .map(|e| e["chainSeq"].as_i64().unwrap())
        .collect();
    assert_eq!(places, [1, 2, 3, 1, 2]);
    assert_eq!(entries[3]["prevHash"], GENESIS_HASH);
    drop(relay);

    let (code, stdout, stderr) = verify(database);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.starts_with("audit chain intact: 5 entries in 2 chains"),
        "{stdout}"
    );
    tamper(
        database,
        &["UPDATE koder_audit SET actor = 'relay' WHERE seq = 2".into()],
    )
    .await;
    let (code, _, stderr) = verify(database);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("audit chain broken at seq 2"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_trail_written_as_one_chain_migrates_and_still_verifies() {
    let dir = TempDir::new("audit-single-chain");
    let database = format!("sqlite://{}", dir.0.join("relay.db").display());
    write_single_chain(&database, "sqlite", &dir).await;
    check_migrated(&database).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_trail_written_as_one_chain_migrates_and_still_verifies() {
    let postgres = Postgres::start();
    let dir = TempDir::new("audit-single-chain-pg");
    write_single_chain(&postgres.url, "postgres", &dir).await;
    check_migrated(&postgres.url).await;
}
