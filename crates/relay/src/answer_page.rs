//! The answer page's settings (`--answer-page`): the origin its links carry (`--public-url`)
//! and the directory the element's built files are served from (`--answer-page-assets`), both
//! checked before the relay starts.

use std::path::PathBuf;

use reqwest::Url;

/// The element's module, which must be in the assets directory: the page loads it.
pub const ELEMENT_FILE: &str = "koder-mcp-elicitation.js";

/// Where the answer page lives and what it serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerPageSettings {
    /// The origin links carry (`https://relay.example.com`, no trailing slash): where people
    /// reach this relay, behind any proxy.
    pub public_url: String,
    /// The element's built files (the package's `dist/`), served under `/answer/assets/`.
    pub assets: PathBuf,
}

impl AnswerPageSettings {
    /// Settings from a `--public-url` and an assets directory, both checked.
    pub fn new(public_url: &str, assets: impl Into<PathBuf>) -> Result<AnswerPageSettings, String> {
        let settings = AnswerPageSettings {
            public_url: parse_public_url(public_url)?,
            assets: assets.into(),
        };
        settings.check()?;
        Ok(settings)
    }

    /// What must hold however the settings were made: a public URL that is an origin, and an
    /// assets directory holding the element. The error names the flag.
    pub fn check(&self) -> Result<(), String> {
        if parse_public_url(&self.public_url)? != self.public_url {
            return Err(format!(
                "--public-url {:?} must be written as an origin, like https://relay.example.com",
                self.public_url
            ));
        }
        let element = self.assets.join(ELEMENT_FILE);
        if !element.is_file() {
            return Err(format!(
                "--answer-page-assets {:?} does not hold {ELEMENT_FILE}: give the element's built \
                 files (the package's dist/ directory) with --answer-page-assets or \
                 KODER_RELAY_ANSWER_PAGE_ASSETS",
                self.assets
            ));
        }
        Ok(())
    }

    /// The URL of a link with this token: the token in the fragment only, so it never reaches
    /// a request log, a proxy or a `Referer`.
    pub fn link_url(&self, token: &str) -> String {
        format!("{}/answer/#t={token}", self.public_url)
    }

    /// Where a link's holder answers: `<public-url>/v1/links/answer`.
    pub fn answer_endpoint(&self) -> String {
        format!("{}/v1/links/answer", self.public_url)
    }
}

/// Checks a `--public-url`: an `https://` origin (`http://` only on `localhost`, `127.0.0.1` or
/// `[::1]`), with no user, path, query or fragment. Returns it as an origin, without a trailing
/// slash.
pub fn parse_public_url(text: &str) -> Result<String, String> {
    let url =
        Url::parse(text).map_err(|error| format!("--public-url {text:?} is not a URL: {error}"))?;
    crate::given_url::check_https_or_local(&url, "--public-url")?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("--public-url {text:?} has no host"));
    }
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "--public-url {text:?} must be an origin only, like https://relay.example.com (no \
             path, query or fragment)"
        ));
    }
    Ok(url.origin().ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_urls_are_https_origins_or_local_http() {
        for (given, origin) in [
            ("https://relay.example.com", "https://relay.example.com"),
            ("https://relay.example.com/", "https://relay.example.com"),
            (
                "https://Relay.Example.com:8443",
                "https://relay.example.com:8443",
            ),
            ("http://localhost:8790", "http://localhost:8790"),
            ("http://127.0.0.1:9", "http://127.0.0.1:9"),
        ] {
            assert_eq!(parse_public_url(given).as_deref(), Ok(origin), "{given}");
        }
        for bad in [
            "http://relay.example.com",
            "https://relay.example.com/relay",
            "https://relay.example.com/?a=1",
            "https://relay.example.com/#x",
            "https://user:pass@relay.example.com",
            "relay.example.com",
            "ftp://localhost",
            "",
        ] {
            let error = parse_public_url(bad).unwrap_err();
            assert!(error.contains("--public-url"), "{bad}: {error}");
        }
    }

    #[test]
    fn a_link_carries_its_token_in_the_fragment_only() {
        let settings = AnswerPageSettings {
            public_url: "https://relay.example.com".into(),
            assets: PathBuf::from("dist"),
        };
        assert_eq!(
            settings.link_url("abc"),
            "https://relay.example.com/answer/#t=abc"
        );
    }

    #[test]
    fn the_assets_must_hold_the_element() {
        let missing = AnswerPageSettings::new("https://relay.example.com", "/nonexistent/dist");
        assert!(
            missing.unwrap_err().contains("--answer-page-assets"),
            "names the flag"
        );
    }
}
