//! Tunables with safe defaults.

use std::time::Duration;

/// How a `tools/call` whose arguments fail the tool's `inputSchema` is answered.
///
/// 2025-11-25 made this a tool execution error (SEP-1303) so the model can
/// correct itself; older revisions' text also allowed `-32602`. The default,
/// [`ArgumentErrorMode::ToolError`], is used for every revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArgumentErrorMode {
    /// `isError: true` result with the validation messages (default).
    #[default]
    ToolError,
    /// JSON-RPC `-32602` error, for clients that expect the older behaviour.
    ProtocolError,
}

/// Server options. Construct with [`ServerOptions::default`] and adjust fields.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// Largest accepted message in bytes (default 4 MiB). A longer stdio line
    /// is discarded and answered with `-32600`.
    pub max_message_size: usize,
    /// Items per page of every list (default 100).
    pub page_size: usize,
    /// How long in-flight requests may run after the client closes its input
    /// before they are cancelled (default 10 s).
    pub shutdown_grace: Duration,
    /// How argument validation failures are reported.
    pub argument_errors: ArgumentErrorMode,
    /// Messages queued for a slow client before handlers wait (default 1024).
    pub outbound_queue: usize,
    /// `ttlMs` of 2026-07-28 list results (default 60 s).
    pub list_ttl: Duration,
    /// `ttlMs` of the 2026-07-28 `server/discover` result (default 5 min).
    pub discover_ttl: Duration,
    /// `ttlMs` of 2026-07-28 `resources/read` results (default 0: contents
    /// may change at any time; subscribers are told when they do).
    pub read_ttl: Duration,
    /// Key that authenticates pagination cursors. `None` (the default)
    /// draws a random key per server; set it when several instances must
    /// accept each other's cursors.
    pub cursor_key: Option<[u8; 32]>,
    /// Events (list changes, resource updates) buffered per connection
    /// before a slow one is told it missed some (default 1024).
    pub event_capacity: usize,
    /// Log threshold of a handshake-era session before `logging/setLevel` (default
    /// `info`; `None` sends nothing until the client sets a level).
    pub default_log_level: Option<switchboard_types::logging::LoggingLevel>,
    /// `tools/call` budget of each caller (its principal, or its connection
    /// when unauthenticated). Default: none.
    pub tool_rate_per_caller: Option<crate::RateLimit>,
    /// `tools/call` budget of the whole server. Default: none.
    pub tool_rate_global: Option<crate::RateLimit>,
    /// Requests running at once per connection (default 256). Over a
    /// connection loop (stdio) more wait in a queue as long again and then
    /// the loop stops reading (backpressure); where each message is
    /// dispatched on its own (HTTP) the excess is refused with `-32029`.
    pub max_in_flight: usize,
    /// How long a handler may run before it is cancelled and the request
    /// answered with an error (default: no limit).
    pub handler_timeout: Option<Duration>,
    /// Largest response sent; a larger one is replaced by a `-32603` error
    /// saying so (default 16 MiB).
    pub max_response_size: usize,
    /// How long a 2026-07-28 `requestState` this server issued stays valid
    /// (default 10 min): a retry after that is refused with `-32602` and
    /// the client starts the request again (`basic/patterns/mrtr.mdx`).
    pub request_state_ttl: Duration,
    /// How long a task (Tasks extension) is kept after it is created, its
    /// `ttlMs` (default 1 h); its work is stopped when this runs out.
    pub task_ttl: Duration,
    /// The `pollIntervalMs` suggested to clients polling a task, and how
    /// often a running task checks the state store for answers and
    /// cancellation sent to another instance (default 1 s).
    pub task_poll_interval: Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            max_message_size: 4 * 1024 * 1024,
            page_size: 100,
            shutdown_grace: Duration::from_secs(10),
            argument_errors: ArgumentErrorMode::ToolError,
            outbound_queue: 1024,
            list_ttl: Duration::from_secs(60),
            discover_ttl: Duration::from_secs(300),
            read_ttl: Duration::ZERO,
            cursor_key: None,
            event_capacity: 1024,
            default_log_level: Some(switchboard_types::logging::LoggingLevel::Info),
            tool_rate_per_caller: None,
            tool_rate_global: None,
            max_in_flight: 256,
            handler_timeout: None,
            max_response_size: 16 * 1024 * 1024,
            request_state_ttl: Duration::from_secs(600),
            task_ttl: Duration::from_secs(3600),
            task_poll_interval: Duration::from_secs(1),
        }
    }
}
