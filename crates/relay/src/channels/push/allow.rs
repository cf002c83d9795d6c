//! Which push services the relay sends to. A person chooses the endpoint of their subscription,
//! so without a list anyone holding a token could make the relay POST to any address it can
//! reach (an internal service, a private address): server-side request forgery. The relay sends
//! only to origins on this list, checked when subscribing and again when sending.
//!
//! An entry is an origin, `https://fcm.googleapis.com`, optionally with a port; its host may
//! start with a `*.` label (`https://*.push.apple.com`), which stands for exactly one label. Only
//! `https` is accepted, except that an exact (not wildcard) origin may be `http`: a push service
//! on the same host or network, as tests run one.

use reqwest::Url;

/// The longest endpoint the relay keeps; real ones are a few hundred characters.
pub use koder_elicitation_relay_protocol::MAX_PUSH_ENDPOINT_CHARS as MAX_ENDPOINT_CHARS;

/// The browsers' push services: Google's (Chrome, Edge on Android, most Chromium browsers),
/// Mozilla's (Firefox), Apple's (Safari) and Microsoft's (Edge on Windows).
pub const BROWSER_PUSH_SERVICES: &str = "https://fcm.googleapis.com,\
     https://*.push.services.mozilla.com,https://*.push.apple.com,https://*.notify.windows.com";

/// The origins the relay may send pushes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowList {
    entries: Vec<AllowedOrigin>,
}

/// One entry: a scheme, a host (exact, or one label under a suffix) and a port.
#[derive(Debug, Clone, PartialEq, Eq)]
struct AllowedOrigin {
    /// `https`, or `http` for an exact host.
    scheme: String,
    host: AllowedHost,
    /// The port, the scheme's default when none was written.
    port: u16,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum AllowedHost {
    /// This host exactly (a domain, lower case, or an address as URLs write it).
    Exact(String),
    /// Any one label followed by this suffix (with its leading dot: `.push.apple.com`).
    OneLabelUnder(String),
}

/// The origin of an endpoint that passed the list, as VAPID's `aud` names it
/// (`https://fcm.googleapis.com`; a port only when it is not the scheme's default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushOrigin(pub String);

impl PushOrigin {
    /// The origin as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for PushOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why an endpoint is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointRefused {
    /// It does not parse as an absolute URL (or is longer than [`MAX_ENDPOINT_CHARS`]).
    #[error("endpoint is not an absolute URL of at most {MAX_ENDPOINT_CHARS} characters")]
    NotAUrl,
    /// Its scheme is not `https`, and it is not `http` on an exactly listed origin.
    #[error(
        "endpoint must be an https:// URL (its scheme is {scheme:?}, and its origin is not \
         listed in --push-endpoint-allow as http)"
    )]
    NotHttps {
        /// The endpoint's scheme.
        scheme: String,
    },
    /// It carries a user name or password.
    #[error("endpoint must not carry a user name or password")]
    UserInfo,
    /// Its origin is not on the list.
    #[error(
        "endpoint's origin {origin} is not a push service this relay sends to \
         (--push-endpoint-allow)"
    )]
    NotAllowed {
        /// The endpoint's origin.
        origin: String,
    },
}

impl AllowList {
    /// The browsers' push services ([`BROWSER_PUSH_SERVICES`]).
    pub fn browsers() -> AllowList {
        match AllowList::parse(BROWSER_PUSH_SERVICES) {
            Ok(list) => list,
            // The constant parses (a unit test holds it to that); an empty list refuses all.
            Err(_) => AllowList {
                entries: Vec::new(),
            },
        }
    }

    /// Comma-separated origins (`https://fcm.googleapis.com,https://*.push.apple.com`). The
    /// error says which entry is wrong and why.
    pub fn parse(text: &str) -> Result<AllowList, String> {
        let entries = text
            .split(',')
            .map(str::trim)
            .map(|entry| AllowedOrigin::parse(entry).map_err(|why| format!("{entry:?} {why}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(AllowList { entries })
    }

    /// The endpoint's origin when the relay may send to it, or why not.
    pub fn check(&self, endpoint: &str) -> Result<PushOrigin, EndpointRefused> {
        if endpoint.chars().count() > MAX_ENDPOINT_CHARS {
            return Err(EndpointRefused::NotAUrl);
        }
        let url = Url::parse(endpoint).map_err(|_| EndpointRefused::NotAUrl)?;
        let scheme = url.scheme();
        if scheme != "https" && scheme != "http" {
            return Err(EndpointRefused::NotHttps {
                scheme: scheme.to_string(),
            });
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(EndpointRefused::UserInfo);
        }
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return Err(EndpointRefused::NotAUrl);
        };
        let origin = url.origin().ascii_serialization();
        if self
            .entries
            .iter()
            .any(|entry| entry.admits(scheme, host, port))
        {
            return Ok(PushOrigin(origin));
        }
        if scheme == "http" {
            return Err(EndpointRefused::NotHttps {
                scheme: scheme.to_string(),
            });
        }
        Err(EndpointRefused::NotAllowed { origin })
    }

    /// The entries as origins, for messages and logs.
    pub fn origins(&self) -> Vec<String> {
        self.entries.iter().map(AllowedOrigin::to_string).collect()
    }
}

impl Default for AllowList {
    fn default() -> AllowList {
        AllowList::browsers()
    }
}

/// The label a `*` stands for while the entry is parsed as a URL.
const WILDCARD_STAND_IN: &str = "wildcard-label";

impl AllowedOrigin {
    fn parse(entry: &str) -> Result<AllowedOrigin, String> {
        let Some((scheme, rest)) = entry.split_once("://") else {
            return Err("is not an origin like https://push.example.com".into());
        };
        if scheme != "https" && scheme != "http" {
            return Err("must start with https:// (or http:// for one exact origin)".into());
        }
        if rest.contains(['/', '?', '#', '@']) {
            return Err("must be an origin only: no path, query, user or trailing /".into());
        }
        let wildcard = rest.starts_with("*.");
        if rest
            .get(usize::from(wildcard)..)
            .is_some_and(|tail| tail.contains('*'))
        {
            return Err("may have * only as its whole first host label (*.example.com)".into());
        }
        if wildcard && scheme == "http" {
            return Err("is http with a * host: only an exact origin may be http".into());
        }
        let stand_in = if wildcard {
            rest.replacen('*', WILDCARD_STAND_IN, 1)
        } else {
            rest.to_string()
        };
        let url = Url::parse(&format!("{scheme}://{stand_in}"))
            .map_err(|error| format!("is not an origin: {error}"))?;
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return Err("has no host".into());
        };
        let host = if wildcard {
            match host.strip_prefix(WILDCARD_STAND_IN) {
                Some(suffix) if suffix.starts_with('.') && suffix.len() > 1 => {
                    AllowedHost::OneLabelUnder(suffix.to_string())
                }
                _ => return Err("has a * host that is not a domain".into()),
            }
        } else {
            AllowedHost::Exact(host.to_string())
        };
        Ok(AllowedOrigin {
            scheme: scheme.to_string(),
            host,
            port,
        })
    }

    fn admits(&self, scheme: &str, host: &str, port: u16) -> bool {
        if self.scheme != scheme || self.port != port {
            return false;
        }
        match &self.host {
            AllowedHost::Exact(allowed) => allowed == host,
            AllowedHost::OneLabelUnder(suffix) => host
                .strip_suffix(suffix.as_str())
                .is_some_and(|label| !label.is_empty() && !label.contains(['.', '[', ':'])),
        }
    }
}

impl std::fmt::Display for AllowedOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let host = match &self.host {
            AllowedHost::Exact(host) => host.clone(),
            AllowedHost::OneLabelUnder(suffix) => format!("*{suffix}"),
        };
        let default_port = if self.scheme == "https" { 443 } else { 80 };
        if self.port == default_port {
            write!(f, "{}://{host}", self.scheme)
        } else {
            write!(f, "{}://{host}:{}", self.scheme, self.port)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(list: &AllowList, endpoint: &str) -> EndpointRefused {
        list.check(endpoint).unwrap_err()
    }

    #[test]
    fn the_browsers_push_services_are_the_default() {
        let list = AllowList::browsers();
        assert_eq!(list, AllowList::default());
        assert_eq!(
            list.origins(),
            [
                "https://fcm.googleapis.com",
                "https://*.push.services.mozilla.com",
                "https://*.push.apple.com",
                "https://*.notify.windows.com",
            ]
        );
        for (endpoint, origin) in [
            (
                "https://fcm.googleapis.com/fcm/send/dXJ0:APA91b",
                "https://fcm.googleapis.com",
            ),
            (
                "https://updates.push.services.mozilla.com/wpush/v2/gAAAA",
                "https://updates.push.services.mozilla.com",
            ),
            (
                "https://web.push.apple.com/QGuQyavXutnMH",
                "https://web.push.apple.com",
            ),
            (
                "https://wns2-par02p.notify.windows.com/w/?token=BQYAAA",
                "https://wns2-par02p.notify.windows.com",
            ),
            (
                "https://FCM.googleapis.com:443/fcm/send/x",
                "https://fcm.googleapis.com",
            ),
        ] {
            assert_eq!(
                list.check(endpoint),
                Ok(PushOrigin(origin.into())),
                "{endpoint}"
            );
        }
    }

    #[test]
    fn a_wildcard_stands_for_exactly_one_label() {
        let list = AllowList::browsers();
        for endpoint in [
            "https://push.apple.com/x",
            "https://a.b.push.apple.com/x",
            "https://evil.example/x.push.apple.com",
            "https://web.push.apple.com.evil.example/x",
            "https://webpush.apple.com/x",
        ] {
            assert!(
                matches!(refused(&list, endpoint), EndpointRefused::NotAllowed { .. }),
                "{endpoint}"
            );
        }
    }

    #[test]
    fn a_private_address_another_host_or_port_is_not_on_the_list() {
        let list = AllowList::parse("https://push.example.com,http://127.0.0.1:8123").unwrap();
        for endpoint in [
            "https://10.0.0.1/x",
            "https://169.254.169.254/latest/meta-data",
            "https://[::1]/x",
            "https://localhost/x",
            "https://other.example.com/x",
            "https://push.example.com:8443/x",
            "https://127.0.0.1:8123/x",
        ] {
            assert!(
                matches!(refused(&list, endpoint), EndpointRefused::NotAllowed { .. }),
                "{endpoint}"
            );
        }
        assert_eq!(
            list.check("http://127.0.0.1:8123/push/1"),
            Ok(PushOrigin("http://127.0.0.1:8123".into()))
        );
        assert_eq!(
            refused(&list, "http://127.0.0.1:8124/push/1"),
            EndpointRefused::NotHttps {
                scheme: "http".into()
            }
        );
    }

    #[test]
    fn http_only_on_an_exactly_listed_origin() {
        let list = AllowList::browsers();
        assert_eq!(
            refused(&list, "http://fcm.googleapis.com/fcm/send/x"),
            EndpointRefused::NotHttps {
                scheme: "http".into()
            }
        );
        assert!(AllowList::parse("http://*.example.com")
            .unwrap_err()
            .contains("only an exact origin may be http"));
    }

    #[test]
    fn not_a_url_file_and_userinfo_are_refused_with_their_reason() {
        let list = AllowList::browsers();
        assert_eq!(refused(&list, "not a url"), EndpointRefused::NotAUrl);
        assert_eq!(refused(&list, "/relative/path"), EndpointRefused::NotAUrl);
        assert_eq!(refused(&list, ""), EndpointRefused::NotAUrl);
        let long = format!(
            "https://fcm.googleapis.com/{}",
            "a".repeat(MAX_ENDPOINT_CHARS)
        );
        assert_eq!(refused(&list, &long), EndpointRefused::NotAUrl);
        assert_eq!(
            refused(&list, "file:///etc/passwd"),
            EndpointRefused::NotHttps {
                scheme: "file".into()
            }
        );
        assert_eq!(
            refused(&list, "https://user:pw@fcm.googleapis.com/x"),
            EndpointRefused::UserInfo
        );
        assert_eq!(
            refused(&list, "https://user@fcm.googleapis.com/x"),
            EndpointRefused::UserInfo
        );
        for reason in [
            EndpointRefused::NotAUrl,
            EndpointRefused::UserInfo,
            EndpointRefused::NotHttps {
                scheme: "file".into(),
            },
            EndpointRefused::NotAllowed {
                origin: "https://10.0.0.1".into(),
            },
        ] {
            assert!(reason.to_string().starts_with("endpoint"), "{reason}");
        }
    }

    #[test]
    fn entries_are_origins_only() {
        for bad in [
            "",
            "fcm.googleapis.com",
            "ftp://push.example.com",
            "https://push.example.com/",
            "https://push.example.com/path",
            "https://user@push.example.com",
            "https://push.*.example.com",
            "https://*",
            "https://*.",
            "https://a*.example.com",
            "https://*.*.example.com",
            "https://push.example.com:99999",
        ] {
            assert!(AllowList::parse(bad).is_err(), "{bad:?}");
        }
        let list = AllowList::parse(" https://Push.Example.com:8443 , http://[::1]:9000").unwrap();
        assert_eq!(
            list.origins(),
            ["https://push.example.com:8443", "http://[::1]:9000"]
        );
        assert!(list.check("http://[::1]:9000/x").is_ok());
        assert!(list.check("https://push.example.com:8443/x").is_ok());
        assert!(
            AllowList::parse("https://push.example.com,,https://b.example")
                .unwrap_err()
                .starts_with("\"\"")
        );
    }
}
