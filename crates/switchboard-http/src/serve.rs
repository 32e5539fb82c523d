//! Serving the router on a socket: our own accept loop (not `axum::serve`),
//! to set a header-read timeout against slow senders and to bound graceful
//! shutdown.

use std::net::SocketAddr;
use std::time::Duration;

use switchboard_server::Server;

use crate::error::Error;
use crate::options::HttpOptions;
use crate::poll_before_sleep::PollBeforeSleep;
use crate::routes::router;

/// Serves `server` on `addr` until `shutdown` completes; in-flight requests
/// finish first. Every accepted socket gets `TCP_NODELAY`.
pub async fn serve(
    server: Server,
    addr: SocketAddr,
    options: HttpOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Error> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    serve_listener(server, listener, options, shutdown).await
}

/// [`serve`] on a listener you bound (e.g. to port 0 in tests).
pub async fn serve_listener(
    server: Server,
    listener: tokio::net::TcpListener,
    options: HttpOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Error> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let header_timeout = options.header_timeout;
    let shutdown_timeout = options.shutdown_timeout;
    let poll = PollBeforeSleep::start(options.poll_before_sleep);
    let app = router(server, options);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(header_timeout).keep_alive(true);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (tcp, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // Out of file descriptors and the like: back off, keep serving.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::warn!(error = %e, "could not set TCP_NODELAY");
        }
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let io = TokioIo::new(PollBeforeSleep::watch(poll.as_ref(), tcp));
        let connection = graceful.watch(http.serve_connection(io, service));
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(shutdown_timeout, graceful.shutdown()).await.is_err() {
        tracing::debug!("open connections dropped at shutdown");
    }
    Ok(())
}
