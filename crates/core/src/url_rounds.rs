//! URL mode across the rounds of an MCP 2026-07-28 multi round-trip request. A URL-mode request
//! without `elicitationId` asks only for consent: `accept` means "the user consented", nothing
//! waits for a completion, and the host learns the outcome by retrying. A server whose out-of-band
//! step is not finished asks for the same URL again in its next round; the user already consented
//! to it, so the surface offers to continue, open the page again or cancel instead of asking again.
//!
//! 2025-11-25 requests (they carry an `elicitationId`) and Koder envelopes (answered with
//! `complete(id)`) keep their wait for completion and are never remembered here.

use crate::limits::MAX_URL_CONSENTS;
use crate::reply::Ending;
use crate::request::{Mode, Protocol, Request};
use crate::scope::Tenant;
use crate::url::UrlVerdict;

/// Whether a URL-mode consent leaves the elicitation waiting for its completion (the server's
/// notification, a status poll, "I've finished"). Only URL mode with an `elicitationId`
/// (2025-11-25) or a Koder envelope waits; form mode never does.
pub fn waits_for_completion(request: &Request) -> bool {
    match &request.mode {
        Mode::Url(url) => url.elicitation_id.is_some() || request.protocol == Protocol::Envelope,
        Mode::Form(_) => false,
    }
}

/// What a URL-mode request shows first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlStep {
    /// Ask for consent to open the URL (or show it blocked).
    Consent,
    /// The user already consented to this URL from this server: say it waits for them to finish
    /// there, and offer continue (accept), open again and cancel. Nothing opens by itself.
    Resume,
}

/// One remembered consent: who the element worked for, which server asked, the exact URL.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Consent {
    tenant: Tenant,
    server: String,
    url: String,
}

/// The consents a surface remembers, most recently used last, at most [`MAX_URL_CONSENTS`]: the
/// oldest goes first, so a busy page cannot grow memory forever. In memory only, like drafts. The
/// tenant is part of the key, so a consent never carries over to another user or workspace.
#[derive(Debug, Clone, Default)]
pub struct UrlConsents {
    consents: Vec<Consent>,
}

impl UrlConsents {
    /// What to show for `request`, sent by `server` while the surface works for `tenant`, whose
    /// URL the browser judged `verdict`. `Resume` only for a 2026-07-28 URL request (no
    /// `elicitationId`) that may open and whose exact URL this server already had consent for.
    pub fn step(
        &self,
        tenant: &Tenant,
        server: &str,
        request: &Request,
        verdict: &UrlVerdict,
    ) -> UrlStep {
        let Mode::Url(url) = &request.mode else {
            return UrlStep::Consent;
        };
        let known = !waits_for_completion(request)
            && verdict.may_open()
            && self.position(tenant, server, &url.url).is_some();
        if known {
            UrlStep::Resume
        } else {
            UrlStep::Consent
        }
    }

    /// A URL-mode elicitation ended. A 2026-07-28 accept (first consent or continue) remembers the
    /// consent; any other ending (decline, cancel, timeout) forgets it, so the next request for
    /// that URL asks again. Requests that wait for completion are left alone.
    pub fn settled(&mut self, tenant: &Tenant, server: &str, request: &Request, ending: &Ending) {
        let Mode::Url(url) = &request.mode else {
            return;
        };
        if waits_for_completion(request) {
            return;
        }
        if let Some(index) = self.position(tenant, server, &url.url) {
            self.consents.remove(index);
        }
        if matches!(ending, Ending::Accept(_)) {
            if self.consents.len() >= MAX_URL_CONSENTS {
                self.consents.remove(0);
            }
            self.consents.push(Consent {
                tenant: tenant.clone(),
                server: server.to_string(),
                url: url.url.clone(),
            });
        }
    }

    /// How many consents are remembered.
    pub fn len(&self) -> usize {
        self.consents.len()
    }

    /// Whether none is remembered.
    pub fn is_empty(&self) -> bool {
        self.consents.is_empty()
    }

    fn position(&self, tenant: &Tenant, server: &str, url: &str) -> Option<usize> {
        self.consents.iter().position(|consent| {
            consent.url == url && consent.server == server && &consent.tenant == tenant
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::CancelSource;
    use crate::request::{parse_request, ParseOptions};
    use serde_json::{json, Value};

    const URL: &str = "https://auth.example.com/connect?session=1";

    fn parse(value: Value) -> Request {
        parse_request(&value, &ParseOptions::default()).unwrap()
    }

    /// A 2026-07-28 URL request: bare params without `elicitationId`.
    fn round(url: &str) -> Request {
        parse(json!({"mode": "url", "message": "Sign in", "url": url}))
    }

    fn open() -> UrlVerdict {
        UrlVerdict::Open {
            host: "auth.example.com".into(),
            warnings: vec![],
        }
    }

    fn tenant(user: &str) -> Tenant {
        Tenant {
            user_id: user.into(),
            ..Tenant::default()
        }
    }

    #[test]
    fn only_url_mode_with_an_elicitation_id_or_an_envelope_waits_for_completion() {
        assert!(!waits_for_completion(&round(URL)));
        assert!(!waits_for_completion(&parse(json!({
            "jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
            "params": {"mode": "url", "message": "m", "url": URL}}))));
        assert!(waits_for_completion(&parse(json!({
            "mode": "url", "message": "m", "url": URL, "elicitationId": "e-1"}))));
        assert!(waits_for_completion(&parse(json!({
            "type": "elicitation/request", "id": "env-1", "mode": "url", "url": URL}))));
        assert!(!waits_for_completion(&parse(json!({
            "message": "m", "requestedSchema": {"type": "object", "properties": {}}}))));
    }

    #[test]
    fn a_consented_url_from_the_same_server_resumes_instead_of_asking_again() {
        let mut consents = UrlConsents::default();
        let me = tenant("u");
        let request = round(URL);
        assert_eq!(
            consents.step(&me, "github", &request, &open()),
            UrlStep::Consent
        );
        consents.settled(&me, "github", &request, &Ending::Accept(None));
        assert_eq!(
            consents.step(&me, "github", &round(URL), &open()),
            UrlStep::Resume
        );
        // Another server, another URL, another user, or a URL that may not open: ask again.
        assert_eq!(
            consents.step(&me, "gitlab", &request, &open()),
            UrlStep::Consent
        );
        assert_eq!(
            consents.step(&me, "github", &round(&format!("{URL}&x")), &open()),
            UrlStep::Consent
        );
        assert_eq!(
            consents.step(&tenant("v"), "github", &request, &open()),
            UrlStep::Consent
        );
        let blocked = UrlVerdict::Blocked {
            reason: crate::url::BlockReason::Insecure,
            host: None,
        };
        assert_eq!(
            consents.step(&me, "github", &request, &blocked),
            UrlStep::Consent
        );
    }

    #[test]
    fn declining_or_cancelling_a_first_consent_records_nothing_and_later_endings_forget() {
        let mut consents = UrlConsents::default();
        let me = tenant("u");
        let request = round(URL);
        for ending in [
            Ending::Decline { reason: None },
            Ending::Cancel(CancelSource::User),
            Ending::Timeout,
        ] {
            consents.settled(&me, "s", &request, &ending);
            assert!(consents.is_empty(), "{ending:?} records no consent");
        }
        consents.settled(&me, "s", &request, &Ending::Accept(None));
        // Continue accepts again: still one consent, still remembered.
        consents.settled(&me, "s", &request, &Ending::Accept(None));
        assert_eq!(consents.len(), 1);
        consents.settled(&me, "s", &request, &Ending::Cancel(CancelSource::User));
        assert_eq!(consents.step(&me, "s", &request, &open()), UrlStep::Consent);
    }

    #[test]
    fn requests_that_wait_for_completion_are_never_remembered() {
        let mut consents = UrlConsents::default();
        let me = tenant("u");
        let with_id =
            parse(json!({"mode": "url", "message": "m", "url": URL, "elicitationId": "e"}));
        consents.settled(&me, "s", &with_id, &Ending::Accept(None));
        assert!(consents.is_empty());
        assert_eq!(consents.step(&me, "s", &with_id, &open()), UrlStep::Consent);
        // Even with a consent from a 2026-07-28 round, a 2025-11-25 request asks for consent.
        consents.settled(&me, "s", &round(URL), &Ending::Accept(None));
        assert_eq!(consents.step(&me, "s", &with_id, &open()), UrlStep::Consent);
    }

    #[test]
    fn the_memory_is_bounded_and_forgets_the_least_recently_used_first() {
        let mut consents = UrlConsents::default();
        let me = tenant("u");
        let url = |n: usize| format!("https://auth.example.com/{n}");
        for n in 0..MAX_URL_CONSENTS {
            consents.settled(&me, "s", &round(&url(n)), &Ending::Accept(None));
        }
        // Using the oldest again makes it the newest.
        consents.settled(&me, "s", &round(&url(0)), &Ending::Accept(None));
        consents.settled(&me, "s", &round(&url(999)), &Ending::Accept(None));
        assert_eq!(consents.len(), MAX_URL_CONSENTS);
        assert_eq!(
            consents.step(&me, "s", &round(&url(1)), &open()),
            UrlStep::Consent,
            "the least recently used went"
        );
        for n in [0, 2, 999] {
            assert_eq!(
                consents.step(&me, "s", &round(&url(n)), &open()),
                UrlStep::Resume,
                "{n} kept"
            );
        }
    }
}
