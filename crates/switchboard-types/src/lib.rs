//! Wire types of the Model Context Protocol (MCP) and its JSON-RPC 2.0 envelope.
//!
//! One Rust model covers every revision the project serves: 2024-11-05,
//! 2025-03-26, 2025-06-18, 2025-11-25 and 2026-07-28. Fields that a revision
//! lacks are `Option`s. Which of them a revision has is stated once, in the
//! table of [`revision`]; leaving out what a client's revision lacks is the
//! server's job (see `switchboard-server`'s `shape` module), so these types
//! stay plain data with `serde` and nothing else: no async runtime, no I/O.
//!
//! Readers are tolerant: unknown fields are ignored everywhere, because every
//! revision's JSON Schema leaves `additionalProperties` open and later
//! revisions add fields older peers must skip.
//!
//! ```
//! use switchboard_types::{ContentBlock, CallToolResult};
//! let result = CallToolResult::text("hello");
//! let json = serde_json::to_value(&result).unwrap();
//! assert_eq!(json["content"][0]["type"], "text");
//! assert!(matches!(result.content[0], ContentBlock::Text(_)));
//! ```

pub mod apps;
pub mod completion;
pub mod content;
pub mod error;
pub mod extensions;
pub mod head;
pub mod jsonrpc;
pub mod lifecycle;
pub mod logging;
pub mod meta;
pub mod methods;
pub mod notifications;
pub mod pagination;
pub mod prompts;
pub mod resources;
pub mod revision;
pub mod subscriptions;
pub mod tools;
pub mod version;

pub use content::{
    Annotations, AudioContent, BlobResourceContents, ContentBlock, EmbeddedResource, Icon, IconTheme,
    ImageContent, ResourceContents, ResourceLink, Role, TextContent, TextResourceContents,
};
pub use error::{ErrorCode, ErrorObject};
pub use jsonrpc::{IncomingMessage, JSONRPC_VERSION, MessageKind, RequestId};
pub use lifecycle::{
    ClientCapabilities, DiscoverResult, Implementation, InitializeParams, InitializeResult,
    ServerCapabilities,
};
pub use meta::Meta;
pub use prompts::{GetPromptResult, Prompt, PromptArgument, PromptMessage};
pub use resources::{ReadResourceResult, Resource, ResourceTemplate};
pub use revision::{Era, Revision};
pub use tools::{CallToolParams, CallToolResult, ListToolsResult, Tool, ToolAnnotations};
pub use version::ProtocolVersion;
