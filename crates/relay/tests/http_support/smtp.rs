//! A small SMTP server for the e-mail tests: it takes every message (no STARTTLS offered: the
//! relay sends in the clear only to the local host) and keeps it; and reading what it kept.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use std::time::Duration;

use base64::Engine;
use koder_elicitation_relay::answer_page::AnswerPageSettings;
use koder_elicitation_relay::channels::email::{EmailSettings, SmtpSecurity, SmtpUrl};
use koder_elicitation_relay::Config;

use super::{Relay, TempDir};

/// Every message the SMTP server took, as sent (its DATA).
pub type Inbox = Arc<Mutex<Vec<String>>>;

/// An SMTP server on 127.0.0.1 that takes every message (no STARTTLS offered: the relay sends
/// in the clear only to the local host) and keeps it.
pub fn smtp_server() -> (u16, Inbox) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let inbox = Inbox::default();
    let kept = Arc::clone(&inbox);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let kept = Arc::clone(&kept);
            std::thread::spawn(move || converse(stream, &kept));
        }
    });
    (port, inbox)
}

/// One SMTP session: EHLO, MAIL, RCPT, DATA (kept), RSET, NOOP, QUIT.
fn converse(stream: TcpStream, inbox: &Mutex<Vec<String>>) {
    let mut writer = stream.try_clone().unwrap();
    let mut reply = |line: &str| writer.write_all(format!("{line}\r\n").as_bytes()).is_ok();
    let mut reader = BufReader::new(stream);
    reply("220 sink.test ESMTP");
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let command = line.trim_end().to_ascii_uppercase();
        let answered = if command.starts_with("EHLO") || command.starts_with("HELO") {
            reply("250-sink.test") && reply("250 8BITMIME")
        } else if command == "DATA" {
            reply("354 go on");
            let mut data = String::new();
            loop {
                line.clear();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                if line == ".\r\n" {
                    break;
                }
                data.push_str(line.strip_prefix('.').unwrap_or(&line));
            }
            inbox.lock().unwrap().push(data);
            reply("250 kept")
        } else if command == "QUIT" {
            reply("221 bye");
            return;
        } else {
            reply("250 ok")
        };
        if !answered {
            return;
        }
    }
}

/// The decoded body of the part of `message` whose type is `content_type`.
pub fn part(message: &str, content_type: &str) -> String {
    let start = message
        .find(&format!("Content-Type: {content_type}"))
        .unwrap_or_else(|| panic!("no {content_type} part in {message}"));
    let part = &message[start..];
    let (head, body) = part.split_once("\r\n\r\n").unwrap();
    // The part ends at the next boundary line: split on the message's own boundaries, since a
    // quoted-printable line of a link's token may itself begin with `--`.
    let end = boundaries(message)
        .filter_map(|boundary| body.find(&format!("\r\n--{boundary}")))
        .min()
        .unwrap_or(body.len());
    let body = &body[..end];
    let encoding = head
        .lines()
        .find_map(|line| line.strip_prefix("Content-Transfer-Encoding: "))
        .unwrap_or("7bit");
    match encoding.trim() {
        "base64" => {
            let joined: String = body.split_whitespace().collect();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(joined)
                .unwrap();
            String::from_utf8(bytes).unwrap()
        }
        "quoted-printable" => {
            let bytes = quoted_printable::decode(body, quoted_printable::ParseMode::Robust);
            String::from_utf8(bytes.unwrap()).unwrap()
        }
        _ => body.to_string(),
    }
}

/// The multipart boundaries `message` declares (`boundary="…"`).
fn boundaries(message: &str) -> impl Iterator<Item = &str> {
    message
        .split("boundary=\"")
        .skip(1)
        .filter_map(|rest| rest.split_once('"').map(|(boundary, _)| boundary))
}

/// Every answer link in `text` (`<public-url>/answer/#t=…`, with its `&c=n` if any; HTML's
/// `&amp;` read as `&`).
pub fn links_in(public_url: &str, text: &str) -> Vec<String> {
    let prefix = format!("{public_url}/answer/#t=");
    text.match_indices(&prefix)
        .map(|(start, _)| {
            text[start..]
                .split(|c: char| c.is_whitespace() || c == '"' || c == '<')
                .next()
                .unwrap()
                .replace("&amp;", "&")
        })
        .collect()
}

/// A relay with the answer page on at `public_url` (its files from `assets`), mailing through
/// the SMTP server at `port` to example.com, set as `adjust` says.
pub async fn relay_mailing(
    port: u16,
    assets: &TempDir,
    public_url: &str,
    adjust: impl FnOnce(&mut Config),
) -> Relay {
    std::fs::write(assets.0.join("koder-mcp-elicitation.js"), "export {};\n").unwrap();
    let page = AnswerPageSettings::new(public_url, &assets.0).unwrap();
    Relay::start_with(|config| {
        config.answer_page = Some(page);
        config.email = Some(EmailSettings {
            smtp: SmtpUrl {
                host: "127.0.0.1".into(),
                port,
                security: SmtpSecurity::StartTlsWhenOffered,
            },
            user: None,
            password: None,
            from: "Koder Relay <relay@relay.test>".into(),
            allow_domains: vec!["example.com".into()],
            after: Duration::ZERO,
        });
        adjust(config);
    })
    .await
}
