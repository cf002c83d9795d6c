//! `install_default_crypto_provider()` is the one call that installs a process-wide provider,
//! and only when asked (its own process: the other tests check that nothing else does).
#![cfg(feature = "rustls")]

use koder_elicitation_relay_client::{http_client, install_default_crypto_provider};
use rustls::crypto::CryptoProvider;

#[test]
fn installs_ring_once_when_asked() {
    assert!(CryptoProvider::get_default().is_none());
    http_client().unwrap();
    assert!(
        CryptoProvider::get_default().is_none(),
        "http_client installed one"
    );
    assert!(install_default_crypto_provider());
    assert!(CryptoProvider::get_default().is_some());
    // A second call keeps the one installed.
    assert!(!install_default_crypto_provider());
    // A plain reqwest client now builds too (reqwest's rustls-no-provider needs the provider).
    reqwest::Client::builder().build().unwrap();
    http_client().unwrap();
}
