//! Streamable HTTP in the 2026-07-28 model: stateless POST, mirrored
//! headers, SSE only when the request needs it, disconnect = cancel.
//!
//! The validation order follows spec.md §c.4 (it is what the conformance
//! probes expect): JSON → a single valid message (both decided for every
//! path by [`peek`](crate::peek), before routing) → a request →
//! required `_meta` → headers against the body → version → method →
//! `Mcp-Param-*` → handling.

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use switchboard_server::{Accepted, Outcome, ProtocolVersion, Reply};
use switchboard_types::head::{ParamsHead, json_str};
use switchboard_types::jsonrpc::IncomingMessage;
use switchboard_types::meta::{CLIENT_CAPABILITIES, PROTOCOL_VERSION};
use switchboard_types::methods::{MethodFacts, Target};
use switchboard_types::{Era, ErrorCode, ErrorObject, RequestId};
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
fn answer(reply: Option<Reply>) -> Response {
    let status = reply.as_ref().map_or(StatusCode::OK, |r| status_for(r.outcome()));
    reply_response(status, reply)
}

/// What the HTTP layer reads of a 2026-07-28 request before dispatching it,
/// borrowed from the body in one pass (the dispatcher reads the rest):
/// the method, what it names (`Mcp-Name`), the `_meta` fields the checks
/// and the SSE decision need, and the raw arguments (parsed only for a tool
/// that mirrors them into headers).
#[derive(Default)]
struct Head<'a> {
    method: Option<std::borrow::Cow<'a, str>>,
    /// `params.name`, `params.uri` or `params.taskId`, by method.
    target: Option<std::borrow::Cow<'a, str>>,
    version: Option<std::borrow::Cow<'a, str>>,
    capabilities_object: bool,
    progress: bool,
    log_level: bool,
    arguments: Option<&'a RawValue>,
}

impl<'a> Head<'a> {
    /// The head of a message [`peek`](crate::peek) classified as one
    /// request, from the head of its params peek read (the envelope and the
    /// params are read once, and the same reading goes on to the
    /// dispatcher). Members of the wrong type read as absent, exactly as the
    /// checks treat them (a `_meta` that is not an object has no version).
    fn of(message: &IncomingMessage<'a>, params: &ParamsHead<'a>, facts: Option<MethodFacts>) -> Self {
        // What the request names is a fact of its method (`Mcp-Name`).
        let target = match facts.and_then(|facts| facts.target) {
            Some(Target::Name) => json_str(params.name),
            Some(Target::Uri) => json_str(params.uri),
            Some(Target::TaskId) => json_str(params.task_id),
            None => None,
        };
        let meta = &params.meta;
        Head {
            method: message.method.clone(),
            target,
            version: json_str(meta.protocol_version),
            capabilities_object: meta.client_capabilities.is_some_and(|c| c.get().starts_with('{')),
            progress: meta.progress_token.is_some(),
            log_level: meta.log_level.is_some(),
            arguments: params.arguments,
        }
    }
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
    // What the method is, as the server's registry says (a core method, or
    // an application's typed one): its target param and whether it listens.
    let facts = message.envelope.method.as_deref().and_then(|method| app.server.method_facts(method));
    let head = Head::of(&message.envelope, &params, facts);
    if let Err(refusal) = check_request(&app, &caller.headers(), &head, &id) {
        return refusal;
    }
    let listen = facts.is_some_and(|facts| facts.listens);
    let sse = listen || head.progress || head.log_level || app.options.response_mode == ResponseMode::Sse;
    if !sse {
        // Answered as JSON: nothing is sent before the response, so the
        // request needs no stream (the shared session's queue drops what
        // a handler sends anyway). Dropping this handler (the client went
        // away) drops the request's future: the request is cancelled.
        let accepted =
            app.server.accept_message(&app.stateless, &message.envelope, Some(&params), &caller.via(None));
        return match accepted {
            Accepted::Done(reply) => answer(reply),
            Accepted::Pending(fut) => answer(fut.await),
        };
    }
    let (tx, rx) = mpsc::channel::<Vec<u8>>(256);
    // A listen stream is a session of its own (its events are its own);
    // any other request shares the stateless session and gets its stream
    // through `Via`.
    let (session, via) = if listen {
        (app.server.new_session(tx, caller.principal.clone()), caller.via(None))
    } else {
        (std::sync::Arc::clone(&app.stateless), caller.via(Some(&tx)))
    };
    let fut = match app.server.accept_message(&session, &message.envelope, Some(&params), &via) {
        Accepted::Done(reply) => return answer(reply),
        Accepted::Pending(fut) => fut,
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

/// The checks before dispatching: the `_meta` the model requires, the
/// mirrored headers against the body (`-32020`), the revision, and the
/// method (`404` when it is not served).
fn check_request(app: &App, headers: &HeaderMap, head: &Head<'_>, id: &RequestId) -> Result<(), Response> {
    let method = head.method.as_deref().unwrap_or_default();
    let (Some(version), true) = (head.version.as_deref(), head.capabilities_object) else {
        return Err(bad_request(
            Some(id),
            ErrorObject::invalid_params(format!(
                "2026-07-28 requests must carry params._meta[\"{PROTOCOL_VERSION}\"] and params._meta[\"{CLIENT_CAPABILITIES}\"]"
            )),
        ));
    };
    if let Err(why) = headers::check_standard(headers, method, head.target.as_deref(), version) {
        return Err(bad_request(Some(id), ErrorObject::new(ErrorCode::HEADER_MISMATCH, why)));
    }
    let Some(revision) = ProtocolVersion::parse(version).filter(|v| v.era() == Era::PerRequest) else {
        return Err(bad_request(
            Some(id),
            ErrorObject::new(
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                format!("Unsupported protocol version {version:?}"),
            )
            .with_data(json!({"supported": ProtocolVersion::SUPPORTED, "requested": version})),
        ));
    };
    if !app.server.method_available(method, revision) {
        return Err(error_response(StatusCode::NOT_FOUND, Some(id), ErrorObject::method_not_found(method)));
    }
    if method == "tools/call" {
        check_mirrored_arguments(app, headers, head, id)?;
    }
    Ok(())
}

/// A `tools/call` of a tool that mirrors arguments into `Mcp-Param-*`
/// headers: the headers must match the arguments (`-32020`).
fn check_mirrored_arguments(
    app: &App,
    headers: &HeaderMap,
    head: &Head<'_>,
    id: &RequestId,
) -> Result<(), Response> {
    let name = head.target.as_deref().unwrap_or_default();
    let checked = app.server.with_mirrored_schema(name, |schema| {
        let arguments: Value =
            head.arguments.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or(Value::Null);
        headers::check_params(headers, schema, &arguments)
    });
    if let Some(Err(why)) = checked {
        return Err(bad_request(Some(id), ErrorObject::new(ErrorCode::HEADER_MISMATCH, why)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(code: ErrorCode) -> Outcome {
        Outcome::Error { code, store_unavailable: false }
    }

    /// The head of `body`: the message read, then its head.
    fn read(body: &[u8]) -> Head<'_> {
        let message = IncomingMessage::parse(body).unwrap();
        let facts = message.method.as_deref().and_then(|m| switchboard_types::methods::facts(m).copied());
        Head::of(&message, &ParamsHead::read(message.params).unwrap(), facts)
    }

    #[test]
    fn the_head_reads_what_the_checks_need_and_nothing_of_the_wrong_type() {
        let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1},
            "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},
            "progressToken":null}}}"#;
        let head = read(body);
        assert_eq!(head.method.as_deref(), Some("tools/call"));
        assert_eq!(head.target.as_deref(), Some("echo"));
        assert_eq!(head.version.as_deref(), Some("2026-07-28"));
        assert!(head.capabilities_object && head.progress && !head.log_level);
        assert_eq!(head.arguments.map(RawValue::get), Some(r#"{"a":1}"#));

        let task = read(br#"{"method":"tasks/get","params":{"taskId":"t\u0031","name":"x"}}"#);
        assert_eq!(task.target.as_deref(), Some("t1"), "escapes decoded; the task id, not the name");
        for odd in [
            &br#"{"method":"tools/call","params":[1,2]}"#[..],
            br#"{"method":"tools/call","params":{"name":5,"_meta":"x"}}"#,
            br#"{"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":[]}}}"#,
        ] {
            let head = read(odd);
            assert_eq!(head.method.as_deref(), Some("tools/call"));
            assert!(head.target.is_none() && head.version.is_none() && !head.capabilities_object);
        }
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
