//! The rules for URLs an operator gives the relay (`--webhook-url`, `--public-url`,
//! `--smtp-url`): which hosts are this machine, where plain connections are allowed for
//! development, and that no credentials ride in a URL.

use reqwest::Url;

/// Whether `url` names this machine: `localhost`, `127.0.0.1` or `[::1]`.
pub fn is_local(url: &Url) -> bool {
    matches!(url.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"))
}

/// `url` is `https://`, or `http://` on this machine ([`is_local`]) for development, and carries
/// no user or password (they would be in logs and process lists). The error names `flag` and
/// shows the URL's origin only (a path or query may hold a token).
pub fn check_https_or_local(url: &Url, flag: &str) -> Result<(), String> {
    match url.scheme() {
        "https" => {}
        "http" if is_local(url) => {}
        _ => {
            return Err(format!(
                "{flag} {:?} must start with https:// (http:// only on localhost, for \
                 development)",
                url.origin().ascii_serialization()
            ))
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!("{flag} must not carry a user or password"));
    }
    Ok(())
}
