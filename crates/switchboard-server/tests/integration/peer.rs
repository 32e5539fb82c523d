//! Logging (`logging/setLevel`, `notifications/message`) and requests from
//! the server to the client (sampling, elicitation, roots).

use serde_json::{Value, json};
use switchboard_server::types::logging::LoggingLevel;
use switchboard_server::{NoArgs, RequestContext, Server, Tool, ToolError};
use switchboard_testkit::TestClient;

fn server(logging: bool) -> Server {
    let mut b = Server::builder("peer", "1")
        .tool(Tool::new("chatty").handler(|_: NoArgs, ctx: RequestContext| async move {
            ctx.log(LoggingLevel::Debug, Some("chatty"), json!("debug detail")).await;
            ctx.log(LoggingLevel::Info, Some("chatty"), json!({"step": 1})).await;
            ctx.log(LoggingLevel::Error, None, json!("something failed")).await;
            Ok("done")
        }))
        .tool(Tool::new("ask_model").handler(|_: NoArgs, ctx: RequestContext| async move {
            let answer = ctx
                .request_client(
                    "sampling/createMessage",
                    json!({"messages": [{"role": "user", "content": {"type": "text", "text": "2+2?"}}], "maxTokens": 10}),
                )
                .await
                .map_err(|e| ToolError::new(format!("sampling failed: {}", e.message)))?;
            Ok(format!("model said: {}", answer["content"]["text"].as_str().unwrap_or("?")))
        }));
    if logging {
        b = b.enable_logging();
    }
    b.build().unwrap()
}

async fn init_with(server: &Server, version: &str, capabilities: Value) -> TestClient {
    let mut c = TestClient::connect(server);
    let r = c
        .request_raw(
            "initialize",
            Some(json!({"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}})),
        )
        .await
        .unwrap();
    assert!(r.get("result").is_some(), "{r}");
    c.notify("notifications/initialized", None).await.unwrap();
    c
}

fn levels(notes: &[Value]) -> Vec<String> {
    notes
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .map(|n| n["params"]["level"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn log_messages_follow_the_sessions_level() {
    let server = server(true);
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    c.call_tool("chatty", json!({})).await.unwrap();
    assert_eq!(levels(&c.notifications()), ["info", "error"], "default threshold is info");
    assert_eq!(c.request("logging/setLevel", json!({"level": "debug"})).await.unwrap(), json!({}));
    c.call_tool("chatty", json!({})).await.unwrap();
    let notes = c.notifications();
    assert_eq!(levels(&notes), ["debug", "info", "error"]);
    assert_eq!(notes[1]["params"], json!({"level": "info", "logger": "chatty", "data": {"step": 1}}));
    c.request("logging/setLevel", json!({"level": "error"})).await.unwrap();
    c.call_tool("chatty", json!({})).await.unwrap();
    assert_eq!(levels(&c.notifications()), ["error"]);
    let e = c.request("logging/setLevel", json!({"level": "loud"})).await.unwrap_err();
    assert_eq!(e.code(), Some(-32602));
}

#[tokio::test]
async fn logging_is_advertised_only_when_enabled() {
    let mut c = TestClient::connect(&server(true));
    assert_eq!(c.initialize("2025-06-18").await.unwrap()["capabilities"]["logging"], json!({}));
    let quiet = server(false);
    let mut c = TestClient::connect(&quiet);
    assert!(c.initialize("2025-06-18").await.unwrap()["capabilities"].get("logging").is_none());
    assert_eq!(
        c.request("logging/setLevel", json!({"level": "debug"})).await.unwrap_err().code(),
        Some(-32601)
    );
    c.call_tool("chatty", json!({})).await.unwrap();
    assert!(levels(&c.notifications()).is_empty());
}

#[tokio::test]
async fn modern_requests_log_only_when_they_ask() {
    let server = server(true);
    let mut c = TestClient::connect_modern(&server);
    c.call_tool("chatty", json!({})).await.unwrap();
    assert!(levels(&c.notifications()).is_empty(), "no logLevel, no messages");
    let params = c.with_meta(
        json!({"name": "chatty", "arguments": {}, "_meta": {"io.modelcontextprotocol/logLevel": "info"}}),
    );
    let r = c.request_raw("tools/call", Some(params)).await.unwrap();
    assert!(r.get("result").is_some());
    assert_eq!(levels(&c.notifications()), ["info", "error"]);
    let params = c.with_meta(
        json!({"name": "chatty", "arguments": {}, "_meta": {"io.modelcontextprotocol/logLevel": "chatty"}}),
    );
    let r = c.request_raw("tools/call", Some(params)).await.unwrap();
    assert_eq!(r["error"]["code"], -32602);
    let r = c.request("logging/setLevel", json!({"level": "debug"})).await.unwrap_err();
    assert_eq!(r.code(), Some(-32601), "no setLevel in 2026-07-28");
}

#[tokio::test]
async fn sampling_round_trips_through_the_client() {
    let server = server(false);
    let mut c = init_with(&server, "2025-06-18", json!({"sampling": {}})).await;
    c.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask_model", "arguments": {}}}))
        .await
        .unwrap();
    let request = c.recv().await.unwrap();
    assert_eq!(request["method"], "sampling/createMessage");
    assert_eq!(request["params"]["maxTokens"], 10);
    let id = request["id"].clone();
    assert!(id.is_string());
    c.send(&json!({"jsonrpc": "2.0", "id": id, "result": {"role": "assistant", "content": {"type": "text", "text": "4"}, "model": "m"}}))
        .await
        .unwrap();
    let response = c.response_to(&json!(1)).await.unwrap();
    assert_eq!(response["result"]["content"][0]["text"], "model said: 4");
    // An answer nobody waits for is ignored.
    c.send(&json!({"jsonrpc": "2.0", "id": "srv-999", "result": {}})).await.unwrap();
    assert_eq!(c.request("ping", json!({})).await.unwrap(), json!({}));
}

#[tokio::test]
async fn client_errors_and_missing_capabilities_reach_the_tool() {
    let server = server(false);
    let mut c = init_with(&server, "2025-06-18", json!({"sampling": {}})).await;
    c.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask_model", "arguments": {}}}))
        .await
        .unwrap();
    let request = c.recv().await.unwrap();
    c.send(
        &json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -1, "message": "user declined"}}),
    )
    .await
    .unwrap();
    let response = c.response_to(&json!(1)).await.unwrap();
    assert_eq!(response["result"]["isError"], true);
    assert!(response["result"]["content"][0]["text"].as_str().unwrap().contains("user declined"));

    let mut c = init_with(&server, "2025-06-18", json!({})).await;
    let r = c.call_tool("ask_model", json!({})).await.unwrap();
    assert_eq!(r["isError"], true, "no sampling capability declared: {r}");
    let mut modern = TestClient::connect_modern(&server);
    let r = modern.call_tool("ask_model", json!({})).await.unwrap();
    assert_eq!(r["isError"], true, "no server-to-client requests in 2026-07-28");
}

/// An application told of the client's notifications asks the client for
/// its roots outside any request, on the session's own stream.
#[tokio::test]
async fn the_notification_hook_sees_client_notifications_and_can_ask_the_client() {
    let (seen_tx, mut seen) = tokio::sync::mpsc::unbounded_channel::<String>();
    let (roots_tx, mut roots) = tokio::sync::mpsc::unbounded_channel::<Value>();
    let server = Server::builder("hooked", "1")
        .on_client_notification(move |session, method| {
            let _ = seen_tx.send(method.to_owned());
            if method == "notifications/roots/list_changed" {
                let (session, roots_tx) = (std::sync::Arc::clone(session), roots_tx.clone());
                tokio::spawn(async move {
                    let answer = session.request_client_now("roots/list", json!({})).await;
                    let _ = roots_tx.send(answer.unwrap_or_else(|e| json!({"error": e.message})));
                });
            }
        })
        .build()
        .unwrap();
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    assert_eq!(seen.recv().await.unwrap(), "notifications/initialized");

    c.notify("notifications/roots/list_changed", None).await.unwrap();
    let asked = c.recv().await.unwrap();
    assert_eq!(asked["method"], "roots/list", "{asked}");
    c.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": [{"uri": "file:///work"}]}}))
        .await
        .unwrap();
    let answer =
        tokio::time::timeout(std::time::Duration::from_secs(10), roots.recv()).await.unwrap().unwrap();
    assert_eq!(answer["roots"][0]["uri"], "file:///work", "{answer}");
    assert_eq!(seen.recv().await.unwrap(), "notifications/roots/list_changed");
}
