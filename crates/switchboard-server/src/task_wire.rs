//! The 2025-11-25 wire shapes of a task (`schema/2025-11-25/schema.ts`
//! `Task`, `CreateTaskResult`) and the `tasks` capability offered to a
//! 2025-11-25 client: pure JSON over the extension's `DetailedTask`.

use serde_json::{Map, Value, json};

/// The server's `tasks` capability offered to a 2025-11-25 client that
/// declared its own.
pub(crate) fn server_capability() -> Value {
    json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
}

/// The 2025-11-25 `Task` view of a `DetailedTask`: `ttl` and
/// `pollInterval` instead of `ttlMs` and `pollIntervalMs`, no result,
/// error or input requests (those come through `tasks/result`), and a
/// tool result with `isError: true` reported as `failed` (§Task Status:
/// "this includes cases where the tool call result has `isError` set to
/// true"), with a `statusMessage` saying why.
pub(crate) fn task_view(detailed: &Map<String, Value>) -> Map<String, Value> {
    let mut task = Map::new();
    for (from, to) in [
        ("taskId", "taskId"),
        ("status", "status"),
        ("statusMessage", "statusMessage"),
        ("createdAt", "createdAt"),
        ("lastUpdatedAt", "lastUpdatedAt"),
        ("ttlMs", "ttl"),
        ("pollIntervalMs", "pollInterval"),
    ] {
        if let Some(v) = detailed.get(from) {
            task.insert(to.into(), v.clone());
        }
    }
    let result = detailed.get("result");
    if detailed.get("status").and_then(Value::as_str) == Some("completed")
        && result.and_then(|r| r.get("isError")).and_then(Value::as_bool) == Some(true)
    {
        task.insert("status".into(), Value::String("failed".into()));
        let text = result
            .and_then(|r| r.get("content"))
            .and_then(Value::as_array)
            .and_then(|c| c.iter().find_map(|b| b.get("text").and_then(Value::as_str)))
            .unwrap_or("the tool reported an error");
        task.insert("statusMessage".into(), Value::String(format!("Tool execution failed: {text}")));
    }
    task
}

/// `CreateTaskResult`: `{"task": Task}`.
pub(crate) fn create_task_result(detailed: &Map<String, Value>) -> Map<String, Value> {
    Map::from_iter([("task".to_owned(), Value::Object(task_view(detailed)))])
}
