//! The audit trail as an auditor meets it: `GET /v1/audit` names who did what and holds no
//! content; `koder-elicitation-relay audit verify` passes on an intact chain and names the entry
//! edited or deleted by hand; two PostgreSQL replicas append one chain.

mod http_support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures_util::future::join_all;
use http_support::postgres::Postgres;
use http_support::{create_body, person, Relay, TempDir, JWT_SECRET, SERVICE_TOKEN};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_koder-elicitation-relay");

/// `audit verify` on `database`: (exit code, stdout, stderr).
fn verify(database: &str) -> (Option<i32>, String, String) {
    let output = Command::new(BINARY)
        .args(["audit", "verify", "--database", database])
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
    let (status, text) = relay
        .call_text(
            Method::GET,
            &format!("/v1/audit{query}"),
            Some(SERVICE_TOKEN),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{text}");
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
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
    // Deleted by hand.
    edit("DELETE FROM koder_audit WHERE seq = 3").await;
    let (code, _, stderr) = verify(&database);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("audit chain broken at seq 3"), "{stderr}");
    raw.close().await;
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
async fn two_postgres_replicas_append_one_chain_that_verifies() {
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
    let ana = person("ana", "acme");
    // Each is created on one replica and answered on the other, all at once.
    let flows = (0..ELICITATIONS).map(|index| {
        let client = client.clone();
        let ana = ana.clone();
        let create_on = replicas[index % 2].url.clone();
        let answer_on = replicas[(index + 1) % 2].url.clone();
        async move {
            let created = client
                .post(format!("{create_on}/v1/elicitations"))
                .bearer_auth(SERVICE_TOKEN)
                .body(create_body("ana", "acme", &format!("c{index}")).to_string())
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
                .bearer_auth(&ana)
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

    let text = client
        .get(format!("{}/v1/audit?limit=1000", replicas[0].url))
        .bearer_auth(SERVICE_TOKEN)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let entries: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let seqs: Vec<i64> = entries.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, (1..=2 * ELICITATIONS as i64).collect::<Vec<_>>());
    let answers = entries
        .iter()
        .filter(|entry| entry["action"] == "answered:accept" && entry["actor"] == "person:ana")
        .count();
    assert_eq!(answers, ELICITATIONS);

    let (code, stdout, stderr) = verify(&postgres.url);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.starts_with(&format!("audit chain intact: {} entries", 2 * ELICITATIONS)),
        "{stdout}"
    );
}
