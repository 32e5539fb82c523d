//! What a tool's handler is ([`ToolHandler`], type-erased) and how it fails
//! ([`ToolError`]).

use std::fmt;

use futures::future::BoxFuture;
use serde_json::Value;
use switchboard_types::{CallToolResult, ErrorObject};

use crate::context::RequestContext;

/// The failure of a tool handler.
///
/// [`ToolError::Execution`] becomes a tool execution error: a normal result
/// with `isError: true` whose text the model reads and can act on. Any
/// `std::error::Error` converts into it, so `?` works in handlers.
/// [`ToolError::Protocol`] becomes a JSON-RPC error response instead; use it
/// only for faults of the request itself, not of the tool's work.
pub enum ToolError {
    /// The tool ran and failed: `isError: true`.
    Execution(String),
    /// The request is wrong at the protocol level: a JSON-RPC error.
    Protocol(ErrorObject),
}

impl ToolError {
    /// An execution error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError::Execution(message.into())
    }

    /// A protocol error.
    pub fn protocol(error: ErrorObject) -> Self {
        ToolError::Protocol(error)
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Execution(m) => f.debug_tuple("Execution").field(m).finish(),
            ToolError::Protocol(e) => f.debug_tuple("Protocol").field(e).finish(),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Execution(m) => f.write_str(m),
            ToolError::Protocol(e) => write!(f, "{e}"),
        }
    }
}

// `ToolError` deliberately does not implement `std::error::Error`, so that
// this blanket conversion (the `anyhow` pattern) does not overlap with
// `From<T> for T`.
impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(e: E) -> Self {
        ToolError::Execution(crate::handler_error::error_chain(&e))
    }
}

/// The type-erased handler behind every tool.
pub trait ToolHandler: Send + Sync + 'static {
    /// Runs the tool with arguments that already passed `inputSchema`.
    fn call(
        &self,
        arguments: Value,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<CallToolResult, ToolError>>;
}
