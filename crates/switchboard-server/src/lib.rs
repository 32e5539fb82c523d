//! A framework for Model Context Protocol (MCP) servers.
//!
//! Build a [`Server`] from [`Tool`]s, then serve it over a [`Transport`]
//! (stdio here, Streamable HTTP in `switchboard-http`). One server speaks every
//! revision from 2024-11-05 to 2026-07-28: handshake-era clients negotiate with
//! `initialize`, 2026-07-28 clients send their version and capabilities in
//! each request's `_meta`, and every result is shaped for the revision in use.
//!
//! ```no_run
//! use switchboard_server::{Json, RequestContext, Server, Tool};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct Args { name: String }
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Greeting { message: String }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), switchboard_server::Error> {
//!     Server::builder("greeter", "1.0.0")
//!         .tool(Tool::new("greet").description("Greets someone by name.").handler(
//!             |args: Args, _ctx: RequestContext| async move {
//!                 Ok(Json(Greeting { message: format!("Hello, {}!", args.name) }))
//!             },
//!         ))
//!         .build()?
//!         .serve_stdio()
//!         .await
//! }
//! ```
//!
//! The main pieces:
//! - [`Tool`], [`Json`], [`ToolError`]: tools as typed async functions.
//! - [`Resource`], [`ResourceTemplate`] (RFC 6570), [`FileRoot`]: resources.
//! - [`Prompt`]: prompts with typed arguments; [`complete_from`] and
//!   [`completer_fn`] for argument completion.
//! - [`Server::notify_resource_updated`]: change notifications from anywhere.
//! - [`RequestContext`]: cancellation, progress, identity for one request.
//! - [`ServerBuilder::extension`]: extensions (SEP-2133) offered in the
//!   capabilities; the ones a client declared are on
//!   [`RequestContext::client_capabilities`].
//! - [`HandleStore`]: state behind opaque handles for stateful tools.
//! - [`Server::accept`]: the dispatcher, for transports of your own.
//! - [`transport`]: the [`Transport`] seam and newline-delimited JSON (stdio).
//! - [`macro@tool`], [`macro@tools`], [`macro@resource`], [`macro@prompt`]
//!   (the default `macros` feature): the same builders generated from plain
//!   async functions, with their signatures and templates checked at compile
//!   time:
//!
//! ```
//! # #[cfg(feature = "macros")] {
//! use switchboard_server::{Server, ToolError, tool};
//!
//! /// Greets someone by name.
//! #[tool]
//! async fn greet(name: String) -> Result<String, ToolError> {
//!     Ok(format!("Hello, {name}!"))
//! }
//!
//! let server = Server::builder("greeter", "1.0.0").tool(greet_tool()).build().unwrap();
//! assert_eq!(server.tools()[0].description.as_deref(), Some("Greets someone by name."));
//! # }
//! ```
//!
//! Every primitive, served and used through the in-memory client of
//! `switchboard-testkit` (how this crate's own tests drive a server):
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use switchboard_server::types::{PromptMessage, ResourceContents};
//! use switchboard_server::{
//!     HandleStore, NoArgs, Prompt, RequestContext, Resource, ResourceTemplate, Server, Tool, ToolError,
//!     complete_from,
//! };
//! use serde::Deserialize;
//!
//! #[derive(Deserialize, schemars::JsonSchema)]
//! struct Add { counter: String, by: i64 }
//! #[derive(Deserialize, schemars::JsonSchema)]
//! struct Review { language: String }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! // A stateful tool pair: state lives behind an opaque, expiring handle.
//! let counters = Arc::new(HandleStore::<i64>::new("counter", Duration::from_secs(600)));
//! let store = Arc::clone(&counters);
//! let create = Tool::new("counter_create").handler(move |_: NoArgs, ctx: RequestContext| {
//!     let store = Arc::clone(&store);
//!     async move { Ok(store.create(&ctx, 0)) }
//! });
//! let add = Tool::new("counter_add").handler(move |args: Add, ctx: RequestContext| {
//!     let store = Arc::clone(&counters);
//!     async move {
//!         let counter = store.get(&ctx, &args.counter)?;
//!         let mut value = counter.lock().await;
//!         *value += args.by;
//!         Ok::<_, ToolError>(value.to_string())
//!     }
//! });
//! // A fixed resource and a template whose variables reach the handler.
//! let readme = Resource::new("docs://readme", "readme").mime_type("text/plain").text("Read me.");
//! let chapter = ResourceTemplate::new("docs://chapter/{n}", "chapter").unwrap().handler(|read, _ctx| async move {
//!     let text = format!("Chapter {}", read.var("n").unwrap_or("?"));
//!     Ok(ResourceContents::text(read.uri, None, text))
//! });
//! // A prompt with a completed argument.
//! let review = Prompt::new("review")
//!     .handler(|args: Review, _ctx: RequestContext| async move {
//!         Ok(PromptMessage::user(format!("Review this {} code.", args.language)))
//!     })
//!     .unwrap()
//!     .complete("language", complete_from(["rust", "ruby", "python"]));
//!
//! let server = Server::builder("tour", "1")
//!     .tool(create).tool(add).resource(readme).resource_template(chapter).prompt(review)
//!     .build()
//!     .unwrap();
//! let mut client = switchboard_testkit::TestClient::connect_legacy(&server, "2025-11-25").await;
//!
//! let created = client.call_tool("counter_create", serde_json::json!({})).await.unwrap();
//! let handle = created["content"][0]["text"].as_str().unwrap().to_owned();
//! let added = client.call_tool("counter_add", serde_json::json!({"counter": handle, "by": 2})).await.unwrap();
//! assert_eq!(added["content"][0]["text"], "2");
//! let forged = client.call_tool("counter_add", serde_json::json!({"counter": "forged", "by": 1})).await.unwrap();
//! assert_eq!(forged["isError"], true, "a forged handle is a tool error the model can read");
//!
//! let read = client.read_resource("docs://chapter/7").await.unwrap();
//! assert_eq!(read["contents"][0]["text"], "Chapter 7");
//! let prompt = client.get_prompt("review", serde_json::json!({"language": "rust"})).await.unwrap();
//! assert_eq!(prompt["messages"][0]["content"]["text"], "Review this rust code.");
//! let completion = client
//!     .complete(serde_json::json!({"type": "ref/prompt", "name": "review"}), "language", "r")
//!     .await
//!     .unwrap();
//! assert_eq!(completion["completion"]["values"], serde_json::json!(["rust", "ruby"]));
//! # });
//! ```

mod builder;
mod catalog;
mod completion;
mod context;
mod core;
mod dispatch;
mod error;
mod extensions;
mod handler_error;
pub mod input;
mod lifecycle;
#[cfg(feature = "macros")]
mod macro_support;
mod methods;
pub mod middleware {
    //! Middleware as [tower] layers: around one tool ([`Tool::layer`]) or
    //! around every request the server answers ([`ServerBuilder::layer`]).
    //!
    //! Why tower: it is the middleware vocabulary of the Rust server ecosystem
    //! (axum, tonic, hyper), so its ready-made layers (`TimeoutLayer`,
    //! `ConcurrencyLimitLayer`, `RateLimitLayer`, `AsyncFilterLayer`, the
    //! `tower-http`-style tracing layers) work here unchanged, and a layer of
    //! your own is a `Service` wrapper of a few lines.
    //!
    //! - A **tool layer** wraps one tool's handler. Its service takes a
    //!   [`ToolCall`] (name, arguments that already passed the input schema,
    //!   context) and answers a [`CallToolResult`](crate::CallToolResult).
    //!   An error it returns becomes the tool's error: a [`ToolError`](crate::ToolError) (boxed as
    //!   [`ToolFailure`]) keeps its kind, an [`ErrorObject`](crate::ErrorObject) is a protocol
    //!   error, a timeout an execution error saying so, anything else an
    //!   execution error with its message.
    //! - A **server layer** wraps every request that reaches a method (after
    //!   lifecycle, version and rate checks, before the response is encoded):
    //!   its service takes a [`Request`] and answers an opaque [`Response`]. An
    //!   [`ErrorObject`](crate::ErrorObject) it returns is sent as that JSON-RPC error; any other
    //!   error is `-32603` with its message.
    //!
    //! Layers added later wrap the ones added before (the last is outermost),
    //! as in axum. A server with no layers pays nothing for this module.
    //!
    //! [tower]: https://docs.rs/tower
    //! [`Tool::layer`]: crate::Tool::layer
    //! [`ServerBuilder::layer`]: crate::ServerBuilder::layer

    pub use crate::dispatch::layers::{Request, RequestStack, Response};
    pub use crate::tools::layer::{BoxError, ToolCall, ToolFailure, ToolService, ToolStack};
}
mod options;
mod output;
mod params;
mod prompts;
mod registry;
mod resources;
mod server;
mod session;
mod setters;
mod shape;
mod shared;
pub mod state {
    //! Where state that must outlive one process, or be seen by several, is
    //! kept: one small key-value, log and pub/sub abstraction ([`StateStore`])
    //! behind every piece of server state that instances behind a load balancer
    //! must share — stateful-tool handles ([`SharedHandleStore`]),
    //! handshake-era HTTP sessions and their SSE event logs (`switchboard-http`), the cursor key
    //! ([`shared_secret`]), and the change-notification bus
    //! ([`ServerBuilder::state`](crate::ServerBuilder::state): resource updates
    //! and list changes published on one instance reach the clients of all).
    //!
    //! [`MemoryStore`] is the default: one process, no configuration, entries
    //! expire like everywhere else. `switchboard-state-redis` implements the same trait
    //! on Redis for several instances. Every entry has a time to live, so
    //! nothing leaks when a client just goes away.
    //!
    //! Keys are plain strings; implementations may prefix them (a namespace per
    //! deployment). Values are bytes: callers choose their encoding (JSON here).

    pub use crate::store::{
        ADMIT_SAMPLE, Delivery, LogEntries, MemoryStore, STORE_RETRY_AFTER, StateError, StateStore,
        is_store_unavailable, shared_secret, store_unavailable,
    };
    pub use crate::tools::shared_handles::SharedHandleStore;
}
mod store;
mod task_wire;
pub mod tasks;
mod tools;
pub mod trace_context;
pub mod transport;

pub use builder::ServerBuilder;
pub use completion::{Completer, CompletionRequest, complete_from, completer_fn};
pub use context::RequestContext;
pub use dispatch::reply::{Outcome, Reply};
pub use dispatch::{Accepted, AdmissionCheck};
pub use error::{Error, Result};
pub use handler_error::HandlerError;
pub use input::{InputError, InputRequest};
pub use methods::{Method, MethodHandler};
pub use options::{ArgumentErrorMode, ServerOptions};
pub use prompts::{IntoPromptResult, Prompt, PromptHandler};
pub use resources::files::{FileAccessError, FileRoot};
pub use resources::source::{ResourcePage, ResourceSource, SourceRead};
pub use resources::uri::validate_uri;
pub use resources::{IntoContents, ReadRequest, Resource, ResourceHandler, ResourceTemplate, base64_encode};
pub use server::Server;
pub use session::caller::{Outbound, Principal, RequestHeaders, Via};
pub use session::events::{ListKind, LogEvent, ServerEvent, TaskStatusEvent};
pub use session::limits::RateLimit;
pub use session::{Negotiated, Session, SessionSnapshot};
/// `#[tool]`, `#[tools]`, `#[resource]` and `#[prompt]`: builders from plain
/// async functions (the `macros` feature, on by default; see `switchboard-macros`).
#[cfg(feature = "macros")]
pub use switchboard_macros::{prompt, resource, tool, tools};
pub use switchboard_types as types;
pub use switchboard_types::apps;
pub use switchboard_types::{CallToolResult, ContentBlock, ErrorObject, ProtocolVersion, RequestId};
pub use switchboard_uri_template as uri_template;
pub use tasks::{TASKS_EXTENSION, TaskSupport};
pub use tools::entry::validate_tool_name;
pub use tools::handler::{ToolError, ToolHandler};
pub use tools::handles::HandleStore;
pub use tools::{IntoToolResult, Json, NoArgs, Tool, schema_of};
pub use trace_context::TraceContext;
pub use transport::Transport;

/// For the code the macros generate; not a public API.
#[cfg(feature = "macros")]
#[doc(hidden)]
pub mod __private {
    pub use crate::macro_support::*;
}
