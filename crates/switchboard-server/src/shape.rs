//! Per-revision shaping of outgoing data.
//!
//! The server keeps one internal model (the newest) and renders it for the
//! revision each client speaks, so an older, strict client never sees a field
//! or content type its schema lacks (`schema/<revision>/schema.ts` of the
//! specification). Which fields and content types a revision has is its
//! row of the revision table ([`switchboard_types::revision`]); this module
//! only reads the row:
//!
//! | dropped or rewritten                         | when the row's field is false |
//! |----------------------------------------------|-------------------------------|
//! | tool `annotations`                           | `fields.tool_annotations`     |
//! | `audio` content → text note                  | `content.audio`               |
//! | progress `message`                           | `fields.progress_message`     |
//! | `title` (definitions, prompt arguments, `Implementation`) | `fields.title`   |
//! | `_meta` (definitions, content, contents, `CallToolResult`) | `fields.meta`   |
//! | `outputSchema`, `structuredContent`          | `fields.structured_output`    |
//! | `resource_link` content → text with the link | `content.resource_link`       |
//! | `Annotations.lastModified`                   | `fields.last_modified`        |
//! | `icons`                                      | `fields.icons`                |
//! | `Implementation.description/websiteUrl`      | `fields.implementation_details` |
//! | tool `execution`                             | `fields.tool_execution`       |
//! | `completions` capability                     | `capabilities.completions`    |
//!
//! Where the row allows object roots only (`OutputRoots::Object`: 2025-06-18
//! and 2025-11-25), an `outputSchema` whose root is not `type: "object"` is
//! omitted together with `structuredContent`; the JSON text copy stays, so
//! nothing is lost.

use std::sync::OnceLock;

use serde::Serialize;
use serde_json::Value;
use switchboard_types::content::Annotations;
use switchboard_types::notifications::ProgressParams;
use switchboard_types::revision::OutputRoots;
use switchboard_types::{
    CallToolResult, ContentBlock, Implementation, ProtocolVersion, ResourceContents, Tool,
};

/// A definition rendered as JSON text for each revision, each built on
/// first use: one slot per row of the revision table.
pub(crate) struct Rendered([OnceLock<Box<str>>; ProtocolVersion::COUNT]);

impl Default for Rendered {
    fn default() -> Self {
        Self(std::array::from_fn(|_| OnceLock::new()))
    }
}

impl Rendered {
    /// The rendering for `version`, made by `render` the first time.
    pub(crate) fn get_or_init(&self, version: ProtocolVersion, render: impl FnOnce() -> Value) -> &str {
        self.0[version.index()].get_or_init(|| render().to_string().into_boxed_str())
    }
}

/// True if `schema` has an object root (the only kind
/// [`OutputRoots::Object`] allows as `outputSchema`).
pub(crate) fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// A tool definition as `version` expects it, as JSON.
pub(crate) fn tool_definition(tool: &Tool, version: ProtocolVersion) -> Value {
    let fields = version.rules().fields;
    let mut t = tool.clone();
    if !fields.tool_annotations {
        t.annotations = None;
    }
    if !fields.title {
        t.title = None;
    }
    if !fields.meta {
        t.meta = None;
    }
    let schema_fits = match fields.structured_output {
        None => false,
        Some(OutputRoots::Object) => t.output_schema.as_ref().is_none_or(is_object_schema),
        Some(OutputRoots::Any) => true,
    };
    if !schema_fits {
        t.output_schema = None;
    }
    if !fields.icons {
        t.icons = None;
    }
    if !fields.tool_execution {
        t.execution = None;
    }
    serde_json::to_value(&t).expect("a Tool serializes; qed")
}

/// Strips, from a serialized definition object (resource, template,
/// prompt), the metadata fields `version` lacks: the one statement of these
/// rules for the `Value` path, which the hand-written pages (`resources::list_page`)
/// are tested against.
fn strip_metadata(map: &mut serde_json::Map<String, Value>, version: ProtocolVersion) {
    let fields = version.rules().fields;
    if !fields.title {
        map.remove("title");
    }
    if !fields.meta {
        map.remove("_meta");
    }
    if !fields.last_modified
        && let Some(Value::Object(a)) = map.get_mut("annotations")
    {
        a.remove("lastModified");
    }
    if !fields.icons {
        map.remove("icons");
    }
}

/// A resource as `version` expects it, shaped on the struct: the
/// reference that `list_page::write_resource` (which pages of a
/// `ResourceSource` go through) is tested against.
#[cfg(test)]
pub(crate) fn resource(
    mut r: switchboard_types::resources::Resource,
    version: ProtocolVersion,
) -> switchboard_types::resources::Resource {
    let fields = version.rules().fields;
    if !fields.title {
        r.title = None;
    }
    if !fields.meta {
        r.meta = None;
    }
    if !fields.last_modified
        && let Some(a) = &mut r.annotations
    {
        a.last_modified = None;
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
    if !version.rules().fields.title
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
    if !version.rules().fields.meta {
        match &mut c {
            ResourceContents::Text(t) => t.meta = None,
            ResourceContents::Blob(b) => b.meta = None,
        }
    }
    c
}

/// Server identity as `version` expects it.
pub(crate) fn implementation(info: &Implementation, version: ProtocolVersion) -> Implementation {
    let fields = version.rules().fields;
    let mut i = info.clone();
    if !fields.title {
        i.title = None;
    }
    if !fields.implementation_details {
        i.description = None;
        i.website_url = None;
    }
    if !fields.icons {
        i.icons = None;
    }
    i
}

fn annotations(a: &mut Option<Annotations>, version: ProtocolVersion) {
    if !version.rules().fields.last_modified
        && let Some(a) = a
    {
        a.last_modified = None;
    }
}

/// Content blocks as `version` expects them.
pub(crate) fn content(blocks: Vec<ContentBlock>, version: ProtocolVersion) -> Vec<ContentBlock> {
    let rules = version.rules();
    let (types, fields) = (rules.content, rules.fields);
    // The fields below are all a block can lose.
    if types.audio && types.resource_link && fields.icons && fields.last_modified && fields.meta {
        return blocks;
    }
    blocks
        .into_iter()
        .map(|block| {
            let mut block = match block {
                ContentBlock::Audio(a) if !types.audio => ContentBlock::text(format!(
                    "[audio content ({}, {} bytes of base64) omitted: protocol revision {version} has no audio content]",
                    a.mime_type,
                    a.data.len()
                )),
                ContentBlock::ResourceLink(l) if !types.resource_link => {
                    let mut text = format!("Resource: {} <{}>", l.title.as_deref().unwrap_or(&l.name), l.uri);
                    if let Some(d) = &l.description {
                        text.push_str(" - ");
                        text.push_str(d);
                    }
                    ContentBlock::text(text)
                }
                ContentBlock::ResourceLink(mut l) if !fields.icons => {
                    l.icons = None;
                    ContentBlock::ResourceLink(l)
                }
                other => other,
            };
            annotations(block.annotations_mut(), version);
            if !fields.meta {
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
    let fields = version.rules().fields;
    result.content = content(std::mem::take(&mut result.content), version);
    if !fields.meta {
        result.meta = None;
    }
    let fits = match fields.structured_output {
        None => false,
        Some(OutputRoots::Object) => {
            object_output && result.structured_content.as_ref().is_none_or(Value::is_object)
        }
        Some(OutputRoots::Any) => true,
    };
    if !fits {
        result.structured_content = None;
    }
    result
}

/// Progress params as `version` expects them.
pub(crate) fn progress(mut p: ProgressParams, version: ProtocolVersion) -> ProgressParams {
    if !version.rules().fields.progress_message {
        p.message = None;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_types::ProtocolVersion as V;
    use switchboard_types::revision::CapabilityMembers;

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
        let rows: Vec<_> = ProtocolVersion::ALL.iter().rev().map(|&v| (v, v.rules().capabilities)).collect();
        let expect = |completions| CapabilityMembers { completions, extensions: true };
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
