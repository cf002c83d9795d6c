//! A webhook receiver for the tests: every body it was sent, and waiting for one.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::Value;

/// A webhook receiver on 127.0.0.1: every body it was sent, the first `refuse` of them
/// answered with a 500 (so they are sent again).
pub async fn webhook_receiver(refuse: usize) -> (String, Arc<Mutex<Vec<Value>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&received);
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: String| {
            let kept = Arc::clone(&kept);
            async move {
                let mut kept = kept.lock().unwrap();
                kept.push(serde_json::from_str(&body).unwrap());
                if kept.len() <= refuse {
                    StatusCode::INTERNAL_SERVER_ERROR
                } else {
                    StatusCode::NO_CONTENT
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, received)
}

/// The first webhook of `event_type` received within 10 s.
pub async fn webhook_of(received: &Mutex<Vec<Value>>, event_type: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let found = received
            .lock()
            .unwrap()
            .iter()
            .find(|body| body["type"] == event_type)
            .cloned();
        if let Some(body) = found {
            return body;
        }
        assert!(Instant::now() < deadline, "no {event_type} webhook");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
