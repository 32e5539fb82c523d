//! Tools: registration checks, `tools/list` and `tools/call`.
//!
//! Spec: `docs/specification/<rev>/server/tools.mdx` §Listing Tools, §Calling
//! Tools, §Error Handling, §Structured Content.

use std::sync::{Arc, OnceLock};

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use switchboard_types::tools::CallToolParams;
use switchboard_types::{CallToolResult, ContentBlock, ErrorObject, ProtocolVersion};

use crate::context::{RequestContext, permits};
use crate::dispatch::{parse_params, to_map};
use crate::error::{Error, Result};
use crate::events::ListKind;
use crate::options::ArgumentErrorMode;
use crate::schema::CompiledSchema;
use crate::server::Server;
use crate::shape;
use crate::tool::{Tool, ToolError, ToolHandler};

/// One registered tool, with its compiled validators.
pub(crate) struct ToolEntry {
    pub def: switchboard_types::Tool,
    pub handler: Arc<dyn ToolHandler>,
    pub input: CompiledSchema,
    pub output: Option<CompiledSchema>,
    /// Scopes a caller must hold.
    pub scopes: Box<[String]>,
    /// The definition rendered for each revision, built on first use.
    rendered: [OnceLock<Box<str>>; 5],
}

impl ToolEntry {
    pub(crate) fn rendered(&self, version: ProtocolVersion) -> &str {
        self.rendered[version as usize]
            .get_or_init(|| shape::tool_definition(&self.def, version).to_string().into_boxed_str())
    }

    /// Checks and compiles a tool for registration.
    pub(crate) fn prepare(tool: Tool) -> Result<Self> {
        let Tool { def, handler, scopes, layers, .. } = tool;
        validate_tool_name(&def.name)?;
        let handler = handler.ok_or_else(|| Error::MissingHandler(format!("tool {:?}", def.name)))?;
        let handler = crate::middleware::wrap_tool(&def.name, handler, layers);
        let schema_error =
            |which, reason: String| Error::InvalidSchema { tool: def.name.clone(), which, reason };
        if def.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(schema_error("input", "the root must have \"type\": \"object\"".into()));
        }
        check_mcp_headers(&def.input_schema).map_err(|r| schema_error("input", r))?;
        let input = CompiledSchema::compile(&def.input_schema).map_err(|r| schema_error("input", r))?;
        let output = match &def.output_schema {
            Some(s) => Some(CompiledSchema::compile(s).map_err(|r| schema_error("output", r))?),
            None => None,
        };
        Ok(Self { def, handler, input, output, scopes: scopes.into(), rendered: Default::default() })
    }
}

/// Checks the `x-mcp-header` annotations of an input schema (2026-07-28
/// `server/tools.mdx` §x-mcp-header): each value a non-empty RFC 9110 token,
/// unique regardless of case, only on `string`, `integer` or `boolean`
/// properties, and reachable from the root through `properties` alone.
/// Clients drop tools whose annotations break these rules, so a bad one is
/// refused at registration instead of making the tool vanish.
fn check_mcp_headers(schema: &Value) -> std::result::Result<(), String> {
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
    walk(schema, "#", true, &mut Vec::new())
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

impl Server {
    pub(crate) fn list_tools(
        &self,
        ctx: &RequestContext,
        params: Option<&RawValue>,
    ) -> std::result::Result<crate::dispatch::Output, ErrorObject> {
        let version = ctx.protocol_version();
        self.list_page(
            &self.inner.tools,
            ListKind::Tools,
            "tools",
            params,
            |e| permits(ctx.principal(), &e.scopes),
            |e| e.rendered(version),
        )
    }

    pub(crate) async fn call_tool(
        &self,
        ctx: &RequestContext,
        params: Option<&RawValue>,
    ) -> Result<Map<String, Value>, ErrorObject> {
        let params: CallToolParams = parse_params(params)?;
        let tools = self.inner.tools.load();
        let visible = tools.get(&params.name).filter(|item| permits(ctx.principal(), &item.value.scopes));
        let item = visible.cloned().ok_or_else(|| {
            ErrorObject::invalid_params(format!(
                "Unknown tool: {:?}; call tools/list for the available tools",
                params.name
            ))
            .with_data(json!({"name": params.name}))
        })?;
        let entry = &item.value;
        let version = ctx.protocol_version();
        let object_output = entry.def.output_schema.as_ref().is_none_or(shape::is_object_schema);
        let finish = |result: CallToolResult| to_map(&shape::call_result(result, version, object_output));

        let arguments = Value::Object(params.arguments.unwrap_or_default());
        if let Err(errors) = entry.input.check(&arguments) {
            let message = format!(
                "Invalid arguments for tool {:?}: {}. Fix the arguments to match the tool's inputSchema and call it again.",
                entry.def.name,
                errors.join("; ")
            );
            return match self.inner.options.argument_errors {
                ArgumentErrorMode::ToolError => finish(CallToolResult::error(message)),
                ArgumentErrorMode::ProtocolError => {
                    Err(ErrorObject::invalid_params(message).with_data(json!({"errors": errors})))
                }
            };
        }

        let mut result = match entry.handler.call(arguments, ctx.clone()).await {
            Ok(result) => result,
            Err(ToolError::Execution(message)) => CallToolResult::error(message),
            Err(ToolError::Protocol(error)) => return Err(error),
        };
        if !result.is_error() {
            if let Some(output) = &entry.output {
                // A non-error result MUST conform to outputSchema; one that
                // does not is the server's bug, so it never leaves the server.
                let Some(structured) = &result.structured_content else {
                    tracing::error!(tool = %entry.def.name, "tool declares outputSchema but returned no structuredContent");
                    return Err(ErrorObject::internal(format!(
                        "tool {:?} declares an outputSchema but returned no structuredContent",
                        entry.def.name
                    )));
                };
                if let Err(errors) = output.check(structured) {
                    tracing::error!(tool = %entry.def.name, ?errors, "structuredContent does not match outputSchema");
                    return Err(ErrorObject::internal(format!(
                        "tool {:?} produced structuredContent that does not match its outputSchema: {}",
                        entry.def.name,
                        errors.join("; ")
                    )));
                }
            }
            if result.content.is_empty()
                && let Some(structured) = &result.structured_content
            {
                result.content.push(ContentBlock::text(structured.to_string()));
            }
        }
        finish(result)
    }
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
        assert!(check_mcp_headers(&ok).is_ok());
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
