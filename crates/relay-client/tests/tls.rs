//! An `https://` relay: with the `rustls` feature the client speaks TLS to it without any
//! process-wide crypto provider (none is installed before or after); without the feature,
//! `RelayClient::new` refuses it at once. This file is its own process, so nothing else here
//! installs a provider behind the assertions' back.

use koder_elicitation_relay_client::{RelayClient, RelayClientError};

#[cfg(feature = "rustls")]
#[tokio::test]
async fn an_https_relay_is_spoken_to_in_tls_with_no_process_wide_provider() {
    use std::time::Duration;

    use koder_elicitation_relay_client::Scope;
    use rustls::crypto::CryptoProvider;
    use serde_json::json;
    use tokio::io::AsyncReadExt;
    use tokio::net::TcpListener;

    assert!(CryptoProvider::get_default().is_none());
    // Reads the first bytes the client sends, then hangs up.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let first_bytes = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut first = [0u8; 3];
        socket.read_exact(&mut first).await.unwrap();
        first
    });
    let client = RelayClient::new(format!("https://{address}"), "service-token")
        .unwrap()
        .retrying_for(Duration::ZERO);
    let request =
        json!({ "message": "Proceed?", "requestedSchema": { "type": "object", "properties": {} } });
    let answer = client
        .elicit(&Scope::new("u", "w"), request, std::future::pending())
        .await;
    assert!(
        matches!(answer, Err(RelayClientError::Unreachable(_))),
        "{answer:?}"
    );
    // A TLS record: handshake (22), version 3.x.
    let first = first_bytes.await.unwrap();
    assert_eq!(&first[..2], &[0x16, 0x03], "{first:?}");
    assert!(
        CryptoProvider::get_default().is_none(),
        "a crypto provider was installed process-wide"
    );
}

#[cfg(not(feature = "rustls"))]
#[test]
fn without_tls_an_https_relay_is_refused_at_once() {
    for url in ["https://relay.example.com", "HTTPS://relay.example.com"] {
        let refused = RelayClient::new(url, "service-token");
        assert!(
            matches!(&refused, Err(RelayClientError::Setup(why)) if why.contains("rustls")),
            "{refused:?}"
        );
    }
    assert!(RelayClient::new("http://relay.example.com", "service-token").is_ok());
}
