//! URL-mode verdict. The browser's own URL parser splits the URL (so what is judged is exactly what
//! `window.open` would load); this module decides from those parts whether it may open.

/// The parts of a URL as the browser's `URL` parser reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UrlParts {
    /// `protocol` without the colon, lower case (`https`).
    pub scheme: String,
    pub username: String,
    pub password: String,
    /// `hostname` (IDNs arrive as punycode `xn--`).
    pub host: String,
    /// The serialized URL that will be shown and opened.
    pub href: String,
}

/// Why a URL may not be opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockReason {
    Unparsable,
    /// Not `https:` (nor `http:` to a loopback host).
    Scheme,
    /// `http:` to a host other than this machine.
    Insecure,
    /// `user:password@` in the URL, a classic way to disguise the real host.
    Credentials,
}

/// A warning shown beside an URL that may still open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlWarning {
    /// `http:` to localhost: fine while developing, never in production.
    Development,
    /// Punycode or non-ASCII host: may imitate another site's name.
    InternationalHost,
}

/// What URL mode may do with the URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlVerdict {
    Open {
        host: String,
        warnings: Vec<UrlWarning>,
    },
    Blocked {
        reason: BlockReason,
        /// The host, when there is one to show.
        host: Option<String>,
    },
}

impl UrlVerdict {
    /// Whether the open button may be enabled.
    pub fn may_open(&self) -> bool {
        matches!(self, UrlVerdict::Open { .. })
    }
}

/// Decides from the browser's parse; `None` means the browser could not parse the URL.
pub fn judge(parts: Option<&UrlParts>) -> UrlVerdict {
    let Some(parts) = parts else {
        return UrlVerdict::Blocked {
            reason: BlockReason::Unparsable,
            host: None,
        };
    };
    let host = (!parts.host.is_empty()).then(|| parts.host.clone());
    let blocked = |reason| UrlVerdict::Blocked {
        reason,
        host: host.clone(),
    };
    let Some(host_text) = host.clone() else {
        return blocked(if matches!(parts.scheme.as_str(), "https" | "http") {
            BlockReason::Unparsable
        } else {
            BlockReason::Scheme
        });
    };
    if !parts.username.is_empty() || !parts.password.is_empty() {
        return blocked(BlockReason::Credentials);
    }
    let mut warnings = Vec::new();
    match parts.scheme.as_str() {
        "https" => {}
        "http" if is_loopback(&host_text) => warnings.push(UrlWarning::Development),
        "http" => return blocked(BlockReason::Insecure),
        _ => return blocked(BlockReason::Scheme),
    }
    if is_international(&host_text) {
        warnings.push(UrlWarning::InternationalHost);
    }
    UrlVerdict::Open {
        host: host_text,
        warnings,
    }
}

fn is_loopback(host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

fn is_international(host: &str) -> bool {
    !host.is_ascii()
        || host.split('.').any(|label| {
            label
                .get(..4)
                .is_some_and(|prefix| prefix.eq_ignore_ascii_case("xn--"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(scheme: &str, host: &str) -> UrlParts {
        UrlParts {
            scheme: scheme.into(),
            host: host.into(),
            href: format!("{scheme}://{host}/"),
            ..UrlParts::default()
        }
    }

    #[test]
    fn https_opens_plainly() {
        assert_eq!(
            judge(Some(&parts("https", "example.com"))),
            UrlVerdict::Open {
                host: "example.com".into(),
                warnings: vec![]
            }
        );
    }

    #[test]
    fn http_opens_only_to_loopback_with_a_warning() {
        for host in ["localhost", "127.0.0.1", "[::1]"] {
            assert_eq!(
                judge(Some(&parts("http", host))),
                UrlVerdict::Open {
                    host: host.into(),
                    warnings: vec![UrlWarning::Development]
                }
            );
        }
        assert_eq!(
            judge(Some(&parts("http", "example.com"))),
            UrlVerdict::Blocked {
                reason: BlockReason::Insecure,
                host: Some("example.com".into())
            }
        );
    }

    #[test]
    fn other_schemes_credentials_and_garbage_are_blocked() {
        for scheme in ["javascript", "data", "file", "ftp", "blob", "vbscript"] {
            assert!(!judge(Some(&parts(scheme, ""))).may_open(), "{scheme}");
            assert!(
                !judge(Some(&parts(scheme, "example.com"))).may_open(),
                "{scheme}"
            );
        }
        let mut with_user = parts("https", "example.com");
        with_user.username = "user".into();
        with_user.password = "pw".into();
        assert_eq!(
            judge(Some(&with_user)),
            UrlVerdict::Blocked {
                reason: BlockReason::Credentials,
                host: Some("example.com".into())
            }
        );
        assert_eq!(
            judge(None),
            UrlVerdict::Blocked {
                reason: BlockReason::Unparsable,
                host: None
            }
        );
    }

    #[test]
    fn punycode_and_non_ascii_hosts_warn() {
        assert_eq!(
            judge(Some(&parts("https", "xn--pple-43d.com"))),
            UrlVerdict::Open {
                host: "xn--pple-43d.com".into(),
                warnings: vec![UrlWarning::InternationalHost]
            }
        );
        assert!(matches!(
            judge(Some(&parts("https", "аpple.com"))),
            UrlVerdict::Open { warnings, .. } if warnings == vec![UrlWarning::InternationalHost]
        ));
    }
}
