//! One registered tool ([`ToolEntry`]): its definition checked and its
//! schemas compiled at registration (those switchboard derived itself on
//! first use: see `schema`) (names, `x-mcp-header` annotations,
//! the 2025-11-25 `execution.taskSupport`), its handler wrapped in its
//! layers.

use std::sync::Arc;

use serde_json::{Value, json};
use switchboard_types::ProtocolVersion;
use switchboard_types::apps::{self, ToolUi};

use crate::error::{Error, Result};
use crate::shape;
use crate::tasks::TaskSupport;
use crate::tools::Tool;
use crate::tools::handler::ToolHandler;
use crate::tools::schema::CompiledSchema;

/// One registered tool, with its compiled validators.
pub(crate) struct ToolEntry {
    pub def: switchboard_types::Tool,
    pub handler: Arc<dyn ToolHandler>,
    pub input: CompiledSchema,
    pub output: Option<CompiledSchema>,
    /// Scopes a caller must hold.
    pub scopes: Box<[String]>,
    /// Whether calls may run as tasks, and who starts them.
    pub task_support: crate::tasks::TaskSupport,
    pub task_started_by_handler: bool,
    /// Some input property is mirrored into an `Mcp-Param-*` header
    /// (`x-mcp-header`), so HTTP must check those headers.
    pub mirrors_headers: bool,
    /// The definition rendered for each revision, built on first use.
    rendered: shape::Rendered,
}

impl ToolEntry {
    pub(crate) fn rendered(&self, version: ProtocolVersion) -> &str {
        self.rendered.get_or_init(version, || shape::tool_definition(&self.def, version))
    }

    /// Checks and compiles a tool for registration.
    pub(crate) fn prepare(mut tool: Tool) -> Result<Self> {
        tool.write_ui();
        if !tool.as_given {
            check_tool(&tool)?;
        }
        let Tool {
            mut def,
            handler,
            scopes,
            layers,
            task_support,
            task_started_by_handler,
            explicit_input,
            explicit_output,
            ui: _,
            as_given: _,
        } = tool;
        // 2025-11-25 `execution.taskSupport` (the shape drops `execution`
        // for every other revision; absent means forbidden).
        let support = match task_support {
            TaskSupport::Forbidden => None,
            TaskSupport::Optional => Some("optional"),
            TaskSupport::Required => Some("required"),
        };
        if let (Some(support), None) = (support, &def.execution) {
            def.execution = Some(json!({"taskSupport": support}));
        }
        validate_tool_name(&def.name)?;
        let handler = handler.ok_or_else(|| Error::MissingHandler(format!("tool {:?}", def.name)))?;
        let handler = crate::tools::layer::wrap_tool(&def.name, handler, layers);
        let schema_error =
            |which, reason: String| Error::InvalidSchema { tool: def.name.clone(), which, reason };
        if def.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(schema_error("input", "the root must have \"type\": \"object\"".into()));
        }
        let mirrored = check_mcp_headers(&def.input_schema).map_err(|r| schema_error("input", r))?;
        // A schema set by hand is compiled now, so a broken one is refused
        // here; one switchboard derived is compiled on first use (see `schema`).
        let input = if explicit_input {
            CompiledSchema::compile(&def.input_schema).map_err(|r| schema_error("input", r))?
        } else {
            CompiledSchema::deferred(def.input_schema.clone())
        };
        let output = match &def.output_schema {
            Some(s) if explicit_output => {
                Some(CompiledSchema::compile(s).map_err(|r| schema_error("output", r))?)
            }
            Some(s) => Some(CompiledSchema::deferred(s.clone())),
            None => None,
        };
        Ok(Self {
            def,
            handler,
            input,
            output,
            scopes: scopes.into(),
            task_support,
            task_started_by_handler,
            mirrors_headers: mirrored > 0,
            rendered: Default::default(),
        })
    }
}

/// Checks the `x-mcp-header` annotations of an input schema (2026-07-28
/// `server/tools.mdx` §x-mcp-header): each value a non-empty RFC 9110 token,
/// unique regardless of case, only on `string`, `integer` or `boolean`
/// properties, and reachable from the root through `properties` alone.
/// Clients drop tools whose annotations break these rules, so a bad one is
/// refused at registration instead of making the tool vanish. Returns how
/// many properties are mirrored.
fn check_mcp_headers(schema: &Value) -> std::result::Result<usize, String> {
    fn is_tchar(b: u8) -> bool {
        b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
    }
    fn walk(
        schema: &Value,
        path: &str,
        via_properties_only: bool,
        seen: &mut Vec<String>,
    ) -> std::result::Result<(), String> {
        let Some(object) = schema.as_object() else { return Ok(()) };
        if let Some(header) = object.get("x-mcp-header") {
            let name = header.as_str().unwrap_or_default();
            if name.is_empty() || !name.bytes().all(is_tchar) {
                return Err(format!("x-mcp-header at {path} must be a non-empty HTTP token, got {header}"));
            }
            if !via_properties_only {
                return Err(format!("x-mcp-header at {path} must be reachable through \"properties\" only"));
            }
            let ty = object.get("type").and_then(Value::as_str);
            if !matches!(ty, Some("string" | "integer" | "boolean")) {
                return Err(format!(
                    "x-mcp-header at {path} is allowed on string, integer or boolean properties only"
                ));
            }
            let lower = name.to_ascii_lowercase();
            if seen.contains(&lower) {
                return Err(format!("x-mcp-header {name:?} is used twice (names are case-insensitive)"));
            }
            seen.push(lower);
        }
        for (key, child) in object {
            match (key.as_str(), child) {
                ("properties", Value::Object(props)) => {
                    for (name, prop) in props {
                        walk(prop, &format!("{path}/properties/{name}"), via_properties_only, seen)?;
                    }
                }
                (_, Value::Object(_)) => walk(child, &format!("{path}/{key}"), false, seen)?,
                (_, Value::Array(items)) => {
                    for (i, item) in items.iter().enumerate() {
                        walk(item, &format!("{path}/{key}/{i}"), false, seen)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
    let mut seen = Vec::new();
    walk(schema, "#", true, &mut seen)?;
    Ok(seen.len())
}

/// Checks the 1–128 `[A-Za-z0-9_.-]` rule
/// (`docs/specification/2025-11-25/server/tools.mdx` §Tool Names). Public
/// so configuration checkers can place a bad name before registration.
pub fn validate_tool_name(name: &str) -> Result<()> {
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

/// Checks a tool's view linkage at registration: `visibility` comes with
/// a view and names someone, and `_meta.ui.resourceUri` (or the flat key)
/// names a `ui://` URI.
pub(crate) fn check_tool(tool: &Tool) -> Result<()> {
    let invalid = |reason: String| Error::InvalidToolUi { tool: tool.def.name.clone(), reason };
    if tool.ui.as_ref().is_some_and(|ui| ui.resource_uri.is_empty()) {
        return Err(invalid("`visibility` was set without a view: call `.ui(\"ui://…\")` too".into()));
    }
    let Some(ui) = tool.def.meta.as_ref().and_then(ToolUi::from_meta) else { return Ok(()) };
    if !apps::is_ui_uri(&ui.resource_uri) {
        return Err(invalid(format!("its view {:?} is not a `ui://` URI", ui.resource_uri)));
    }
    if ui.visibility.as_ref().is_some_and(Vec::is_empty) {
        return Err(invalid(
            "an empty `visibility` lets nobody call it: name \"model\", \"app\" or both".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x_mcp_header_annotations_are_checked() {
        let ok = serde_json::json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "Count"}
        }});
        assert_eq!(check_mcp_headers(&ok), Ok(2));
        assert_eq!(check_mcp_headers(&serde_json::json!({"type": "object"})), Ok(0));
        for bad in [
            serde_json::json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            serde_json::json!({"properties": {"a": {"type": "string", "x-mcp-header": "has space"}}}),
            serde_json::json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            serde_json::json!({"properties": {"a": {"type": "string", "x-mcp-header": "A"}, "b": {"type": "string", "x-mcp-header": "a"}}}),
            serde_json::json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
            serde_json::json!({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
        ] {
            assert!(check_mcp_headers(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tool_names_follow_the_spec_rule() {
        for ok in ["a", "get_weather", "v1.search-all", &"x".repeat(128)] {
            assert!(validate_tool_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "has space", "comma,", "ünïcode", &"x".repeat(129), "slash/"] {
            assert!(validate_tool_name(bad).is_err(), "{bad}");
        }
    }
}
