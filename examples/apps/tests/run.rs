//! Builds and runs the example binary and talks to it over stdio as a host
//! would: the view is listed and read with its `_meta.ui`, both tools name
//! it, `tally_show` answers a host that renders views with structured
//! content and any other client with text, and the app-only `tally_add`
//! changes the count the next `tally_show` reports.

use std::process::Command;

use serde_json::{Value, json};
use switchboard_testkit::process::StdioProcess;

const VIEW: &str = "ui://tally/counter";
const MIME: &str = "text/html;profile=mcp-app";

/// Starts the binary and completes `initialize` (2025-11-25) declaring
/// `capabilities`.
fn start(capabilities: Value) -> StdioProcess {
    let mut process = StdioProcess::start(Command::new(env!("CARGO_BIN_EXE_example-apps")));
    let init = process.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
               "clientInfo": {"name": "host", "version": "1"}}),
    );
    assert_eq!(
        init["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/ui"],
        json!({}),
        "the server offers MCP Apps: {init}"
    );
    process.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    process
}

fn host() -> StdioProcess {
    start(json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": [MIME]}}}))
}

fn call(c: &mut StdioProcess, name: &str, arguments: Value) -> Value {
    c.result("tools/call", json!({"name": name, "arguments": arguments}))
}

#[test]
fn the_view_is_listed_and_read_with_its_meta() {
    let mut c = host();
    let listed = c.result("resources/list", json!({}));
    let view = &listed["resources"][0];
    assert_eq!(view["uri"], VIEW, "{listed}");
    assert_eq!(view["mimeType"], MIME);
    assert_eq!(view["_meta"]["ui"], json!({"prefersBorder": true}));
    let read = c.result("resources/read", json!({"uri": VIEW}));
    let content = &read["contents"][0];
    assert_eq!(content["mimeType"], MIME);
    assert_eq!(content["_meta"]["ui"], json!({"prefersBorder": true}));
    let html = content["text"].as_str().unwrap();
    assert!(html.contains("ui/initialize") && html.contains("tally_add"), "the view speaks the bridge");
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "the view loads nothing from the network"
    );
}

#[test]
fn both_tools_name_the_view_and_tally_add_is_for_the_app_only() {
    let mut c = host();
    let tools = c.result("tools/list", json!({}));
    let tool =
        |name: &str| tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap().clone();
    assert_eq!(tool("tally_show")["_meta"]["ui"], json!({"resourceUri": VIEW}));
    assert_eq!(tool("tally_show")["_meta"]["ui/resourceUri"], VIEW);
    assert_eq!(tool("tally_add")["_meta"]["ui"], json!({"resourceUri": VIEW, "visibility": ["app"]}));
}

#[test]
fn a_host_that_renders_views_gets_structured_content_and_the_app_tool_counts() {
    let mut c = host();
    let shown = call(&mut c, "tally_show", json!({}));
    assert_eq!(shown["structuredContent"], json!({"label": "Tally", "count": 0}), "{shown}");
    let added = call(&mut c, "tally_add", json!({"by": 3}));
    assert_eq!(added["structuredContent"]["count"], 3, "{added}");
    let shown = call(&mut c, "tally_show", json!({}));
    assert_eq!(shown["structuredContent"]["count"], 3, "{shown}");
    let refused = call(&mut c, "tally_add", json!({"by": 0}));
    assert_eq!(refused["isError"], true, "{refused}");
}

#[test]
fn a_client_without_views_gets_text() {
    let mut c = start(json!({}));
    let shown = call(&mut c, "tally_show", json!({}));
    assert!(shown.get("structuredContent").is_none(), "{shown}");
    assert_eq!(shown["content"][0]["text"], "The tally is 0.");
}
