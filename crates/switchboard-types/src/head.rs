//! The one borrowed read of a request's `params` that everything before
//! the method's own parse shares.
//!
//! Routing (is this a 2026-07-28 request?), the Streamable HTTP header
//! checks (`Mcp-Name`, the mirrored `_meta` fields) and the dispatcher (era,
//! revision, client, progress token, log level, trace context) all need a
//! few members of `params` and of `params._meta`. Each of them reading the
//! params on its own meant scanning the same bytes three times and, in the
//! dispatcher, building the whole `_meta` as a map (an ordered map with
//! SipHash, key and value copies) for the five keys it looks at: about a
//! fifth of a 2026-07-28 `tools/call`, measured with callgrind. A
//! [`ParamsHead`] is read once, borrows every member as raw JSON (nothing
//! skipped is allocated), and is handed from one stage to the next; the
//! members are interpreted by whoever needs them, and the full `_meta` map a
//! handler may ask for is built from [`MetaView::raw`] only then.
//!
//! Reading rules, the same for every reader: `params` that are not an
//! object have no head; a member that appears twice counts once, the last
//! time (as in a map built from the object); a present member is kept even
//! when it is `null` (so "absent" and "`null`" stay apart); a `_meta` that is
//! not an object has none of its fields.

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;

use crate::meta::{
    BAGGAGE, CLIENT_CAPABILITIES, CLIENT_INFO, LOG_LEVEL, PROGRESS_TOKEN, PROTOCOL_VERSION, TRACEPARENT,
    TRACESTATE,
};

/// What is read of a request's `params` before its method's own parse,
/// borrowed from the message.
#[derive(Debug, Default, Clone, Copy)]
pub struct ParamsHead<'a> {
    /// `params.name` (tools, prompts).
    pub name: Option<&'a RawValue>,
    /// `params.uri` (resources).
    pub uri: Option<&'a RawValue>,
    /// `params.taskId` (tasks).
    pub task_id: Option<&'a RawValue>,
    /// `params.arguments` (tools).
    pub arguments: Option<&'a RawValue>,
    /// `params._meta`.
    pub meta: MetaView<'a>,
}

/// The reserved members of a request's `_meta`, as raw JSON.
#[derive(Debug, Default, Clone, Copy)]
pub struct MetaView<'a> {
    /// `_meta` as sent, when present (also when `null` or not an object).
    pub raw: Option<&'a RawValue>,
    /// `io.modelcontextprotocol/protocolVersion`.
    pub protocol_version: Option<&'a RawValue>,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub client_capabilities: Option<&'a RawValue>,
    /// `io.modelcontextprotocol/clientInfo`.
    pub client_info: Option<&'a RawValue>,
    /// `io.modelcontextprotocol/logLevel`.
    pub log_level: Option<&'a RawValue>,
    /// `progressToken`.
    pub progress_token: Option<&'a RawValue>,
    /// `traceparent` (W3C trace context).
    pub traceparent: Option<&'a RawValue>,
    /// `tracestate`.
    pub tracestate: Option<&'a RawValue>,
    /// `baggage`.
    pub baggage: Option<&'a RawValue>,
}

impl<'a> ParamsHead<'a> {
    /// Reads the head of `params` (see the module's reading rules). `Err`
    /// only for JSON the parser refuses, which cannot happen to params a
    /// message was parsed with.
    pub fn read(params: Option<&'a RawValue>) -> Result<Self, serde_json::Error> {
        let Some(params) = params.filter(|p| is_object(p)) else { return Ok(Self::default()) };
        let mut head = Self::default();
        members(params.get(), &mut head)?;
        if let Some(meta) = head.meta.raw.filter(|m| is_object(m)) {
            members(meta.get(), &mut head.meta)?;
        }
        Ok(head)
    }
}

impl<'a> MetaView<'a> {
    /// `_meta` is present and an object.
    pub fn is_object(&self) -> bool {
        self.raw.is_some_and(is_object)
    }

    /// `_meta` is present, but neither an object nor `null`.
    pub fn is_malformed(&self) -> bool {
        self.raw.is_some_and(|raw| !is_object(raw) && raw.get() != "null")
    }
}

/// The value of a raw JSON string, borrowed unless it has escapes; `None`
/// for anything but a string.
pub fn json_str(raw: Option<&RawValue>) -> Option<Cow<'_, str>> {
    let text = raw?.get();
    if !text.starts_with('"') {
        return None;
    }
    match serde_json::from_str::<&str>(text) {
        Ok(s) => Some(Cow::Borrowed(s)),
        Err(_) => serde_json::from_str::<String>(text).ok().map(Cow::Owned),
    }
}

fn is_object(raw: &RawValue) -> bool {
    raw.get().starts_with('{')
}

/// Where an object's members of interest go: the slot of a member to keep,
/// `None` for one to skip.
trait Slots<'a> {
    fn slot(&mut self, key: &str) -> Option<&mut Option<&'a RawValue>>;
}

impl<'a> Slots<'a> for ParamsHead<'a> {
    fn slot(&mut self, key: &str) -> Option<&mut Option<&'a RawValue>> {
        Some(match key {
            "name" => &mut self.name,
            "uri" => &mut self.uri,
            "taskId" => &mut self.task_id,
            "arguments" => &mut self.arguments,
            "_meta" => &mut self.meta.raw,
            _ => return None,
        })
    }
}

impl<'a> Slots<'a> for MetaView<'a> {
    fn slot(&mut self, key: &str) -> Option<&mut Option<&'a RawValue>> {
        Some(match key {
            PROTOCOL_VERSION => &mut self.protocol_version,
            CLIENT_CAPABILITIES => &mut self.client_capabilities,
            CLIENT_INFO => &mut self.client_info,
            LOG_LEVEL => &mut self.log_level,
            PROGRESS_TOKEN => &mut self.progress_token,
            TRACEPARENT => &mut self.traceparent,
            TRACESTATE => &mut self.tracestate,
            BAGGAGE => &mut self.baggage,
            _ => return None,
        })
    }
}

/// Reads the object `text` member by member with one hand-written map
/// visitor, keeping the members `out` has a slot for as raw JSON and
/// skipping the others without allocating. Hand-written because a derived
/// struct refuses a duplicated member (a map keeps the last one, and so
/// does this).
fn members<'a, S: Slots<'a>>(text: &'a str, out: &mut S) -> Result<(), serde_json::Error> {
    struct Each<'o, S>(&'o mut S);
    impl<'a, S: Slots<'a>> Visitor<'a> for Each<'_, S> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'a>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(Key(key)) = map.next_key::<Key<'a>>()? {
                match self.0.slot(&key) {
                    Some(slot) => *slot = Some(map.next_value::<&'a RawValue>()?),
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_map(Each(out))?;
    de.end()
}

/// An object key, borrowed from the text unless it has escapes.
struct Key<'a>(Cow<'a, str>);

impl<'a> Deserialize<'a> for Key<'a> {
    fn deserialize<D: Deserializer<'a>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'a> Visitor<'a> for KeyVisitor {
            type Value = Key<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, key: &'a str) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Borrowed(key)))
            }
            fn visit_str<E>(self, key: &str) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Owned(key.to_owned())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    fn get(raw: Option<&RawValue>) -> Option<&str> {
        raw.map(RawValue::get)
    }

    #[test]
    fn reads_the_members_a_map_would_hold() {
        let params = raw(
            r#"{"name":"echo","arguments":{"a":[1,{"_meta":2}]},"x":{"name":3},"\u005fmeta":{"progressToken":null,
            "io.modelcontextprotocol/protocolVersion":"2026-07-28","other":{"traceparent":1},"traceparent":"t"}}"#,
        );
        let head = ParamsHead::read(Some(&params)).unwrap();
        assert_eq!(get(head.name), Some(r#""echo""#));
        assert_eq!(get(head.arguments), Some(r#"{"a":[1,{"_meta":2}]}"#));
        assert_eq!((head.uri.is_none(), head.task_id.is_none()), (true, true));
        let meta = head.meta;
        assert!(meta.is_object() && !meta.is_malformed());
        assert_eq!(get(meta.progress_token), Some("null"), "a present null is kept");
        assert_eq!(json_str(meta.protocol_version).as_deref(), Some("2026-07-28"));
        assert_eq!(get(meta.traceparent), Some(r#""t""#), "only the top level of _meta");
        assert!(meta.client_capabilities.is_none() && meta.log_level.is_none());
        // Every member the view holds is the one a full parse holds.
        let full: Value = serde_json::from_str(params.get()).unwrap();
        assert_eq!(full["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    }

    #[test]
    fn duplicates_keep_the_last_and_odd_shapes_have_no_head() {
        let params = raw(r#"{"_meta":{"progressToken":1,"progressToken":2},"name":"a","name":"b"}"#);
        let head = ParamsHead::read(Some(&params)).unwrap();
        assert_eq!((get(head.meta.progress_token), get(head.name)), (Some("2"), Some(r#""b""#)));
        for odd in [r#"[{"_meta":{}}]"#, "null", "3"] {
            let params = raw(odd);
            let head = ParamsHead::read(Some(&params)).unwrap();
            assert!(head.meta.raw.is_none() && head.name.is_none(), "{odd}");
        }
        for (meta, malformed) in [("5", true), ("null", false), (r#""x""#, true), ("[]", true)] {
            let params = raw(&format!(r#"{{"_meta":{meta}}}"#));
            let view = ParamsHead::read(Some(&params)).unwrap().meta;
            assert_eq!((view.is_object(), view.is_malformed()), (false, malformed), "{meta}");
            assert!(view.protocol_version.is_none());
        }
    }

    #[test]
    fn strings_borrow_unless_escaped() {
        assert!(matches!(json_str(Some(&raw(r#""abc""#))), Some(Cow::Borrowed("abc"))));
        assert_eq!(json_str(Some(&raw(r#""a\u0062c""#))).as_deref(), Some("abc"));
        assert_eq!(json_str(Some(&raw("5"))), None);
        assert_eq!(json_str(None), None);
    }
}
