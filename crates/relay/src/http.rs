//! Serves a router over HTTP/1.1 on a listener until told to stop, then finishes the open
//! requests. Used instead of `axum::serve` (hyper-util's protocol-detecting connection in a
//! per-connection select), because memory per open connection is what bounds the streams a
//! replica holds: measured with 10,000 connections, an idle keep-alive one costs about 40 KiB of
//! RSS through `axum::serve` and 12.5 KiB here (`npm run bench:relay -- --streams-only`).

use std::convert::Infallible;
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tower::ServiceExt;

/// How long a client may take to send a request's head before its connection is closed.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// The wait after a failed accept (out of file descriptors, most often) before the next one.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Serves `app` until `stopping` turns true; then stops accepting and waits for the open
/// connections to finish their requests (the caller bounds the wait).
pub async fn serve(listener: TcpListener, app: Router, mut stopping: watch::Receiver<bool>) {
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stopping.wait_for(|stopping| *stopping) => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                tracing::warn!(%error, "accepting a connection failed");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        // Events are small and must go out at once.
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(
            app.clone()
                .map_request(|request: hyper::Request<Incoming>| request.map(axum::body::Body::new))
                .map_err(|never: Infallible| never),
        );
        let connection = http.serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that goes away mid-request is not the relay's error.
            let _ = connection.await;
        });
    }
    drop(listener);
    graceful.shutdown().await;
}
