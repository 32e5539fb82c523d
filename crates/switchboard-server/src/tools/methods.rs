//! Tools: registration checks, `tools/list` and `tools/call`.
//!
//! Spec: `docs/specification/<rev>/server/tools.mdx` §Listing Tools, §Calling
//! Tools, §Error Handling, §Structured Content.

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use switchboard_types::pagination::PaginatedParams;
use switchboard_types::{CallToolResult, ContentBlock, Era, ErrorObject, ProtocolVersion};

use crate::catalog::Item;
use crate::context::RequestContext;
use crate::error::Result;
use crate::options::{ArgumentErrorMode, ServerOptions};
use crate::output::Output;
use crate::params::to_map;
use crate::resources::listing::{list, listed};
use crate::session::Session;
use crate::session::caller::permits;
use crate::shape;
use crate::shared::Shared;
use crate::tasks::{TaskRun, TaskSupport, Tasks};
use crate::tools::area::Tools;
use crate::tools::entry::ToolEntry;
use crate::tools::handler::ToolError;

/// What `tools/call` reads of its params (the members of
/// [`switchboard_types::tools::CallToolParams`] it uses), borrowed from the
/// request. `_meta` was read once by the dispatcher into the request
/// context, and `inputResponses` / `requestState` by the input round: they
/// are skipped here, not parsed into values again.
#[derive(serde::Deserialize)]
pub(crate) struct CallParams<'a> {
    #[serde(borrow)]
    name: std::borrow::Cow<'a, str>,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    /// The 2025-11-25 task augmentation (`null` is none).
    #[serde(default, borrow)]
    task: Option<&'a RawValue>,
}

listed! {
    ToolEntry: Tools in "tools";
}

pub(crate) async fn list_tools(
    (tools, shared): (&Tools, &Shared),
    _: &Arc<Session>,
    ctx: &RequestContext,
    params: PaginatedParams,
) -> Result<Output, ErrorObject> {
    list(shared, ctx, &tools.catalog, params)
}

pub(crate) async fn call_tool(
    (tools, shared, tasks): (&Tools, &Shared, &Arc<Tasks>),
    _: &Arc<Session>,
    ctx: &RequestContext,
    params: CallParams<'_>,
) -> Result<Output, ErrorObject> {
    let item = visible_tool(tools, ctx, &params.name)?;
    let entry = &item.value;
    let version = ctx.protocol_version();
    let arguments = Value::Object(params.arguments.unwrap_or_default());
    if let Err(errors) = entry.input.check(&arguments) {
        return invalid_arguments(&shared.options, entry, errors, version);
    }
    let task_requested = params.task.is_some_and(|task| task.get() != "null");
    let plan = task_plan(tasks.offered(), entry, task_requested, ctx)?;
    if !plan.may_become_task {
        let outcome = entry.handler.call(arguments, ctx.clone()).await;
        return finish_call(entry, outcome, version).map(Output::Map);
    }
    call_as_task(tasks, shared.options.task_ttl, item, arguments, ctx, plan.tasks_2025_11_25).await
}

/// The tool `name`, if the caller may see it; otherwise `-32602`.
fn visible_tool(
    tools: &Tools,
    ctx: &RequestContext,
    name: &str,
) -> Result<Arc<Item<ToolEntry>>, ErrorObject> {
    let tools = tools.catalog.load();
    let visible = tools.get(name).filter(|item| permits(ctx.principal(), &item.value.scopes));
    visible.cloned().ok_or_else(|| {
        ErrorObject::invalid_params(format!(
            "Unknown tool: {name:?}; call tools/list for the available tools"
        ))
        .with_data(json!({"name": name}))
    })
}

/// The answer to arguments that do not match the tool's `inputSchema`:
/// a tool error or `-32602`, as [`ArgumentErrorMode`] says.
fn invalid_arguments(
    options: &ServerOptions,
    entry: &ToolEntry,
    errors: Vec<String>,
    version: ProtocolVersion,
) -> Result<Output, ErrorObject> {
    let message = format!(
        "Invalid arguments for tool {:?}: {}. Fix the arguments to match the tool's inputSchema and call it again.",
        entry.def.name,
        errors.join("; ")
    );
    match options.argument_errors {
        ArgumentErrorMode::ToolError => to_map(&shape::call_result(
            CallToolResult::error(message),
            version,
            entry.def.output_schema.as_ref().is_none_or(shape::is_object_schema),
        ))
        .map(Output::Map),
        ArgumentErrorMode::ProtocolError => {
            Err(ErrorObject::invalid_params(message).with_data(json!({"errors": errors})))
        }
    }
}

/// Whether this call may become a task, under 2025-11-25 tasks or the
/// Tasks extension; `Err` refuses a call asked the wrong way.
fn task_plan(
    tasks_offered: bool,
    entry: &ToolEntry,
    asked: bool,
    ctx: &RequestContext,
) -> Result<TaskPlan, ErrorObject> {
    let version = ctx.protocol_version();
    // 2025-11-25 tasks (`basic/utilities/tasks.mdx` §Tool-Level
    // Negotiation), for a client offered the capability: a `task` param
    // asks for one; `-32601` for a forbidden tool asked as a task (SHOULD)
    // and for a required one asked without (MUST). Without the
    // capability the `task` param is ignored (§Task Support and Handling).
    let tasks_2025_11_25 =
        tasks_offered && version.rules().adds("tasks/result") && ctx.client_capabilities().tasks.is_some();
    let may_become_task = match entry.task_support {
        support if tasks_2025_11_25 => match (support, asked) {
            (TaskSupport::Forbidden, true) => {
                return Err(ErrorObject::method_not_found("tools/call").with_data(json!({
                    "reason": format!("tool {:?} does not run as a task (execution.taskSupport is forbidden)", entry.def.name)
                })));
            }
            (TaskSupport::Required, false) => {
                return Err(ErrorObject::method_not_found("tools/call").with_data(json!({
                    "reason": format!("tool {:?} runs only as a task: add the task param", entry.def.name)
                })));
            }
            _ => asked,
        },
        TaskSupport::Forbidden => false,
        // A task-capable tool added at run time to a server built
        // without the extension: no `tasks/*` to poll with, so it runs
        // in place.
        _ if !tasks_offered => false,
        support => {
            // The Tasks extension is defined for per-request revisions.
            let per_request = version.era() == Era::PerRequest;
            let declared = per_request && crate::tasks::declared(ctx.client_capabilities());
            if support == TaskSupport::Required && !declared {
                return Err(if !per_request {
                    ErrorObject::method_not_found("tools/call").with_data(json!({
                        "reason": format!("tool {:?} runs only as a task (2026-07-28 Tasks extension)", entry.def.name)
                    }))
                } else {
                    crate::tasks::extension_required(&format!("tool {:?}", entry.def.name))
                });
            }
            declared
        }
    };
    Ok(TaskPlan { may_become_task, tasks_2025_11_25 })
}

/// A call that may become a task: answered in place if it finishes
/// before it does, otherwise with its `CreateTaskResult` while the
/// handler goes on in the background.
async fn call_as_task(
    tasks: &Arc<Tasks>,
    ttl: std::time::Duration,
    item: Arc<Item<ToolEntry>>,
    arguments: Value,
    ctx: &RequestContext,
    tasks_2025_11_25: bool,
) -> Result<Output, ErrorObject> {
    let entry = &item.value;
    let version = ctx.protocol_version();
    ctx.allow_tasks(Arc::clone(tasks));
    // A 2025-11-25 client asked for a task, so it gets one at once; a
    // handler that starts it itself asks its questions inside it.
    if !entry.task_started_by_handler || tasks_2025_11_25 {
        ctx.start_task().await?;
    }
    let mut work = entry.handler.call(arguments, ctx.clone());
    let run = tokio::select! {
        biased;
        run = ctx.task_started() => run,
        outcome = &mut work => match ctx.started_task() {
            // Finished before it became a task: an ordinary answer.
            None => return finish_call(entry, outcome, version).map(Output::Map),
            Some(run) => {
                run.finish(Some(finish_call(entry, outcome, version))).await;
                return Ok(run.created_output());
            }
        },
    };
    let created = run.created_output();
    spawn_task_work(item, work, run, version, ttl);
    Ok(created)
}

/// How a `tools/call` may run (see `task_plan`).
struct TaskPlan {
    /// The call may become a task (now, or when its handler starts one).
    may_become_task: bool,
    /// Under 2025-11-25 tasks, for a client that declared them.
    tasks_2025_11_25: bool,
}

/// Runs a tool's handler that became a task to its end in the background:
/// until it finishes, panics, is cancelled (here or on another instance)
/// or outlives the task's time to live.
fn spawn_task_work(
    item: Arc<Item<ToolEntry>>,
    work: BoxFuture<'static, std::result::Result<CallToolResult, ToolError>>,
    run: Arc<TaskRun>,
    version: ProtocolVersion,
    ttl: std::time::Duration,
) {
    tokio::spawn(async move {
        let entry = &item.value;
        let running = async {
            match std::panic::AssertUnwindSafe(work).catch_unwind().await {
                Ok(outcome) => finish_call(entry, outcome, version),
                Err(_) => {
                    tracing::error!(tool = %entry.def.name, "task handler panicked");
                    Err(ErrorObject::internal("the tool's handler panicked"))
                }
            }
        };
        let outcome = tokio::select! {
            _ = run.cancel_token().cancelled() => None,
            _ = run.watch_remote_cancel() => None,
            r = tokio::time::timeout(ttl, running) => Some(r.unwrap_or_else(|_| {
                Err(ErrorObject::internal("the task ran out of its time to live and was stopped"))
            })),
        };
        run.finish(outcome).await;
    });
}

/// A tool handler's outcome as the `tools/call` result: an execution error
/// becomes `isError: true`, a protocol error stays an error, and a result
/// must match the tool's output schema.
fn finish_call(
    entry: &ToolEntry,
    outcome: std::result::Result<CallToolResult, ToolError>,
    version: ProtocolVersion,
) -> Result<Map<String, Value>, ErrorObject> {
    let object_output = entry.def.output_schema.as_ref().is_none_or(shape::is_object_schema);
    let mut result = match outcome {
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
    result_map(shape::call_result(result, version, object_output))
}

/// A `tools/call` result as the JSON object sent, with `structuredContent`
/// moved in rather than serialized again: a result of many rows would
/// otherwise be copied value by value (measured: a twentieth of the CPU of
/// a ten-row database call). The fields are those `CallToolResult`
/// serializes, in its order (`result_map_is_the_serialized_result` holds it).
fn result_map(result: CallToolResult) -> Result<Map<String, Value>, ErrorObject> {
    let CallToolResult { content, structured_content, is_error, meta } = result;
    let value = |v: serde_json::Result<Value>| v.map_err(ErrorObject::internal);
    let mut map = Map::new();
    map.insert("content".into(), value(serde_json::to_value(content))?);
    if let Some(structured) = structured_content {
        map.insert("structuredContent".into(), structured);
    }
    if let Some(is_error) = is_error {
        map.insert("isError".into(), Value::Bool(is_error));
    }
    if let Some(meta) = meta {
        map.insert("_meta".into(), value(serde_json::to_value(meta))?);
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `result_map` writes exactly what serializing the result writes, in
    /// the same order, with every optional field present or absent.
    #[test]
    fn result_map_is_the_serialized_result() {
        let mut full = CallToolResult::text("rows");
        full.structured_content = Some(json!({"rows": [{"a": 1}], "rowCount": 1}));
        full.is_error = Some(false);
        full.meta = Some(serde_json::from_value(json!({"io.switchboard/untrusted": true})).unwrap());
        for result in [full, CallToolResult::text("plain"), CallToolResult::error("failed")] {
            let expected = serde_json::to_string(&result).unwrap();
            assert_eq!(serde_json::to_string(&result_map(result).unwrap()).unwrap(), expected);
        }
    }
}
