//! Streamable HTTP in the 2026-07-28 model: stateless POST, mirrored
//! headers, SSE only when the request needs it, disconnect = cancel.
//!
//! The validation order follows spec.md §c.4 (it is what the conformance
//! probes expect): JSON → a single valid message (both decided for every
//! path by [`peek`](crate::peek), before routing) → a request →
//! required `_meta` → headers against the body → version → method →
//! `Mcp-Param-*` → handling.

use std::collections::VecDeque;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use switchboard_server::{Accepted, Outcome, ProtocolVersion, Reply};
use switchboard_types::meta::{CLIENT_CAPABILITIES, LOG_LEVEL, PROTOCOL_VERSION};
use switchboard_types::{ErrorCode, ErrorObject, RequestId};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use crate::caller::Caller;
use crate::peek::{Body, Kind};
use crate::security::{error_response, reply_response};
use crate::{App, ResponseMode, headers, sse};

struct AbortOnDrop(Vec<AbortHandle>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        // Closing the response stream cancels the request (2026-07-28 MUST).
        for h in &self.0 {
            h.abort();
        }
    }
}

/// Feeds an SSE response: request-scoped messages as they come, then, once
/// the handler answered, whatever was still queued and the response.
struct Pump {
    rx: mpsc::Receiver<Vec<u8>>,
    final_rx: Option<oneshot::Receiver<Option<Vec<u8>>>>,
    queued: VecDeque<Vec<u8>>,
    _guard: AbortOnDrop,
    _session: std::sync::Arc<switchboard_server::Session>,
}

impl Pump {
    async fn next(&mut self) -> Option<Vec<u8>> {
        if let Some(message) = self.queued.pop_front() {
            return Some(message);
        }
        let final_rx = self.final_rx.as_mut()?;
        tokio::select! {
            biased;
            Some(message) = self.rx.recv() => Some(message),
            out = final_rx => {
                self.final_rx = None;
                while let Ok(message) = self.rx.try_recv() {
                    self.queued.push_back(message);
                }
                if let Ok(Some(reply)) = out {
                    self.queued.push_back(reply);
                }
                self.queued.pop_front()
            }
        }
    }
}

/// The status of a reply from the dispatcher, from its [`Outcome`]: the
/// errors named in §c.4 are `400`/`404`; everything else is `200` (a
/// store outage becomes `503` in [`reply_response`]).
fn status_for(outcome: Outcome) -> StatusCode {
    match outcome.error_code() {
        Some(ErrorCode::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            ErrorCode::HEADER_MISMATCH
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
            | ErrorCode::PARSE_ERROR
            | ErrorCode::INVALID_REQUEST,
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// The response to a reply answered without streaming.
fn answer(reply: Option<Reply>) -> Response {
    let status = reply.as_ref().map_or(StatusCode::OK, |r| status_for(r.outcome()));
    reply_response(status, reply)
}

/// A 2026-07-28 POST. `peeked` is the body's classification; a body that
/// is no valid JSON-RPC message never gets here (see [`peek`](crate::peek)).
pub(crate) async fn post(
    app: App,
    headers: HeaderMap,
    body: Bytes,
    peeked: Body,
    caller: Caller,
) -> Response {
    let bad = |id: Option<&RequestId>, e: ErrorObject| error_response(StatusCode::BAD_REQUEST, id, e);
    let head = match peeked.single() {
        Ok(head) => head,
        Err(refusal) => return refusal.response(),
    };
    let id = match head.kind {
        Kind::Request(id) => id,
        // Notifications are accepted and have no effect over HTTP here
        // (cancellation is closing the stream).
        Kind::Notification => return StatusCode::ACCEPTED.into_response(),
        // No server-to-client requests in 2026-07-28: nothing to answer.
        Kind::Response => {
            return bad(None, ErrorObject::invalid_request("the body must be a request or a notification"));
        }
    };
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => return bad(None, ErrorObject::parse_error(e)),
    };
    // A string: the classification checked it.
    let method = value["method"].as_str().unwrap_or_default();
    let meta = &value["params"]["_meta"];
    let version = meta.get(PROTOCOL_VERSION).and_then(Value::as_str);
    let (Some(version), true) = (version, meta.get(CLIENT_CAPABILITIES).is_some_and(Value::is_object)) else {
        return bad(
            Some(&id),
            ErrorObject::invalid_params(format!(
                "2026-07-28 requests must carry params._meta[\"{PROTOCOL_VERSION}\"] and params._meta[\"{CLIENT_CAPABILITIES}\"]"
            )),
        );
    };
    if let Err(why) = headers::check_standard(&headers, &value, version) {
        return bad(Some(&id), ErrorObject::new(ErrorCode::HEADER_MISMATCH, why));
    }
    if ProtocolVersion::parse(version) != Some(ProtocolVersion::V2026_07_28) {
        let supported: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
        return bad(
            Some(&id),
            ErrorObject::new(
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                format!("Unsupported protocol version {version:?}"),
            )
            .with_data(json!({"supported": supported, "requested": version})),
        );
    }
    if !app.server.method_available(method, ProtocolVersion::V2026_07_28) {
        return error_response(StatusCode::NOT_FOUND, Some(&id), ErrorObject::method_not_found(method));
    }
    if method == "tools/call" {
        let name = value["params"]["name"].as_str().unwrap_or_default();
        if let Some(tool) = app.server.tool_definition(name) {
            let arguments = value["params"].get("arguments").cloned().unwrap_or(Value::Null);
            if let Err(why) = headers::check_params(&headers, &tool.input_schema, &arguments) {
                return bad(Some(&id), ErrorObject::new(ErrorCode::HEADER_MISMATCH, why));
            }
        }
    }

    let listen = method == "subscriptions/listen";
    let sse = listen
        || meta.get("progressToken").is_some()
        || meta.get(LOG_LEVEL).is_some()
        || app.options.response_mode == ResponseMode::Sse;
    let (tx, rx) = mpsc::channel::<Vec<u8>>(256);
    let session = app.server.new_session(tx, caller.principal.clone());
    let accepted = app.server.accept_via(&session, &body, &caller.via(None));
    let fut = match accepted {
        Accepted::Done(reply) => return answer(reply),
        Accepted::Pending(fut) => fut,
    };
    if !sse {
        // Dropping this handler (the client went away) drops the request's
        // future: the request is cancelled.
        return answer(fut.await);
    }
    let (final_tx, final_rx) = oneshot::channel::<Option<Vec<u8>>>();
    let task = tokio::spawn(async move {
        let _ = final_tx.send(fut.await.map(Reply::into_bytes));
    });
    let mut handles = vec![task.abort_handle()];
    if listen {
        let forwarder = tokio::spawn(app.server.forward_events(std::sync::Arc::clone(&session)));
        handles.push(forwarder.abort_handle());
    }
    let state = Pump {
        rx,
        final_rx: Some(final_rx),
        queued: VecDeque::new(),
        _guard: AbortOnDrop(handles),
        _session: session,
    };
    let stream = futures::stream::unfold(state, |mut pump| async move {
        let next = pump.next().await?;
        Some((sse::event(None, &next), pump))
    });
    sse::response(stream, app.options.keep_alive, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(code: ErrorCode) -> Outcome {
        Outcome::Error { code, store_unavailable: false }
    }

    #[test]
    fn statuses_follow_the_outcome() {
        assert_eq!(status_for(Outcome::Ok), StatusCode::OK);
        assert_eq!(status_for(Outcome::ToolError), StatusCode::OK);
        assert_eq!(status_for(error(ErrorCode::METHOD_NOT_FOUND)), StatusCode::NOT_FOUND);
        for code in [
            ErrorCode::HEADER_MISMATCH,
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            ErrorCode::PARSE_ERROR,
            ErrorCode::INVALID_REQUEST,
        ] {
            assert_eq!(status_for(error(code)), StatusCode::BAD_REQUEST, "{code:?}");
        }
        assert_eq!(status_for(error(ErrorCode::INVALID_PARAMS)), StatusCode::OK);
    }
}
