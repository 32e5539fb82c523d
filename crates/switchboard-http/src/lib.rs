//! Streamable HTTP transport for `switchboard-server`.
//!
//! One endpoint (default `/mcp`) serves both eras of the protocol:
//!
//! - **Handshake era** (2025-03-26 … 2025-11-25): `initialize` opens a session
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
//! **Several instances** behind one address (a round-robin load balancer,
//! no sticky routing) share handshake-era sessions through a
//! [`StateStore`](switchboard_server::state::StateStore) set in
//! [`HttpOptions::state`] (`switchboard_server::state::MemoryStore` in one process,
//! `switchboard-state-redis` across processes):
//!
//! - `initialize` stores the session's record under `session:{id}` (the
//!   negotiated revision, client info and capabilities, the principal, the
//!   log level, the subscribed URIs), expiring after
//!   [`HttpOptions::session_idle_timeout`]. Any instance rebuilds a session
//!   it does not know from the record ([`switchboard_server::Session::restore`]);
//!   the principal binding holds there too (`403`).
//! - Every request on the session renews the record, and finds out if it is
//!   gone (one store round trip): a `DELETE` on any instance ends the
//!   session everywhere (`404`). The idle sweeper only drops a local copy
//!   once the store says the session is gone.
//! - `notifications/initialized`, `resources/subscribe`/`unsubscribe` and
//!   `logging/setLevel` update the record and are published on the
//!   `sessions` channel, so the instance holding the GET stream delivers
//!   `notifications/resources/updated` for a subscription made elsewhere.
//! - SSE events go to the store's logs ([`StateEventStore`], keys
//!   `events:{session}:{stream}`): `GET` + `Last-Event-ID` replays a stream
//!   on any instance (the stored events; following it live works only on
//!   the instance running it).
//! - A store failure is answered `503` with a JSON-RPC error saying the
//!   state store is unavailable; the next request after recovery works.
//!
//! Without a store (the default) nothing of this costs a thing: sessions
//! live in the process, events in memory.
//!
//! A POST body that is no valid JSON-RPC message (not JSON, the wrong or no
//! `jsonrpc`, an id that is `null` or not a string or integer, no string
//! method, a batch where the revision has none) is `400` with a JSON-RPC
//! error (`-32700` or `-32600`) in every era, decided in one place
//! (`peek.rs`) before the body is routed.
//!
//! Every request passes the DNS-rebinding checks first: `Host` must be one
//! of the allowed names (loopback by default) and a present `Origin` must
//! name an allowed host or be one of [`HttpOptions::allowed_origins`],
//! otherwise `403`. Those origins get CORS answers (`cors.rs`); no other does.
//!
//! Spec: `docs/specification/<rev>/basic/transports.mdx` (handshake-era) and
//! `docs/specification/2026-07-28/basic/transports/streamable-http.mdx`.
//! The deprecated HTTP+SSE transport of 2024-11-05 is not served.

// Handlers return early with an HTTP `Response` as the error; it is built once
// per failing request, so boxing it would only add an allocation.
#![allow(clippy::result_large_err)]

mod app;
mod auth;
mod caller;
mod cors;
mod event_store;
mod handshake;
mod headers;
mod jwt;
mod peek;
mod per_request;
mod post_stream;
mod security;
mod sse;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use switchboard_server::Server;

pub(crate) use app::App;
pub use auth::{AuthOptions, StaticTokens, TokenError, TokenValidator};
pub use event_store::{EventStore, InMemoryEventStore, Replay, StateEventStore, StoredEvent};
pub use jwt::{JwksError, JwtValidator};

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
    /// Browser origins (`scheme://host[:port]`, e.g. `https://app.example.com`)
    /// whose pages may call the endpoint: their CORS preflights (`OPTIONS`)
    /// are answered, responses to them carry `Access-Control-Allow-Origin`
    /// (that origin) and `Access-Control-Expose-Headers`, and they pass the
    /// Origin check like an allowed host. Empty (the default): no CORS
    /// headers at all, and a browser page on another origin cannot read an
    /// answer.
    pub allowed_origins: Vec<String>,
    /// Largest request body in bytes (default 4 MiB; larger is `413`).
    pub max_body: usize,
    /// JSON or SSE answers.
    pub response_mode: ResponseMode,
    /// Give handshake-era clients sessions (the default). When off, `initialize`
    /// mints no `Mcp-Session-Id` and every request is served on its own,
    /// at the revision its `MCP-Protocol-Version` header names (2025-03-26
    /// when absent); GET and DELETE are `405`. A request with a progress
    /// token is answered as SSE (in the `auto` response mode), its progress
    /// and logs before its result. Server-to-client requests and the GET
    /// stream need sessions.
    pub legacy_sessions: bool,
    /// Serve the handshake-era GET stream (otherwise `405`).
    pub enable_get_stream: bool,
    /// Handshake-era sessions idle this long are ended (default 30 min).
    pub session_idle_timeout: Duration,
    /// Most handshake-era sessions at once (default 10,000; more is `503`):
    /// in this process, or across every instance sharing a state store
    /// (counted there through `StateStore::admit`).
    pub max_sessions: usize,
    /// Send an SSE priming event (id, empty data) and `retry` to 2025-11-25
    /// sessions (default on). Older clients never get one: some parse the
    /// empty data and fail.
    pub sse_priming: bool,
    /// The `retry` sent with priming events (default 3 s).
    pub sse_retry: Duration,
    /// SSE keep-alive comment interval (default 15 s).
    pub keep_alive: Duration,
    /// OAuth resource-server authorization: every request needs a valid
    /// bearer token (`None`: no authorization, for loopback use).
    pub auth: Option<AuthOptions>,
    /// How long a client may take to send a request's headers before the
    /// connection is closed (slow-sender defence; default 10 s).
    pub header_timeout: Duration,
    /// How long shutdown waits for open connections (SSE streams) before
    /// dropping them (default 5 s).
    pub shutdown_timeout: Duration,
    /// Serve `GET /metrics` with this text (e.g. `switchboard-metrics`'s
    /// `Metrics::render`, in the OpenMetrics format); `None`: no endpoint.
    /// It passes the same Host/Origin and token checks as the MCP endpoint.
    pub metrics: Option<MetricsText>,
    /// Shared state for several instances behind one address, without
    /// sticky routing (`None`, the default: sessions live in this process
    /// only). With a store, a handshake-era session's record (`session:{id}`:
    /// negotiated revision, client info and capabilities, principal, log
    /// level, subscriptions; expiring after [`session_idle_timeout`]) lets
    /// any instance serve it, every request checks and renews it (so a
    /// `DELETE` on one instance ends the session everywhere), subscription
    /// and readiness changes reach the other instances on the `sessions`
    /// channel, and [`router`] keeps SSE events in the store
    /// ([`StateEventStore`]) so `Last-Event-ID` resumes on any instance. A
    /// store failure is answered `503` ("state store unavailable").
    ///
    /// [`session_idle_timeout`]: HttpOptions::session_idle_timeout
    pub state: Option<Arc<dyn switchboard_server::state::StateStore>>,
    /// More of `GET /readyz`'s answer: the object it returns is merged into
    /// the JSON body (e.g. the states of a gateway's upstreams). It does not
    /// change the status code.
    pub readiness: Option<Readiness>,
}

/// Details added to `GET /readyz` (see [`HttpOptions::readiness`]).
#[derive(Clone)]
pub struct Readiness(pub Arc<dyn Fn() -> serde_json::Value + Send + Sync>);

impl std::fmt::Debug for Readiness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Readiness")
    }
}

/// What `GET /metrics` answers (see [`HttpOptions::metrics`]).
#[derive(Clone)]
pub struct MetricsText(pub Arc<dyn Fn() -> String + Send + Sync>);

impl std::fmt::Debug for MetricsText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MetricsText")
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            path: "/mcp".into(),
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: Vec::new(),
            max_body: 4 * 1024 * 1024,
            response_mode: ResponseMode::Auto,
            legacy_sessions: true,
            enable_get_stream: true,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            sse_priming: true,
            sse_retry: Duration::from_secs(3),
            keep_alive: Duration::from_secs(15),
            auth: None,
            header_timeout: Duration::from_secs(10),
            shutdown_timeout: Duration::from_secs(5),
            metrics: None,
            state: None,
            readiness: None,
        }
    }
}

/// Events kept per SSE stream.
const EVENTS_PER_STREAM: usize = 1024;

/// The MCP endpoint as an axum router, for mounting in an application of
/// your own. The idle-session sweeper starts with the first session. With
/// [`HttpOptions::state`], SSE events are kept in that store
/// ([`StateEventStore`]); otherwise in memory.
pub fn router(server: Server, options: HttpOptions) -> Router {
    let store: Arc<dyn EventStore> = match &options.state {
        Some(state) => {
            Arc::new(StateEventStore::new(Arc::clone(state), EVENTS_PER_STREAM, options.session_idle_timeout))
        }
        None => Arc::new(InMemoryEventStore::new(EVENTS_PER_STREAM)),
    };
    router_with_store(server, options, store)
}

/// [`router`] with an event store of your own (e.g. shared between instances).
pub fn router_with_store(server: Server, options: HttpOptions, store: Arc<dyn EventStore>) -> Router {
    let state = options.state.clone();
    let instance: Arc<str> = if state.is_some() { handshake::instance_tag().into() } else { "".into() };
    let options = Arc::new(options);
    let sessions = Arc::new(app::Sessions::default());
    let stateless = server.stateless_session();
    let app = App { server, options: Arc::clone(&options), sessions, store, state, instance, stateless };
    let mut router = Router::new().route(&options.path, axum::routing::any(handle));
    if let Some(auth) = &options.auth {
        for path in auth.metadata_paths() {
            router = router.route(&path, axum::routing::get(protected_resource_metadata));
        }
    }
    if options.metrics.is_some() {
        router = router.route("/metrics", axum::routing::get(metrics));
    }
    router =
        router.route("/healthz", axum::routing::get(healthz)).route("/readyz", axum::routing::get(readyz));
    // Bodies are read (and limited) by the handler itself, after the
    // Host/Origin and authorization checks. CORS wraps every route once,
    // and only when origins are named: without them the layer would pass
    // every request through, a boxed call on the hot path for nothing.
    router = router.layer(DefaultBodyLimit::disable());
    if !options.allowed_origins.is_empty() {
        router = router.layer(axum::middleware::from_fn_with_state(options, cors::layer));
    }
    router.with_state(app)
}

async fn handle(
    axum::extract::State(app): axum::extract::State<App>,
    request: axum::extract::Request,
) -> axum::response::Response {
    use axum::http::Method;
    let (parts, body) = request.into_parts();
    let (method, headers) = (parts.method, parts.headers);
    // Host/Origin and the token are checked before a byte of the body is read.
    if let Err(response) = security::check(&headers, &app.options) {
        return response;
    }
    let principal = match &app.options.auth {
        None => None,
        Some(auth) => match auth.authenticate(&headers).await {
            Ok(principal) => Some(principal),
            Err(response) => return response,
        },
    };
    let body = match read_body(&headers, body, app.options.max_body).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let per_request_header = has_per_request_header(&headers);
    match method {
        Method::POST => post(app, headers, body, principal, per_request_header).await,
        Method::GET if !per_request_header && app.options.legacy_sessions => {
            handshake::get(app, caller::Caller::new(principal, headers)).await
        }
        Method::DELETE if !per_request_header && app.options.legacy_sessions => {
            handshake::delete(app, caller::Caller::new(principal, headers)).await
        }
        _ => security::method_not_allowed(),
    }
}

/// `MCP-Protocol-Version` names a per-request revision (2026-07-28).
fn has_per_request_header(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| switchboard_server::ProtocolVersion::parse(v.trim()))
        .is_some_and(|v| v.era() == switchboard_types::Era::PerRequest)
}

/// A POST: media types, then the body's classification (a body that is no
/// valid JSON-RPC message is `400` here, on every path), then the scope
/// challenge, then the era's handler.
async fn post(
    app: App,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
    principal: Option<switchboard_server::Principal>,
    per_request_header: bool,
) -> axum::response::Response {
    if let Err(response) = security::check_post_headers(&headers) {
        return response;
    }
    let (peeked, message) = peek::read(&body);
    if let peek::Body::Refused(refusal) = &peeked {
        return refusal.response();
    }
    if let (Some(auth), Some(principal)) = (&app.options.auth, &principal)
        && let Some(response) = scope_challenge(&app.server, auth, principal, &body)
    {
        return response;
    }
    let caller = caller::Caller::new(principal, headers);
    if per_request_header || peeked.is_per_request() {
        per_request::post(app, peeked, message, caller).await
    } else {
        handshake::post(app, body.clone(), peeked, message, caller).await
    }
}

/// The body, at most `max` bytes: a larger declared `Content-Length` is
/// refused before reading, a longer stream is cut off at the limit.
async fn read_body(
    headers: &axum::http::HeaderMap,
    body: axum::body::Body,
    max: usize,
) -> Result<axum::body::Bytes, axum::response::Response> {
    let declared = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(security::too_large(max));
    }
    axum::body::to_bytes(body, max).await.map_err(|_| security::too_large(max))
}

/// `GET /metrics`: the text of [`HttpOptions::metrics`], after the same
/// Host/Origin and token checks as the MCP endpoint.
async fn metrics(
    axum::extract::State(app): axum::extract::State<App>,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if let Err(response) = security::check(&headers, &app.options) {
        return response;
    }
    if let Some(auth) = &app.options.auth
        && let Err(response) = auth.authenticate(&headers).await
    {
        return response;
    }
    match &app.options.metrics {
        Some(text) => (
            [(
                axum::http::header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            (text.0)(),
        )
            .into_response(),
        None => axum::http::StatusCode::NOT_FOUND.into_response(),
    }
}

/// `GET /healthz`: liveness. The process answers, so it is alive: `200`.
/// Like `/readyz`, open to any caller (load balancers and orchestrators
/// probe by address): it says nothing but that.
async fn healthz() -> axum::response::Response {
    use axum::response::IntoResponse;
    ([(axum::http::header::CONTENT_TYPE, "application/json")], r#"{"alive":true}"#).into_response()
}

/// `GET /readyz`: readiness. With a shared state store
/// ([`HttpOptions::state`]), `200` only while the store answers, else
/// `503` with `Retry-After` (an instance that started during an outage is
/// not sent the requests that need the store until it is back); without
/// one, always `200`.
async fn readyz(axum::extract::State(app): axum::extract::State<App>) -> axum::response::Response {
    use axum::response::IntoResponse;
    let json = |body: &'static str| ([(axum::http::header::CONTENT_TYPE, "application/json")], body);
    let reachable = match &app.state {
        None => true,
        Some(state) => state.get("readyz").await.is_ok(),
    };
    if let Some(readiness) = &app.options.readiness {
        let mut body = if reachable {
            serde_json::json!({"ready": true})
        } else {
            serde_json::json!({"ready": false, "reason": "state store unavailable"})
        };
        if let (Some(body), serde_json::Value::Object(more)) = (body.as_object_mut(), (readiness.0)()) {
            body.extend(more);
        }
        let status =
            if reachable { axum::http::StatusCode::OK } else { axum::http::StatusCode::SERVICE_UNAVAILABLE };
        let response = (status, [(axum::http::header::CONTENT_TYPE, "application/json")], body.to_string())
            .into_response();
        return if reachable { response } else { security::with_retry_after(response) };
    }
    if reachable {
        return json(r#"{"ready":true}"#).into_response();
    }
    security::with_retry_after(
        (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            json(r#"{"ready":false,"reason":"state store unavailable"}"#),
        )
            .into_response(),
    )
}

/// `GET /.well-known/oauth-protected-resource…`: the RFC 9728 document.
async fn protected_resource_metadata(
    axum::extract::State(app): axum::extract::State<App>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    match &app.options.auth {
        Some(auth) => ([(axum::http::header::CONTENT_TYPE, "application/json")], auth.metadata().to_string())
            .into_response(),
        None => axum::http::StatusCode::NOT_FOUND.into_response(),
    }
}

/// `403 insufficient_scope` when a message of the body names a tool,
/// prompt or resource the principal's scopes do not cover.
fn scope_challenge(
    server: &Server,
    auth: &AuthOptions,
    principal: &switchboard_server::Principal,
    body: &[u8],
) -> Option<axum::response::Response> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let messages = match &value {
        serde_json::Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    for message in messages {
        let Some(method) = message.get("method").and_then(|m| m.as_str()) else { continue };
        if let Some(scopes) = server.missing_scopes(principal, method, message.get("params")) {
            let description = format!("{method} needs the scopes: {}", scopes.join(" "));
            return Some(auth.insufficient(&scopes, &description));
        }
    }
    None
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
    use hyper_util::rt::{TokioIo, TokioTimer};
    let header_timeout = options.header_timeout;
    let shutdown_timeout = options.shutdown_timeout;
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
        let connection = graceful.watch(http.serve_connection(TokioIo::new(tcp), service));
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
