//! `_meta` maps and the reserved keys the server reads or writes.
//!
//! Spec: `docs/specification/2025-06-18/basic/index.mdx` §General fields and
//! `docs/specification/2026-07-28/basic/index.mdx` §`_meta`.

/// A `_meta` object: free-form, keyed by `[prefix/]name`.
pub type Meta = serde_json::Map<String, serde_json::Value>;

/// 2026-07-28 request key: the protocol revision of this request (required).
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// 2026-07-28 request key: the client's capabilities (required).
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// 2026-07-28 request key: the client's `Implementation` (SHOULD).
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// 2026-07-28 request key: per-request log level (deprecated feature).
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// 2026-07-28 result key: the server's `Implementation` (SHOULD).
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// 2026-07-28 listen-stream notification key: the listen request's id (MUST).
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// 2025-11-25 tasks: the task a message belongs to (`{"taskId": …}`).
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// W3C trace context key: the caller's span, in `traceparent` format.
pub const TRACEPARENT: &str = "traceparent";
/// W3C trace context key: vendor trace state, in `tracestate` format.
pub const TRACESTATE: &str = "tracestate";
/// W3C Baggage key (`key=value` pairs).
pub const BAGGAGE: &str = "baggage";
/// Progress token key (every revision).
pub const PROGRESS_TOKEN: &str = "progressToken";
