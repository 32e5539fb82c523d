//! Notifications shared by every feature: progress, cancellation, list changes.
//!
//! Spec: `docs/specification/<rev>/basic/utilities/{progress,cancellation}.mdx`;
//! `docs/specification/2026-07-28/basic/patterns/{progress,cancellation}.mdx`.

use serde::{Deserialize, Serialize};

use crate::jsonrpc::RequestId;
use crate::meta::Meta;

/// Method names of the notifications a server sends or receives.
pub mod method {
    /// Client → server after `initialize` (legacy).
    pub const INITIALIZED: &str = "notifications/initialized";
    /// Either direction: stop working on a request.
    pub const CANCELLED: &str = "notifications/cancelled";
    /// Server → client: progress of a request.
    pub const PROGRESS: &str = "notifications/progress";
    /// Server → client: log message.
    pub const MESSAGE: &str = "notifications/message";
    /// Server → client: the tool list changed.
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    /// Server → client: the prompt list changed.
    pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    /// Server → client: the resource list changed.
    pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    /// Server → client: a subscribed resource changed.
    pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
    /// Client → server: the client's roots changed.
    pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
    /// Server → client (2026-07-28): a listen stream is acknowledged.
    pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
    /// Server → client (2025-11-25 tasks): a task's status changed.
    pub const TASKS_STATUS: &str = "notifications/tasks/status";
    /// Server → client (the 2026-07-28 Tasks extension, on a listen
    /// stream): a task's status changed.
    pub const TASKS: &str = "notifications/tasks";
}

/// A progress token: string or integer.
pub type ProgressToken = RequestId;

/// `notifications/progress` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressParams {
    /// The token from the request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far; strictly increases.
    pub progress: f64,
    /// Total, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// Human-readable message (2025-03-26 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `notifications/cancelled` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    /// The request to cancel.
    pub request_id: RequestId,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Params of a notification that carries nothing but `_meta`
/// (`*/list_changed`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EmptyParams {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
