//! Change notifications between real `switchboard serve --http` processes on
//! a real Redis survive an outage: a tool list changed on instance A (by a
//! 2026-07-28 call, which needs no shared state) while Redis is down still
//! reaches the 2025-11-25 session's GET stream on instance B once Redis is
//! back, as the exact notification or as the over-approximation of a gap.

use std::time::Duration;

use futures::StreamExt;
use serde_json::json;
use switchboard_testkit::redis::RedisServer;

use crate::common;

const TOOLS_CHANGED: &str = "notifications/tools/list_changed";

async fn conformance_instance(redis: &RedisServer) -> (tokio::process::Child, String) {
    let args = ["serve", "--http", "127.0.0.1:0", "--state", &redis.url(), "--fixtures", "conformance"];
    common::start_http(&args, None, &[]).await
}

/// Opens a ready 2025-11-25 session on `url` and its GET stream; the
/// stream's text arrives on the returned channel.
async fn listening_session(
    http: &reqwest::Client,
    url: &str,
) -> tokio::sync::mpsc::UnboundedReceiver<String> {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (answer, session) = common::post_mcp(http, url, "2025-11-25", None, init).await;
    assert!(answer.get("result").is_some(), "{answer}");
    let session = session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    common::post_mcp(http, url, "2025-11-25", Some(&session), initialized).await;
    let response = http
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut body = response.bytes_stream();
        while let Some(Ok(chunk)) = body.next().await {
            if tx.send(String::from_utf8_lossy(&chunk).into_owned()).is_err() {
                return;
            }
        }
    });
    rx
}

/// Whether `needle` arrives on `stream` within `wait`.
async fn arrives(
    stream: &mut tokio::sync::mpsc::UnboundedReceiver<String>,
    needle: &str,
    wait: Duration,
) -> bool {
    let deadline = tokio::time::Instant::now() + wait;
    let mut seen = String::new();
    while let Ok(Some(text)) = tokio::time::timeout_at(deadline, stream.recv()).await {
        seen.push_str(&text);
        if seen.contains(needle) {
            return true;
        }
    }
    false
}

async fn change_tools(http: &reqwest::Client, url: &str, id: u64) -> u16 {
    let params = json!({"name": "test_trigger_tool_change", "arguments": {},
        "_meta": common::meta_2026(json!({}))});
    common::post_tools_call_2026(http, url, id, params).await.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_change_made_while_redis_is_down_reaches_the_other_instances_client() {
    let mut redis = RedisServer::start();
    let (_a, a_url) = conformance_instance(&redis).await;
    let (_b, b_url) = conformance_instance(&redis).await;
    let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    let mut stream = listening_session(&http, &b_url).await;

    // B's bus reads: a change on A shows on B's stream (bounded retries).
    let mut id = 10;
    loop {
        assert_eq!(change_tools(&http, &a_url, id).await, 200);
        if arrives(&mut stream, TOOLS_CHANGED, Duration::from_millis(500)).await {
            break;
        }
        id += 1;
        assert!(id < 40, "no list change crossed instances");
    }
    while arrives(&mut stream, TOOLS_CHANGED, Duration::from_millis(500)).await {}

    tokio::task::block_in_place(|| redis.stop());
    assert_eq!(change_tools(&http, &a_url, 100).await, 200, "a stateless call needs no Redis");
    assert!(!arrives(&mut stream, TOOLS_CHANGED, Duration::from_millis(500)).await, "nothing can cross yet");
    tokio::task::block_in_place(|| redis.restart());

    assert!(
        arrives(&mut stream, TOOLS_CHANGED, Duration::from_secs(20)).await,
        "the change made during the outage (or a gap covering it) reaches B's client"
    );
}
