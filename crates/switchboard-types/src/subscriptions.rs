//! `subscriptions/listen` (2026-07-28).
//!
//! Spec: `docs/specification/2026-07-28/basic/patterns/subscriptions.mdx`.

use serde::{Deserialize, Serialize};

/// Which notifications a listen stream wants.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these task ids (the Tasks extension,
    /// `io.modelcontextprotocol/tasks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

/// `subscriptions/listen` params and `notifications/subscriptions/acknowledged` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListenParams {
    /// The filter (requested, or accepted in the acknowledgement).
    pub notifications: SubscriptionFilter,
}
