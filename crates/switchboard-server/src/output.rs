//! What a method handler answers: [`Output`], a result map the dispatcher
//! may still decorate or a result already serialized.

use serde_json::{Map, Value};

/// A handler's result: a map the dispatcher may still decorate, or a JSON
/// object already serialized (list pages, written from cached JSON).
pub(crate) enum Output {
    Map(Map<String, Value>),
    Raw(Vec<u8>),
    /// A 2026-07-28 `InputRequiredResult` (`inputRequests`, `requestState`;
    /// see the `input` module).
    InputRequired(Map<String, Value>),
    /// A `CreateTaskResult` of the Tasks extension (see the `tasks` module).
    Task(Map<String, Value>),
}

impl Output {
    /// True for a `tools/call` result that reports a tool error (`isError`).
    pub(crate) fn is_tool_error(&self) -> bool {
        match self {
            Output::Map(map) => map.get("isError").and_then(Value::as_bool) == Some(true),
            Output::Raw(_) | Output::InputRequired(_) | Output::Task(_) => false,
        }
    }
}

impl From<Map<String, Value>> for Output {
    fn from(map: Map<String, Value>) -> Self {
        Output::Map(map)
    }
}
