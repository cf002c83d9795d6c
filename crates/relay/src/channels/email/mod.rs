//! E-mail: the relay mails a question's link to the person a host names in the create body
//! (`notify.email`), when it has an SMTP server (`--smtp-url`). [`EmailSettings`] is built from
//! the flags; [`Recipients`] is the allow list a create's address is checked against (so a host
//! token cannot make the relay mail anyone); [`message`] makes the message and [`channel`]
//! sends it from the e-mail outbox.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use koder_elicitation_relay_protocol::Notify;
use lettre::message::Mailbox;
use lettre::Address;

use reqwest::Url;
use url::Host;

use crate::channels::{Relay, Settings};
use crate::given_url;
use crate::secret::Secret;
use crate::store::outbox::Queue;

/// The message: its headers and its text and HTML parts.
pub mod message;

/// The channel: one attempt at a row, over SMTP.
pub mod channel;

/// Its outbox table: the row a create queues, the row a claim returns.
pub mod store;

pub use channel::Emails;
pub use store::EmailQueue;

impl Settings for EmailSettings {
    type Channel = Emails;

    fn accepts(settings: Option<&Self>, notify: &Notify) -> Result<(), String> {
        // Off, no address is accepted: the allow list is empty.
        let recipients = settings.map(EmailSettings::recipients).unwrap_or_default();
        recipients.check(notify)
    }

    fn queue(&self) -> Arc<dyn Queue> {
        Arc::new(EmailQueue { after: self.after })
    }

    fn channel(&self, relay: &Relay) -> Result<Emails, String> {
        // E-mail needs the answer page (Config::check): a message is its question's link.
        let links = relay
            .links
            .clone()
            .ok_or("e-mail needs the answer page (--answer-page): a message is its link")?;
        Ok(Emails {
            store: Arc::clone(&relay.store),
            elicitations: relay.elicitations.clone(),
            from: self.from_mailbox()?,
            transport: channel::transport(self)?,
            links,
        })
    }
}

/// How a connection to the SMTP server is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtpSecurity {
    /// `smtps://`: TLS from the first byte.
    Implicit,
    /// `smtp://` to another host: STARTTLS, required (no message goes in the clear).
    StartTls,
    /// `smtp://` to the local host: STARTTLS when the server offers it, plain otherwise (a
    /// relay beside a local mail server).
    StartTlsWhenOffered,
}

/// `--smtp-url`: where mail goes and how the connection is secured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmtpUrl {
    /// The server's host name (or address), as the certificate must name it.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// How the connection is secured.
    pub security: SmtpSecurity,
}

impl SmtpUrl {
    /// `smtps://HOST[:PORT]` (port 465 by default) or `smtp://HOST[:PORT]` (587); nothing else
    /// (no user, path or query: the credentials have flags of their own).
    pub fn parse(text: &str) -> Result<SmtpUrl, String> {
        let shape = "--smtp-url must be smtps://HOST:PORT or smtp://HOST:PORT";
        let (scheme, rest) = text.split_once("://").ok_or(shape)?;
        let default_port = match scheme {
            "smtps" => 465,
            "smtp" => 587,
            _ => return Err(shape.into()),
        };
        if rest.is_empty() || rest.contains(['/', '?', '#', '@']) || !rest.is_ascii() {
            return Err(format!("{shape} (no user, path or query)"));
        }
        let bad_port = || format!("{shape} (the port is not a number)");
        if rest.ends_with(':') {
            return Err(bad_port());
        }
        let url = Url::parse(text).map_err(|error| match error {
            url::ParseError::InvalidPort => bad_port(),
            _ => shape.to_string(),
        })?;
        let host = match url.host() {
            // The address itself, without the brackets a URL puts around it.
            Some(Host::Ipv6(address)) => address.to_string(),
            Some(host) => host.to_string(),
            None => String::new(),
        };
        if host.is_empty() {
            return Err(shape.into());
        }
        let security = match (scheme, given_url::is_local(&url)) {
            ("smtps", _) => SmtpSecurity::Implicit,
            (_, true) => SmtpSecurity::StartTlsWhenOffered,
            (_, false) => SmtpSecurity::StartTls,
        };
        Ok(SmtpUrl {
            host,
            port: match url.port() {
                Some(0) => return Err(bad_port()),
                Some(port) => port,
                None => default_port,
            },
            security,
        })
    }
}

/// What the relay mails with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailSettings {
    /// The SMTP server.
    pub smtp: SmtpUrl,
    /// The user to log in as, when the server needs one.
    pub user: Option<String>,
    /// Its password (never logged).
    pub password: Option<Secret>,
    /// `--email-from`: `Name <addr>` or `addr`.
    pub from: String,
    /// The domains a create's address may be in (lowercase).
    pub allow_domains: Vec<String>,
    /// How long after the create the message is sent (`--email-after`).
    pub after: Duration,
}

impl EmailSettings {
    /// The sender, parsed; the error names the flag.
    pub fn from_mailbox(&self) -> Result<Mailbox, String> {
        Mailbox::from_str(&self.from).map_err(|error| {
            format!("--email-from must be an address or \"Name <address>\": {error}")
        })
    }

    /// What must hold: a sender that parses, a password only with a user.
    pub fn check(&self) -> Result<(), String> {
        self.from_mailbox()?;
        if self.password.is_some() && self.user.is_none() {
            return Err("an SMTP password is set but --smtp-user is not".into());
        }
        if self.user.is_some() && self.password.is_none() {
            return Err(
                "--smtp-user needs a password: set KODER_RELAY_SMTP_PASSWORD or \
                 --smtp-password-file"
                    .into(),
            );
        }
        Ok(())
    }

    /// The allow list creates are checked against.
    pub fn recipients(&self) -> Recipients {
        Recipients {
            allow_domains: self.allow_domains.clone(),
        }
    }
}

/// `--email-allow-domain`: one domain, lowercase, without a leading `@`.
pub fn parse_domain(text: &str) -> Result<String, String> {
    let domain = text.trim().trim_start_matches('@').to_ascii_lowercase();
    let label = |label: &str| {
        !label.is_empty()
            && label.len() <= 63
            && label
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
    };
    if domain.len() <= 253 && domain.split('.').all(label) {
        Ok(domain)
    } else {
        Err("must be a domain like example.com".into())
    }
}

/// The allow list a create's `notify.email` is checked against. Empty (e-mail off, or no
/// `--email-allow-domain`): no address is accepted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recipients {
    allow_domains: Vec<String>,
}

impl Recipients {
    /// Whether every address `notify` asks to mail is one (parsed strictly: no display name,
    /// comments or anything a header could be made of) in an allowed domain; else why not,
    /// naming the first address that is not, for the host's developer.
    pub fn check(&self, notify: &Notify) -> Result<(), String> {
        if notify.email.is_empty() {
            return Ok(());
        }
        if self.allow_domains.is_empty() {
            return Err(
                "notify.email: this relay sends no e-mail to any address (it has no \
                 --smtp-url or no --email-allow-domain)"
                    .into(),
            );
        }
        notify
            .email
            .iter()
            .try_for_each(|address| self.check_address(address))
    }

    /// Whether `text` is a plain address in an allowed domain.
    fn check_address(&self, text: &str) -> Result<(), String> {
        let address = Address::from_str(text).map_err(|_| {
            format!("notify.email: {text} is not an e-mail address like ana@example.com")
        })?;
        let domain = address.domain().to_ascii_lowercase();
        if !self.allow_domains.contains(&domain) {
            return Err(format!(
                "notify.email: the relay does not send e-mail to {text} ({domain} is not in \
                 --email-allow-domain)"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smtp_urls_say_how_the_connection_is_secured() {
        let url = |text| SmtpUrl::parse(text);
        assert_eq!(
            url("smtps://mail.example.com"),
            Ok(SmtpUrl {
                host: "mail.example.com".into(),
                port: 465,
                security: SmtpSecurity::Implicit
            })
        );
        assert_eq!(
            url("smtp://mail.example.com:2587").map(|url| (url.port, url.security)),
            Ok((2587, SmtpSecurity::StartTls))
        );
        assert_eq!(
            url("smtp://127.0.0.1:2525").map(|url| url.security),
            Ok(SmtpSecurity::StartTlsWhenOffered)
        );
        assert_eq!(
            url("smtp://localhost").map(|url| (url.port, url.security)),
            Ok((587, SmtpSecurity::StartTlsWhenOffered))
        );
        assert_eq!(
            url("smtp://[::1]:2525"),
            Ok(SmtpUrl {
                host: "::1".into(),
                port: 2525,
                security: SmtpSecurity::StartTlsWhenOffered
            })
        );
        for bad in [
            "http://mail.example.com",
            "smtp://",
            "smtp://user:pw@mail.example.com",
            "smtp://mail.example.com/x",
            "smtp://mail.example.com:0",
            "smtp://mail.example.com:x",
            "smtp://mail.example.com:",
            "smtp://[::1",
        ] {
            assert!(url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_plain_addresses_in_allowed_domains_pass() {
        let recipients = Recipients {
            allow_domains: vec!["example.com".into()],
        };
        let check = |email: &str| recipients.check(&Notify::email(email));
        assert_eq!(check("Ana@Example.COM"), Ok(()));
        assert!(check("ana@example.org")
            .unwrap_err()
            .contains("ana@example.org"));
        let several = Notify {
            email: vec!["ana@example.com".to_string(), "eve@example.org".to_string()].into(),
            ..Notify::email("")
        };
        assert!(recipients
            .check(&several)
            .unwrap_err()
            .contains("to eve@example.org"));
        for bad in [
            "ana@example.com\r\nBcc: eve@example.org",
            "Ana <ana@example.com>",
            "ana@example.com, eve@example.com",
            "ana",
            "@example.com",
        ] {
            assert!(check(bad).is_err(), "{bad:?}");
        }
        assert!(Recipients::default()
            .check(&Notify::email("ana@example.com"))
            .is_err());
        assert_eq!(parse_domain("@Example.com"), Ok("example.com".into()));
        assert!(parse_domain("exa mple.com").is_err());
        assert!(parse_domain("").is_err());
    }
}
