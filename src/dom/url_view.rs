//! Builds URL mode: the full URL as text, the host emphasized, warnings or the blocked state, the
//! wait after consent, and the view of a URL already consented to. The URL and host go in through
//! `textContent` only, each isolated left to right.

use web_sys::{Document, Element};

use super::frame::{button, Chrome};
use super::{append, create, create_part, set_attr, set_text_isolating, SLOT};
use crate::i18n::{plain, text, Arg, Locale};
use crate::url::{BlockReason, UrlVerdict, UrlWarning};

/// Builds URL mode: the full URL as text, the host emphasized, warnings or the blocked state.
pub fn url(
    document: &Document,
    locale: Locale,
    chrome: &Chrome,
    shown_url: &str,
    verdict: &UrlVerdict,
) {
    let tr = |id: &str| plain(locale, id);
    let host = match verdict {
        UrlVerdict::Open { host, .. } => Some(host.as_str()),
        UrlVerdict::Blocked { host, .. } => host.as_deref(),
    };
    append(
        &chrome.body,
        &address_box(document, locale, shown_url, host),
    );

    let warnings: Vec<String> = match verdict {
        UrlVerdict::Open { warnings, .. } => warnings
            .iter()
            .map(|warning| match warning {
                UrlWarning::Development => tr("mcp-elicitation-url_mode-warning-development"),
                UrlWarning::InternationalHost => {
                    tr("mcp-elicitation-url_mode-warning-international")
                }
            })
            .collect(),
        UrlVerdict::Blocked { reason, .. } => vec![tr(match reason {
            BlockReason::Unparsable => "mcp-elicitation-url_mode-blocked-unparsable",
            BlockReason::Scheme => "mcp-elicitation-url_mode-blocked-scheme",
            BlockReason::Insecure => "mcp-elicitation-url_mode-blocked-insecure",
            BlockReason::Credentials => "mcp-elicitation-url_mode-blocked-credentials",
        })],
    };
    for warning in warnings {
        let paragraph = create_part(document, "p", "warning", Some(&warning));
        set_attr(&paragraph, "role", "note");
        append(&chrome.body, &paragraph);
    }
    if verdict.may_open() {
        // "Nothing is loaded until you choose Open page" would be untrue of a blocked address.
        let status = create(document, "p");
        set_attr(&status, "class", "note");
        status.set_text_content(Some(&tr("mcp-elicitation-url_mode-note")));
        append(&chrome.body, &status);
    }
    append(&chrome.body, &chrome.reason_box);

    let open = button(document, "open", &tr("mcp-elicitation-url_mode-open"));
    if !verdict.may_open() {
        set_attr(&open, "disabled", "");
    }
    append(&chrome.actions, &open);
}

/// The full URL and, when there is one, its host emphasized in `[part~=url-host]`.
fn address_box(
    document: &Document,
    locale: Locale,
    shown_url: &str,
    host: Option<&str>,
) -> Element {
    let tr = |id: &str| plain(locale, id);
    let url_box = create(document, "div");
    set_attr(&url_box, "class", "url-box");
    let address_label = create(document, "p");
    set_attr(&address_label, "class", "note");
    address_label.set_text_content(Some(&tr("mcp-elicitation-url_mode-address")));
    // A URL and its host read left to right in any language, each isolated from the text around
    // by its element (the URL is a paragraph of its own), and shown exactly as they are: a copied
    // URL must be the URL.
    let address = create_part(document, "p", "url", Some(shown_url));
    set_attr(&address, "dir", "ltr");
    append(&url_box, &address_label);
    append(&url_box, &address);
    if let Some(host) = host {
        let site = create(document, "p");
        let site_label = create(document, "span");
        set_attr(&site_label, "class", "note");
        site_label.set_text_content(Some(&format!("{}: ", tr("mcp-elicitation-url_mode-site"))));
        let host_text = create_part(document, "strong", "url-host", Some(host));
        set_attr(&host_text, "dir", "ltr");
        append(&site, &site_label);
        append(&site, &host_text);
        append(&url_box, &site);
    }
    url_box
}

/// The wait after consent (MCP 2025-11-25): the URL opened, shown as text, until the server
/// reports completion. Cancel stops waiting, and "I've finished" (`finished`) joins it; nothing
/// is declined any more, so the reject button goes.
pub fn waiting(document: &Document, locale: Locale, chrome: &Chrome, shown_url: &str) {
    let status = create(document, "p");
    status.set_text_content(Some(&plain(locale, "mcp-elicitation-url_mode-waiting")));
    set_attr(&status, "class", "note");
    append(&chrome.body, &status);
    let shown = create_part(document, "p", "url", Some(shown_url));
    // A URL reads left to right in any language, in a paragraph of its own.
    set_attr(&shown, "dir", "ltr");
    append(&chrome.body, &shown);
    chrome.reject.remove();
    // Cancel also answers to `close`, the part the wait's only button had before "I've finished"
    // joined it.
    set_attr(&chrome.cancel, "part", "cancel close");
    let finished = button(
        document,
        "finished",
        &plain(locale, "mcp-elicitation-url_mode-finished"),
    );
    append(&chrome.actions, &finished);
}

/// A URL the user already consented to, asked for again by the same server (MCP 2026-07-28, the
/// next round): no consent step. It says the element waits for them to finish on `host` and
/// offers Cancel, Open again (`open`) and Continue (`continue`, which accepts); the reject button
/// and reason go, since nothing is asked.
pub fn resume(document: &Document, locale: Locale, chrome: &Chrome, shown_url: &str, host: &str) {
    let tr = |id: &str| plain(locale, id);
    let status = create(document, "p");
    set_attr(&status, "id", "kme-resume");
    let waiting = text(
        locale,
        "mcp-elicitation-url_mode-resume",
        &[("host", Arg::Text(SLOT))],
    );
    set_text_isolating(document, &status, &waiting, host, Some("ltr"));
    append(&chrome.body, &status);
    append(
        &chrome.body,
        &address_box(document, locale, shown_url, Some(host)),
    );
    let note = create(document, "p");
    set_attr(&note, "class", "note");
    note.set_text_content(Some(&tr("mcp-elicitation-url_mode-resume-note")));
    append(&chrome.body, &note);
    // The dialog is described by the server's message and by what it waits for.
    set_attr(&chrome.dialog, "aria-describedby", "kme-message kme-resume");
    chrome.reject.remove();
    let open = button(document, "open", &tr("mcp-elicitation-url_mode-open_again"));
    let proceed = button(
        document,
        "continue",
        &tr("mcp-elicitation-url_mode-continue"),
    );
    append(&chrome.actions, &open);
    append(&chrome.actions, &proceed);
}
