//! Questions for a team, against a real relay over HTTP (a SQLite file, and a throwaway
//! PostgreSQL): members by user and by group (a string claim is one group) see and may answer
//! it; anyone else, a same-named group in another workspace too, gets what an unknown id gets;
//! the first answer wins and everyone hears who; escalation stages admit their audience once
//! and never after an answer; create bodies with both, neither or too much are refused.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod http_support;

use std::time::Duration;

use http_support::hooks::{webhook_of, webhook_receiver};
use http_support::postgres::Postgres;
use http_support::{city_form, mint, Relay, SseReader};
use koder_elicitation_relay::channels::webhooks::{
    self, RetrySchedule, WebhookConfig, WebhookSecret,
};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const WEBHOOK_KEY: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/// How long a stream that should hear nothing is listened to.
const QUIET: Duration = Duration::from_millis(700);

/// A token for `user` in `workspace` with these extra claims.
fn token(user: &str, workspace: &str, extra: Value) -> String {
    let mut claims = json!({"sub": user, "workspace": workspace});
    for (name, value) in extra.as_object().unwrap() {
        claims[name] = value.clone();
    }
    mint(claims)
}

/// A team question in `acme` for ana and the group `ops`, with `extra` fields.
fn team_body(extra: Value) -> Value {
    let mut body = json!({
        "scope": {"workspaceId": "acme"},
        "audience": {"users": ["ana"], "groups": ["ops"]},
        "request": city_form(),
        "serverName": "weather",
    });
    for (name, value) in extra.as_object().unwrap() {
        body[name] = value.clone();
    }
    body
}

fn ids(list: &[Value]) -> Vec<String> {
    list.iter()
        .map(|item| item["id"].as_str().unwrap().to_string())
        .collect()
}

/// The next event on `stream`, which must be about `id` and named `event`.
async fn expect_event(stream: &mut SseReader, event: &str, id: &str) -> Value {
    let message = stream.expect().await;
    assert_eq!(message.event, event, "{message:?}");
    assert_eq!(message.data["id"], json!(id), "{message:?}");
    message.data
}

/// `stream` hears nothing for a while.
async fn expect_quiet(stream: &mut SseReader, who: &str) {
    if let Some(message) = stream.next(QUIET).await {
        panic!("{who} heard {message:?}");
    }
}

/// Members by user, by a group list and by a group string see it (stream, list, status) and
/// may answer; a non-member and a same-named group's member in another workspace see nothing
/// and get 404 for everything, exactly as for an unknown id.
async fn members_see_it_and_nobody_else_does(relay: &Relay) {
    let ana = token("ana", "acme", json!({}));
    let bo = token("bo", "acme", json!({"groups": ["dev", "ops"]}));
    let cy = token("cy", "acme", json!({"groups": "ops"}));
    let dan = token("dan", "acme", json!({"groups": ["dev"]}));
    let eve = token("eve", "elsewhere", json!({"groups": ["ops"]}));
    let mut streams = Vec::new();
    for person in [&ana, &bo, &cy, &dan, &eve] {
        streams.push(relay.stream(person).await);
    }
    let id = relay.create_id(team_body(json!({}))).await;
    for (stream, who) in streams.iter_mut().zip(["ana", "bo", "cy"]) {
        let shown = expect_event(stream, "elicitation", &id).await;
        assert_eq!(shown["request"]["message"], "Which city?", "{who}");
    }
    for (stream, who) in streams.iter_mut().skip(3).zip(["dan", "eve"]) {
        expect_quiet(stream, who).await;
    }
    for member in [&ana, &bo, &cy] {
        assert_eq!(ids(&relay.pending(member).await), [id.as_str()]);
        assert_eq!(relay.status(member, &id).await.0, StatusCode::OK);
    }
    let unknown = "0".repeat(32);
    for outsider in [&dan, &eve] {
        assert!(relay.pending(outsider).await.is_empty());
        let (status, body) = relay.status(outsider, &id).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(body, relay.status(outsider, &unknown).await.1);
        let answered = json!({"action": "accept", "content": {"city": "Rome"}});
        let (status, body) = relay.answer(outsider, &id, answered.clone()).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        assert_eq!(body, relay.answer(outsider, &unknown, answered).await.1);
    }
    // The string claim's member answers; every member hears it ended, the outsiders nothing.
    let (status, body) = relay
        .answer(
            &cy,
            &id,
            json!({"action": "accept", "content": {"city": "Lima"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    for stream in streams.iter_mut().take(3) {
        let settled = expect_event(stream, "settled", &id).await;
        assert_eq!(settled["answeredBy"], json!({"userId": "cy"}));
    }
    for (stream, who) in streams.iter_mut().skip(3).zip(["dan", "eve"]) {
        expect_quiet(stream, who).await;
    }
    let (_, result) = relay.result(&id, 0.0).await;
    assert_eq!(result["result"]["content"], json!({"city": "Lima"}));
    assert_eq!(result["answeredBy"], json!({"userId": "cy"}));
    assert_eq!(
        result["audience"],
        json!({"users": ["ana"], "groups": ["ops"]})
    );
    assert_eq!(result["escalated"], 0);
}

#[tokio::test]
async fn members_by_user_and_by_group_see_it_and_nobody_else_does_sqlite() {
    let relay = Relay::start().await;
    members_see_it_and_nobody_else_does(&relay).await;
}

#[tokio::test]
async fn members_by_user_and_by_group_see_it_and_nobody_else_does_postgres() {
    let postgres = Postgres::start();
    let relay = Relay::start_with(|config| config.database = postgres.url.clone()).await;
    members_see_it_and_nobody_else_does(&relay).await;
    an_escalation_admits_its_stage_once_and_never_after_an_answer(&relay).await;
}

#[tokio::test]
async fn two_members_answer_at_once_the_first_wins_and_everyone_hears_who() {
    let (hook, received) = webhook_receiver(0).await;
    let relay = Relay::start_with(|config| {
        config.webhook = Some(WebhookConfig {
            url: webhooks::parse_url(&hook).unwrap(),
            secret: WebhookSecret::parse(WEBHOOK_KEY, "test").unwrap(),
            retries: RetrySchedule::scaled(0.001),
        });
    })
    .await;
    let ana = token("ana", "acme", json!({"name": "Ana Lima"}));
    let bo = token("bo", "acme", json!({"groups": ["ops"], "name": "Bo"}));
    let mut ana_stream = relay.stream(&ana).await;
    let mut bo_stream = relay.stream(&bo).await;
    let id = relay.create_id(team_body(json!({}))).await;
    expect_event(&mut ana_stream, "elicitation", &id).await;
    expect_event(&mut bo_stream, "elicitation", &id).await;
    let (by_ana, by_bo) = tokio::join!(
        relay.answer(
            &ana,
            &id,
            json!({"action": "accept", "content": {"city": "Porto"}})
        ),
        relay.answer(
            &bo,
            &id,
            json!({"action": "accept", "content": {"city": "Oslo"}})
        ),
    );
    let mut statuses = [by_ana.0, by_bo.0];
    statuses.sort();
    assert_eq!(
        statuses,
        [StatusCode::OK, StatusCode::CONFLICT],
        "{by_ana:?} {by_bo:?}"
    );
    let (winner, city, name, mut loser_stream) = if by_ana.0 == StatusCode::OK {
        ("ana", "Porto", "Ana Lima", bo_stream)
    } else {
        ("bo", "Oslo", "Bo", ana_stream)
    };
    let answered_by = json!({"userId": winner, "name": name});
    // The host gets the winner's content and who answered.
    let (status, result) = relay.result(&id, 0.0).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(result["status"], "settled");
    assert_eq!(result["result"]["content"], json!({"city": city}));
    assert_eq!(result["answeredBy"], answered_by);
    // The other member hears who, never what.
    let settled = expect_event(&mut loser_stream, "settled", &id).await;
    assert_eq!(settled["answeredBy"], answered_by);
    assert_eq!(settled["action"], "accept");
    assert!(settled.get("content").is_none() && settled.get("result").is_none());
    assert!(!settled.to_string().contains(city), "{settled}");
    // A later answer, even the winner's content from the loser, conflicts.
    let loser = if winner == "ana" { &bo } else { &ana };
    let (status, _) = relay
        .answer(
            loser,
            &id,
            json!({"action": "accept", "content": {"city": city}}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    let webhook = webhook_of(&received, "elicitation.settled").await;
    assert_eq!(webhook["data"]["id"], json!(id));
    assert_eq!(webhook["data"]["answeredBy"], answered_by);
}

/// Stage 1 (the group `leads`) joins only when escalated, hears of it once, and an escalation
/// of an answered question, or one repeated, does nothing.
async fn an_escalation_admits_its_stage_once_and_never_after_an_answer(relay: &Relay) {
    let ana = token("ana", "acme", json!({}));
    let lead = token("lee", "acme", json!({"groups": ["leads"]}));
    let escalate = json!({
        "timeoutMs": 600_000,
        "escalate": [{"after": "1m", "audience": {"groups": ["leads"]}}]
    });
    let mut ana_stream = relay.stream(&ana).await;
    let mut lead_stream = relay.stream(&lead).await;
    let id = relay.create_id(team_body(escalate.clone())).await;
    expect_event(&mut ana_stream, "elicitation", &id).await;
    expect_quiet(&mut lead_stream, "the lead before the stage").await;
    assert!(relay.pending(&lead).await.is_empty());
    assert_eq!(relay.status(&lead, &id).await.0, StatusCode::NOT_FOUND);
    let elicitations = relay.server().elicitations();
    assert!(elicitations.escalate(&id, 2).await.unwrap().is_none());
    let escalated = elicitations.escalate(&id, 1).await.unwrap();
    assert_eq!(escalated.map(|event| event.record.escalated), Some(1));
    expect_event(&mut lead_stream, "elicitation", &id).await;
    // Ana saw it from the start: the stage is not news to her.
    expect_quiet(&mut ana_stream, "ana at the stage").await;
    assert!(elicitations.escalate(&id, 1).await.unwrap().is_none());
    expect_quiet(&mut lead_stream, "the lead after a repeat").await;
    assert_eq!(ids(&relay.pending(&lead).await), [id.as_str()]);
    assert_eq!(relay.result(&id, 0.0).await.1["escalated"], 1);
    let (status, body) = relay
        .answer(
            &lead,
            &id,
            json!({"action": "accept", "content": {"city": "Kyiv"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    expect_event(&mut ana_stream, "settled", &id).await;
    expect_event(&mut lead_stream, "settled", &id).await;
    // Answered before its stage: the stage never comes.
    let answered = relay.create_id(team_body(escalate)).await;
    expect_event(&mut ana_stream, "elicitation", &answered).await;
    let (status, _) = relay
        .answer(&ana, &answered, json!({"action": "decline"}))
        .await;
    assert_eq!(status, StatusCode::OK);
    expect_event(&mut ana_stream, "settled", &answered).await;
    assert!(elicitations.escalate(&answered, 1).await.unwrap().is_none());
    expect_quiet(&mut lead_stream, "the lead after an answer").await;
    assert_eq!(
        relay.status(&lead, &answered).await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(relay.result(&answered, 0.0).await.1["escalated"], 0);
}

#[tokio::test]
async fn an_escalation_admits_its_stage_once_and_never_after_an_answer_sqlite() {
    let relay = Relay::start().await;
    an_escalation_admits_its_stage_once_and_never_after_an_answer(&relay).await;
}

#[tokio::test]
async fn create_bodies_name_one_person_or_one_audience_within_limits() {
    let relay = Relay::start().await;
    let names = |count: usize| (0..count).map(|n| format!("n{n}")).collect::<Vec<_>>();
    let stage = |after: &str| json!({"after": after, "audience": {"groups": ["leads"]}});
    let refused = [
        (
            json!({"scope": {"userId": "ana", "workspaceId": "acme"}}),
            "not both",
        ),
        (json!({"audience": null}), "is required"),
        (json!({"audience": {}}), "at least one"),
        (json!({"audience": {"users": names(101)}}), "audience.users"),
        (
            json!({"audience": {"groups": names(21)}}),
            "audience.groups",
        ),
        (
            json!({"audience": {"users": ["x".repeat(129)]}}),
            "audience.users",
        ),
        (json!({"audience": {"groups": [""]}}), "audience.groups"),
        (
            json!({"escalate": [stage("1s"), stage("2s"), stage("3s"), stage("4s")]}),
            "at most 3",
        ),
        (
            json!({"escalate": [stage("2m"), stage("1m")]}),
            "later than",
        ),
        (
            json!({"timeoutMs": 60_000, "escalate": [stage("1m")]}),
            "shorter than the timeout",
        ),
        (json!({"escalate": [stage("soon")]}), "duration"),
    ];
    for (extra, says) in refused {
        let (status, body) = relay.create(team_body(extra.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{extra}: {body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{extra}: {body}");
    }
    // One person with stages has nobody to widen.
    let (status, body) = relay
        .create(json!({
            "scope": {"userId": "ana", "workspaceId": "acme"},
            "request": city_form(),
            "escalate": [stage("1m")],
        }))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    // The limits themselves are fine.
    let (status, body) = relay
        .create(team_body(json!({
            "audience": {"users": names(100), "groups": names(20)},
            "escalate": [stage("1m"), stage("2m"), stage("3m")],
        })))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // A groups claim that is neither a string nor a list of strings is refused, clearly.
    let odd = token("bo", "acme", json!({"groups": {"ops": true}}));
    let (status, body) = relay
        .call(Method::GET, "/v1/elicitations", Some(&odd), None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(body.to_string().contains("groups must be"), "{body}");
}
