//! JSON-RPC error objects and the error codes MCP assigns.
//!
//! Spec: JSON-RPC 2.0 §5.1; `schema/<rev>/schema.ts` (`PARSE_ERROR` …);
//! `docs/specification/2026-07-28/basic/index.mdx` §Error Codes for the
//! `-32020..-32099` range.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A JSON-RPC error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// `-32700`: the message is not valid JSON (or not UTF-8). Every revision.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// `-32600`: not a valid JSON-RPC request object, a batch where batches are
    /// not allowed, `id: null`, or a request before `initialize`. Every revision.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// `-32601`: unknown method, or a feature the server did not advertise.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// `-32602`: invalid params: unknown tool, prompt, bad cursor, missing
    /// 2026-07-28 `_meta`, and (2026-07-28) resource not found.
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// `-32603`: internal error, including a handler that panicked.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// `-32002`: resource not found, revisions 2024-11-05 … 2025-11-25 only.
    /// Retired in 2026-07-28, where it MUST NOT be emitted.
    pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// `-32042`: URL elicitation required, 2025-11-25 only.
    pub const URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);
    /// Too many requests: a rate or concurrency limit of the server was
    /// reached (implementation-defined server error range; switchboard's choice,
    /// 429 in its last digits).
    pub const RATE_LIMITED: ErrorCode = ErrorCode(-32029);
    /// `-32020`: an HTTP header disagrees with the body (2026-07-28).
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// `-32021`: the request needs a client capability it did not declare (2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// `-32022`: the per-request protocol version is not supported (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The `error` member of a JSON-RPC response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: ErrorCode,
    /// A short description a person (or a model) can act on.
    pub message: Cow<'static, str>,
    /// Extra structured detail (`data.uri`, `data.supported`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// A new error with no `data`.
    pub fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> Self {
        Self { code, message: message.into(), data: None }
    }

    /// Adds `data`.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700` with the parser's explanation.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, format!("Parse error: {detail}"))
    }

    /// `-32600` with an explanation.
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, format!("Invalid request: {detail}"))
    }

    /// `-32601` naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(ErrorCode::METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    /// `-32602` with an explanation.
    pub fn invalid_params(detail: impl fmt::Display) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, format!("Invalid params: {detail}"))
    }

    /// `-32021` (2026-07-28): the request cannot proceed without client
    /// capabilities it did not declare; `required` is a `ClientCapabilities`
    /// object naming them (`data.requiredCapabilities`), e.g.
    /// `{"elicitation": {}}`.
    pub fn missing_client_capability(detail: impl fmt::Display, required: Value) -> Self {
        Self::new(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY, detail.to_string())
            .with_data(serde_json::json!({ "requiredCapabilities": required }))
    }

    /// `-32603` with an explanation.
    pub fn internal(detail: impl fmt::Display) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, format!("Internal error: {detail}"))
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}
