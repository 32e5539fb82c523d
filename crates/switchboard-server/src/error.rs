//! The crate's error type: failures a server author can make or meet outside
//! a request (registration, transport I/O). Errors *inside* a request are
//! JSON-RPC [`ErrorObject`](switchboard_types::ErrorObject)s or tool results, never this type.

use std::io;

/// Errors from building or running a server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A tool name breaks the 1–128 `[A-Za-z0-9_.-]` rule
    /// (`docs/specification/2025-11-25/server/tools.mdx` §Tool Names).
    #[error("invalid tool name {name:?}: {reason}")]
    InvalidToolName {
        /// The name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A tool with this name is already registered.
    #[error("a tool named {0:?} is already registered")]
    DuplicateTool(String),
    /// A tool's input or output schema is not usable.
    #[error("invalid {which} schema for tool {tool:?}: {reason}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// `"input"` or `"output"`.
        which: &'static str,
        /// Why.
        reason: String,
    },
    /// A tool, resource, template or prompt was registered without a handler.
    #[error("{0} has no handler: call `.handler(...)` (or `.text(...)`/`.blob(...)` for a resource)")]
    MissingHandler(String),
    /// A prompt with this name is already registered.
    #[error("a prompt named {0:?} is already registered")]
    DuplicatePrompt(String),
    /// A prompt's arguments are unusable.
    #[error("invalid prompt {prompt:?}: {reason}")]
    InvalidPrompt {
        /// The prompt.
        prompt: String,
        /// Why.
        reason: String,
    },
    /// A resource with this URI (or a template with this text) is already registered.
    #[error("a resource or template {0:?} is already registered")]
    DuplicateResource(String),
    /// A resource URI is not a valid RFC 3986 URI.
    #[error("invalid resource URI {uri:?}: {reason}")]
    InvalidUri {
        /// The URI.
        uri: String,
        /// Why.
        reason: String,
    },
    /// An extension offered with [`ServerBuilder::extension`](crate::ServerBuilder::extension)
    /// has an identifier that breaks the `{vendor-prefix}/{extension-name}`
    /// rule, or settings that are not a JSON object (`seps/2133-extensions.md`
    /// §Definition; `docs/specification/2026-07-28/basic/versioning.mdx`
    /// §Extension Negotiation).
    #[error("invalid extension {id:?}: {reason}")]
    InvalidExtension {
        /// The identifier.
        id: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// An extension with this identifier is already offered.
    #[error("the extension {0:?} is already offered")]
    DuplicateExtension(String),
    /// A method added with [`ServerBuilder::method`](crate::ServerBuilder::method)
    /// has an unusable name, takes a core method's name, or is added twice.
    #[error("invalid method {name:?}: {reason}")]
    InvalidMethod {
        /// The method's name.
        name: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A resource or template breaks an MCP Apps rule: a view (MIME type
    /// `text/html;profile=mcp-app` or a `_meta.ui`) outside `ui://`, a
    /// `ui://` resource with another MIME type, or a CSP origin that
    /// [`check_origin`](switchboard_types::apps::check_origin) refuses.
    #[error("invalid UI resource {uri:?}: {reason}")]
    InvalidUiResource {
        /// The URI (or template text).
        uri: String,
        /// What is wrong.
        reason: String,
    },
    /// A tool's view linkage is unusable: it names a URI outside `ui://`,
    /// or (when the server is built) one no resource or template serves.
    #[error("invalid view for tool {tool:?}: {reason}")]
    InvalidToolUi {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// Reading from or writing to the transport failed.
    #[error("transport I/O error: {0}")]
    Io(#[from] io::Error),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
