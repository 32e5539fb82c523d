//! Shared fixtures for the integration tests.

#![allow(dead_code)]

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchboard_server::{
    Json, NoArgs, RequestContext, Server, ServerBuilder, ServerOptions, Tool, ToolError,
};

/// Every revision, oldest first.
pub const ALL_VERSIONS: [&str; 5] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];

/// The legacy revisions (negotiated through `initialize`).
pub const LEGACY_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    pub text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddArgs {
    pub a: i64,
    pub b: i64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Sum {
    pub sum: i64,
}

/// A builder with `echo` (text) and `add` (structured) registered.
pub fn builder() -> ServerBuilder {
    Server::builder("test-server", "1.2.3")
        .title("Test server")
        .description("Used by the integration tests")
        .tool(
            Tool::new("echo")
                .title("Echo")
                .description("Echoes text.")
                .handler(|args: EchoArgs, _ctx: RequestContext| async move { Ok(args.text) }),
        )
        .tool(Tool::new("add").description("Adds.").handler(
            |args: AddArgs, _ctx: RequestContext| async move { Ok(Json(Sum { sum: args.a + args.b })) },
        ))
}

/// The standard test server.
pub fn server() -> Server {
    builder().build().expect("test server builds")
}

/// A server with these options and the standard tools.
pub fn server_with(options: ServerOptions) -> Server {
    builder().options(options).build().expect("test server builds")
}

/// A tool that always fails with an execution error.
pub fn failing_tool(name: &str) -> Tool {
    Tool::new(name).handler(|_: NoArgs, _: RequestContext| async move {
        Err::<String, _>(ToolError::new("the upstream API is down"))
    })
}
