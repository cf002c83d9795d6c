//! TLS for an `https://` relay (the `rustls` feature), without touching the process: each client
//! gets its own rustls configuration, so no library call installs a crypto provider.

use std::sync::Arc;

use rustls::client::WantsClientCert;
use rustls::crypto::CryptoProvider;
use rustls::{ClientConfig, ConfigBuilder, RootCertStore};
use rustls_platform_verifier::BuilderVerifierExt;

use crate::error::RelayClientError;

/// The rustls configuration [`crate::http_client`] hands reqwest: the application's crypto
/// provider when it installed one, else ring for this configuration alone; the platform's root
/// certificates.
pub(crate) fn client_config() -> Result<ClientConfig, RelayClientError> {
    let provider = CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()));
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(setup)?;
    let verified: ConfigBuilder<ClientConfig, WantsClientCert> =
        match builder.clone().with_platform_verifier() {
            Ok(verified) => verified,
            // No root certificates on this system: plain HTTP still works, and an https relay
            // fails its handshake (unknown issuer) instead of every call failing here.
            Err(_) => builder.with_root_certificates(RootCertStore::empty()),
        };
    Ok(verified.with_no_client_auth())
}

/// Installs ring as the process-wide rustls crypto provider unless one is installed already;
/// whether this call installed it. This crate's own clients never need it: call it once at the
/// start of an application whose other reqwest clients (built with reqwest's
/// `rustls-no-provider`) would otherwise panic.
pub fn install_default_crypto_provider() -> bool {
    rustls::crypto::ring::default_provider()
        .install_default()
        .is_ok()
}

fn setup(error: rustls::Error) -> RelayClientError {
    RelayClientError::Setup(format!("TLS: {error}"))
}
