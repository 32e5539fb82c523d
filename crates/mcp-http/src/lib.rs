//! Streamable HTTP transport for `mcp-server`.
//!
//! One endpoint (default `/mcp`) serves both eras of the protocol:
//!
//! - **Legacy** (2025-03-26 … 2025-11-25): `initialize` opens a session
//!   whose id (`Mcp-Session-Id`, 128 random bits) every later request
//!   carries. A POST with requests is answered with JSON or an SSE stream
//!   (progress, log messages and server-to-client requests travel on the
//!   stream); notifications and responses get `202`. `GET` opens the
//!   session's standalone stream (list changes, resource updates), `DELETE`
//!   ends the session, idle sessions expire. SSE events carry ids and are
//!   kept in an [`EventStore`], so a client can resume a broken stream with
//!   `GET` + `Last-Event-ID`. A disconnect does not cancel a request.
//! - **2026-07-28**: stateless `POST` only (`GET`/`DELETE` are `405`), no
//!   session. The mirrored headers (`MCP-Protocol-Version`, `Mcp-Method`,
//!   `Mcp-Name`, `Mcp-Param-*`) are checked against the body (`-32020`).
//!   Closing the response stream cancels the request. `subscriptions/listen`
//!   is an SSE stream.
//!
//! Every request passes the DNS-rebinding checks first: `Host` must be one
//! of the allowed names (loopback by default) and a present `Origin` must
//! name an allowed host, otherwise `403`.
//!
//! Spec: `docs/specification/<rev>/basic/transports.mdx` (legacy) and
//! `docs/specification/2026-07-28/basic/transports/streamable-http.mdx`.
//! The deprecated HTTP+SSE transport of 2024-11-05 is not served.

// Handlers return early with an HTTP `Response` as the error; it is built once
// per failing request, so boxing it would only add an allocation.
#![allow(clippy::result_large_err)]

mod event_store;
mod headers;
mod legacy;
mod modern;
mod security;
mod sse;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::serve::ListenerExt;
use mcp_server::Server;

pub use event_store::{EventStore, InMemoryEventStore, StoredEvent};

/// When a POST that carries requests is answered with an SSE stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResponseMode {
    /// SSE when the request can produce messages before its response (a
    /// progress token, a log level, `tools/call`, `subscriptions/listen`);
    /// JSON otherwise. The default.
    #[default]
    Auto,
    /// Always SSE.
    Sse,
    /// Always JSON (request-scoped messages then go to the GET stream).
    Json,
}

/// Errors from starting the HTTP server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Binding or serving failed.
    #[error("HTTP server I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// Transport options, with safe defaults.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The MCP endpoint path (default `/mcp`).
    pub path: String,
    /// Host names accepted in `Host` and `Origin` (any port). Default: the
    /// loopback names `localhost`, `127.0.0.1`, `::1`.
    pub allowed_hosts: Vec<String>,
    /// Largest request body in bytes (default 4 MiB; larger is `413`).
    pub max_body: usize,
    /// JSON or SSE answers.
    pub response_mode: ResponseMode,
    /// Give legacy clients sessions (the default). When off, `initialize`
    /// mints no `Mcp-Session-Id` and every request is served on its own,
    /// at the revision its `MCP-Protocol-Version` header names (2025-03-26
    /// when absent); GET and DELETE are `405`. Server-to-client requests
    /// and the GET stream need sessions.
    pub legacy_sessions: bool,
    /// Serve the legacy GET stream (otherwise `405`).
    pub enable_get_stream: bool,
    /// Legacy sessions idle this long are ended (default 30 min).
    pub session_idle_timeout: Duration,
    /// Most legacy sessions at once (default 10,000; more is `503`).
    pub max_sessions: usize,
    /// Send an SSE priming event (id, empty data) and `retry` to 2025-11-25
    /// sessions (default on). Older clients never get one: some parse the
    /// empty data and fail.
    pub sse_priming: bool,
    /// The `retry` sent with priming events (default 3 s).
    pub sse_retry: Duration,
    /// SSE keep-alive comment interval (default 15 s).
    pub keep_alive: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            path: "/mcp".into(),
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            max_body: 4 * 1024 * 1024,
            response_mode: ResponseMode::Auto,
            legacy_sessions: true,
            enable_get_stream: true,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            sse_priming: true,
            sse_retry: Duration::from_secs(3),
            keep_alive: Duration::from_secs(15),
        }
    }
}

/// Shared state of the endpoint.
#[derive(Clone)]
pub(crate) struct App {
    pub server: Server,
    pub options: Arc<HttpOptions>,
    pub sessions: Arc<legacy::Sessions>,
    pub store: Arc<dyn EventStore>,
}

/// The MCP endpoint as an axum router, for mounting in an application of
/// your own. The idle-session sweeper starts with the first session.
pub fn router(server: Server, options: HttpOptions) -> Router {
    router_with_store(server, options, Arc::new(InMemoryEventStore::default()))
}

/// [`router`] with an event store of your own (e.g. shared between instances).
pub fn router_with_store(server: Server, options: HttpOptions, store: Arc<dyn EventStore>) -> Router {
    let options = Arc::new(options);
    let sessions = Arc::new(legacy::Sessions::default());
    let app = App { server, options: Arc::clone(&options), sessions, store };
    Router::new()
        .route(&options.path, axum::routing::any(handle))
        .layer(DefaultBodyLimit::max(options.max_body))
        .with_state(app)
}

async fn handle(
    axum::extract::State(app): axum::extract::State<App>,
    method: axum::http::Method,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> axum::response::Response {
    use axum::http::Method;
    if let Err(response) = security::check(&headers, &app.options) {
        return response;
    }
    let modern_header = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim() == mcp_server::ProtocolVersion::V2026_07_28.as_str());
    match method {
        Method::POST => {
            if let Err(response) = security::check_post_headers(&headers) {
                return response;
            }
            if modern_header || modern::body_is_modern(&body) {
                modern::post(app, headers, body).await
            } else {
                legacy::post(app, headers, body).await
            }
        }
        Method::GET if !modern_header && app.options.legacy_sessions => legacy::get(app, headers).await,
        Method::DELETE if !modern_header && app.options.legacy_sessions => legacy::delete(app, headers).await,
        _ => security::method_not_allowed(),
    }
}

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
    let app = router(server, options);
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::warn!(error = %e, "could not set TCP_NODELAY");
        }
    });
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await?;
    Ok(())
}
