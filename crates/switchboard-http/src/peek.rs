//! The first look at a POST body: what it is, decided once for every path.
//!
//! Every POST body is classified here before anything else reads it, so the
//! answer to a body the server cannot accept is the same on every path
//! (handshake-era sessions, handshake-era without sessions, 2026-07-28) and is
//! chosen from the classification, never by parsing a reply: `400 Bad Request`
//! with a JSON-RPC error body, `-32700` for a body that is not JSON and
//! `-32600` for JSON that is not a valid JSON-RPC message, addressed to the id
//! when the id could be read and to `null` otherwise. Streamable HTTP: "If the
//! server cannot accept the input, it MUST return an HTTP error status code
//! (e.g., 400 Bad Request)" (`docs/specification/<rev>/basic/transports.mdx`
//! §Sending Messages to the Server; in 2026-07-28 the body must be one
//! request or notification).
//!
//! The JSON-RPC rules are the dispatcher's own ([`IncomingMessage::kind`]),
//! so HTTP and stdio cannot disagree about what a valid message is. HTTP
//! adds one rule: a notification must say `"jsonrpc": "2.0"` as well. Over
//! stdio a malformed notification is dropped without a word (it can never
//! be answered); over HTTP the status line can refuse it.
//!
//! Batches (JSON arrays) are 2025-03-26 only: their elements are judged one
//! by one by the dispatcher, as JSON-RPC 2.0 §6 asks, and [`Batch::refusal_at`]
//! says whether a revision takes a batch at all.
//!
//! Routing also needs a few facts (is it a 2026-07-28 request, is it
//! `initialize`, does it carry a request). Whether it is a 2026-07-28
//! request is in its `_meta`, so the head of its params ([`ParamsHead`]:
//! the members and `_meta` fields read before the method's own parse) is
//! read here, once, and kept with the message for the 2026-07-28 handler's
//! checks and the dispatcher.

use axum::response::Response;
use serde_json::value::RawValue;
use switchboard_server::ProtocolVersion;
use switchboard_types::head::ParamsHead;
use switchboard_types::jsonrpc::{IncomingMessage, JSONRPC_VERSION, MessageKind};
use switchboard_types::{ErrorObject, RequestId};

use crate::security::error_response;

/// What a POST body is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Body {
    /// One valid JSON-RPC message.
    One(Head),
    /// A non-empty JSON array: a batch.
    Batch(Batch),
    /// Nothing the server can accept, whatever the revision.
    Refused(Refusal),
}

/// What routing needs to know about one valid message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    /// Request, notification or response.
    pub kind: Kind,
    /// It carries `params._meta["io.modelcontextprotocol/protocolVersion"]`.
    pub per_request: bool,
    /// Its `method` is `initialize`.
    pub initialize: bool,
}

/// The kind of a valid message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A request, with its id.
    Request(RequestId),
    /// A notification.
    Notification,
    /// A response to a request the server sent.
    Response,
}

/// What is known of a batch before its elements are dispatched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Batch {
    /// At least one element is a valid request (so the answer is a reply,
    /// not `202`).
    pub requests: bool,
}

/// Why a body cannot be accepted: answered `400` with a JSON-RPC error.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refusal {
    /// The message's id, when it could be read.
    pub id: Option<RequestId>,
    /// `-32700` or `-32600`.
    pub error: ErrorObject,
}

impl Refusal {
    fn new(id: Option<RequestId>, error: ErrorObject) -> Self {
        Self { id, error }
    }

    fn no_batches() -> Self {
        Self::new(
            None,
            ErrorObject::invalid_request(
                "JSON-RPC batches are accepted only under protocol revision 2025-03-26: send one message per POST",
            ),
        )
    }

    /// `400 Bad Request` with the JSON-RPC error.
    pub(crate) fn response(&self) -> Response {
        error_response(axum::http::StatusCode::BAD_REQUEST, self.id.as_ref(), self.error.clone())
    }
}

/// One valid message as [`read`] read it: the envelope, and the head of
/// its params when they may hold a `_meta`.
pub(crate) struct Message<'a> {
    pub envelope: IncomingMessage<'a>,
    /// `None` when the params were not read: they cannot hold a `_meta`
    /// (see [`params_head`]).
    pub params: Option<ParamsHead<'a>>,
}

impl<'a> Message<'a> {
    /// The head of the params, read now if [`read`] did not.
    pub(crate) fn params_head(&self) -> Result<ParamsHead<'a>, serde_json::Error> {
        match self.params {
            Some(head) => Ok(head),
            None => ParamsHead::read(self.envelope.params),
        }
    }
}

/// Classifies a POST body, and keeps the message read when it is one
/// valid message, so the handler and the dispatcher need not read the
/// envelope (nor, when it was read, the head of its params) again.
pub(crate) fn read(body: &[u8]) -> (Body, Option<Message<'_>>) {
    if body.trim_ascii_start().first() == Some(&b'[') {
        return (batch(body), None);
    }
    let envelope = match IncomingMessage::parse(body) {
        Ok(message) => message,
        Err(e) => return (Body::Refused(Refusal::new(None, e)), None),
    };
    match classify(&envelope) {
        Ok((head, params)) => (Body::One(head), Some(Message { envelope, params })),
        Err(refusal) => (Body::Refused(refusal), None),
    }
}

impl Body {
    /// Classifies a POST body ([`read`] without the message).
    #[cfg(test)]
    pub(crate) fn of(body: &[u8]) -> Body {
        read(body).0
    }

    /// The body's one message, for a revision that takes nothing else
    /// (2026-07-28).
    pub(crate) fn single(self) -> Result<Head, Refusal> {
        match self {
            Body::One(head) => Ok(head),
            Body::Batch(_) => Err(Refusal::no_batches()),
            Body::Refused(refusal) => Err(refusal),
        }
    }

    /// It is one message carrying the 2026-07-28 per-request version
    /// (a batch never is: 2026-07-28 has no batches).
    pub(crate) fn is_per_request(&self) -> bool {
        matches!(self, Body::One(head) if head.per_request)
    }

    /// It is one `initialize` message.
    pub(crate) fn is_initialize(&self) -> bool {
        matches!(self, Body::One(head) if head.initialize)
    }

    /// It carries at least one valid request (so it is answered with a
    /// reply rather than `202`).
    pub(crate) fn has_requests(&self) -> bool {
        match self {
            Body::One(head) => matches!(head.kind, Kind::Request(_)),
            Body::Batch(batch) => batch.requests,
            Body::Refused(_) => false,
        }
    }
}

impl Batch {
    /// The refusal of a batch under `revision` (`None`: not negotiated yet,
    /// and `initialize` must not be batched): only 2025-03-26 takes batches
    /// (the 2025-06-18 changelog: batching removed).
    pub(crate) fn refusal_at(self, revision: Option<ProtocolVersion>) -> Option<Refusal> {
        (!revision.is_some_and(ProtocolVersion::allows_batches)).then(Refusal::no_batches)
    }
}

/// One message: the dispatcher's rules, plus `"jsonrpc": "2.0"` on
/// notifications.
fn one(body: &[u8]) -> Result<Head, Refusal> {
    classify(&IncomingMessage::parse(body).map_err(|e| Refusal::new(None, e))?).map(|(head, _)| head)
}

/// What one message read off the wire is ([`one`]), and the head of its
/// params when they were read.
fn classify<'a>(message: &IncomingMessage<'a>) -> Result<(Head, Option<ParamsHead<'a>>), Refusal> {
    let kind = message.kind().map_err(|e| Refusal::new(message.readable_id(), e))?;
    let (kind, method, params) = match kind {
        MessageKind::Request { id, method, params } => (Kind::Request(id), Some(method), params),
        MessageKind::Notification { method, params } => (Kind::Notification, Some(method), params),
        MessageKind::Response { .. } => (Kind::Response, None, None),
    };
    if message.jsonrpc.as_deref() != Some(JSONRPC_VERSION) {
        return Err(Refusal::new(None, ErrorObject::invalid_request("missing \"jsonrpc\": \"2.0\"")));
    }
    let head = params_head(params).map_err(|e| Refusal::new(None, ErrorObject::parse_error(e)))?;
    // The per-request version, when present and not `null`, routes the
    // message to the 2026-07-28 handler (`null` is left to the dispatcher,
    // which refuses it as missing).
    let per_request = head.is_some_and(|h| h.meta.protocol_version.is_some_and(|v| v.get() != "null"));
    Ok((Head { kind, per_request, initialize: method == Some("initialize") }, head))
}

/// A JSON array: refused when it is not JSON or empty (JSON-RPC 2.0 §6:
/// an empty array is an invalid request); otherwise its elements are left
/// to the dispatcher.
fn batch(body: &[u8]) -> Body {
    let items: Vec<&RawValue> = match serde_json::from_slice(body) {
        Ok(items) => items,
        Err(e) if e.is_data() => {
            return Body::Refused(Refusal::new(None, ErrorObject::invalid_request("malformed batch")));
        }
        Err(e) => return Body::Refused(Refusal::new(None, ErrorObject::parse_error(e))),
    };
    if items.is_empty() {
        return Body::Refused(Refusal::new(None, ErrorObject::invalid_request("empty batch")));
    }
    let requests = items
        .iter()
        .any(|item| matches!(one(item.get().as_bytes()), Ok(Head { kind: Kind::Request(_), .. })));
    Body::Batch(Batch { requests })
}

/// The head of `params` ([`ParamsHead`]), or `None` without reading them
/// when they cannot hold a `_meta`: not an object, or neither the bytes
/// `_meta` nor an escape (a key could spell `_meta` with `\u` escapes).
/// That check is a `memchr` over bytes already in cache; it spares the
/// handshake-era requests without `_meta` (most of them) a parse of their params
/// here, which only a 2026-07-28 request needs.
fn params_head(params: Option<&RawValue>) -> Result<Option<ParamsHead<'_>>, serde_json::Error> {
    let Some(raw) = params.filter(|p| p.get().starts_with('{')) else { return Ok(None) };
    let bytes = raw.get().as_bytes();
    if memchr::memmem::find(bytes, b"_meta").is_none() && memchr::memchr(b'\\', bytes).is_none() {
        return Ok(None);
    }
    ParamsHead::read(params).map(Some)
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use switchboard_types::ErrorCode;

    use super::*;

    /// What the full parse says about a valid `body`, for comparison.
    fn by_value(body: &str) -> (bool, bool, bool) {
        let v: Value = serde_json::from_str(body).unwrap();
        (
            v["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion").is_some_and(|x| !x.is_null()),
            v["method"] == "initialize",
            v.get("method").is_some() && v.get("id").is_some(),
        )
    }

    fn refusal(body: &str) -> (ErrorCode, Option<RequestId>) {
        match Body::of(body.as_bytes()) {
            Body::Refused(r) => (r.error.code, r.id),
            other => panic!("{body} was accepted: {other:?}"),
        }
    }

    #[test]
    fn reads_what_a_full_parse_reads() {
        for body in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"m":[1,{"x":null}]}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}]}"#,
            " \r\n\t{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"\\u0069nitialize\"}",
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"\u005fmeta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"cursor":"a\"b"}}"#,
        ] {
            let Body::One(head) = Body::of(body.as_bytes()) else { panic!("{body}") };
            let request = matches!(head.kind, Kind::Request(_));
            assert_eq!((head.per_request, head.initialize, request), by_value(body), "{body}");
        }
    }

    #[test]
    fn invalid_envelopes_are_refused_to_the_readable_id() {
        let invalid = ErrorCode::INVALID_REQUEST;
        for (body, id) in [
            (r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#, Some(RequestId::Number(5))),
            (r#"{"id":"six","method":"ping"}"#, Some(RequestId::from("six"))),
            (r#"{"jsonrpc":"2.0","id":8}"#, Some(RequestId::Number(8))),
            (r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":3}"#, Some(RequestId::Number(9))),
            (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, None),
            (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, None),
            (r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#, None),
            (r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, None),
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, None),
            (r#"{"jsonrpc":"2.0","id":1,"method":7}"#, None),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"initialize"}"#, None),
            (r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#, None),
            (r#"{"method":"notifications/initialized"}"#, None),
            (r#"{}"#, None),
            ("42", None),
            ("\"initialize\"", None),
            ("null", None),
            ("[]", None),
        ] {
            assert_eq!(refusal(body), (invalid, id), "{body}");
        }
    }

    #[test]
    fn broken_json_is_a_parse_error() {
        for body in ["", "{\"jsonrpc\":\"2.0\",\"id\":1,", "{not json", "[1,", "{} trailing", "\u{0}"] {
            assert_eq!(refusal(body), (ErrorCode::PARSE_ERROR, None), "{body:?}");
        }
        let bytes = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}";
        assert!(matches!(Body::of(bytes), Body::Refused(r) if r.error.code == ErrorCode::PARSE_ERROR));
    }

    #[test]
    fn batches_are_2025_03_26_only_and_never_per_request() {
        let batch = Body::of(br#"[{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}]"#);
        assert_eq!(batch, Body::Batch(Batch { requests: true }));
        assert!(!batch.is_per_request() && batch.has_requests());
        let Body::Batch(b) = batch.clone() else { unreachable!() };
        assert_eq!(b.refusal_at(Some(ProtocolVersion::V2025_03_26)), None);
        for revision in [None, Some(ProtocolVersion::V2025_06_18), Some(ProtocolVersion::V2025_11_25)] {
            let refused = b.refusal_at(revision).expect("refused");
            assert_eq!((refused.error.code, refused.id), (ErrorCode::INVALID_REQUEST, None));
        }
        assert!(batch.single().is_err(), "2026-07-28 takes one message");
        // Only valid requests count: invalid elements are answered inside
        // the batch, notifications and responses not at all.
        for body in [
            r#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"result":{}}]"#,
            r#"[1,{"jsonrpc":"2.0","id":null,"method":"ping"}]"#,
        ] {
            assert_eq!(Body::of(body.as_bytes()), Body::Batch(Batch { requests: false }), "{body}");
        }
    }
}
