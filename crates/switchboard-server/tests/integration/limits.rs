//! Limits: tools/call rate per caller and overall, requests in flight per
//! connection, handler timeout. Each refusal is a readable error and the
//! server keeps serving.

use std::time::Duration;

use serde_json::{Value, json};
use switchboard_server::{CallToolResult, RateLimit, Server, ServerOptions, Tool, ToolError};
use switchboard_testkit::TestClient;

fn server(options: ServerOptions) -> Server {
    Server::builder("limits", "1")
        .options(options)
        .tool(
            Tool::new("quick")
                .description("q")
                .raw_handler(|_: Value, _| async { Ok::<_, ToolError>(CallToolResult::text("ok")) }),
        )
        .tool(Tool::new("slow").description("s").raw_handler(|_: Value, _| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok::<_, ToolError>(CallToolResult::text("late"))
        }))
        .build()
        .unwrap()
}

fn rpc(e: switchboard_testkit::Error) -> switchboard_server::ErrorObject {
    match e {
        switchboard_testkit::Error::Rpc(e) => e,
        other => panic!("expected a JSON-RPC error, got {other}"),
    }
}

#[tokio::test]
async fn tool_calls_beyond_the_callers_budget_are_refused_with_a_retry_hint() {
    let mut options = ServerOptions::default();
    options.tool_rate_per_caller = Some(RateLimit { per_minute: 60, burst: 2 });
    let server = server(options);
    let mut a = TestClient::connect_legacy(&server, "2025-06-18").await;
    let mut b = TestClient::connect_legacy(&server, "2025-06-18").await;
    a.call_tool("quick", json!({})).await.unwrap();
    a.call_tool("quick", json!({})).await.unwrap();
    let e = rpc(a.call_tool("quick", json!({})).await.unwrap_err());
    assert_eq!(e.code.0, -32029);
    assert!(e.message.contains("60 tool calls per minute per caller"), "{}", e.message);
    let wait = e.data.unwrap()["retryAfterMs"].as_u64().unwrap();
    assert!(wait > 0 && wait <= 1000, "{wait}");
    // Another connection has its own budget; other methods are not limited.
    b.call_tool("quick", json!({})).await.unwrap();
    a.request("tools/list", json!({})).await.unwrap();
}

#[tokio::test]
async fn the_global_budget_is_shared_by_everyone() {
    let mut options = ServerOptions::default();
    options.tool_rate_global = Some(RateLimit { per_minute: 60, burst: 3 });
    let server = server(options);
    let mut a = TestClient::connect_legacy(&server, "2025-06-18").await;
    let mut b = TestClient::connect_modern(&server);
    a.call_tool("quick", json!({})).await.unwrap();
    b.call_tool("quick", json!({})).await.unwrap();
    a.call_tool("quick", json!({})).await.unwrap();
    let e = rpc(b.call_tool("quick", json!({})).await.unwrap_err());
    assert_eq!(e.code.0, -32029);
    assert!(e.message.contains("this server takes at most 60"), "{}", e.message);
}

#[tokio::test]
async fn requests_in_flight_per_connection_are_capped() {
    let mut options = ServerOptions::default();
    options.max_in_flight = 2;
    let server = server(options);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    for id in [1, 2] {
        client
            .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "slow", "arguments": {}}}))
            .await
            .unwrap();
    }
    // Two are running: over a line transport a third waits for a place
    // (backpressure) instead of being refused; a ping is still answered.
    client.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})).await.unwrap();
    client.send(&json!({"jsonrpc": "2.0", "id": 4, "method": "ping"})).await.unwrap();
    let pong = client.response_to(&json!(4)).await.unwrap();
    assert!(pong.get("result").is_some(), "{pong}");
    // Cancelling one frees a place, and the third runs.
    client
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}))
        .await
        .unwrap();
    let listed = client.response_to(&json!(3)).await.unwrap();
    assert!(listed.get("result").is_some(), "{listed}");
    // Refusing the excess with -32029 stays for per-message transports
    // (HTTP): backpressure.rs::per_message_dispatch_still_refuses_requests_beyond_max_in_flight.
}

#[tokio::test]
async fn handlers_that_run_too_long_are_stopped_and_answered() {
    let mut options = ServerOptions::default();
    options.handler_timeout = Some(Duration::from_millis(200));
    let server = server(options);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    let e = rpc(client.call_tool("slow", json!({})).await.unwrap_err());
    assert_eq!(e.code.0, -32603);
    assert!(e.message.contains("did not finish within 0.2 s"), "{}", e.message);
    let ok = client.call_tool("quick", json!({})).await.unwrap();
    assert_eq!(ok["content"][0]["text"], "ok");
}

#[tokio::test]
async fn responses_over_the_size_limit_become_an_error() {
    let mut options = ServerOptions::default();
    options.max_response_size = 1024;
    let server = Server::builder("limits", "1")
        .options(options)
        .tool(Tool::new("huge").description("h").raw_handler(|_: Value, _| async {
            Ok::<_, ToolError>(CallToolResult::text("x".repeat(10_000)))
        }))
        .tool(
            Tool::new("small")
                .description("s")
                .raw_handler(|_: Value, _| async { Ok::<_, ToolError>(CallToolResult::text("ok")) }),
        )
        .build()
        .unwrap();
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    let e = rpc(client.call_tool("huge", json!({})).await.unwrap_err());
    assert_eq!(e.code.0, -32603);
    assert!(e.message.contains("larger than this server sends (1024 bytes)"), "{}", e.message);
    assert_eq!(client.call_tool("small", json!({})).await.unwrap()["content"][0]["text"], "ok");
}

#[test]
fn framework_defaults_are_the_documented_ones() {
    // SECURITY.md, "Defaults, in one place": the framework column.
    let defaults = ServerOptions::default();
    let built = server(ServerOptions::default());
    for o in [&defaults, built.options()] {
        assert_eq!(o.max_message_size, 4 * 1024 * 1024);
        assert_eq!(o.max_response_size, 16 * 1024 * 1024);
        assert_eq!(o.tool_rate_per_caller, None, "no tools/call limit per caller");
        assert_eq!(o.tool_rate_global, None, "no tools/call limit overall");
        assert_eq!(o.max_in_flight, 256);
        assert_eq!(o.handler_timeout, None);
        assert_eq!(o.request_state_ttl, std::time::Duration::from_secs(600));
        assert_eq!(o.task_ttl, std::time::Duration::from_secs(3600));
    }
}
