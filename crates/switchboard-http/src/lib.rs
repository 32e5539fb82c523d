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
mod endpoint;
mod error;
mod event_store;
mod guard;
mod handshake;
mod headers;
mod jwt;
mod options;
mod peek;
mod per_request;
mod poll_before_sleep;
mod post_stream;
mod routes;
mod security;
mod serve;
mod side_routes;
mod sse;

pub use auth::{AuthOptions, StaticTokens, TokenError, TokenValidator};
pub use error::Error;
pub use event_store::{EventStore, InMemoryEventStore, Replay, StateEventStore, StoredEvent};
pub use jwt::{JwksError, JwtValidator};
pub use options::{HttpOptions, MetricsText, POLL_BEFORE_SLEEP, Readiness, ResponseMode};
pub use routes::{router, router_with_store};
pub use serve::{serve, serve_listener};
