//! The TLS the relay's outbound clients use (the JWKS fetch, webhooks, pushes): its own rustls
//! configuration with ring and the platform's roots, so nothing process-wide is installed.
//!
//! The roots are the system's store, or, when `SSL_CERT_FILE` (a PEM bundle) or `SSL_CERT_DIR` is
//! set, those instead (rustls-platform-verifier reads them through rustls-native-certs). The
//! container image has no system store: it sets `SSL_CERT_FILE` to the bundle it carries, and an
//! operator with a private CA points it at a bundle that adds theirs.

use std::sync::Arc;

use rustls_platform_verifier::BuilderVerifierExt;

/// A client configuration; `purpose` names what it is for in an error (`--jwks-url`, …).
pub fn client_config(purpose: &str) -> Result<rustls::ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|builder| builder.with_platform_verifier())
        .map_err(|error| {
            format!(
                "cannot set up TLS for {purpose}: {error} ({})",
                roots_source()
            )
        })?
        .with_no_client_auth())
}

/// Where the roots were read from, for an error: a bundle that is missing or holds no
/// certificate otherwise fails with only "no CA certificates were loaded".
fn roots_source() -> String {
    let named: Vec<String> = ["SSL_CERT_FILE", "SSL_CERT_DIR"]
        .into_iter()
        .filter_map(|name| {
            std::env::var_os(name).map(|value| format!("{name}={}", value.to_string_lossy()))
        })
        .collect();
    if named.is_empty() {
        "the roots come from the system's store; SSL_CERT_FILE names a PEM bundle to use instead"
            .to_string()
    } else {
        format!("the roots come from {}", named.join(" and "))
    }
}
