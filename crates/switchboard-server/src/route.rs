//! The methods the server routes to handlers ([`Route`]) and what a
//! request names ([`target_of`]).
//!
//! Why its own module: the dispatcher decides the route, and the task
//! methods, the middleware and the request span read it; as plain data it
//! sits below all of them.

use serde_json::value::RawValue;

/// Methods the server routes to handlers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    Ping,
    Discover,
    ToolsList,
    ToolsCall,
    ResourcesList,
    ResourceTemplatesList,
    ResourcesRead,
    ResourcesSubscribe,
    ResourcesUnsubscribe,
    PromptsList,
    PromptsGet,
    Complete,
    Listen,
    SetLevel,
    /// The Tasks extension's `tasks/get`, `tasks/update`, `tasks/cancel`;
    /// `tasks/get` and `tasks/cancel` are 2025-11-25's too.
    TasksGet,
    TasksUpdate,
    TasksCancel,
    /// 2025-11-25 `tasks/result` and `tasks/list`.
    TasksResult,
    TasksList,
    /// The application's method at this index of `ServerInner::methods`.
    Custom(usize),
}

/// What a request names: its `params.name` (a tool or prompt), its
/// `params.uri` (a resource) or its `params.taskId` (a task), when it has one.
pub(crate) fn target_of(params: Option<&RawValue>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Named {
        name: Option<String>,
        uri: Option<String>,
        #[serde(rename = "taskId")]
        task_id: Option<String>,
    }
    let named: Named = serde_json::from_str(params?.get()).ok()?;
    named.name.or(named.uri).or(named.task_id)
}
