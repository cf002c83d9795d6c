//! The message that carries a question's link, in the person's language (the core's Fluent
//! messages `mcp-elicitation-relay-email-*`): the server's name and the question as text
//! (escaped in the HTML part), the link as a button and as text, and when it expires. A one-tap
//! question (contract §13) gets one link per choice instead of the button; each opens the page
//! with that choice selected, to be confirmed there with one more tap. Never the answer. Headers go through lettre's builder, which encodes them; the server's name is also
//! made one line first, so no character of it can start a header of its own.

use koder_mcp_elicitation_core::i18n::{plain, text, Arg, Locale};
use lettre::message::header::{Header, HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use lettre::Message;

use serde_json::Value;

use crate::canonical::sha256_hex;
use crate::channels::webhooks::iso_8601;
use crate::record::Record;
use crate::tap_choices::{choice_link, tap_choices};
use crate::views::escape_html;

/// `Auto-Submitted: auto-generated` (RFC 3834): out-of-office replies and other automatic
/// answers are not sent back to it.
#[derive(Debug, Clone, Copy)]
struct AutoSubmitted;

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }

    fn parse(_: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(AutoSubmitted)
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "auto-generated".to_string())
    }
}

/// What one message says, before it is worded.
#[derive(Debug)]
pub struct Question<'a> {
    /// The elicitation.
    pub record: &'a Record,
    /// Its link (`<public-url>/answer/#t=<token>`).
    pub link: &'a str,
    /// The language it is worded in.
    pub locale: Locale,
    /// Whether it is the reminder (its subject says so), not the first message.
    pub reminder: bool,
}

/// The worded parts of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worded {
    /// The subject, one line.
    pub subject: String,
    /// The text part.
    pub text: String,
    /// The HTML part.
    pub html: String,
}

/// `ms` as a plain UTC time: `2026-12-02 10:15 UTC`.
pub fn utc_minute(ms: i64) -> String {
    let iso = iso_8601(ms);
    match (iso.get(..10), iso.get(11..16)) {
        (Some(date), Some(time)) => format!("{date} {time} UTC"),
        _ => iso,
    }
}

/// `text` on one line: every run of control characters (CR and LF among them) and spaces one
/// space.
fn one_line(text: &str) -> String {
    text.split(|c: char| c.is_control() || c.is_whitespace())
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The HTML of one link styled as a button: filled for the main action, outlined for the rest.
fn button(href: &str, words: &str, filled: bool) -> String {
    let look = if filled {
        "background:#1d4ed8;color:#ffffff;border:2px solid #1d4ed8"
    } else {
        "background:#ffffff;color:#1d4ed8;border:2px solid #1d4ed8"
    };
    format!(
        "<a href=\"{}\" style=\"display:inline-block;margin:0 8px 8px 0;padding:12px 24px;\
         {look};text-decoration:none;border-radius:6px;font-weight:600\">{}</a>",
        escape_html(href),
        escape_html(words)
    )
}

/// A one-tap question's part of a message: its choice links, each in the text part on a line
/// of its own and in the HTML part as a button (the accepting ones filled, Reject outlined).
struct ChoiceLinks {
    text: String,
    html: String,
}

impl ChoiceLinks {
    /// The choice links of `record`'s question, or `None` when it is not a one-tap shape.
    fn of(record: &Record, link: &str, locale: Locale) -> Option<ChoiceLinks> {
        let tap = tap_choices(&record.request, locale)?;
        let intro = plain(locale, "mcp-elicitation-relay-email-choices");
        let question = tap.question.as_deref().map(one_line);
        let mut text = question
            .clone()
            .map(|q| format!("{q}\n"))
            .unwrap_or_default();
        text.push_str(&format!("{intro}\n"));
        let mut buttons = String::new();
        for (index, choice) in tap.choices.iter().enumerate() {
            let href = choice_link(link, index);
            let title = one_line(&choice.title);
            text.push_str(&format!("{title}: {href}\n"));
            let accepts = choice.result.get("action").and_then(Value::as_str) == Some("accept");
            buttons.push_str(&button(&href, &title, accepts));
        }
        let question = question
            .map(|q| format!("<p style=\"font-weight:600\">{}</p>\n", escape_html(&q)))
            .unwrap_or_default();
        let html = format!(
            "{question}<p>{}</p>\n<p>{buttons}</p>\n",
            escape_html(&intro)
        );
        Some(ChoiceLinks { text, html })
    }
}

impl Question<'_> {
    /// The subject and both parts, in the question's language. A one-tap question also gets
    /// one link per choice (`<link>&c=<n>`) in place of the single "Answer" button.
    pub fn worded(&self) -> Worded {
        let locale = self.locale;
        let server = match self.record.server_name.as_deref().map(one_line) {
            Some(name) if !name.is_empty() => name,
            _ => plain(locale, "mcp-elicitation-server-unknown"),
        };
        let message = self
            .record
            .request
            .get("message")
            .and_then(|message| message.as_str())
            .unwrap_or_default();
        let server_arg = [("server", Arg::Text(&server))];
        let subject_id = if self.reminder {
            "mcp-elicitation-relay-email-reminder-subject"
        } else {
            "mcp-elicitation-relay-email-subject"
        };
        let subject = one_line(&text(locale, subject_id, &server_arg));
        let intro = text(locale, "mcp-elicitation-relay-email-intro", &server_arg);
        let expires = utc_minute(self.record.expires_at);
        let expires = text(
            locale,
            "mcp-elicitation-relay-email-expires",
            &[("expires", Arg::Text(&expires))],
        );
        let answer = plain(locale, "mcp-elicitation-relay-email-answer");
        let link_text = plain(locale, "mcp-elicitation-relay-email-link-text");
        let caution = plain(locale, "mcp-elicitation-relay-email-caution");
        let link = self.link;
        let choices = ChoiceLinks::of(self.record, link, locale);
        let choices_text = choices
            .as_ref()
            .map(|choices| format!("{}\n", choices.text))
            .unwrap_or_default();
        let text = format!(
            "{intro}\n\n{message}\n\n{choices_text}{link_text}\n{link}\n\n{expires}\n{caution}\n"
        );
        let answer_button = match choices {
            Some(choices) => choices.html,
            None => format!("<p>{}</p>\n", button(link, &answer, true)),
        };
        let [tag, subject_html, intro, message, link_text, link, expires, caution] = [
            &locale.tag(),
            &subject,
            &intro,
            message,
            &link_text,
            link,
            &expires,
            &caution,
        ]
        .map(escape_html);
        let dir = locale.direction().as_str();
        let html = format!(
            "<!DOCTYPE html>\n<html lang=\"{tag}\" dir=\"{dir}\"><head><meta charset=\"utf-8\">\
             <title>{subject_html}</title></head>\n\
             <body style=\"font-family:system-ui,sans-serif;line-height:1.5;max-width:40em\">\n\
             <p>{intro}</p>\n\
             <p style=\"white-space:pre-wrap;border-inline-start:3px solid #888;\
             padding-inline-start:12px\">{message}</p>\n\
             {answer_button}\
             <p>{link_text}<br><a href=\"{link}\">{link}</a></p>\n\
             <p>{expires}</p>\n<p style=\"color:#555\">{caution}</p>\n</body></html>\n"
        );
        Worded {
            subject,
            text,
            html,
        }
    }

    /// The whole message from `from` to `to`, its `Message-ID` made of the elicitation's id,
    /// `row` (its outbox row, which tells it from the question's other messages) and the
    /// sender's domain (the same on every attempt). The question's first message, whose row is
    /// the elicitation's id, has `<elicitation-<id>@<domain>>`.
    pub fn message(&self, from: Mailbox, to: Mailbox, row: &str) -> Result<Message, String> {
        let worded = self.worded();
        let id = &self.record.id;
        let domain = from.email.domain();
        let message_id = if row == id {
            format!("<elicitation-{id}@{domain}>")
        } else {
            let key: String = sha256_hex(row.as_bytes()).chars().take(16).collect();
            format!("<elicitation-{id}.{key}@{domain}>")
        };
        Message::builder()
            .from(from)
            .to(to)
            .subject(worded.subject)
            .message_id(Some(message_id))
            .header(AutoSubmitted)
            .multipart(MultiPart::alternative_plain_html(worded.text, worded.html))
            .map_err(|error| format!("cannot make the message: {error}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Status;
    use serde_json::json;

    fn record(server: Option<&str>, message: &str) -> Record {
        let mut record = Record::example(
            "0123456789abcdef0123456789abcdef",
            Status::Pending,
            json!({ "message": message, "requestedSchema": { "type": "object" } }),
        );
        record.server_name = server.map(str::to_string);
        record.expires_at = 1_796_206_500_000;
        record
    }

    const LINK: &str = "https://relay.example.com/answer/#t=abc_DEF-123";

    #[test]
    fn the_message_says_who_asks_what_and_until_when() {
        let record = record(Some("Weather"), "Deploy to production?");
        let question = Question {
            record: &record,
            link: LINK,
            locale: Locale::EnUs,
            reminder: false,
        };
        let worded = question.worded();
        assert_eq!(worded.subject, "Weather needs your input");
        assert!(worded.text.contains("Deploy to production?"));
        assert!(worded.text.contains(&format!("\n{LINK}\n")));
        assert!(worded.text.contains("2026-12-02 10:15 UTC"));
        assert!(worded.html.contains(&format!("<a href=\"{LINK}\"")));
        let pt = Question {
            locale: Locale::PtBr,
            ..question
        };
        assert!(pt.worded().subject.contains("precisa da sua resposta"));
        let reminder = Question {
            reminder: true,
            ..question
        };
        assert_eq!(
            reminder.worded().subject,
            "Reminder: Weather needs your input"
        );
        let lembrete = Question {
            locale: Locale::PtBr,
            ..reminder
        };
        assert!(lembrete.worded().subject.starts_with("Lembrete: Weather"));
        assert!(pt.worded().html.contains("lang=\"pt-BR\""));
        let nameless = record_with_server(None);
        assert!(Question {
            record: &nameless,
            link: LINK,
            locale: Locale::EnUs,
            reminder: false
        }
        .worded()
        .subject
        .contains("Unknown server"));
    }

    fn record_with_server(server: Option<&str>) -> Record {
        record(server, "hi")
    }

    #[test]
    fn a_one_tap_question_gets_a_link_per_choice_in_both_parts_and_others_none() {
        let mut record = record(Some("Deployer"), "Deploy build 42?");
        record.request = json!({"message": "Deploy build 42?", "requestedSchema": {
            "type": "object", "properties": {"ok": {"type": "boolean", "title": "Deploy <now>"}}}});
        let question = Question {
            record: &record,
            link: LINK,
            locale: Locale::EnUs,
            reminder: false,
        };
        let worded = question.worded();
        for (index, title) in ["Yes", "No", "Reject"].iter().enumerate() {
            let href = format!("{LINK}&c={index}");
            assert!(
                worded.text.contains(&format!("\n{title}: {href}\n")),
                "{}",
                worded.text
            );
            let escaped = escape_html(&href);
            assert!(
                worded.html.contains(&format!("<a href=\"{escaped}\"")),
                "{}",
                worded.html
            );
        }
        assert!(!worded.text.contains("&c=3") && !worded.html.contains("c=3"));
        assert!(worded.text.contains("Deploy <now>\nChoose your answer"));
        assert!(worded.html.contains("Deploy &lt;now&gt;"));
        // The link to all of them stays, the single "Answer" button goes.
        assert!(worded.text.contains(&format!("\n{LINK}\n")));
        assert!(!worded.html.contains(">Answer</a>"));

        let pt = Question {
            locale: Locale::PtBr,
            ..question
        };
        assert!(pt.worded().text.contains(&format!("\nSim: {LINK}&c=0\n")));

        let mut text_question = self::record(Some("Deployer"), "Which city?");
        text_question.request = json!({"message": "Which city?", "requestedSchema": {
            "type": "object", "properties": {"city": {"type": "string"}}}});
        let worded = Question {
            record: &text_question,
            link: LINK,
            locale: Locale::EnUs,
            reminder: false,
        }
        .worded();
        assert!(!worded.text.contains("&c=") && !worded.html.contains("c=0"));
        assert!(worded.html.contains(">Answer</a>"));
    }

    #[test]
    fn no_name_or_message_can_add_a_header_or_markup() {
        let record = record(
            Some("Evil\r\nBcc: eve@example.org\r\n<b>x</b>"),
            "<script>alert(1)</script>\r\nBcc: eve@example.org",
        );
        let question = Question {
            record: &record,
            link: LINK,
            locale: Locale::EnUs,
            reminder: false,
        };
        let worded = question.worded();
        assert!(!worded.html.contains("<script>") && !worded.html.contains("<b>"));
        assert!(worded
            .html
            .contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(worded.html.contains("&lt;b&gt;x&lt;/b&gt;"));
        let from: Mailbox = "Relay <relay@example.com>".parse().unwrap();
        let to: Mailbox = "ana@example.com".parse().unwrap();
        let formatted = question
            .message(from.clone(), to.clone(), &record.id)
            .unwrap()
            .formatted();
        let text = String::from_utf8(formatted).unwrap();
        let (head, _) = text.split_once("\r\n\r\n").unwrap();
        let names: Vec<&str> = head
            .split("\r\n")
            .filter(|line| !line.starts_with([' ', '\t']))
            .filter_map(|line| line.split_once(':').map(|(name, _)| name))
            .collect();
        assert!(!names.iter().any(|name| name.eq_ignore_ascii_case("bcc")));
        assert!(head.contains("Auto-Submitted: auto-generated"));
        assert!(
            head.contains("Message-ID: <elicitation-0123456789abcdef0123456789abcdef@example.com>")
        );
        assert!(head.contains("multipart/alternative"));
        // Another message of the question (another address, a reminder) has an id of its own.
        let other = question.message(from, to, "other row").unwrap().formatted();
        let other = String::from_utf8(other).unwrap();
        assert!(
            other.contains("Message-ID: <elicitation-0123456789abcdef0123456789abcdef."),
            "{other}"
        );
    }
}
