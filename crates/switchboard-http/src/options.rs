//! What an operator sets: [`HttpOptions`] and the types its fields take.

use std::sync::Arc;
use std::time::Duration;

use crate::auth::AuthOptions;

/// How long HTTP looks for the next request after a connection last read
/// or wrote ([`HttpOptions::poll_before_sleep`]). Twice stdio's window: a
/// client reading an HTTP answer and sending the next request takes longer
/// than one reading a line (measured on a `resources/list` walk of 100
/// pages: 100 µs saved 1 ms of 25, 200 µs saved 7).
pub const POLL_BEFORE_SLEEP: Duration = Duration::from_micros(200);

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
    /// channel, and [`router`](crate::router) keeps SSE events in the store
    /// ([`StateEventStore`](crate::StateEventStore)) so `Last-Event-ID` resumes on any instance. A
    /// store failure is answered `503` ("state store unavailable").
    ///
    /// [`session_idle_timeout`]: HttpOptions::session_idle_timeout
    pub state: Option<Arc<dyn switchboard_server::state::StateStore>>,
    /// More of `GET /readyz`'s answer: the object it returns is merged into
    /// the JSON body (e.g. the states of a gateway's upstreams). It does not
    /// change the status code.
    pub readiness: Option<Readiness>,
    /// How long the server keeps looking for the next request after a
    /// connection last read or wrote, before its thread sleeps: a client
    /// that sends request after request (pages of a list) then finds it
    /// awake. Only on Tokio's single-threaded runtime, and only while the
    /// runtime has nothing else to run; `Duration::ZERO` turns it off.
    /// Default: [`POLL_BEFORE_SLEEP`] (200 µs), or what
    /// `SWITCHBOARD_HTTP_POLL_US` says in microseconds.
    pub poll_before_sleep: Duration,
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
            poll_before_sleep: switchboard_server::transport::poll_window(
                "SWITCHBOARD_HTTP_POLL_US",
                POLL_BEFORE_SLEEP,
            ),
        }
    }
}
