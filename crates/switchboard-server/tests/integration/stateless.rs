//! The shared session of independent 2026-07-28 requests
//! (`Server::stateless_session`, what stateless HTTP uses instead of a
//! session per request): requests from different clients may reuse an id,
//! their messages go to their own stream, a per-caller rate limit binds a
//! principal (and without one only the global limit applies, as when each
//! request had a session of its own), and `initialize` and
//! `subscriptions/listen`, which need a session, are refused.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_server::{Principal, RateLimit, RequestContext, Server, ServerOptions, Tool, Via};
use switchboard_testkit::TestClient;

fn server(options: ServerOptions) -> Server {
    Server::builder("stateless", "1")
        .options(options)
        .tool(Tool::new("wait").description("w").input_schema(json!({"type": "object"})).raw_handler(
            |args: Value, ctx: RequestContext| async move {
                ctx.progress(1.0, None, Some("started")).await;
                tokio::time::sleep(Duration::from_millis(args["ms"].as_u64().unwrap_or(0))).await;
                Ok::<_, switchboard_server::ToolError>(switchboard_server::CallToolResult::text("done"))
            },
        ))
        .build()
        .unwrap()
}

fn request(id: u64, method: &str, mut params: Value, progress: bool) -> Vec<u8> {
    params["_meta"] = TestClient::modern_meta();
    if progress {
        params["_meta"]["progressToken"] = json!("p");
    }
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap()
}

async fn answer(server: &Server, frame: &[u8], via: &Via) -> Value {
    let session = server.stateless_session();
    let bytes = server.accept_via(&session, frame, via).resolve().await.unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test]
async fn requests_of_different_clients_may_share_an_id_and_their_messages_go_to_their_own_streams() {
    let server = server(ServerOptions::default());
    let shared = server.stateless_session();
    let (tx_a, mut rx_a) = tokio::sync::mpsc::channel(8);
    let (tx_b, mut rx_b) = tokio::sync::mpsc::channel(8);
    let (via_a, via_b) =
        (Via { stream: Some(tx_a), ..Via::default() }, Via { stream: Some(tx_b), ..Via::default() });
    let call = |ms| request(1, "tools/call", json!({"name": "wait", "arguments": {"ms": ms}}), true);
    let (frame_a, frame_b) = (call(50), call(10));
    let a = server.accept_via(&shared, &frame_a, &via_a);
    let b = server.accept_via(&shared, &frame_b, &via_b);
    let (a, b) = tokio::join!(a.resolve(), b.resolve());
    for reply in [a, b] {
        let reply: Value = serde_json::from_slice(&reply.unwrap()).unwrap();
        assert_eq!(reply["result"]["content"][0]["text"], "done", "both run, id 1 twice: {reply}");
    }
    for rx in [&mut rx_a, &mut rx_b] {
        let progress: Value = serde_json::from_slice(&rx.try_recv().unwrap()).unwrap();
        assert_eq!(progress["method"], "notifications/progress", "{progress}");
        assert!(rx.try_recv().is_err(), "one progress message per request, on its own stream");
    }
}

#[tokio::test]
async fn initialize_and_listen_need_a_session_of_their_own() {
    let server = server(ServerOptions::default());
    let initialize =
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
        .unwrap();
    let refused = answer(&server, &initialize, &Via::default()).await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let listen =
        request(2, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}), false);
    let refused = answer(&server, &listen, &Via::default()).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("session of its own"), "{refused}");
}

#[tokio::test]
async fn a_per_caller_limit_binds_a_principal_and_without_one_only_the_global_limit_applies() {
    let mut options = ServerOptions::default();
    options.tool_rate_per_caller = Some(RateLimit { per_minute: 60, burst: 2 });
    let server = Arc::new(server(options));
    let call = request(1, "tools/call", json!({"name": "wait", "arguments": {}}), false);
    let ann = Via { principal: Some(Principal::new("ann")), ..Via::default() };
    let codes =
        |replies: Vec<Value>| -> Vec<Value> { replies.iter().map(|r| r["error"]["code"].clone()).collect() };
    let mut replies = Vec::new();
    for _ in 0..3 {
        replies.push(answer(&server, &call, &ann).await);
    }
    assert_eq!(codes(replies), [Value::Null, Value::Null, json!(-32029)], "ann's budget of 2");
    let mut replies = Vec::new();
    for _ in 0..5 {
        replies.push(answer(&server, &call, &Via::default()).await);
    }
    assert!(
        codes(replies).iter().all(Value::is_null),
        "anonymous stateless requests have no budget of their own"
    );
}
