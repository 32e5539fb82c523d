//! Shared helpers: a client connected to a server with the given tools, and
//! TOML parsing of specs the way `switchboard`'s loader embeds them.

#![allow(dead_code)]

use serde::de::DeserializeOwned;
use serde_json::Value;
use switchboard_server::{Server, Tool};
use switchboard_testkit::TestClient;

/// A client (2025-06-18, so `structuredContent` is visible) of a server with `tools`.
pub async fn client(tools: Vec<Tool>) -> TestClient {
    let mut builder = Server::builder("switchboard-tools-test", "0.0.0");
    for tool in tools {
        builder = builder.tool(tool);
    }
    let server = builder.build().expect("the test server builds");
    TestClient::connect_legacy(&server, "2025-06-18").await
}

/// A spec from TOML text.
pub fn spec<T: DeserializeOwned>(toml_text: &str) -> T {
    toml::from_str(toml_text).unwrap_or_else(|e| panic!("spec parses: {e}\n{toml_text}"))
}

/// The text of a result's first content block.
pub fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text content in {result}"))
}

/// True when the result is a tool execution error.
pub fn is_error(result: &Value) -> bool {
    result.get("isError") == Some(&Value::Bool(true))
}
