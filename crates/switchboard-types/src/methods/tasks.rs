//! The params of the `tasks/*` methods: the Tasks extension's
//! (`ext-tasks/specification/draft/tasks.md` §tasks/get, §tasks/update,
//! §tasks/cancel) and 2025-11-25's
//! (`docs/specification/2025-11-25/basic/utilities/tasks.mdx`), which name
//! a task the same way.
//!
//! Their results are JSON objects whose shape depends on the revision (a
//! `DetailedTask` for the extension, a 2025-11-25 `Task`), so the markers
//! keep them as [`Value`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Params of `tasks/get`, `tasks/cancel` and `tasks/result`: the task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task's id, as its `CreateTaskResult` gave it.
    pub task_id: String,
}

/// Params of `tasks/update` (the Tasks extension): answers to the task's
/// outstanding `inputRequests`, by key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    /// The task's id.
    pub task_id: String,
    /// The answers, by the keys of the task's `inputRequests`; required by
    /// the server (absent is `-32602` naming it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<Map<String, Value>>,
}
