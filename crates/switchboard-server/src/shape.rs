//! Per-revision shaping of outgoing data.
//!
//! The server keeps one internal model (the newest) and renders it for the
//! revision each client speaks, so an older, strict client never sees a field
//! or content type its schema lacks (spec.md §b.4):
//!
//! | dropped or rewritten                         | for revisions before |
//! |----------------------------------------------|----------------------|
//! | tool `annotations`                           | 2025-03-26           |
//! | `audio` content → text note                  | 2025-03-26           |
//! | progress `message`                           | 2025-03-26           |
//! | `title`, `outputSchema`, `_meta`, `structuredContent` | 2025-06-18  |
//! | `resource_link` content → text with the link | 2025-06-18           |
//! | `Annotations.lastModified`                   | 2025-06-18           |
//! | `icons`, `Implementation.description/websiteUrl` | 2025-11-25       |
//! | tool `execution`                             | 2025-11-25 (and dropped again in 2026-07-28) |
//! | `completions` capability                     | 2025-03-26           |
//!
//! The server's capabilities carry `extensions` (SEP-2133) at every
//! revision: see [`CapabilityFields`] for why.
//!
//! For 2025-06-18 and 2025-11-25 an `outputSchema` whose root is not
//! `type: "object"` (allowed only from 2026-07-28) is omitted together with
//! `structuredContent`; the JSON text copy stays, so nothing is lost.

use serde::Serialize;
use serde_json::Value;
use switchboard_types::content::Annotations;
use switchboard_types::notifications::ProgressParams;
use switchboard_types::{
    CallToolResult, ContentBlock, Implementation, ProtocolVersion, ResourceContents, Tool,
};

use ProtocolVersion as V;

/// True if `schema` has an object root (the only kind 2025-06-18 and
/// 2025-11-25 allow as `outputSchema`).
pub(crate) fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// A tool definition as `version` expects it, as JSON.
pub(crate) fn tool_definition(tool: &Tool, version: ProtocolVersion) -> Value {
    let mut t = tool.clone();
    if version < V::V2025_03_26 {
        t.annotations = None;
    }
    if version < V::V2025_06_18 {
        t.title = None;
        t.output_schema = None;
        t.meta = None;
    } else if version < V::V2026_07_28 && t.output_schema.as_ref().is_some_and(|s| !is_object_schema(s)) {
        t.output_schema = None;
    }
    if version < V::V2025_11_25 {
        t.icons = None;
    }
    if version != V::V2025_11_25 {
        t.execution = None;
    }
    serde_json::to_value(&t).expect("a Tool serializes; qed")
}

/// Which metadata fields of a definition (resource, template, prompt) a
/// revision has: the one statement of these rules, for the `Value` path
/// ([`strip_metadata`]) and the hand-written pages (`page_json`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct MetadataFields {
    /// `title`, `_meta` and `annotations.lastModified` (2025-06-18 on).
    pub titles: bool,
    /// `icons` (2025-11-25 on).
    pub icons: bool,
}

impl MetadataFields {
    pub(crate) fn of(version: ProtocolVersion) -> Self {
        Self { titles: version >= V::V2025_06_18, icons: version >= V::V2025_11_25 }
    }
}

/// Which optional members of the server's capabilities object a revision
/// has: the one statement of these rules (`ServerInner::capabilities`
/// reads it). An exhaustive `match`, so a new revision cannot be added
/// without deciding its row.
///
/// * `completions`: added in 2025-03-26 (`schema/2025-03-26/schema.ts`
///   `ServerCapabilities`); 2024-11-05 has no such flag.
/// * `extensions`: every revision. It is a named member only from
///   2026-07-28 (`schema/2026-07-28/schema.ts` `ServerCapabilities`;
///   `docs/specification/2026-07-28/basic/versioning.mdx` §Extension
///   Negotiation, where it goes out in `server/discover`), but SEP-2133
///   (`seps/2133-extensions.md` §Negotiation) negotiates extensions in
///   `initialize` (its example speaks 2025-06-18; MCP Apps,
///   `ext-apps/specification/2026-01-26/apps.mdx` §Capability Negotiation,
///   speaks 2024-11-05), and every legacy schema declares the capabilities
///   object "not a closed set: any server can define its own, additional
///   capabilities", so no legacy client's schema is broken by it. An
///   extension that exists only from some revision on is offered with
///   [`ServerBuilder::extension_since`](crate::ServerBuilder::extension_since).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CapabilityFields {
    /// The `completions` capability.
    pub completions: bool,
    /// The `extensions` map.
    pub extensions: bool,
}

impl CapabilityFields {
    pub(crate) const fn of(version: ProtocolVersion) -> Self {
        match version {
            V::V2024_11_05 => Self { completions: false, extensions: true },
            V::V2025_03_26 | V::V2025_06_18 | V::V2025_11_25 | V::V2026_07_28 => {
                Self { completions: true, extensions: true }
            }
        }
    }
}

/// Strips, from a serialized definition object, the metadata fields
/// `version` lacks ([`MetadataFields`]).
fn strip_metadata(map: &mut serde_json::Map<String, Value>, version: ProtocolVersion) {
    let fields = MetadataFields::of(version);
    if !fields.titles {
        map.remove("title");
        map.remove("_meta");
        if let Some(Value::Object(a)) = map.get_mut("annotations") {
            a.remove("lastModified");
        }
    }
    if !fields.icons {
        map.remove("icons");
    }
}

/// A resource as `version` expects it, shaped on the struct: the
/// reference that `page_json::write_resource` (which pages of a
/// `ResourceSource` go through) is tested against.
#[cfg(test)]
pub(crate) fn resource(
    mut r: switchboard_types::resources::Resource,
    version: ProtocolVersion,
) -> switchboard_types::resources::Resource {
    let fields = MetadataFields::of(version);
    if !fields.titles {
        r.title = None;
        r.meta = None;
        if let Some(a) = &mut r.annotations {
            a.last_modified = None;
        }
    }
    if !fields.icons {
        r.icons = None;
    }
    r
}

/// A resource or resource template definition as `version` expects it.
pub(crate) fn metadata<T: Serialize>(def: &T, version: ProtocolVersion) -> Value {
    let mut value = serde_json::to_value(def).expect("definitions serialize; qed");
    if let Value::Object(map) = &mut value {
        strip_metadata(map, version);
    }
    value
}

/// A prompt definition as `version` expects it (argument titles included).
pub(crate) fn prompt(def: &switchboard_types::Prompt, version: ProtocolVersion) -> Value {
    let mut value = metadata(def, version);
    if version < V::V2025_06_18
        && let Some(Value::Array(args)) = value.get_mut("arguments")
    {
        for arg in args.iter_mut().filter_map(Value::as_object_mut) {
            arg.remove("title");
        }
    }
    value
}

/// Resource contents as `version` expects them.
pub(crate) fn resource_contents(mut c: ResourceContents, version: ProtocolVersion) -> ResourceContents {
    if version < V::V2025_06_18 {
        match &mut c {
            ResourceContents::Text(t) => t.meta = None,
            ResourceContents::Blob(b) => b.meta = None,
        }
    }
    c
}

/// Server identity as `version` expects it.
pub(crate) fn implementation(info: &Implementation, version: ProtocolVersion) -> Implementation {
    let mut i = info.clone();
    if version < V::V2025_06_18 {
        i.title = None;
    }
    if version < V::V2025_11_25 {
        i.description = None;
        i.icons = None;
        i.website_url = None;
    }
    i
}

fn annotations(a: &mut Option<Annotations>, version: ProtocolVersion) {
    if version < V::V2025_06_18
        && let Some(a) = a
    {
        a.last_modified = None;
    }
}

/// Content blocks as `version` expects them.
pub(crate) fn content(blocks: Vec<ContentBlock>, version: ProtocolVersion) -> Vec<ContentBlock> {
    if version >= V::V2025_11_25 {
        return blocks;
    }
    blocks
        .into_iter()
        .map(|block| {
            let mut block = match block {
                ContentBlock::Audio(a) if version < V::V2025_03_26 => ContentBlock::text(format!(
                    "[audio content ({}, {} bytes of base64) omitted: protocol revision {version} has no audio content]",
                    a.mime_type,
                    a.data.len()
                )),
                ContentBlock::ResourceLink(l) if version < V::V2025_06_18 => {
                    let mut text = format!("Resource: {} <{}>", l.title.as_deref().unwrap_or(&l.name), l.uri);
                    if let Some(d) = &l.description {
                        text.push_str(" - ");
                        text.push_str(d);
                    }
                    ContentBlock::text(text)
                }
                ContentBlock::ResourceLink(mut l) => {
                    l.icons = None;
                    ContentBlock::ResourceLink(l)
                }
                other => other,
            };
            annotations(block.annotations_mut(), version);
            if version < V::V2025_06_18 {
                match &mut block {
                    ContentBlock::Text(c) => c.meta = None,
                    ContentBlock::Image(c) => c.meta = None,
                    ContentBlock::Audio(c) => c.meta = None,
                    ContentBlock::ResourceLink(c) => c.meta = None,
                    ContentBlock::Resource(c) => c.meta = None,
                }
            }
            block
        })
        .collect()
}

/// A `tools/call` result as `version` expects it. `object_output` says the
/// tool's output schema has an object root.
pub(crate) fn call_result(
    mut result: CallToolResult,
    version: ProtocolVersion,
    object_output: bool,
) -> CallToolResult {
    result.content = content(std::mem::take(&mut result.content), version);
    if version < V::V2025_06_18 {
        result.structured_content = None;
        result.meta = None;
    } else if version < V::V2026_07_28
        && (!object_output || !result.structured_content.as_ref().is_none_or(Value::is_object))
    {
        result.structured_content = None;
    }
    result
}

/// Progress params as `version` expects them.
pub(crate) fn progress(mut p: ProgressParams, version: ProtocolVersion) -> ProgressParams {
    if version < V::V2025_03_26 {
        p.message = None;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_shaped_on_the_struct_equals_one_shaped_as_a_value() {
        let full: switchboard_types::resources::Resource = serde_json::from_value(serde_json::json!({
            "uri": "test://r", "name": "r", "title": "R", "description": "d", "mimeType": "text/plain",
            "size": 3, "icons": [{"src": "https://example.com/i.png"}],
            "annotations": {"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"},
            "_meta": {"k": "v"}
        }))
        .unwrap();
        for version in ProtocolVersion::ALL {
            let fast = serde_json::to_value(resource(full.clone(), version)).unwrap();
            assert_eq!(fast, metadata(&full, version), "{version}");
        }
    }
    use serde_json::json;

    fn tool() -> Tool {
        serde_json::from_value(json!({
            "name": "t", "title": "T", "description": "d",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "array"},
            "annotations": {"readOnlyHint": true},
            "icons": [{"src": "data:image/png;base64,AA=="}],
            "execution": {"taskSupport": "optional"},
            "_meta": {"x": 1}
        }))
        .unwrap()
    }

    #[test]
    fn tool_definitions_lose_fields_older_revisions_lack() {
        let old = tool_definition(&tool(), V::V2024_11_05);
        assert_eq!(old, json!({"name": "t", "description": "d", "inputSchema": {"type": "object"}}));
        let v0326 = tool_definition(&tool(), V::V2025_03_26);
        assert!(v0326.get("annotations").is_some() && v0326.get("title").is_none());
        let v0618 = tool_definition(&tool(), V::V2025_06_18);
        assert!(v0618.get("title").is_some() && v0618.get("outputSchema").is_none());
        assert!(v0618.get("icons").is_none());
        let v1125 = tool_definition(&tool(), V::V2025_11_25);
        assert!(v1125.get("icons").is_some() && v1125.get("execution").is_some());
        let v2607 = tool_definition(&tool(), V::V2026_07_28);
        assert_eq!(v2607["outputSchema"], json!({"type": "array"}));
        assert!(v2607.get("execution").is_none());
    }

    #[test]
    fn capability_members_per_revision() {
        let rows: Vec<_> = ProtocolVersion::ALL.iter().rev().map(|&v| (v, CapabilityFields::of(v))).collect();
        let expect = |completions| CapabilityFields { completions, extensions: true };
        assert_eq!(
            rows,
            [
                (V::V2024_11_05, expect(false)),
                (V::V2025_03_26, expect(true)),
                (V::V2025_06_18, expect(true)),
                (V::V2025_11_25, expect(true)),
                (V::V2026_07_28, expect(true)),
            ]
        );
    }

    #[test]
    fn content_is_rewritten_not_lost() {
        let blocks = vec![
            ContentBlock::audio("AAAA", "audio/wav"),
            ContentBlock::resource_link("file:///a.txt", "a.txt"),
        ];
        let old = content(blocks.clone(), V::V2024_11_05);
        assert!(matches!(&old[0], ContentBlock::Text(t) if t.text.contains("audio/wav")));
        assert!(matches!(&old[1], ContentBlock::Text(t) if t.text.contains("file:///a.txt")));
        let v0326 = content(blocks.clone(), V::V2025_03_26);
        assert!(matches!(v0326[0], ContentBlock::Audio(_)));
        assert!(matches!(v0326[1], ContentBlock::Text(_)));
        assert_eq!(content(blocks.clone(), V::V2025_06_18), blocks);
    }

    #[test]
    fn structured_content_needs_an_object_before_2026() {
        let r = CallToolResult::structured(json!([1, 2]));
        assert!(call_result(r.clone(), V::V2025_11_25, false).structured_content.is_none());
        assert!(call_result(r.clone(), V::V2026_07_28, false).structured_content.is_some());
        let o = CallToolResult::structured(json!({"a": 1}));
        assert!(call_result(o.clone(), V::V2025_06_18, true).structured_content.is_some());
        assert!(call_result(o, V::V2025_03_26, true).structured_content.is_none());
    }
}
