//! URL mode on the terminal, under the element's policy (the core's [`judge`]): the full address
//! with its host emphasized, the development and international-host warnings, blocked addresses
//! never opened. On consent the system browser opens (`$BROWSER` first), then the wait.

use koder_mcp_elicitation_core::i18n::Arg;
use koder_mcp_elicitation_core::reply::Ending;
use koder_mcp_elicitation_core::url::{judge, BlockReason, UrlParts, UrlVerdict, UrlWarning};

use crate::editor::{read, Answer, Prompt, Ui};
use crate::flow::Flow;
use crate::form_prompt::{ask_key, ask_reject};
use crate::lifecycle::WaitEnd;
use crate::messages::Messages;
use crate::term::{Key, Tone};

/// The parts the policy judges, from the `url` crate's WHATWG parse (what a browser would open).
pub fn url_parts(url: &str) -> Option<UrlParts> {
    let parsed = url::Url::parse(url).ok()?;
    Some(UrlParts {
        scheme: parsed.scheme().to_ascii_lowercase(),
        username: parsed.username().to_string(),
        password: parsed.password().unwrap_or_default().to_string(),
        host: parsed.host_str().unwrap_or_default().to_string(),
        href: parsed.as_str().to_string(),
    })
}

/// Shows the address and asks for consent; opens the browser on consent.
pub fn ask_url(ui: &mut Ui, url: &str) -> Result<Ending, Flow> {
    let messages = ui.messages.clone();
    let parts = url_parts(url);
    let verdict = judge(parts.as_ref());
    ui.term.raw("\r\n")?;
    ui.term.styled(
        Tone::Strong,
        &format!("{}: ", messages.get("mcp-elicitation-url_mode-address")),
    )?;
    ui.term.line(Tone::Normal, url)?;
    let host = match &verdict {
        UrlVerdict::Open { host, .. } => Some(host.clone()),
        UrlVerdict::Blocked { host, .. } => host.clone(),
    };
    if let Some(host) = host {
        ui.term.styled(
            Tone::Strong,
            &format!("{}: ", messages.get("mcp-elicitation-url_mode-site")),
        )?;
        ui.term.styled(Tone::Host, &host)?;
        ui.term.raw("\r\n")?;
    }
    match &verdict {
        UrlVerdict::Open { warnings, .. } => {
            for warning in warnings {
                let id = match warning {
                    UrlWarning::Development => "mcp-elicitation-url_mode-warning-development",
                    UrlWarning::InternationalHost => {
                        "mcp-elicitation-url_mode-warning-international"
                    }
                };
                ui.term
                    .line(Tone::Alert, &format!("⚠ {}", messages.get(id)))?;
            }
        }
        UrlVerdict::Blocked { reason, .. } => {
            let id = match reason {
                BlockReason::Unparsable => "mcp-elicitation-url_mode-blocked-unparsable",
                BlockReason::Scheme => "mcp-elicitation-url_mode-blocked-scheme",
                BlockReason::Insecure => "mcp-elicitation-url_mode-blocked-insecure",
                BlockReason::Credentials => "mcp-elicitation-url_mode-blocked-credentials",
            };
            ui.term
                .line(Tone::Alert, &format!("✗ {}", messages.get(id)))?;
        }
    }
    let actions = actions(&messages);
    let href = match (&verdict, &parts) {
        (UrlVerdict::Open { .. }, Some(parts)) => Some(parts.href.clone()),
        _ => None,
    };
    let keys = match href {
        Some(_) => messages.with(
            "mcp-elicitation-terminal-url-confirm",
            &[
                ("open", Arg::Text(&actions.open)),
                ("reject", Arg::Text(&actions.reject)),
                ("cancel", Arg::Text(&actions.cancel)),
            ],
        ),
        None => messages.with(
            "mcp-elicitation-terminal-url-blocked-keys",
            &[
                ("reject", Arg::Text(&actions.reject)),
                ("cancel", Arg::Text(&actions.cancel)),
            ],
        ),
    };
    ui.term.line(Tone::Strong, &keys)?;
    loop {
        match (ask_key(ui)?, &href) {
            (Key::Enter | Key::Char('o' | 'O'), Some(href)) => {
                open_in_browser(ui, href)?;
                return Ok(ui.life.settle(Ending::Accept(None)));
            }
            (Key::Char('r' | 'R'), _) => return ask_reject(ui),
            _ => {}
        }
    }
}

/// Opens `href` (one the policy lets open) in the system browser, and says whether it could.
fn open_in_browser(ui: &mut Ui, href: &str) -> Result<(), Flow> {
    ui.term.line(
        Tone::Normal,
        &ui.messages.get("mcp-elicitation-url_mode-opening"),
    )?;
    if webbrowser::open(href).is_err() {
        ui.term.line(
            Tone::Alert,
            &ui.messages.get("mcp-elicitation-terminal-url-open-failed"),
        )?;
    }
    Ok(())
}

/// A later round (MCP 2026-07-28) asks again for an address the person already agreed to open:
/// no second consent and no second window. It says the server is waiting for the person to finish
/// on that site, and offers Continue (accept, so the host retries), Open again and Cancel.
pub fn ask_url_again(ui: &mut Ui, url: &str) -> Result<Ending, Flow> {
    let messages = ui.messages.clone();
    let parts = url_parts(url);
    let host = parts
        .as_ref()
        .map(|parts| parts.host.clone())
        .unwrap_or_default();
    ui.term.raw("\r\n")?;
    ui.term.styled(
        Tone::Strong,
        &format!("{}: ", messages.get("mcp-elicitation-url_mode-address")),
    )?;
    ui.term.line(Tone::Normal, url)?;
    ui.term.line(
        Tone::Normal,
        &messages.with(
            "mcp-elicitation-terminal-url-again",
            &[("host", Arg::Text(&host))],
        ),
    )?;
    // Only an address the policy lets open may be opened again.
    let href = parts
        .filter(|parts| judge(Some(parts)).may_open())
        .map(|parts| parts.href);
    let actions = actions(&messages);
    let keys = messages.with(
        "mcp-elicitation-terminal-url-again-keys",
        &[
            (
                "continue",
                Arg::Text(&messages.get("mcp-elicitation-terminal-url-continue")),
            ),
            (
                "open",
                Arg::Text(&messages.get("mcp-elicitation-terminal-url-open_again")),
            ),
            ("cancel", Arg::Text(&actions.cancel)),
        ],
    );
    ui.term.line(Tone::Strong, &keys)?;
    loop {
        match ask_key(ui)? {
            Key::Enter => return Ok(ui.life.settle(Ending::Accept(None))),
            Key::Char('o' | 'O') => {
                if let Some(href) = &href {
                    open_in_browser(ui, href)?;
                }
            }
            _ => {}
        }
    }
}

/// After consent: waits for the server's `complete` (or the status URL's), or for the person
/// to press Enter or Esc.
pub fn wait(ui: &mut Ui) -> Result<WaitEnd, Flow> {
    let messages = ui.messages.clone();
    ui.term.line(
        Tone::Normal,
        &messages.get("mcp-elicitation-url_mode-waiting"),
    )?;
    ui.term.line(
        Tone::Quiet,
        &messages.get("mcp-elicitation-terminal-url-wait-keys"),
    )?;
    let prompt = Prompt {
        single_key: true,
        ..Prompt::default()
    };
    loop {
        if let Some(end) = ui.life.wait_end() {
            return Ok(report(ui, end)?);
        }
        match read(ui, &prompt)? {
            Answer::Key(Key::Enter) | Answer::Stop(_) | Answer::Reject => {
                if let Some(end) = ui.life.wait_end() {
                    return Ok(report(ui, end)?);
                }
                ui.life.end_wait();
                return Ok(WaitEnd::Closed);
            }
            _ => {}
        }
    }
}

fn report(ui: &mut Ui, end: WaitEnd) -> std::io::Result<WaitEnd> {
    if end == WaitEnd::Completed {
        ui.term.line(
            Tone::Normal,
            &ui.messages.get("mcp-elicitation-terminal-url-completed"),
        )?;
    }
    Ok(end)
}

struct Actions {
    open: String,
    reject: String,
    cancel: String,
}

fn actions(messages: &Messages) -> Actions {
    Actions {
        open: messages.get("mcp-elicitation-url_mode-open"),
        reject: messages.get("mcp-elicitation-action-reject"),
        cancel: messages.get("mcp-elicitation-action-cancel"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_come_from_a_whatwg_parse() {
        let parts = url_parts("HTTPS://user:pw@Example.COM:8443/a?b").unwrap();
        assert_eq!(parts.scheme, "https");
        assert_eq!(parts.host, "example.com");
        assert_eq!(parts.username, "user");
        assert_eq!(parts.password, "pw");
        assert!(!judge(Some(&parts)).may_open());
        let parts = url_parts("https://bücher.example/").unwrap();
        assert_eq!(parts.host, "xn--bcher-kva.example");
        assert!(matches!(
            judge(Some(&parts)),
            UrlVerdict::Open { warnings, .. } if warnings == vec![UrlWarning::InternationalHost]
        ));
        let parts = url_parts("http://[::1]:3000/").unwrap();
        assert_eq!(parts.host, "[::1]");
        assert!(judge(Some(&parts)).may_open());
        assert_eq!(url_parts("not a url"), None);
        assert!(!judge(url_parts("javascript:alert(1)").as_ref()).may_open());
    }
}
