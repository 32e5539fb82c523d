//! The Streamable HTTP transport over real loopback sockets.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::StreamExt;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use switchboard_http::HttpOptions;
use switchboard_server::types::ProtocolVersion;
use switchboard_server::{CallToolResult, NoArgs, RequestContext, Server, Tool};

use crate::support::{Serving, sse_events};

struct Running {
    url: String,
    client: Client,
    _serving: Serving,
}

fn server(cancelled: Arc<AtomicBool>) -> Server {
    Server::builder("http-test", "1")
        .tool(Tool::new("echo").description("echo").input_schema(json!({"type": "object"})).raw_handler(
            |args, _| async move { Ok(CallToolResult::text(args["text"].as_str().unwrap_or_default())) },
        ))
        .tool(Tool::new("steps").description("progress").handler(
            |_: NoArgs, ctx: RequestContext| async move {
                for i in 1..=3 {
                    ctx.progress(f64::from(i), Some(3.0), None).await;
                }
                Ok("done")
            },
        ))
        .tool(Tool::new("forever").description("never ends").handler(
            move |_: NoArgs, _ctx: RequestContext| {
                let cancelled = Arc::clone(&cancelled);
                async move {
                    struct Flag(Arc<AtomicBool>);
                    impl Drop for Flag {
                        fn drop(&mut self) {
                            self.0.store(true, Ordering::SeqCst);
                        }
                    }
                    let _flag = Flag(cancelled);
                    std::future::pending::<()>().await;
                    Ok("unreachable")
                }
            },
        ))
        .tool(
            Tool::new("regional")
                .description("has an x-mcp-header parameter")
                .input_schema(json!({
                    "type": "object",
                    "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
                }))
                .raw_handler(|_, _| async { Ok(CallToolResult::text("ok")) }),
        )
        .build()
        .unwrap()
}

async fn start_with(server: Server, options: HttpOptions) -> Running {
    let serving = Serving::start(server, options).await;
    Running { url: serving.url.clone(), client: Client::new(), _serving: serving }
}

async fn start() -> Running {
    start_with(server(Arc::new(AtomicBool::new(false))), HttpOptions::default()).await
}

impl Running {
    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        self.post_raw(body.to_string())
    }

    /// A POST with the headers a client sends and `body` as it is (which
    /// need not be JSON).
    fn post_raw(&self, body: impl Into<reqwest::Body>) -> reqwest::RequestBuilder {
        self.client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body)
    }

    async fn initialize(&self, version: &str) -> String {
        let r = self
            .post(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        assert!(sid.len() >= 22 && sid.bytes().all(|b| (0x21..=0x7e).contains(&b)), "{sid}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["result"]["protocolVersion"], version);
        let r = self
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .header("mcp-session-id", &sid)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202);
        assert!(r.bytes().await.unwrap().is_empty());
        sid
    }
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

fn modern_call(name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": modern_meta()}})
}

#[tokio::test]
async fn legacy_sessions_answer_json_and_sse() {
    let s = start().await;
    let sid = s.initialize("2025-06-18").await;
    let r = s
        .post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/json");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["result"]["tools"].as_array().unwrap().len(), 4);

    let r = s
        .post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "steps", "_meta": {"progressToken": "p"}}}))
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let events = sse_events(&r.text().await.unwrap());
    let messages: Vec<Value> = events.iter().map(|(_, d)| serde_json::from_str(d).unwrap()).collect();
    assert_eq!(messages.len(), 4, "three progress notifications, then the response");
    assert!(
        messages[..3]
            .iter()
            .all(|m| m["method"] == "notifications/progress" && m["params"]["progressToken"] == "p")
    );
    assert_eq!(messages[3]["id"], 2);
    assert_eq!(messages[3]["result"]["content"][0]["text"], "done");
    assert!(events.iter().all(|(id, _)| id.is_some()), "every event has an id for resumption");
}

#[tokio::test]
async fn deleting_a_session_cancels_its_requests_in_flight() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let s = start_with(server(Arc::clone(&cancelled)), HttpOptions::default()).await;
    let sid = s.initialize("2025-11-25").await;
    let call = s
        .post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "forever"}}))
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .send();
    // The request stays open (a handshake-era disconnect would not cancel it).
    let running = tokio::spawn(call);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!cancelled.load(Ordering::SeqCst), "running");
    let r = s
        .client
        .delete(&s.url)
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    for _ in 0..100 {
        if cancelled.load(Ordering::SeqCst) {
            running.abort();
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("deleting the session did not cancel its request");
}

#[tokio::test]
async fn session_errors_use_the_right_statuses() {
    let s = start().await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let r = s.post(&ping).send().await.unwrap();
    assert_eq!(r.status(), 400, "missing session id");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32600);
    let r = s.post(&ping).header("mcp-session-id", "nope").send().await.unwrap();
    assert_eq!(r.status(), 404);
    let sid = s.initialize("2025-11-25").await;
    let r = s
        .post(&ping)
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "1999-01-01")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "unsupported protocol version header");
    // Any supported revision is accepted in the header.
    let r = s
        .post(&ping)
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-03-26")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = s.client.delete(&s.url).header("mcp-session-id", &sid).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = s.post(&ping).header("mcp-session-id", &sid).send().await.unwrap();
    assert_eq!(r.status(), 404, "ended session");
    let sid = s.initialize("2025-06-18").await;
    let r = s.post(&json!([ping.clone()])).header("mcp-session-id", &sid).send().await.unwrap();
    assert_eq!(r.status(), 400, "no batches after 2025-03-26");
    let r = s
        .client
        .post(&s.url)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["error"]["code"], -32700);
}

#[tokio::test]
async fn batches_work_in_2025_03_26() {
    let s = start().await;
    let sid = s.initialize("2025-03-26").await;
    let r = s
        .post(&json!([
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        ]))
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    let ids: Vec<i64> = body.as_array().unwrap().iter().map(|m| m["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [1, 2]);
}

#[tokio::test]
async fn priming_events_and_resumption_for_2025_11_25() {
    let s = start().await;
    let old = s.initialize("2025-06-18").await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "steps", "_meta": {"progressToken": 1}}});
    let text = s.post(&call).header("mcp-session-id", &old).send().await.unwrap().text().await.unwrap();
    assert!(!text.contains("data: \n"), "no priming event for 2025-06-18: {text}");

    let sid = s.initialize("2025-11-25").await;
    let text = s.post(&call).header("mcp-session-id", &sid).send().await.unwrap().text().await.unwrap();
    assert!(text.starts_with("id: "), "{text}");
    assert!(text.contains("retry: 3000\ndata: \n\n"), "priming event: {text}");
    let events = sse_events(&text);
    assert_eq!(events[0].1, "", "priming event has empty data");
    // Resume after the first progress notification: the rest is replayed.
    let after = events[1].0.clone().unwrap();
    let get = |session: &str| {
        s.client
            .get(&s.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session.to_owned())
            .header("last-event-id", &after)
            .send()
    };
    let r = get(&sid).await.unwrap();
    assert_eq!(r.status(), 200);
    let replayed = sse_events(&r.text().await.unwrap());
    let messages: Vec<Value> = replayed.iter().map(|(_, d)| serde_json::from_str(d).unwrap()).collect();
    assert_eq!(messages.len(), 3, "two progress notifications and the response");
    assert_eq!(messages[2]["id"], 7);
    // Another session cannot replay it.
    let other = s.initialize("2025-11-25").await;
    assert_eq!(get(&other).await.unwrap().status(), 404);
}

#[tokio::test]
async fn the_get_stream_carries_list_changes() {
    let srv = server(Arc::new(AtomicBool::new(false)));
    let s = start_with(srv.clone(), HttpOptions::default()).await;
    let sid = s.initialize("2025-06-18").await;
    let open =
        || s.client.get(&s.url).header("accept", "text/event-stream").header("mcp-session-id", &sid).send();
    let r = open().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(open().await.unwrap().status(), 409, "one GET stream per session at a time");
    let mut body = r.bytes_stream();
    srv.add_tool(
        Tool::new("late").description("late").raw_handler(|_, _| async { Ok(CallToolResult::text("")) }),
    )
    .unwrap();
    let mut text = String::new();
    while !text.contains("list_changed") {
        let chunk =
            tokio::time::timeout(Duration::from_secs(10), body.next()).await.unwrap().unwrap().unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(text.contains("notifications/tools/list_changed"));
}

#[tokio::test]
async fn dns_rebinding_and_size_limits() {
    let mut options = HttpOptions::default();
    options.max_body = 1024;
    let s = start_with(server(Arc::new(AtomicBool::new(false))), options).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = s.post(&init).header("host", "evil.example.com").send().await.unwrap();
    assert_eq!(r.status(), 403);
    assert_eq!(r.json::<Value>().await.unwrap()["error"]["code"], -32600, "a JSON-RPC body, never empty");
    let r = s.post(&init).header("origin", "http://evil.example.com").send().await.unwrap();
    assert_eq!(r.status(), 403);
    let r = s.post(&init).header("origin", "http://localhost:1234").send().await.unwrap();
    assert_eq!(r.status(), 200);
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x".repeat(4096)}});
    let r = s.post(&big).send().await.unwrap();
    assert_eq!(r.status(), 413);
}

#[tokio::test]
async fn idle_sessions_expire() {
    let mut options = HttpOptions::default();
    options.session_idle_timeout = Duration::from_millis(200);
    let s = start_with(server(Arc::new(AtomicBool::new(false))), options).await;
    let sid = s.initialize("2025-11-25").await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    // Bounded wait for the sweeper: a termination check, not a timing
    // assertion. Each probe touches the session, so wait well past the
    // idle time between probes.
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(600)).await;
        let r = s.post(&ping).header("mcp-session-id", &sid).send().await.unwrap();
        if r.status() == 404 {
            return;
        }
    }
    panic!("the idle session never expired");
}

#[tokio::test]
async fn sessions_beyond_max_sessions_get_503_until_one_ends() {
    let mut options = HttpOptions::default();
    options.max_sessions = 2;
    let mut s = start_with(server(Arc::new(AtomicBool::new(false))), options).await;
    // Every request of this test is bounded.
    s.client = Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    let first = s.initialize("2025-11-25").await;
    let _second = s.initialize("2025-11-25").await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = s.post(&init).send().await.unwrap();
    assert_eq!(r.status(), 503);
    assert!(r.headers().get("mcp-session-id").is_none());
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32603, "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("too many open sessions"), "{body}");
    // The open sessions keep working; ending one makes room for another.
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let r = s.post(&ping).header("mcp-session-id", &first).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = s.client.delete(&s.url).header("mcp-session-id", &first).send().await.unwrap();
    assert_eq!(r.status(), 200);
    s.initialize("2025-11-25").await;
    let r = s.post(&init).send().await.unwrap();
    assert_eq!(r.status(), 503);
}

#[test]
fn transport_defaults_are_the_documented_ones() {
    // SECURITY.md, "Defaults, in one place".
    let o = HttpOptions::default();
    assert_eq!(o.header_timeout, Duration::from_secs(10));
    assert_eq!(o.max_sessions, 10_000);
    assert_eq!(o.session_idle_timeout, Duration::from_secs(30 * 60));
    assert_eq!(o.max_body, 4 * 1024 * 1024);
    assert_eq!(o.allowed_hosts, ["localhost", "127.0.0.1", "::1"]);
    assert!(o.auth.is_none());
}

fn modern_headers(b: reqwest::RequestBuilder, method: &str, name: &str) -> reqwest::RequestBuilder {
    b.header("mcp-protocol-version", "2026-07-28").header("mcp-method", method).header("mcp-name", name)
}

#[tokio::test]
async fn modern_requests_are_stateless_with_checked_headers() {
    let s = start().await;
    let call = modern_call("echo", json!({"text": "hi"}));
    let r = modern_headers(s.post(&call), "tools/call", "echo").send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("mcp-session-id").is_none(), "no sessions in 2026-07-28");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["result"]["content"][0]["text"], "hi");
    assert_eq!(body["result"]["resultType"], "complete");

    let code = |v: Value| v["error"]["code"].as_i64().unwrap();
    let r = s
        .post(&call)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-name", "echo")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(code(r.json().await.unwrap()), -32020, "missing Mcp-Method");
    let r = modern_headers(s.post(&call), "TOOLS/CALL", "echo").send().await.unwrap();
    assert_eq!(code(r.json().await.unwrap()), -32020, "methods are case-sensitive");
    let r = modern_headers(s.post(&call), "tools/call", "other").send().await.unwrap();
    assert_eq!(code(r.json().await.unwrap()), -32020, "name mismatch");
    let r = modern_headers(s.post(&call), "tools/call", "=?base64?ZWNobw==?=").send().await.unwrap();
    assert_eq!(r.status(), 200, "Base64-encoded header values are decoded");

    let mut no_meta = call.clone();
    no_meta["params"].as_object_mut().unwrap().remove("_meta");
    let r = modern_headers(s.post(&no_meta), "tools/call", "echo").send().await.unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(code(r.json().await.unwrap()), -32602);

    let mut future = call.clone();
    future["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let r = modern_headers(s.post(&future), "tools/call", "echo").send().await.unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(code(r.json().await.unwrap()), -32020, "header and body disagree");
    let r = s
        .post(&future)
        .header("mcp-protocol-version", "2099-01-01")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let e: Value = r.json().await.unwrap();
    assert_eq!(e["error"]["code"], -32022);
    assert_eq!(e["error"]["data"]["requested"], "2099-01-01");
    let supported: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
    assert_eq!(e["error"]["data"]["supported"], json!(supported));

    for method in ["initialize", "ping", "logging/setLevel", "resources/subscribe", "nope/nope"] {
        let body = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": {"_meta": modern_meta()}});
        let r = s
            .post(&body)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 404, "{method}");
        assert_eq!(code(r.json().await.unwrap()), -32601);
    }
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let r = s
            .client
            .request(method.clone(), &s.url)
            .header("mcp-protocol-version", "2026-07-28")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED, "{method}");
    }
    let r = s.post(&json!([call])).header("mcp-protocol-version", "2026-07-28").send().await.unwrap();
    assert_eq!(r.status(), 400, "no batches");
    let r = s
        .post(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "_meta": modern_meta()}}))
        .header("mcp-protocol-version", "2026-07-28")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
}

#[tokio::test]
async fn x_mcp_header_parameters_must_match_the_arguments() {
    let s = start().await;
    let send = |args: Value, region: Option<&str>| {
        let mut b = modern_headers(s.post(&modern_call("regional", args)), "tools/call", "regional");
        if let Some(r) = region {
            b = b.header("mcp-param-region", r);
        }
        b.send()
    };
    assert_eq!(send(json!({"region": "eu"}), Some("eu")).await.unwrap().status(), 200);
    assert_eq!(send(json!({}), None).await.unwrap().status(), 200);
    for (args, header) in
        [(json!({"region": "eu"}), None), (json!({"region": "eu"}), Some("us")), (json!({}), Some("eu"))]
    {
        let r = send(args.clone(), header).await.unwrap();
        assert_eq!(r.status(), 400, "{args} {header:?}");
        assert_eq!(r.json::<Value>().await.unwrap()["error"]["code"], -32020);
    }
}

#[tokio::test]
async fn modern_progress_streams_and_disconnect_cancels() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let s = start_with(server(Arc::clone(&cancelled)), HttpOptions::default()).await;
    let mut call = modern_call("steps", json!({}));
    call["params"]["_meta"]["progressToken"] = json!("t");
    let r = modern_headers(s.post(&call), "tools/call", "steps").send().await.unwrap();
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    assert_eq!(r.headers()["x-accel-buffering"], "no");
    let messages: Vec<Value> =
        sse_events(&r.text().await.unwrap()).iter().map(|(_, d)| serde_json::from_str(d).unwrap()).collect();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[3]["result"]["resultType"], "complete");

    // A request whose client goes away is cancelled.
    let r = modern_headers(s.post(&modern_call("forever", json!({}))), "tools/call", "forever")
        .timeout(Duration::from_millis(300))
        .send()
        .await;
    assert!(r.is_err(), "the tool never answers");
    for _ in 0..100 {
        if cancelled.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("closing the connection did not cancel the handler");
}

#[tokio::test]
async fn modern_listen_streams_over_sse() {
    let srv = server(Arc::new(AtomicBool::new(false)));
    let s = start_with(srv.clone(), HttpOptions::default()).await;
    let body = json!({"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": true}, "_meta": modern_meta()}});
    let r = s
        .post(&body)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let mut stream = r.bytes_stream();
    let mut text = String::new();
    while !text.contains("acknowledged") {
        let chunk =
            tokio::time::timeout(Duration::from_secs(10), stream.next()).await.unwrap().unwrap().unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    srv.add_tool(
        Tool::new("late").description("late").raw_handler(|_, _| async { Ok(CallToolResult::text("")) }),
    )
    .unwrap();
    while !text.contains("list_changed") {
        let chunk =
            tokio::time::timeout(Duration::from_secs(10), stream.next()).await.unwrap().unwrap().unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    let events = sse_events(&text);
    let first: Value = serde_json::from_str(&events[0].1).unwrap();
    assert_eq!(first["method"], "notifications/subscriptions/acknowledged");
    let last: Value = serde_json::from_str(&events.last().unwrap().1).unwrap();
    assert_eq!(last["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "L");
}

#[tokio::test]
async fn content_type_and_accept_are_checked() {
    let s = start().await;
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    let r = s
        .client
        .post(&s.url)
        .header("content-type", "text/plain")
        .header("accept", "application/json, text/event-stream")
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(r.json::<Value>().await.unwrap()["error"]["code"], -32600);
    for accept in ["text/html", ""] {
        let r = s
            .client
            .post(&s.url)
            .header("content-type", "application/json; charset=utf-8")
            .header("accept", accept)
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::NOT_ACCEPTABLE, "Accept: {accept:?}");
    }
    let r = s
        .post(&serde_json::from_str(&body).unwrap())
        .header("content-type", "application/json; charset=utf-8")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn graceful_shutdown_finishes_requests_in_flight() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let (started_tx, mut started_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let server = Server::builder("shutdown", "1")
        .tool(Tool::new("slow").description("waits").handler({
            let gate = Arc::clone(&gate);
            move |_: NoArgs, _ctx: RequestContext| {
                let gate = Arc::clone(&gate);
                let started = started_tx.clone();
                async move {
                    let _ = started.send(());
                    gate.notified().await;
                    Ok("finished")
                }
            }
        }))
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(switchboard_http::serve_listener(
        server,
        listener,
        HttpOptions::default(),
        async move {
            let _ = stop_rx.await;
        },
    ));
    let client = Client::new();
    let mut call = modern_call("slow", json!({}));
    call["id"] = json!(9);
    let request = tokio::spawn(
        modern_headers(
            client
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(call.to_string()),
            "tools/call",
            "slow",
        )
        .send(),
    );
    started_rx.recv().await.unwrap();
    stop_tx.send(()).unwrap();
    gate.notify_one();
    let response = request.await.unwrap().unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<Value>().await.unwrap()["result"]["content"][0]["text"], "finished");
    serving.await.unwrap().unwrap();
}

#[tokio::test]
async fn legacy_clients_can_be_served_without_sessions() {
    let mut options = HttpOptions::default();
    options.legacy_sessions = false;
    let s = start_with(server(Arc::new(AtomicBool::new(false))), options).await;
    let r = s
        .post(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("mcp-session-id").is_none(), "no session is minted");
    assert_eq!(r.json::<Value>().await.unwrap()["result"]["protocolVersion"], "2025-11-25");
    let r = s
        .post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}}))
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["result"]["content"][0]["text"], "hi");
    let r = s.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).send().await.unwrap();
    assert_eq!(r.status(), 202);
    // A batch (2025-03-26) and a broken body take the full parse; both are
    // answered as with sessions.
    let batch = json!([
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "b"}}}
    ]);
    let r = s.post(&batch).header("mcp-protocol-version", "2025-03-26").send().await.unwrap();
    assert_eq!(r.status(), 200);
    let replies: Value = r.json().await.unwrap();
    assert_eq!(replies.as_array().map(Vec::len), Some(2), "{replies}");
    assert_eq!(replies[1]["result"]["content"][0]["text"], "b");
    let r = s.post_raw("{\"jsonrpc\": \"2.0\", \"id\": 4,").send().await.unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["error"]["code"], -32700);
    // A response from the client is accepted with nothing to answer.
    let r = s.post(&json!({"jsonrpc": "2.0", "id": 9, "result": {}})).send().await.unwrap();
    assert_eq!(r.status(), 202);
    let r = s.client.get(&s.url).header("accept", "text/event-stream").send().await.unwrap();
    assert_eq!(r.status(), 405, "no GET stream without sessions");
}

#[tokio::test]
async fn a_session_without_a_get_stream_never_blocks_its_handlers() {
    let server = Server::builder("chatty", "1")
        .enable_logging()
        .tool(Tool::new("chatty").description("logs a lot").handler(
            |_: NoArgs, ctx: RequestContext| async move {
                for i in 0..3000 {
                    ctx.log(switchboard_server::types::logging::LoggingLevel::Info, None, json!(i)).await;
                }
                Ok("done")
            },
        ))
        .build()
        .unwrap();
    let mut options = HttpOptions::default();
    options.response_mode = switchboard_http::ResponseMode::Json;
    let s = start_with(server, options).await;
    let sid = s.initialize("2025-11-25").await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chatty"}});
    let r =
        tokio::time::timeout(Duration::from_secs(30), s.post(&call).header("mcp-session-id", &sid).send())
            .await
            .expect("the handler was not blocked by undelivered log messages")
            .unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["result"]["content"][0]["text"], "done");
    // The messages went to the session's standalone stream: a GET resumes them.
    let r = s
        .client
        .get(&s.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("last-event-id", "g.2990")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let mut stream = r.bytes_stream();
    let mut text = String::new();
    while sse_events(&text).len() < 9 {
        let chunk =
            tokio::time::timeout(Duration::from_secs(10), stream.next()).await.unwrap().unwrap().unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    let last: Value = serde_json::from_str(&sse_events(&text)[8].1).unwrap();
    assert_eq!(last["params"]["data"], 2999);
}

#[tokio::test]
async fn health_and_readiness_answer_any_host_without_a_store() {
    let running = start().await;
    let base = running.url.trim_end_matches("/mcp").to_owned();
    for path in ["/healthz", "/readyz"] {
        // Probes come by address from load balancers: no Host allow-list.
        let r =
            running.client.get(format!("{base}{path}")).header("host", "10.1.2.3:8080").send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        let body: Value = r.json().await.unwrap();
        assert!(body == json!({"alive": true}) || body == json!({"ready": true}), "{path}: {body}");
    }
}

/// A 2025-11-25 task over HTTP: once the POST answered with the
/// `CreateTaskResult`, the task's progress (its token stays valid) and its
/// questions (live requests) come on the session's GET stream, and the
/// answer POSTed back reaches the task.
#[tokio::test]
async fn a_2025_11_25_task_reports_progress_and_asks_on_the_get_stream() {
    let server = Server::builder("tasks-over-http", "1")
        .tool(Tool::new("ask_and_tick").task_support(switchboard_server::TaskSupport::Optional).handler(
            |_: NoArgs, ctx: RequestContext| async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                ctx.progress(1.0, Some(2.0), None).await;
                let schema = json!({"type": "object", "properties": {"v": {"type": "string"}}});
                let answer = ctx.elicit("v", "V?", schema).await?;
                ctx.progress(2.0, Some(2.0), None).await;
                Ok(format!("got {}", answer["content"]["v"]))
            },
        ))
        .build()
        .unwrap();
    let s = start_with(server, HttpOptions::default()).await;
    let init = s
        .post(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "clientInfo": {"name": "t", "version": "1"},
            "capabilities": {"elicitation": {}, "tasks": {"list": {}, "cancel": {}}}}}))
        .send()
        .await
        .unwrap();
    let sid = init.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let in_session = |body: Value| {
        s.post(&body).header("mcp-session-id", &sid).header("mcp-protocol-version", "2025-11-25").send()
    };
    assert_eq!(
        in_session(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await.unwrap().status(),
        202
    );
    let stream = s
        .client
        .get(&s.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let mut stream = stream.bytes_stream();

    let created = in_session(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "ask_and_tick", "arguments": {}, "task": {"ttl": 60_000}, "_meta": {"progressToken": "p"}}}))
    .await
    .unwrap()
    .text()
    .await
    .unwrap();
    let created = sse_events(&created).pop().map_or(created.clone(), |(_, data)| data);
    let created: Value = serde_json::from_str(&created).unwrap();
    let task_id = created["result"]["task"]["taskId"].as_str().expect("a CreateTaskResult").to_owned();

    // Read the GET stream until the second progress report, answering the question on the way.
    let (mut text, mut progress, mut asked) = (String::new(), Vec::new(), 0);
    let mut seen = 0;
    while progress.len() < 2 {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .unwrap_or_else(|_| panic!("the GET stream went quiet: {text}"))
            .unwrap()
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
        // Only whole events: a chunk may end inside one.
        let events = sse_events(&text[..text.rfind("\n\n").map_or(0, |end| end + 2)]);
        for (_, data) in events.iter().skip(seen) {
            let message: Value = serde_json::from_str(data).unwrap();
            if message["method"] == "notifications/progress" {
                assert_eq!(message["params"]["progressToken"], "p", "{message}");
                progress.push(message["params"]["progress"].as_f64().unwrap());
            } else if message["method"] == "elicitation/create" {
                asked += 1;
                let answer = json!({"jsonrpc": "2.0", "id": message["id"],
                                    "result": {"action": "accept", "content": {"v": "yes"}}});
                assert_eq!(in_session(answer).await.unwrap().status(), 202);
            }
        }
        seen = events.len();
    }
    assert_eq!((progress, asked), (vec![1.0, 2.0], 1));
    let result = in_session(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": task_id}}),
    )
    .await
    .unwrap()
    .text()
    .await
    .unwrap();
    assert!(result.contains(r#"got \"yes\""#), "{result}");
}

/// `HttpOptions::poll_before_sleep` through the accept loop: on the
/// single-threaded runtime (`#[tokio::test]`'s), after a request's bytes the
/// server keeps looking for the next one instead of sleeping, for the window;
/// with a zero window the thread sleeps whenever it waits. Both answer alike.
#[tokio::test]
async fn the_single_threaded_server_looks_for_the_next_request_for_the_window_instead_of_sleeping() {
    let parks = || tokio::runtime::Handle::current().metrics().worker_park_count(0);
    for (window, sleeps) in [(Duration::from_secs(3), false), (Duration::ZERO, true)] {
        let mut options = HttpOptions::default();
        options.legacy_sessions = false;
        options.poll_before_sleep = window;
        let s = start_with(server(Arc::new(AtomicBool::new(false))), options).await;
        let ping = |id: u64| {
            s.post(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
                .header("mcp-protocol-version", "2025-06-18")
        };
        assert_eq!(ping(1).send().await.unwrap().json::<Value>().await.unwrap()["result"], json!({}));
        let before = parks();
        // The client waits a moment (a timer) before its next request.
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(ping(2).send().await.unwrap().json::<Value>().await.unwrap()["result"], json!({}));
        assert_eq!(parks() > before, sleeps, "window {window:?}");
    }
}
