//! Cheap looks at a POST body before it is dispatched.
//!
//! Routing needs a few facts about a body (is it a 2026-07-28 request, is
//! it `initialize`, does it carry a request) before the dispatcher parses
//! it for real. Building a `serde_json::Value` for those facts was about a
//! sixth of a stateless `tools/call`'s instructions (callgrind, legacy
//! stateless mode), so these read the body with borrowing deserializers
//! that skip what they do not need and allocate nothing.

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

/// What routing needs to know about a body holding one JSON-RPC message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Head {
    /// It carries `params._meta["io.modelcontextprotocol/protocolVersion"]`.
    pub modern: bool,
    /// Its `method` is `initialize`.
    pub initialize: bool,
    /// It has both a `method` and an `id` (a request, not a notification).
    pub request: bool,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(default, borrow, deserialize_with = "present_raw")]
    method: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present")]
    id: bool,
    #[serde(default, borrow)]
    params: Option<Params<'a>>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(rename = "_meta", default, borrow)]
    meta: Option<Meta<'a>>,
}

#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default, borrow)]
    version: Option<&'a RawValue>,
}

/// `Some` whenever the member is there, `null` included (as
/// `Value::get` sees it).
fn present_raw<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<&'a RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// True whenever the member is there, `null` included.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(d).map(|_| true)
}

impl Head {
    /// The facts of a body holding one message. `None` for a batch, for
    /// anything that is not a JSON object, and for the rare bodies these
    /// facts cannot be read from exactly without a full parse (a repeated
    /// member, an escaped method name): the caller then parses the body
    /// in full, which also finds its errors.
    pub(crate) fn of(body: &[u8]) -> Option<Head> {
        if !is_object(body) {
            return None;
        }
        let message: Message<'_> = serde_json::from_slice(body).ok()?;
        let method = message.method.map(RawValue::get);
        if method.is_some_and(|m| m.contains('\\')) {
            return None;
        }
        Some(Head {
            modern: version_in(message.params),
            initialize: method == Some("\"initialize\""),
            request: method.is_some() && message.id,
        })
    }
}

/// Whether the body's JSON text starts as an object. A derived
/// `Deserialize` also reads a struct from an array (field by position), so
/// batches and other arrays are turned away before that can happen.
fn is_object(body: &[u8]) -> bool {
    body.iter().find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')) == Some(&b'{')
}

fn version_in(params: Option<Params<'_>>) -> bool {
    params.and_then(|p| p.meta).is_some_and(|m| m.version.is_some())
}

/// True if the body carries the 2026-07-28 per-request protocol version
/// (for bodies [`Head::of`] does not read, batches included).
pub(crate) fn body_is_modern(body: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        params: Option<Params<'a>>,
    }
    is_object(body) && serde_json::from_slice::<Envelope<'_>>(body).is_ok_and(|e| version_in(e.params))
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// What the full parse says about `body`, for comparison.
    fn by_value(body: &str) -> Head {
        let v: Value = serde_json::from_str(body).unwrap();
        Head {
            modern: v["params"]["_meta"]
                .get("io.modelcontextprotocol/protocolVersion")
                .is_some_and(|x| !x.is_null()),
            initialize: v["method"] == "initialize",
            request: v.get("method").is_some() && v.get("id").is_some(),
        }
    }

    #[test]
    fn reads_what_a_full_parse_reads() {
        for body in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"m":[1,{"x":null}]}}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":null}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}}"#,
            r#"{"method":"initialize"}"#,
            r#"{}"#,
        ] {
            assert_eq!(Head::of(body.as_bytes()), Some(by_value(body)), "{body}");
            assert_eq!(body_is_modern(body.as_bytes()), by_value(body).modern, "{body}");
        }
    }

    #[test]
    fn leaves_batches_odd_shapes_and_broken_json_to_the_full_parse() {
        for body in [
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            r#""initialize""#,
            r#"5"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"\u0069nitialize"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1,"#,
            "",
        ] {
            assert_eq!(Head::of(body.as_bytes()), None, "{body}");
        }
        // A batch is never modern (2026-07-28 has no batches), whatever
        // its first element holds.
        for batch in [
            r#"[{"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}]"#,
            r#"[{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}]"#,
        ] {
            assert!(!body_is_modern(batch.as_bytes()), "{batch}");
        }
        // Leading whitespace is fine.
        assert!(Head::of(b" \r\n\t{\"method\":\"initialize\"}").is_some_and(|h| h.initialize));
    }
}
