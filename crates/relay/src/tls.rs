//! The TLS the relay's outbound clients use (the JWKS fetch, webhooks, pushes): its own rustls
//! configuration with ring and the platform's roots, so nothing process-wide is installed.

use std::sync::Arc;

use rustls_platform_verifier::BuilderVerifierExt;

/// A client configuration; `purpose` names what it is for in an error (`--jwks-url`, …).
pub fn client_config(purpose: &str) -> Result<rustls::ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|builder| builder.with_platform_verifier())
        .map_err(|error| format!("cannot set up TLS for {purpose}: {error}"))?
        .with_no_client_auth())
}
