//! The tool registry: validated, compiled, copy-on-write.
//!
//! Readers (every `tools/list` and `tools/call`) load an immutable snapshot
//! through `arc-swap` with no lock; writers (registration at run time) build a
//! new snapshot under a mutex and publish it, then announce the change on a
//! broadcast channel that every connection listens to. Each entry keeps its
//! compiled JSON Schema validators and a lazily built per-revision rendering
//! of its definition, so listing does no per-request schema work.

use std::sync::{Arc, Mutex, OnceLock};

use arc_swap::ArcSwap;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use indexmap::IndexMap;
use mcp_types::{ErrorObject, ProtocolVersion};
use serde_json::Value;
use tokio::sync::broadcast;

use crate::error::{Error, Result};
use crate::shape;
use crate::tool::{Tool, ToolHandler};

/// Which list changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ListChanged {
    /// `tools/list` would now answer differently.
    Tools,
}

/// A compiled JSON Schema validator.
pub(crate) struct CompiledSchema {
    validator: jsonschema::Validator,
}

impl CompiledSchema {
    /// Compiles `schema` in the dialect its `$schema` names, 2020-12 when
    /// absent (`docs/specification/2025-11-25/basic/index.mdx` §JSON Schema
    /// Usage). Unknown dialects and external `$ref`s fail here, at
    /// registration: the crate is built without remote or file retrieval.
    pub(crate) fn compile(schema: &Value) -> std::result::Result<Self, String> {
        jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map(|validator| Self { validator })
            .map_err(|e| e.to_string())
    }

    /// Validates `instance`; on failure returns up to five readable
    /// messages, each with the JSON pointer of the offending value.
    pub(crate) fn check(&self, instance: &Value) -> std::result::Result<(), Vec<String>> {
        if self.validator.is_valid(instance) {
            return Ok(());
        }
        let errors = self
            .validator
            .iter_errors(instance)
            .take(5)
            .map(|e| {
                let path = e.instance_path().to_string();
                if path.is_empty() { format!("{e}") } else { format!("at {path}: {e}") }
            })
            .collect();
        Err(errors)
    }
}

/// One registered tool.
pub(crate) struct ToolEntry {
    pub seq: u64,
    pub def: mcp_types::Tool,
    pub handler: Arc<dyn ToolHandler>,
    pub input: CompiledSchema,
    pub output: Option<CompiledSchema>,
    /// The definition rendered for each revision, built on first use.
    rendered: [OnceLock<Value>; 5],
}

impl ToolEntry {
    pub(crate) fn rendered(&self, version: ProtocolVersion) -> &Value {
        self.rendered[version as usize].get_or_init(|| shape::tool_definition(&self.def, version))
    }
}

/// An immutable view of the registered tools.
#[derive(Default)]
pub(crate) struct ToolSet {
    /// By name, in registration order (the listing order).
    pub tools: IndexMap<String, Arc<ToolEntry>>,
    /// The same entries as a slice, for paging without a copy.
    ordered: Vec<Arc<ToolEntry>>,
}

impl ToolSet {
    fn new(tools: IndexMap<String, Arc<ToolEntry>>) -> Self {
        let ordered = tools.values().cloned().collect();
        Self { tools, ordered }
    }
}

impl ToolSet {
    /// One page starting after `cursor`, plus the next cursor.
    pub(crate) fn page(
        &self,
        cursor: Option<&str>,
        page_size: usize,
    ) -> std::result::Result<(&[Arc<ToolEntry>], Option<String>), ErrorObject> {
        let start = match cursor {
            None => 0,
            Some(c) => {
                let after = decode_cursor(c)?;
                self.ordered.partition_point(|e| e.seq <= after)
            }
        };
        let all = &self.ordered[start..];
        let page = &all[..all.len().min(page_size.max(1))];
        let next = if page.len() < all.len() { page.last().map(|e| encode_cursor(e.seq)) } else { None };
        Ok((page, next))
    }
}

const CURSOR_PREFIX: &str = "tools:";

/// Cursors name the last item's registration sequence number, so paging
/// stays correct while tools are added or removed between pages.
fn encode_cursor(seq: u64) -> String {
    URL_SAFE_NO_PAD.encode(format!("{CURSOR_PREFIX}{seq}"))
}

fn decode_cursor(cursor: &str) -> std::result::Result<u64, ErrorObject> {
    let bad = || {
        ErrorObject::invalid_params(format!(
            "invalid cursor {cursor:?}: pass the nextCursor of a previous tools/list result unchanged"
        ))
    };
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| bad())?;
    let text = std::str::from_utf8(&bytes).map_err(|_| bad())?;
    text.strip_prefix(CURSOR_PREFIX).and_then(|n| n.parse().ok()).ok_or_else(bad)
}

/// Checks the 1–128 `[A-Za-z0-9_.-]` rule
/// (`docs/specification/2025-11-25/server/tools.mdx` §Tool Names).
pub(crate) fn validate_tool_name(name: &str) -> Result<()> {
    let reason = if name.is_empty() {
        "it is empty"
    } else if name.len() > 128 {
        "it is longer than 128 characters"
    } else if !name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')) {
        "only ASCII letters, digits, '_', '-' and '.' are allowed"
    } else {
        return Ok(());
    };
    Err(Error::InvalidToolName { name: name.to_owned(), reason })
}

/// The live registry.
pub(crate) struct ToolRegistry {
    snapshot: ArcSwap<ToolSet>,
    write: Mutex<u64>,
    changes: broadcast::Sender<ListChanged>,
}

impl ToolRegistry {
    pub(crate) fn new() -> Self {
        Self {
            snapshot: ArcSwap::from_pointee(ToolSet::default()),
            write: Mutex::new(0),
            changes: broadcast::channel(64).0,
        }
    }

    pub(crate) fn load(&self) -> arc_swap::Guard<Arc<ToolSet>> {
        self.snapshot.load()
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<ListChanged> {
        self.changes.subscribe()
    }

    /// Validates and compiles `tool`, then publishes it.
    pub(crate) fn add(&self, tool: Tool) -> Result<()> {
        let Tool { def, handler } = tool;
        validate_tool_name(&def.name)?;
        let handler = handler.ok_or_else(|| Error::MissingHandler(def.name.clone()))?;
        let schema_error =
            |which, reason: String| Error::InvalidSchema { tool: def.name.clone(), which, reason };
        if def.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(schema_error("input", "the root must have \"type\": \"object\"".into()));
        }
        let input = CompiledSchema::compile(&def.input_schema).map_err(|r| schema_error("input", r))?;
        let output = match &def.output_schema {
            Some(s) => Some(CompiledSchema::compile(s).map_err(|r| schema_error("output", r))?),
            None => None,
        };
        let mut seq = self.write.lock().expect("registry lock poisoned");
        let current = self.snapshot.load_full();
        if current.tools.contains_key(&def.name) {
            return Err(Error::DuplicateTool(def.name));
        }
        *seq += 1;
        let entry = ToolEntry { seq: *seq, def, handler, input, output, rendered: Default::default() };
        let mut tools = current.tools.clone();
        tools.insert(entry.def.name.clone(), Arc::new(entry));
        self.snapshot.store(Arc::new(ToolSet::new(tools)));
        drop(seq);
        let _ = self.changes.send(ListChanged::Tools);
        Ok(())
    }

    /// Removes a tool; true if it existed.
    pub(crate) fn remove(&self, name: &str) -> bool {
        let guard = self.write.lock().expect("registry lock poisoned");
        let current = self.snapshot.load_full();
        if !current.tools.contains_key(name) {
            return false;
        }
        let mut tools = current.tools.clone();
        tools.shift_remove(name);
        self.snapshot.store(Arc::new(ToolSet::new(tools)));
        drop(guard);
        let _ = self.changes.send(ListChanged::Tools);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_follow_the_spec_rule() {
        for ok in ["a", "get_weather", "v1.search-all", &"x".repeat(128)] {
            assert!(validate_tool_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "has space", "comma,", "ünïcode", &"x".repeat(129), "slash/"] {
            assert!(validate_tool_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cursors_round_trip_and_reject_forgeries() {
        assert_eq!(decode_cursor(&encode_cursor(42)).unwrap(), 42);
        for bad in ["", "!!", "dG9vbHM6", "bm9wZTox", "dG9vbHM6eA"] {
            assert!(decode_cursor(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn schemas_use_2020_12_by_default_and_honour_draft_07() {
        // `dependentRequired` exists in 2020-12 and not in draft-07, which ignores it.
        let schema2020 = serde_json::json!({
            "type": "object",
            "dependentRequired": {"a": ["b"]}
        });
        let s = CompiledSchema::compile(&schema2020).unwrap();
        assert!(s.check(&serde_json::json!({"a": 1})).is_err());
        assert!(s.check(&serde_json::json!({"a": 1, "b": 2})).is_ok());
        let mut schema07 = schema2020.clone();
        schema07["$schema"] = "http://json-schema.org/draft-07/schema#".into();
        let s = CompiledSchema::compile(&schema07).unwrap();
        assert!(s.check(&serde_json::json!({"a": 1})).is_ok());
    }

    #[test]
    fn unknown_dialects_and_remote_refs_fail_at_registration() {
        assert!(
            CompiledSchema::compile(&serde_json::json!({
                "$schema": "https://example.invalid/my-dialect", "type": "object"
            }))
            .is_err()
        );
        assert!(
            CompiledSchema::compile(&serde_json::json!({
                "type": "object", "properties": {"a": {"$ref": "https://example.invalid/a.json"}}
            }))
            .is_err()
        );
    }
}
