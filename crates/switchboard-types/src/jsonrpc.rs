//! The JSON-RPC 2.0 envelope.
//!
//! Incoming messages are read into [`IncomingMessage`], which borrows from the
//! input and keeps `params` as raw JSON: the method is looked up first and the
//! params are parsed into the handler's own type only after that (the shape
//! `jsonrpsee` and `async-lsp` use). Outgoing messages are written with the
//! small `*Ref` structs, which serialize straight from borrowed parts.
//!
//! Spec: JSON-RPC 2.0; `docs/specification/<rev>/basic/index.mdx` §Messages.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::error::ErrorObject;

/// The only JSON-RPC version MCP speaks.
pub const JSONRPC_VERSION: &str = "2.0";

/// A request id: a string or an integer, never `null`.
///
/// The JSON type is kept, so a string id `"1"` and an integer id `1` are
/// different ids and each is echoed as it came.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => s.serialize_i64(*n),
            RequestId::String(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an integer")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
                i64::try_from(v).map(RequestId::Number).map_err(|_| E::custom("integer id out of range"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<RequestId, E> {
                Ok(RequestId::String(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

/// One JSON-RPC message as read off the wire, borrowing from the input.
///
/// Nothing is validated here beyond JSON syntax; [`IncomingMessage::kind`]
/// applies the JSON-RPC rules.
#[derive(Debug, Deserialize)]
pub struct IncomingMessage<'a> {
    /// Must be `"2.0"`.
    #[serde(default, borrow)]
    pub jsonrpc: Option<Cow<'a, str>>,
    /// The raw id, `Some("null")` when the member is present with `null`.
    #[serde(default, borrow, deserialize_with = "present_raw")]
    pub id: Option<&'a RawValue>,
    /// The method of a request or notification.
    #[serde(default, borrow)]
    pub method: Option<Cow<'a, str>>,
    /// Raw params, parsed once the handler is known.
    #[serde(default, borrow, deserialize_with = "present_raw")]
    pub params: Option<&'a RawValue>,
    /// The result of a response (sent by a client answering a server request).
    #[serde(default, borrow, deserialize_with = "present_raw")]
    pub result: Option<&'a RawValue>,
    /// The error of a response.
    #[serde(default, borrow, deserialize_with = "present_raw")]
    pub error: Option<&'a RawValue>,
}

/// Keeps a present member as raw JSON even when it is `null`, so that
/// `"id": null` can be told apart from a missing id.
fn present_raw<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

/// What an [`IncomingMessage`] turned out to be.
#[derive(Debug)]
pub enum MessageKind<'m, 'a> {
    /// A request: it has a valid id and a method.
    Request {
        /// The id, to echo in the response.
        id: RequestId,
        /// The method name.
        method: &'m str,
        /// The raw params, if any.
        params: Option<&'a RawValue>,
    },
    /// A notification: a method and no id. Never answered.
    Notification {
        /// The method name.
        method: &'m str,
        /// The raw params, if any.
        params: Option<&'a RawValue>,
    },
    /// A response to a request the server sent.
    Response {
        /// The id it answers.
        id: RequestId,
    },
}

impl<'a> IncomingMessage<'a> {
    /// Parses one message. A JSON syntax error (or invalid UTF-8) is `-32700`;
    /// a value that is valid JSON but not an object is `-32600`.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ErrorObject> {
        match serde_json::from_slice::<IncomingMessage<'a>>(bytes) {
            Ok(m) => Ok(m),
            Err(e) if e.is_data() => Err(ErrorObject::invalid_request(
                "a JSON-RPC message must be an object with \"jsonrpc\": \"2.0\"",
            )),
            Err(e) => Err(ErrorObject::parse_error(e)),
        }
    }

    /// The id if it can be read (used to address an error response even when
    /// the rest of the message is invalid).
    pub fn readable_id(&self) -> Option<RequestId> {
        self.id.and_then(|raw| serde_json::from_str(raw.get()).ok())
    }

    /// Applies the JSON-RPC 2.0 rules and says what kind of message this is.
    ///
    /// Errors (all `-32600`): `jsonrpc` missing or not `"2.0"`, an `id` that
    /// is `null` or not a string or integer, a non-string method, neither a
    /// method nor a result/error. A message with a method and no `id` member
    /// is a notification however malformed the rest is: notifications are
    /// never answered, not even with an error (JSON-RPC 2.0 §4.1; the
    /// cancellation page, `docs/specification/<rev>/basic/utilities/cancellation.mdx`,
    /// says malformed ones "SHOULD be ignored").
    pub fn kind(&self) -> Result<MessageKind<'_, 'a>, ErrorObject> {
        if let (Some(method), None) = (&self.method, self.id) {
            return Ok(MessageKind::Notification { method, params: self.params });
        }
        match self.jsonrpc.as_deref() {
            Some(JSONRPC_VERSION) => {}
            Some(other) => {
                return Err(ErrorObject::invalid_request(format!(
                    "\"jsonrpc\" must be \"2.0\", got {other:?}"
                )));
            }
            None => {
                return Err(ErrorObject::invalid_request("missing \"jsonrpc\": \"2.0\""));
            }
        }
        let id = match self.id {
            None => None,
            Some(raw) if raw.get() == "null" => {
                return Err(ErrorObject::invalid_request(
                    "\"id\" must not be null (a notification has no \"id\" member)",
                ));
            }
            Some(raw) => match serde_json::from_str::<RequestId>(raw.get()) {
                Ok(id) => Some(id),
                Err(_) => {
                    return Err(ErrorObject::invalid_request("\"id\" must be a string or an integer"));
                }
            },
        };
        if let Some(params) = self.params {
            let first = params.get().as_bytes().first().copied();
            if !matches!(first, Some(b'{') | Some(b'[')) {
                return Err(ErrorObject::invalid_request(
                    "\"params\" must be an object or an array when present",
                ));
            }
        }
        match (&self.method, id) {
            (Some(method), Some(id)) => Ok(MessageKind::Request { id, method, params: self.params }),
            (None, Some(id)) if self.result.is_some() || self.error.is_some() => {
                Ok(MessageKind::Response { id })
            }
            (Some(method), None) => Ok(MessageKind::Notification { method, params: self.params }),
            (None, _) => Err(ErrorObject::invalid_request("missing \"method\"")),
        }
    }
}

/// A successful response, serialized from borrowed parts.
#[derive(Debug, Serialize)]
pub struct ResultResponseRef<'a, T: Serialize> {
    /// Always `"2.0"`.
    pub jsonrpc: &'static str,
    /// The request's id.
    pub id: &'a RequestId,
    /// The result object.
    pub result: &'a T,
}

/// An error response. `id` is `None` when the request's id could not be
/// read; it is then written as `null` (JSON-RPC 2.0 §5), see
/// [`ErrorResponseRef`]'s serializer.
#[derive(Debug, Serialize)]
pub struct ErrorResponseRef<'a> {
    /// Always `"2.0"`.
    pub jsonrpc: &'static str,
    /// The request's id, or `null` when unreadable.
    pub id: Option<&'a RequestId>,
    /// The error.
    pub error: &'a ErrorObject,
}

/// A notification, serialized from borrowed parts.
#[derive(Debug, Serialize)]
pub struct NotificationRef<'a, T: Serialize> {
    /// Always `"2.0"`.
    pub jsonrpc: &'static str,
    /// The method.
    pub method: &'a str,
    /// The params.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<&'a T>,
}

/// Serializes a success response to bytes (no trailing newline).
pub fn encode_result<T: Serialize>(id: &RequestId, result: &T) -> Vec<u8> {
    serde_json::to_vec(&ResultResponseRef { jsonrpc: JSONRPC_VERSION, id, result })
        .expect("a result made of serde_json-serializable parts serializes; qed")
}

/// Serializes an error response to bytes (no trailing newline).
pub fn encode_error(id: Option<&RequestId>, error: &ErrorObject) -> Vec<u8> {
    serde_json::to_vec(&ErrorResponseRef { jsonrpc: JSONRPC_VERSION, id, error })
        .expect("an ErrorObject serializes; qed")
}

/// Serializes a notification to bytes (no trailing newline).
pub fn encode_notification<T: Serialize>(method: &str, params: Option<&T>) -> Vec<u8> {
    serde_json::to_vec(&NotificationRef { jsonrpc: JSONRPC_VERSION, method, params })
        .expect("notification params serialize; qed")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn kind_of(s: &str) -> Result<String, ErrorCode> {
        let m = IncomingMessage::parse(s.as_bytes()).map_err(|e| e.code)?;
        let k = m.kind().map_err(|e| e.code)?;
        Ok(match k {
            MessageKind::Request { id, method, .. } => format!("req {id} {method}"),
            MessageKind::Notification { method, .. } => format!("note {method}"),
            MessageKind::Response { id } => format!("resp {id}"),
        })
    }

    #[test]
    fn classifies_messages() {
        assert_eq!(kind_of(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).unwrap(), "req 1 ping");
        assert_eq!(kind_of(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).unwrap(), "req \"a\" ping");
        assert_eq!(
            kind_of(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap(),
            "note notifications/initialized"
        );
        // Malformed notifications are still notifications: never answered.
        assert_eq!(kind_of(r#"{"method":"n","params":"x"}"#).unwrap(), "note n");
        assert_eq!(kind_of(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#).unwrap(), "resp 3");
    }

    #[test]
    fn rejects_invalid_envelopes() {
        let invalid = ErrorCode::INVALID_REQUEST;
        assert_eq!(kind_of(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#), Err(invalid));
        assert_eq!(kind_of(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#), Err(invalid));
        assert_eq!(kind_of(r#"{"id":1,"method":"ping"}"#), Err(invalid));
        assert_eq!(kind_of(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#), Err(invalid));
        assert_eq!(kind_of(r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#), Err(invalid));
        assert_eq!(kind_of(r#"{"jsonrpc":"2.0","id":1}"#), Err(invalid));
        assert_eq!(kind_of(r#"{"jsonrpc":"2.0","id":1,"method":7}"#), Err(invalid));
        assert_eq!(kind_of(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":3}"#), Err(invalid));
        assert_eq!(kind_of(r#"42"#), Err(invalid));
        assert_eq!(kind_of(r#"{"jsonrpc":"2.0""#), Err(ErrorCode::PARSE_ERROR));
        assert_eq!(kind_of("\u{0}"), Err(ErrorCode::PARSE_ERROR));
    }

    #[test]
    fn invalid_utf8_is_a_parse_error() {
        let bytes = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}";
        assert_eq!(IncomingMessage::parse(bytes).unwrap_err().code, ErrorCode::PARSE_ERROR);
    }

    #[test]
    fn keeps_the_id_type_when_encoding() {
        let e = ErrorObject::method_not_found("nope");
        let s = String::from_utf8(encode_error(Some(&RequestId::from("7")), &e)).unwrap();
        assert!(s.contains(r#""id":"7""#), "{s}");
        let s = String::from_utf8(encode_error(None, &e)).unwrap();
        assert!(s.contains(r#""id":null"#), "{s}");
        let s = String::from_utf8(encode_result(&RequestId::Number(7), &serde_json::json!({}))).unwrap();
        assert_eq!(s, r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
    }
}
