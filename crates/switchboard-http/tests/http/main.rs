//! switchboard-http's integration tests, one binary: each module starts
//! real servers on loopback ports and speaks HTTP to them (reqwest, or raw
//! TCP where a client would refuse to send the request). Nothing here sets
//! process-global state (environment, a tracing subscriber), so the modules
//! run side by side in one process. `layering.rs` stays a binary of its
//! own: it reads the source tree, not the network.
//!
//! Where a new test goes:

/// Authorization: bearer tokens (static and JWT, inline or fetched JWKS),
/// the protected-resource metadata, scope challenges and filtered lists,
/// sessions bound to their principal, per-principal rate limits.
mod auth;
/// CORS for the named browser origins, in both eras; none for others.
mod cors;
/// POST bodies that are no valid JSON-RPC message: `400` on every path.
mod envelopes;
/// Hostile clients: huge, deep, slow or malformed requests, Host/Origin
/// and token checked before the body is read.
mod hostile;
/// The transport itself: handshake-era sessions (JSON, SSE, GET stream,
/// resumption, DELETE, expiry, caps), 2026-07-28 stateless requests and
/// their mirrored headers, media types, probes, graceful shutdown.
mod http;
/// An application's own methods (`Method::typed`) over HTTP.
mod methods;
/// HTTP statuses chosen from the dispatcher's outcome of a reply.
mod outcomes;
/// Handshake-era requests served without sessions.
mod sessionless;
/// Several instances sharing one state store (sessions, streams, outages).
mod shared_state;
/// Helpers the modules share: a server on a loopback port, SSE parsing.
mod support;
