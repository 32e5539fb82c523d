//! Handshake-era requests served without sessions
//! ([`HttpOptions::legacy_sessions`](crate::HttpOptions::legacy_sessions) off).

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use switchboard_server::ProtocolVersion;
use tokio::sync::mpsc;

use super::post::{wants_sse, without_requests};
use crate::app::App;
use crate::caller::Caller;
use crate::peek::{Body, Message};
use crate::post_stream;
use crate::security::json_response;

/// Handshake-era requests without sessions: a fresh session per request, already
/// negotiated at the header's revision (2025-03-26 without one). A single
/// request is answered as SSE when the response mode says so (in `auto`: a
/// progress token), with its progress and logs before its response;
/// otherwise as JSON, and what it sends is dropped.
pub(super) async fn post(
    app: &App,
    headers: &HeaderMap,
    body: &Bytes,
    peeked: &Body,
    message: Option<&Message<'_>>,
    caller: &Caller,
) -> Response {
    let version = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| ProtocolVersion::parse(v.trim()))
        .unwrap_or(ProtocolVersion::HTTP_DEFAULT);
    if let Body::Batch(batch) = peeked
        && let Some(refusal) = batch.refusal_at(Some(version))
    {
        return refusal.response();
    }
    // One request may be answered as SSE, with what it sends before its
    // response; otherwise what it sends has nowhere to go, and the queue
    // has no reader (a queue nobody reads would stall the handler).
    // Without a session no live question can be answered, so a method
    // that streams does not ask for SSE here: only a progress token does.
    let sse = peeked.has_requests()
        && !peeked.is_initialize()
        && message.is_some_and(|m| {
            // peek read the head of any params that may hold `_meta` (none
            // read: no `_meta`, so no progress token); nothing is read again.
            let progress = m.params.is_some_and(|head| head.meta.progress_token.is_some());
            wants_sse(app.options.response_mode, &app.server, std::iter::once((None, progress)))
        });
    let (tx, rx) = mpsc::channel(64);
    let rx = sse.then_some(rx);
    let session = app.server.new_session(tx, caller.principal.clone());
    if !peeked.is_initialize() {
        session.assume_initialized(version);
    }
    // One message was read by peek already: the dispatcher takes it as read.
    let accepted = match message {
        Some(message) => {
            app.server.accept_message(&session, &message.envelope, message.params.as_ref(), &caller.via(None))
        }
        None => app.server.accept_via(&session, body, &caller.via(None)),
    };
    let reply = match (accepted, rx) {
        (switchboard_server::Accepted::Pending(fut), Some(rx)) => {
            return post_stream::stream_answer(app, session, rx, fut, false);
        }
        (accepted, rx) => {
            drop(rx);
            accepted.resolve().await
        }
    };
    match reply {
        _ if !peeked.has_requests() => without_requests(reply),
        Some(reply) => json_response(StatusCode::OK, reply),
        None => json_response(StatusCode::OK, Vec::new()),
    }
}
