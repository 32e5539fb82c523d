//! Streamable HTTP in the 2026-07-28 model: stateless POST, mirrored
//! headers, SSE only when the request needs it, disconnect = cancel.
//!
//! The validation order follows the 2026-07-28 Streamable HTTP page (`basic/transports/streamable-http`) (it is what the conformance
//! probes expect): JSON → a single valid message (both decided for every
//! path by [`peek`](crate::peek), before routing) → a request →
//! required `_meta` → headers against the body → version → method →
//! `Mcp-Param-*` → handling. From the required `_meta` on, the dispatcher
//! applies them: the mirrored headers are this transport's
//! [`AdmissionCheck`], which the dispatcher calls at their two places in
//! that order, and the answer's status follows its outcome.

use std::cell::Cell;
use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use serde_json::value::RawValue;
use switchboard_server::{Accepted, AdmissionCheck, Outcome, Reply, Session, Via};
use switchboard_types::head::ParamsHead;
use switchboard_types::{ErrorCode, ErrorObject, RequestId};
use tokio::sync::mpsc;

use crate::app::App;
use crate::caller::Caller;
use crate::headers;
use crate::options::ResponseMode;
use crate::peek::{Body, Kind, Message};
use crate::security::{error_response, reply_response};

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
fn answer(reply: Option<Reply>, reached: HeadersReached) -> Response {
    let status = reply.as_ref().map_or(StatusCode::OK, |r| reached.status(r.outcome()));
    reply_response(status, reply)
}

/// Whether the dispatcher's admission got as far as the headers (then the
/// required `_meta` was there), which decides the status of a `-32602`.
#[derive(Clone, Copy)]
struct HeadersReached(bool);

impl HeadersReached {
    /// The status of an answer: [`status_for`] its outcome, except that a
    /// `-32602` refusal before the headers were reached is the required
    /// `_meta` missing or of the wrong type, which is `400` (a MUST of
    /// the 2026-07-28 Streamable HTTP page (`basic/transports/streamable-http`)); a handler's `-32602` is `200`.
    fn status(self, outcome: Outcome) -> StatusCode {
        match outcome.error_code() {
            Some(ErrorCode::INVALID_PARAMS) if !self.0 => StatusCode::BAD_REQUEST,
            _ => status_for(outcome),
        }
    }
}

/// Admits one 2026-07-28 request with this transport's [`HeaderCheck`];
/// the check lives only as long as the synchronous admission.
fn admit(
    app: &App,
    session: &Arc<Session>,
    message: &Message<'_>,
    params: &ParamsHead<'_>,
    via: &Via,
    headers: &HeaderMap,
) -> (Accepted, HeadersReached) {
    let check = HeaderCheck { headers, reached: Cell::new(false) };
    let accepted = app.server.accept_message_checked(session, &message.envelope, Some(params), via, &check);
    (accepted, HeadersReached(check.reached.get()))
}

/// This transport's part of the dispatcher's admission of a 2026-07-28
/// request: the mirrored headers against the body (`-32020`), at steps 5
/// and 8 of the 2026-07-28 Streamable HTTP page (`basic/transports/streamable-http`). Borrowed for the synchronous admission only.
struct HeaderCheck<'a> {
    headers: &'a HeaderMap,
    /// The dispatcher got to the headers: the required `_meta` was there.
    reached: Cell<bool>,
}

impl AdmissionCheck for HeaderCheck<'_> {
    fn check_metadata(&self, method: &str, target: Option<&str>, version: &str) -> Result<(), ErrorObject> {
        self.reached.set(true);
        headers::check_standard(self.headers, method, target, version)
            .map_err(|why| ErrorObject::new(ErrorCode::HEADER_MISMATCH, why))
    }

    fn check_arguments(&self, input_schema: &Value, arguments: Option<&RawValue>) -> Result<(), ErrorObject> {
        let arguments: Value =
            arguments.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or(Value::Null);
        headers::check_params(self.headers, input_schema, &arguments)
            .map_err(|why| ErrorObject::new(ErrorCode::HEADER_MISMATCH, why))
    }
}

/// Whether a 2026-07-28 request is answered as an SSE stream: it listens
/// (a fact of its method), asks for progress or log messages in its
/// `_meta`, or the server answers every request that way.
fn answers_as_stream(app: &App, params: &ParamsHead<'_>, listens: bool) -> bool {
    let meta = &params.meta;
    listens
        || meta.progress_token.is_some()
        || meta.log_level.is_some()
        || app.options.response_mode == ResponseMode::Sse
}

/// A 2026-07-28 POST. `peeked` is the body's classification; a body that
/// is no valid JSON-RPC message never gets here (see [`peek`](crate::peek)).
/// `message` is the one message peek read (`None` for a batch, which
/// [`request_id`] refuses).
pub(crate) async fn post(app: App, peeked: Body, message: Option<Message<'_>>, caller: Caller) -> Response {
    let id = match request_id(peeked) {
        Ok(id) => id,
        Err(answer) => return answer,
    };
    let Some(message) = message else {
        return bad_request(Some(&id), ErrorObject::invalid_request("the body must be one request"));
    };
    let params = match message.params_head() {
        Ok(params) => params,
        Err(e) => return bad_request(None, ErrorObject::parse_error(e)),
    };
    // Whether the method listens, as the server's registry says (a core
    // method, or an application's typed one).
    let method = message.envelope.method.as_deref();
    let listen = method.and_then(|method| app.server.method_facts(method)).is_some_and(|facts| facts.listens);
    let headers = caller.headers();
    if !answers_as_stream(&app, &params, listen) {
        // Answered as JSON: nothing is sent before the response, so the
        // request needs no stream (the shared session's queue drops what
        // a handler sends anyway). Dropping this handler (the client went
        // away) drops the request's future: the request is cancelled.
        let (accepted, reached) = admit(&app, &app.stateless, &message, &params, &caller.via(None), &headers);
        return match accepted {
            Accepted::Done(reply) => answer(reply, reached),
            Accepted::Pending(fut) => answer(fut.await, reached),
        };
    }
    let (tx, rx) = mpsc::channel::<Vec<u8>>(256);
    // A listen stream is a session of its own (its events are its own);
    // any other request shares the stateless session and gets its stream
    // through `Via`.
    let (session, via) = if listen {
        (app.server.new_session(tx, caller.principal.clone()), caller.via(None))
    } else {
        (Arc::clone(&app.stateless), caller.via(Some(&tx)))
    };
    // A refusal drops `session` here: a listen stream refused at admission
    // leaves nothing behind.
    let fut = match admit(&app, &session, &message, &params, &via, &headers) {
        (Accepted::Done(reply), reached) => return answer(reply, reached),
        (Accepted::Pending(fut), _) => fut,
    };
    crate::post_stream::stream_answer(&app, session, rx, fut, listen)
}

/// `400` with a JSON-RPC error.
fn bad_request(id: Option<&RequestId>, e: ErrorObject) -> Response {
    error_response(StatusCode::BAD_REQUEST, id, e)
}

/// The id of the one request in the body; `Err` is the answer to a body
/// that is not one request.
fn request_id(peeked: Body) -> Result<RequestId, Response> {
    let head = match peeked.single() {
        Ok(head) => head,
        Err(refusal) => return Err(refusal.response()),
    };
    match head.kind {
        Kind::Request(id) => Ok(id),
        // Notifications are accepted and have no effect over HTTP here
        // (cancellation is closing the stream).
        Kind::Notification => Err(StatusCode::ACCEPTED.into_response()),
        // No server-to-client requests in 2026-07-28: nothing to answer.
        Kind::Response => Err(bad_request(
            None,
            ErrorObject::invalid_request("the body must be a request or a notification"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(code: ErrorCode) -> Outcome {
        Outcome::Error { code, store_unavailable: false }
    }

    #[test]
    fn invalid_params_before_the_headers_is_the_required_meta_and_400() {
        let invalid = error(ErrorCode::INVALID_PARAMS);
        assert_eq!(HeadersReached(false).status(invalid), StatusCode::BAD_REQUEST, "step 4");
        assert_eq!(HeadersReached(true).status(invalid), StatusCode::OK, "a handler's -32602");
        assert_eq!(HeadersReached(false).status(error(ErrorCode::METHOD_NOT_FOUND)), StatusCode::NOT_FOUND);
        assert_eq!(HeadersReached(true).status(Outcome::Ok), StatusCode::OK);
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
