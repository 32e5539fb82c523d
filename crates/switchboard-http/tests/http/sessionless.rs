//! Handshake-era requests without a session (`legacy_sessions: false`):
//! answered as SSE when the response mode says so (in `auto`, a progress
//! token asks for it), with every progress message before the result;
//! answered as JSON otherwise, when what a handler sends before its result
//! has nowhere to go and must be dropped, not queued for a reader that
//! never comes (a full queue would stall the handler).

use std::time::Duration;

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use switchboard_http::{HttpOptions, ResponseMode};
use switchboard_server::{CallToolResult, RequestContext, Server, Tool, ToolError};

/// A server whose `chatty` tool reports progress 500 times (far more than
/// any queue holds) before it answers, served without sessions.
async fn start(mode: ResponseMode) -> String {
    let server = Server::builder("sessionless", "1")
        .tool(
            Tool::new("chatty")
                .description("reports progress 500 times")
                .input_schema(json!({"type": "object"}))
                .raw_handler(|_: Value, ctx: RequestContext| async move {
                    for step in 1..=500 {
                        ctx.progress(f64::from(step), Some(500.0), None).await;
                    }
                    Ok::<_, ToolError>(CallToolResult::text("done"))
                }),
        )
        .build()
        .unwrap();
    let mut options = HttpOptions::default();
    options.legacy_sessions = false;
    options.response_mode = mode;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(switchboard_http::serve_listener(server, listener, options, std::future::pending()));
    url
}

/// POSTs a `tools/call` of `chatty` with a progress token; the response.
async fn call_chatty(url: &str) -> reqwest::Response {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "chatty", "arguments": {}, "_meta": {"progressToken": "p"}}});
    Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-06-18")
        .json(&call)
        .timeout(Duration::from_secs(20))
        .send()
        .await
        .expect("answered well within the time limit")
}

#[tokio::test]
async fn answered_as_json_what_a_handler_sends_first_is_dropped_without_a_stall() {
    let response = call_chatty(&start(ResponseMode::Json).await).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["result"]["content"][0]["text"], "done", "{body}");
}

#[tokio::test]
async fn with_a_progress_token_the_answer_is_sse_with_every_progress_message_then_the_result() {
    let response = call_chatty(&start(ResponseMode::Auto).await).await;
    assert_eq!(response.status(), StatusCode::OK);
    let kind = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(kind.starts_with("text/event-stream"), "{kind}");
    let body = response.text().await.unwrap();
    let messages: Vec<Value> = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter(|data| !data.trim().is_empty())
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect();
    let progress = messages.iter().filter(|m| m["method"] == "notifications/progress").count();
    assert_eq!(progress, 500, "every progress message arrives");
    let last = messages.last().unwrap();
    assert_eq!(last["result"]["content"][0]["text"], "done", "the result comes last: {last}");
}
