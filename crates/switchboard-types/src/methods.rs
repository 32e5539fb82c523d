//! The request methods of the protocol as data: one [`MethodFacts`] row per
//! method a client may call, and a marker type per method that ties its
//! name to its params and result types ([`Request`]).
//!
//! Why: what a method is (which param names its target, whether it may
//! send messages before its response, whether its result may ask the
//! client for input, whether it keeps a stream open) used to be string
//! lists in the dispatcher, the HTTP transport, the metrics and the input
//! rules. Each of them now asks [`facts`], so a method added to [`BUILT_IN`]
//! is known to all of them, and the set of names an application may not
//! take ([`is_built_in`]) is the same set the server answers.
//!
//! Which revision serves which method is the revision table's job
//! ([`crate::revision`]); these facts hold for every revision that has the
//! method.
//!
//! Spec: `schema/2026-07-28/schema.ts` (`ClientRequest`), the method pages
//! under `docs/specification/2026-07-28/server/`, `basic/patterns/mrtr.mdx`
//! (which methods may answer `InputRequiredResult`), and
//! `basic/transports/streamable-http.mdx` (`Mcp-Name`).

pub mod tasks;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::GetPromptResult;
use crate::completion::{CompleteParams, CompleteResult};
use crate::lifecycle::{DiscoverResult, InitializeParams, InitializeResult};
use crate::logging::SetLevelParams;
use crate::notifications::EmptyParams;
use crate::pagination::PaginatedParams;
use crate::prompts::GetPromptParams;
use crate::prompts::ListPromptsResult;
use crate::resources::{ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, UriParams};
use crate::subscriptions::ListenParams;
use crate::tools::{CallToolParams, CallToolResult, ListToolsResult};
use tasks::{TaskIdParams, UpdateTaskParams};

/// The param that names what a request is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `name`: a tool or a prompt, from a bounded set the server defines
    /// (so it may label metrics).
    Name,
    /// `uri`: a resource, from an unbounded set (never a metric label).
    Uri,
    /// `taskId`: a task of the Tasks extension (its `Mcp-Name` routing
    /// header, SEP-2663 §Routing Headers; never a metric label).
    TaskId,
}

impl Target {
    /// The param's name.
    pub const fn param(self) -> &'static str {
        match self {
            Target::Name => "name",
            Target::Uri => "uri",
            Target::TaskId => "taskId",
        }
    }
}

/// What transports and layers need to know about one request method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MethodFacts {
    /// The JSON-RPC method.
    pub name: &'static str,
    /// The param naming the request's target: mirrored in the HTTP
    /// `Mcp-Name` header (2026-07-28), the key of per-item scopes, and for
    /// [`Target::Name`] a metrics label.
    pub target: Option<Target>,
    /// May send messages before its response (progress, logs, live
    /// questions) even without a progress token: HTTP answers it as SSE.
    pub streams: bool,
    /// Its result may be an `InputRequiredResult` (mrtr.mdx §Supported
    /// Requests): only these requests may ask the client for input.
    pub asks_input: bool,
    /// Keeps a stream of notifications open (`subscriptions/listen`).
    pub listens: bool,
}

impl MethodFacts {
    /// A method without a target that neither streams, asks for input nor
    /// listens.
    pub const fn plain(name: &'static str) -> Self {
        Self { name, target: None, streams: false, asks_input: false, listens: false }
    }

    /// A method whose `target` param names what a request is about.
    pub const fn about(name: &'static str, target: Target) -> Self {
        Self { target: Some(target), ..Self::plain(name) }
    }

    /// The same facts, for a method whose result may ask the client for
    /// input.
    pub const fn asking_input(self) -> Self {
        Self { asks_input: true, ..self }
    }
}

/// A request method as a type: its facts, params and result.
pub trait Request {
    /// The method's facts (its name among them).
    const FACTS: MethodFacts;
    /// Its params.
    type Params: Serialize + DeserializeOwned;
    /// Its result.
    type Result: Serialize + DeserializeOwned;
}

/// The result of a method that answers an empty object.
pub type EmptyResult = Map<String, Value>;

macro_rules! methods {
    ($($(#[$doc:meta])* $marker:ident = $facts:expr, $params:ty => $result:ty;)*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy, PartialEq, Eq)]
            pub struct $marker;

            impl Request for $marker {
                const FACTS: MethodFacts = $facts;
                type Params = $params;
                type Result = $result;
            }
        )*

        /// Every request method the core defines, one row each.
        pub const BUILT_IN: &[MethodFacts] = &[$(<$marker as Request>::FACTS),*];
    };
}

methods! {
    /// `initialize` (handshake revisions).
    Initialize = MethodFacts::plain("initialize"), InitializeParams => InitializeResult;
    /// `ping`.
    Ping = MethodFacts::plain("ping"), EmptyParams => EmptyResult;
    /// `server/discover` (2026-07-28).
    Discover = MethodFacts::plain("server/discover"), EmptyParams => DiscoverResult;
    /// `tools/list`.
    ListTools = MethodFacts::plain("tools/list"), PaginatedParams => ListToolsResult;
    /// `tools/call`: streams progress, logs and questions; may ask for input.
    CallTool = MethodFacts { streams: true, asks_input: true, ..MethodFacts::about("tools/call", Target::Name) },
        CallToolParams => CallToolResult;
    /// `resources/list`.
    ListResources = MethodFacts::plain("resources/list"), PaginatedParams => ListResourcesResult;
    /// `resources/templates/list`.
    ListResourceTemplates = MethodFacts::plain("resources/templates/list"),
        PaginatedParams => ListResourceTemplatesResult;
    /// `resources/read`: may ask for input.
    ReadResource = MethodFacts { asks_input: true, ..MethodFacts::about("resources/read", Target::Uri) },
        UriParams => ReadResourceResult;
    /// `resources/subscribe` (handshake revisions).
    Subscribe = MethodFacts::about("resources/subscribe", Target::Uri), UriParams => EmptyResult;
    /// `resources/unsubscribe` (handshake revisions).
    Unsubscribe = MethodFacts::about("resources/unsubscribe", Target::Uri), UriParams => EmptyResult;
    /// `prompts/list`.
    ListPrompts = MethodFacts::plain("prompts/list"), PaginatedParams => ListPromptsResult;
    /// `prompts/get`: may ask for input.
    GetPrompt = MethodFacts { asks_input: true, ..MethodFacts::about("prompts/get", Target::Name) },
        GetPromptParams => GetPromptResult;
    /// `completion/complete`.
    Complete = MethodFacts::plain("completion/complete"), CompleteParams => CompleteResult;
    /// `subscriptions/listen` (2026-07-28): a stream of notifications.
    Listen = MethodFacts { listens: true, ..MethodFacts::plain("subscriptions/listen") }, ListenParams => EmptyResult;
    /// `logging/setLevel` (handshake revisions).
    SetLevel = MethodFacts::plain("logging/setLevel"), SetLevelParams => EmptyResult;
    /// `tasks/get` (the Tasks extension, and 2025-11-25).
    GetTask = MethodFacts::about("tasks/get", Target::TaskId), TaskIdParams => Value;
    /// `tasks/update` (the Tasks extension).
    UpdateTask = MethodFacts::about("tasks/update", Target::TaskId), UpdateTaskParams => EmptyResult;
    /// `tasks/cancel` (the Tasks extension, and 2025-11-25).
    CancelTask = MethodFacts::about("tasks/cancel", Target::TaskId), TaskIdParams => Value;
    /// `tasks/result` (2025-11-25).
    TaskResult = MethodFacts::plain("tasks/result"), TaskIdParams => Value;
    /// `tasks/list` (2025-11-25).
    ListTasks = MethodFacts::plain("tasks/list"), PaginatedParams => Value;
}

/// The facts of the built-in method `name`.
pub fn facts(name: &str) -> Option<&'static MethodFacts> {
    BUILT_IN.iter().find(|facts| facts.name == name)
}

/// Whether the core defines `name` or reserves it (`notifications/…`,
/// `rpc.…`), so an application may not register it.
pub fn is_built_in(name: &str) -> bool {
    facts(name).is_some() || name.starts_with("notifications/") || name.starts_with("rpc.")
}

/// The target param of request `name` (built-in methods only).
pub fn target(name: &str) -> Option<Target> {
    facts(name).and_then(|facts| facts.target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_has_one_row_and_a_well_formed_name() {
        let mut names: Vec<&str> = BUILT_IN.iter().map(|f| f.name).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a method is listed twice");
        for name in names {
            assert!(name == "ping" || name == "initialize" || name.contains('/'), "{name}");
        }
    }

    #[test]
    fn only_the_three_input_methods_may_ask_and_only_named_targets_label() {
        let asking: Vec<&str> = BUILT_IN.iter().filter(|f| f.asks_input).map(|f| f.name).collect();
        assert_eq!(asking, ["tools/call", "resources/read", "prompts/get"]);
        assert_eq!(target("tools/call"), Some(Target::Name));
        assert_eq!(target("prompts/get"), Some(Target::Name));
        assert_eq!(target("resources/read"), Some(Target::Uri));
        assert_eq!(target("tools/list"), None);
        assert_eq!(target("tasks/update"), Some(Target::TaskId));
        assert_eq!(Target::Uri.param(), "uri");
    }

    #[test]
    fn markers_tie_names_to_their_types() {
        fn name_of<M: Request>() -> &'static str {
            M::FACTS.name
        }
        assert_eq!(name_of::<CallTool>(), "tools/call");
        let params: <CallTool as Request>::Params =
            serde_json::from_value(serde_json::json!({"name": "echo", "arguments": {"a": 1}})).unwrap();
        assert_eq!(params.name, "echo");
        let listed: <ListPrompts as Request>::Result =
            serde_json::from_value(serde_json::json!({"prompts": [], "nextCursor": "2"})).unwrap();
        assert_eq!(listed.next_cursor.as_deref(), Some("2"));
        let get: <GetTask as Request>::Params =
            serde_json::from_value(serde_json::json!({"taskId": "t1"})).unwrap();
        assert_eq!(get.task_id, "t1");
        let update: <UpdateTask as Request>::Params =
            serde_json::from_value(serde_json::json!({"taskId": "t1", "inputResponses": {"a": {}}})).unwrap();
        assert_eq!(update.input_responses.map(|answers| answers.len()), Some(1));
    }

    #[test]
    fn reserved_prefixes_and_tasks_are_built_in() {
        for name in ["tasks/get", "tasks/list", "notifications/x", "rpc.discover", "initialize"] {
            assert!(is_built_in(name), "{name}");
        }
        assert!(!is_built_in("skills/list"));
    }
}
