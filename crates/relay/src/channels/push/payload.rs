//! What a push says, built when it is sent from the elicitation as it is then (the outbox keeps
//! no message): a new question's payload with its message cut to fit one encrypted record, the
//! notification's words rendered as the element's own `notify` renders them and, for a one-tap
//! question, its actions and what answering through its link takes; or a close with the
//! outcome and never the answer; and the `Topic` every push about one elicitation shares, so a
//! later one replaces an undelivered earlier one at the push service.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use koder_elicitation_relay_protocol::{PushAction, PushAnswer, PushPayload, ShownNotification};
use koder_mcp_elicitation_core::answer::stored_request;
use koder_mcp_elicitation_core::i18n::{plain, Locale};
use koder_mcp_elicitation_core::notification::notification_text;
use koder_mcp_elicitation_core::one_tap::{one_tap, OneTap};
use koder_web_push::MAX_PLAINTEXT;
use serde_json::Map;
use sha2::{Digest, Sha256};

use crate::record::Record;
use crate::service::links::Link;

/// What ends a cut message.
const CUT_MARK: char = '…';
/// A `Topic` is at most 32 characters of the URL-safe base64 alphabet (RFC 8030, section 5.4).
const TOPIC_CHARS: usize = 32;

/// The `Topic` of every push about the elicitation `id`: the first 32 characters of the
/// base64url SHA-256 of the id (no id shows on the wire to the push service).
pub fn topic(id: &str) -> String {
    let mut topic = URL_SAFE_NO_PAD.encode(Sha256::digest(id.as_bytes()));
    topic.truncate(TOPIC_CHARS);
    topic
}

/// What a push about a one-tap question needs so its notification can answer: the question's
/// one-tap shape (carrying push actions) and this push's own link.
#[derive(Debug, Clone)]
pub struct ActionAnswer {
    /// The question's one-tap shape; its first `push_actions` choices become the actions.
    pub tap: OneTap,
    /// `<public-url>/v1/links/answer`.
    pub endpoint: String,
    /// The push's link (`<public-url>/answer/#t=<token>`); its `Debug` hides the token.
    pub link: Link,
}

/// The one-tap shape of `record`'s question when a push carries actions for it (a shape with
/// at most two choices besides Reject), else `None`.
pub fn push_tap(record: &Record) -> Option<OneTap> {
    let request = stored_request(&record.request).ok()?;
    one_tap(&request).filter(|tap| tap.push_actions > 0)
}

/// A new question's payload at `now_ms`, its message cut (on a character boundary, ending in
/// "…") so the whole JSON fits one record ([`MAX_PLAINTEXT`] bytes); `url` is where clicking
/// opens; the notification's title and body, and its actions' titles, are in `locale`. With
/// `answer`, the payload carries the actions and what answering through the link takes, unless
/// even an emptied message would not fit with them (options with very long values).
pub fn elicitation(
    record: &Record,
    url: Option<String>,
    now_ms: i64,
    locale: Locale,
    answer: Option<&ActionAnswer>,
) -> Vec<u8> {
    let message = record
        .request
        .get("message")
        .and_then(|message| message.as_str())
        .unwrap_or_default();
    let shown = shown(record, message, locale);
    let with = |message: String, tapped: Option<&Tapped>| {
        let (actions, answer) = tapped.cloned().unwrap_or_default();
        let payload = PushPayload::Elicitation {
            id: record.id.clone(),
            server_name: record.server_name.clone(),
            message,
            workspace_id: record.tenant.workspace_id.clone(),
            conversation_id: record.tenant.conversation_id.clone(),
            expires_in_ms: record.expires_at.saturating_sub(now_ms).max(0),
            url: url.clone(),
            shown: Some(Box::new(shown.clone())),
            actions,
            answer,
        };
        serde_json::to_vec(&payload).unwrap_or_default()
    };
    let tapped = answer.map(|answer| tapped(answer, locale));
    if let Some(tapped) = &tapped {
        if with(CUT_MARK.to_string(), Some(tapped)).len() <= MAX_PLAINTEXT {
            return fitted(message, |message| with(message, Some(tapped)));
        }
    }
    fitted(message, |message| with(message, None))
}

/// A payload's actions and answer, as `elicitation` adds them.
type Tapped = (Vec<PushAction>, Option<Box<PushAnswer>>);

/// The actions of `answer`'s one-tap shape, worded in `locale` (`choice-<n>`, `n` the choice's
/// index), and the result each answers, with the endpoint, token and link that answer them.
fn tapped(answer: &ActionAnswer, locale: Locale) -> Tapped {
    let carried = answer.tap.choices.iter().take(answer.tap.push_actions);
    let mut actions = Vec::new();
    let mut results = Map::new();
    for (index, choice) in carried.enumerate() {
        let action = format!("choice-{index}");
        results.insert(action.clone(), choice.result.clone());
        actions.push(PushAction {
            action,
            title: choice.title(locale),
        });
    }
    let answer = PushAnswer {
        endpoint: answer.endpoint.clone(),
        token: answer.link.token().to_string(),
        link: answer.link.url.clone(),
        results,
    };
    (actions, Some(Box::new(answer)))
}

/// The payload `with` makes of `message`, cut to the longest prefix (in characters) that fits
/// one record with the mark; escaping makes a character's JSON length vary, so the length is
/// measured, not computed.
fn fitted(message: &str, with: impl Fn(String) -> Vec<u8>) -> Vec<u8> {
    let whole = with(message.to_string());
    if whole.len() <= MAX_PLAINTEXT {
        return whole;
    }
    let cut = |chars: usize| {
        let mut text: String = message.chars().take(chars).collect();
        text.push(CUT_MARK);
        with(text)
    };
    let (mut fits, mut too_long) = (0, message.chars().count());
    while too_long - fits > 1 {
        let middle = fits + (too_long - fits) / 2;
        if cut(middle).len() <= MAX_PLAINTEXT {
            fits = middle;
        } else {
            too_long = middle;
        }
    }
    cut(fits)
}

/// What the notification for `record` (asking `message`) shows in `locale`: the same words the
/// element's `notify` shows for the same request, its title naming the server (or, with none,
/// "Unknown server").
fn shown(record: &Record, message: &str, locale: Locale) -> ShownNotification {
    let server = match record.server_name.as_deref() {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => plain(locale, "mcp-elicitation-server-unknown"),
    };
    let text = notification_text(locale, &server, message);
    ShownNotification {
        title: text.title,
        body: text.body,
        lang: text.lang,
        dir: text.dir.as_str().to_string(),
    }
}

/// A close: the elicitation's id and how it ended, never its answer.
pub fn settled(record: &Record) -> Vec<u8> {
    let payload = PushPayload::Settled {
        id: record.id.clone(),
        status: record.status,
    };
    serde_json::to_vec(&payload).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Status, Tenant};
    use serde_json::{json, Value};

    fn record(message: &str) -> Record {
        Record {
            id: "0123456789abcdef0123456789abcdef".into(),
            tenant: Tenant {
                user_id: "ana".into(),
                workspace_id: "acme".into(),
                conversation_id: "c1".into(),
            },
            request: json!({"message": message, "requestedSchema": {}}),
            server_name: Some("weather".into()),
            created_at: 0,
            expires_at: 60_000,
            status: Status::Pending,
            result: None,
            finished_at: None,
            completed: false,
            team: None,
            escalated: 0,
            answered_by: None,
        }
    }

    #[test]
    fn a_question_says_what_the_contract_names() {
        let body = elicitation(
            &record("Which city?"),
            Some("https://app/x".into()),
            10_000,
            Locale::EnUs,
            None,
        );
        let value: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            value,
            json!({"type": "elicitation", "id": "0123456789abcdef0123456789abcdef",
                   "serverName": "weather", "message": "Which city?", "workspaceId": "acme",
                   "conversationId": "c1", "expiresInMs": 50_000, "url": "https://app/x",
                   "title": "\u{2068}weather\u{2069} needs your input",
                   "body": "\u{2068}Which city?\u{2069}", "lang": "en-US", "dir": "ltr"})
        );
        let late = elicitation(&record("x"), None, 90_000, Locale::EnUs, None);
        let late: Value = serde_json::from_slice(&late).unwrap();
        assert_eq!(late["expiresInMs"], 0);
        assert!(late.get("url").is_none());
    }

    #[test]
    fn a_long_message_is_cut_on_a_character_boundary_to_fit_one_record() {
        for unit in ["a", "é", "😀", "\"", "\u{1}"] {
            let long = unit.repeat(5_000);
            let body = elicitation(&record(&long), None, 0, Locale::EnUs, None);
            assert!(body.len() <= MAX_PLAINTEXT, "{unit}: {}", body.len());
            let message = serde_json::from_slice::<Value>(&body).unwrap()["message"]
                .as_str()
                .unwrap()
                .to_string();
            assert!(message.ends_with('…'), "{unit}");
            let kept = message.trim_end_matches('…');
            assert!(long.starts_with(kept) && kept.len() > 100, "{unit}");
            // Not one more character would have fit (the widest, `\u0001`, is 6 bytes).
            assert!(body.len() > MAX_PLAINTEXT - 6, "{unit}: {}", body.len());
        }
    }

    /// The words the element's own `notify` shows (src/element/notify.rs), for the same server
    /// and message, in each shipped language: the push says exactly those. The titles are the
    /// ones tests/e2e/notify.test.mjs sees the element show.
    #[test]
    fn a_questions_notification_is_worded_as_the_elements_own_in_each_language() {
        let message = "Which city?\nWe need it for the forecast.";
        let mut asked = record(message);
        asked.server_name = Some("Weather".into());
        for (locale, title) in [
            (Locale::EnUs, "\u{2068}Weather\u{2069} needs your input"),
            (
                Locale::PtBr,
                "\u{2068}Weather\u{2069} precisa da sua resposta",
            ),
        ] {
            let body = elicitation(&asked, None, 0, locale, None);
            let pushed: PushPayload = serde_json::from_slice(&body).unwrap();
            let PushPayload::Elicitation {
                shown: Some(shown), ..
            } = pushed
            else {
                panic!("{locale:?}: no notification words in {pushed:?}");
            };
            let in_page = notification_text(locale, "Weather", message);
            assert_eq!(shown.title, title);
            assert_eq!(
                shown.body,
                "\u{2068}Which city? We need it for the forecast.\u{2069}"
            );
            assert_eq!(shown.title, in_page.title);
            assert_eq!(shown.body, in_page.body);
            assert_eq!(shown.lang, in_page.lang);
            assert_eq!(shown.dir, in_page.dir.as_str());
        }
        // Without a server's name, the element's "Unknown server".
        let mut nameless = record("Which city?");
        nameless.server_name = None;
        let value: Value =
            serde_json::from_slice(&elicitation(&nameless, None, 0, Locale::PtBr, None)).unwrap();
        assert_eq!(
            value["title"],
            "\u{2068}Servidor desconhecido\u{2069} precisa da sua resposta"
        );
    }

    /// What a push about `request` answers through, on a link whose token is all `t`.
    fn tapped_on(request: Value) -> (Record, ActionAnswer) {
        let mut asked = record("Ready?");
        asked.request = request;
        let tap = push_tap(&asked).expect("a one-tap shape a push carries");
        let token = "t".repeat(43);
        let link = Link {
            id: "l1".into(),
            url: format!("https://relay.example.com/answer/#t={token}"),
            expires_at: 60_000,
        };
        let endpoint = "https://relay.example.com/v1/links/answer".to_string();
        (
            asked,
            ActionAnswer {
                tap,
                endpoint,
                link,
            },
        )
    }

    #[test]
    fn a_one_tap_push_carries_its_actions_and_still_fits_one_record() {
        let boolean = json!({"message": "Ready?", "requestedSchema": {"type": "object",
            "properties": {"deploy": {"type": "boolean"}}}});
        let (mut asked, answer) = tapped_on(boolean);
        let body = elicitation(&asked, None, 0, Locale::PtBr, Some(&answer));
        let value: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            value["actions"],
            json!([{"action": "choice-0", "title": "Sim"}, {"action": "choice-1", "title": "Não"}])
        );
        assert_eq!(value["answer"]["token"], "t".repeat(43));
        assert_eq!(
            value["answer"]["results"]["choice-0"],
            json!({"action": "accept", "content": {"deploy": true}})
        );
        // A long message is cut to make room for them.
        asked.request["message"] = json!("é".repeat(5_000));
        let body = elicitation(&asked, None, 0, Locale::EnUs, Some(&answer));
        assert!(body.len() <= MAX_PLAINTEXT, "{}", body.len());
        let value: Value = serde_json::from_slice(&body).unwrap();
        assert!(value["message"].as_str().unwrap().ends_with('…'));
        assert_eq!(value["actions"].as_array().unwrap().len(), 2);
        // Not in the Debug of what the channel holds.
        assert!(!format!("{answer:?}").contains(&"t".repeat(43)));
    }

    #[test]
    fn options_too_long_to_fit_with_their_actions_leave_them_out() {
        let long = "x".repeat(2_500);
        let choice = json!({"message": "Which?", "requestedSchema": {"type": "object",
            "properties": {"pick": {"type": "string", "enum": [long.clone(), format!("y{long}")]}}}});
        let (asked, answer) = tapped_on(choice);
        let body = elicitation(&asked, None, 0, Locale::EnUs, Some(&answer));
        assert!(body.len() <= MAX_PLAINTEXT, "{}", body.len());
        let value: Value = serde_json::from_slice(&body).unwrap();
        assert!(value.get("actions").is_none() && value.get("answer").is_none());
        assert_eq!(value["message"], "Which?");
    }

    #[test]
    fn an_older_relays_push_reads_without_the_words() {
        let old = json!({"type": "elicitation", "id": "x", "serverName": "weather",
                         "message": "m", "workspaceId": "acme", "conversationId": "",
                         "expiresInMs": 1});
        let read: PushPayload = serde_json::from_value(old).unwrap();
        assert!(
            matches!(read, PushPayload::Elicitation { shown: None, ref actions, answer: None, .. }
            if actions.is_empty())
        );
    }

    #[test]
    fn a_close_carries_the_outcome_and_never_the_answer() {
        let mut answered = record("Which city?");
        answered.status = Status::Settled;
        answered.result = Some(json!({"action": "accept", "content": {"city": "Lyon"}}));
        let body = settled(&answered);
        let value: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            value,
            json!({"type": "settled", "id": answered.id, "status": "settled"})
        );
        assert!(!String::from_utf8(body).unwrap().contains("Lyon"));
    }

    #[test]
    fn every_push_about_one_elicitation_has_one_short_url_safe_topic() {
        let one = topic("0123456789abcdef0123456789abcdef");
        assert_eq!(one.len(), 32);
        assert!(one
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_'));
        assert_eq!(one, topic("0123456789abcdef0123456789abcdef"));
        assert_ne!(one, topic("0123456789abcdef0123456789abcdee"));
    }
}
