//! `tools/list` and `tools/call`.
//!
//! Spec: `docs/specification/<rev>/server/tools.mdx` §Listing Tools, §Calling
//! Tools, §Error Handling, §Structured Content.

use mcp_types::pagination::PaginatedParams;
use mcp_types::tools::CallToolParams;
use mcp_types::{CallToolResult, ContentBlock, ErrorObject};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::context::RequestContext;
use crate::dispatch::{parse_params, to_map};
use crate::options::ArgumentErrorMode;
use crate::server::Server;
use crate::shape;
use crate::tool::ToolError;

impl Server {
    pub(crate) fn list_tools(
        &self,
        ctx: &RequestContext,
        params: Option<&RawValue>,
    ) -> Result<Map<String, Value>, ErrorObject> {
        let params: PaginatedParams = parse_params(params)?;
        let set = self.inner.tools.load();
        let (page, next) = set.page(params.cursor.as_deref(), self.inner.options.page_size)?;
        let version = ctx.protocol_version();
        let tools: Vec<Value> = page.iter().map(|e| e.rendered(version).clone()).collect();
        let mut map = Map::with_capacity(2);
        map.insert("tools".into(), Value::Array(tools));
        if let Some(next) = next {
            map.insert("nextCursor".into(), Value::String(next));
        }
        Ok(map)
    }

    pub(crate) async fn call_tool(
        &self,
        ctx: &RequestContext,
        params: Option<&RawValue>,
    ) -> Result<Map<String, Value>, ErrorObject> {
        let params: CallToolParams = parse_params(params)?;
        let entry = self.inner.tools.load().tools.get(&params.name).cloned().ok_or_else(|| {
            ErrorObject::invalid_params(format!(
                "Unknown tool: {:?}; call tools/list for the available tools",
                params.name
            ))
            .with_data(json!({"name": params.name}))
        })?;
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
            if result.content.is_empty() {
                if let Some(structured) = &result.structured_content {
                    result.content.push(ContentBlock::text(structured.to_string()));
                }
            }
        }
        finish(result)
    }
}
