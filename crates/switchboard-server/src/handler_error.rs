//! The error type of resource, prompt and completion handlers.

use std::fmt;

use switchboard_types::ErrorObject;

/// Why a resource read, prompt or completion handler failed. The dispatcher
/// turns it into the JSON-RPC error the spec names for the revision in use.
///
/// Any `std::error::Error` converts into [`HandlerError::Internal`], so `?`
/// works in handlers.
pub enum HandlerError {
    /// The thing asked for does not exist (resource: `-32002` up to
    /// 2025-11-25, `-32602` in 2026-07-28, both with `data.uri`).
    NotFound,
    /// The request's arguments are wrong: `-32602` with this message.
    InvalidParams(String),
    /// The handler failed: `-32603` with this message.
    Internal(String),
    /// Any other JSON-RPC error, as given.
    Rpc(ErrorObject),
}

impl HandlerError {
    /// `-32602` with a message.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        HandlerError::InvalidParams(message.into())
    }

    /// `-32603` with a message.
    pub fn internal(message: impl Into<String>) -> Self {
        HandlerError::Internal(message.into())
    }
}

impl fmt::Debug for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandlerError::NotFound => f.write_str("NotFound"),
            HandlerError::InvalidParams(m) => f.debug_tuple("InvalidParams").field(m).finish(),
            HandlerError::Internal(m) => f.debug_tuple("Internal").field(m).finish(),
            HandlerError::Rpc(e) => f.debug_tuple("Rpc").field(e).finish(),
        }
    }
}

impl fmt::Display for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandlerError::NotFound => f.write_str("not found"),
            HandlerError::InvalidParams(m) | HandlerError::Internal(m) => f.write_str(m),
            HandlerError::Rpc(e) => write!(f, "{e}"),
        }
    }
}

// Not `std::error::Error`, so the blanket conversion below cannot overlap.
impl<E: std::error::Error + Send + Sync + 'static> From<E> for HandlerError {
    fn from(e: E) -> Self {
        HandlerError::Internal(error_chain(&e))
    }
}

impl HandlerError {
    /// The JSON-RPC error, given how "not found" is spelled here.
    pub(crate) fn into_error(self, not_found: impl FnOnce() -> ErrorObject) -> ErrorObject {
        match self {
            HandlerError::NotFound => not_found(),
            HandlerError::InvalidParams(m) => ErrorObject::invalid_params(m),
            HandlerError::Internal(m) => ErrorObject::internal(m),
            HandlerError::Rpc(e) => e,
        }
    }
}

/// An error and its sources, `outer: inner: innermost`.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}
