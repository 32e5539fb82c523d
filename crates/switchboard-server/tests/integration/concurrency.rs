//! Concurrency, cancellation, progress, panics and end of input.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_server::transport::LineTransport;
use switchboard_server::{NoArgs, RequestContext, Server, ServerOptions, Tool};
use switchboard_testkit::TestClient;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tokio::sync::{Notify, mpsc};

use crate::common;

/// Sets a flag when dropped: proves a handler's future was dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

struct Fixture {
    server: Server,
    release: Arc<Notify>,
    started: tokio::sync::Mutex<mpsc::UnboundedReceiver<()>>,
    dropped: Arc<AtomicBool>,
}

fn fixture(options: ServerOptions) -> Fixture {
    let release = Arc::new(Notify::new());
    let dropped = Arc::new(AtomicBool::new(false));
    let (started_tx, started_rx) = mpsc::unbounded_channel();
    let server = common::builder()
        .options(options)
        .tool(Tool::new("gate").handler({
            let release = Arc::clone(&release);
            let started = started_tx.clone();
            move |_: NoArgs, _ctx: RequestContext| {
                let release = Arc::clone(&release);
                let started = started.clone();
                async move {
                    let _ = started.send(());
                    release.notified().await;
                    Ok("released")
                }
            }
        }))
        .tool(Tool::new("forever").handler({
            let dropped = Arc::clone(&dropped);
            let started = started_tx.clone();
            move |_: NoArgs, _ctx: RequestContext| {
                let flag = DropFlag(Arc::clone(&dropped));
                let started = started.clone();
                async move {
                    let _flag = flag;
                    let _ = started.send(());
                    std::future::pending::<()>().await;
                    Ok("never")
                }
            }
        }))
        .tool(Tool::new("steps").handler(|_: NoArgs, ctx: RequestContext| async move {
            assert!(ctx.progress(1.0, Some(2.0), Some("half")).await || ctx.progress_token().is_none());
            ctx.progress(2.0, Some(2.0), Some("all")).await;
            // Not increasing: dropped.
            let sent = ctx.progress(2.0, Some(2.0), Some("again")).await;
            Ok(format!("repeat sent: {sent}"))
        }))
        .tool(Tool::new("boom").handler(|_: NoArgs, _ctx: RequestContext| async move {
            if true {
                panic!("handler exploded");
            }
            Ok("unreachable")
        }))
        .build()
        .unwrap();
    Fixture { server, release, started: tokio::sync::Mutex::new(started_rx), dropped }
}

fn call(id: Value, name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}})
}

#[tokio::test]
async fn a_slow_handler_does_not_block_others() {
    let f = fixture(ServerOptions::default());
    let mut c = TestClient::connect_legacy(&f.server, "2025-11-25").await;
    c.send(&call(json!(1), "gate")).await.unwrap();
    f.started.lock().await.recv().await.unwrap();
    c.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "fast"}}}))
        .await
        .unwrap();
    let first = c.recv().await.unwrap();
    assert_eq!(first["id"], 2, "the fast call answers while the slow one waits");
    f.release.notify_one();
    let r = c.response_to(&json!(1)).await.unwrap();
    assert_eq!(r["result"]["content"][0]["text"], "released");
}

#[tokio::test]
async fn cancellation_drops_the_handler_and_sends_nothing() {
    for id in [json!(41), json!("req-41")] {
        let f = fixture(ServerOptions::default());
        let mut c = TestClient::connect_legacy(&f.server, "2025-06-18").await;
        c.send(&call(id.clone(), "forever")).await.unwrap();
        f.started.lock().await.recv().await.unwrap();
        c.notify("notifications/cancelled", Some(json!({"requestId": id, "reason": "user pressed stop"})))
            .await
            .unwrap();
        c.send(&json!({"jsonrpc": "2.0", "id": 1000, "method": "ping"})).await.unwrap();
        let next: Value = serde_json::from_str(&c.recv_line().await.unwrap()).unwrap();
        assert_eq!(next["id"], 1000, "no response for the cancelled request");
        assert!(f.dropped.load(Ordering::SeqCst), "the handler's future was dropped");
        // Cancelling an unknown or finished request is ignored.
        c.notify("notifications/cancelled", Some(json!({"requestId": 12345}))).await.unwrap();
        assert_eq!(c.request("ping", json!({})).await.unwrap(), json!({}));
    }
}

#[tokio::test]
async fn progress_uses_the_callers_token_and_only_increases() {
    let f = fixture(ServerOptions::default());
    for (version, token) in
        [("2025-06-18", json!("tok")), ("2025-03-26", json!(7)), ("2024-11-05", json!("old"))]
    {
        let mut c = TestClient::connect_legacy(&f.server, version).await;
        let r = c
            .request_raw(
                "tools/call",
                Some(json!({"name": "steps", "arguments": {}, "_meta": {"progressToken": token}})),
            )
            .await
            .unwrap();
        assert_eq!(r["result"]["content"][0]["text"], "repeat sent: false");
        let notes = c.notifications();
        assert_eq!(notes.len(), 2, "{version}: {notes:?}");
        for (n, expected) in notes.iter().zip([1.0, 2.0]) {
            assert_eq!(n["method"], "notifications/progress");
            assert_eq!(n["params"]["progressToken"], token, "same JSON type");
            assert_eq!(n["params"]["progress"], expected);
            assert_eq!(n["params"]["total"], 2.0);
            assert_eq!(n["params"].get("message").is_some(), version != "2024-11-05", "{version}");
        }
    }
    let mut c = TestClient::connect_legacy(&f.server, "2025-11-25").await;
    c.call_tool("steps", json!({})).await.unwrap();
    assert!(c.notifications().is_empty(), "no token, no progress");
    let mut m = TestClient::connect_modern(&f.server);
    let params = m.with_meta(json!({"name": "steps", "arguments": {}, "_meta": {"progressToken": 5}}));
    m.request_raw("tools/call", Some(params)).await.unwrap();
    assert_eq!(m.notifications().len(), 2, "2026-07-28 progress on the request's stream");
}

#[tokio::test]
async fn a_panicking_handler_is_an_internal_error() {
    let f = fixture(ServerOptions::default());
    let mut c = TestClient::connect_legacy(&f.server, "2025-11-25").await;
    let r = c.request_raw("tools/call", Some(json!({"name": "boom"}))).await.unwrap();
    assert_eq!(r["error"]["code"], -32603);
    assert!(!r["error"]["message"].as_str().unwrap().contains("exploded"), "internals stay out of errors");
    assert_eq!(c.call_tool("echo", json!({"text": "alive"})).await.unwrap()["content"][0]["text"], "alive");
}

#[tokio::test]
async fn an_id_in_flight_cannot_be_reused() {
    let f = fixture(ServerOptions::default());
    let mut c = TestClient::connect_legacy(&f.server, "2025-11-25").await;
    c.send(&call(json!(5), "gate")).await.unwrap();
    f.started.lock().await.recv().await.unwrap();
    c.send(&call(json!(5), "echo")).await.unwrap();
    let dup = c.recv().await.unwrap();
    assert_eq!((dup["id"].clone(), dup["error"]["code"].clone()), (json!(5), json!(-32600)));
    f.release.notify_one();
    let r = c.recv().await.unwrap();
    assert_eq!(r["result"]["content"][0]["text"], "released");
}

async fn raw_connection(
    server: &Server,
) -> (tokio::task::JoinHandle<switchboard_server::Result<()>>, tokio::io::DuplexStream) {
    let (client, server_end) = tokio::io::duplex(64 * 1024);
    let (r, w) = tokio::io::split(server_end);
    let server = server.clone();
    let task = tokio::spawn(async move { server.serve(LineTransport::new(r, w, 1 << 20)).await });
    (task, client)
}

#[tokio::test]
async fn end_of_input_lets_requests_finish() {
    let f = fixture(ServerOptions::default());
    let (task, client) = raw_connection(&f.server).await;
    let (r, mut w) = tokio::io::split(client);
    let mut lines = tokio::io::BufReader::new(r).lines();
    let modern = |name: &str| {
        let mut c = call(json!(1), name);
        c["params"]["_meta"] = TestClient::modern_meta();
        format!("{c}\n")
    };
    w.write_all(modern("gate").as_bytes()).await.unwrap();
    f.started.lock().await.recv().await.unwrap();
    w.shutdown().await.unwrap();
    f.release.notify_one();
    let line = lines.next_line().await.unwrap().unwrap();
    let r: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(r["result"]["content"][0]["text"], "released");
    task.await.unwrap().unwrap();
}

#[tokio::test(start_paused = true)]
async fn end_of_input_cancels_what_outlives_the_grace_period() {
    let mut options = ServerOptions::default();
    options.shutdown_grace = Duration::from_secs(5);
    let f = fixture(options);
    let (task, client) = raw_connection(&f.server).await;
    let (_r, mut w) = tokio::io::split(client);
    let mut c = call(json!(1), "forever");
    c["params"]["_meta"] = TestClient::modern_meta();
    w.write_all(format!("{c}\n").as_bytes()).await.unwrap();
    f.started.lock().await.recv().await.unwrap();
    w.shutdown().await.unwrap();
    task.await.unwrap().unwrap();
    assert!(f.dropped.load(Ordering::SeqCst));
}

#[tokio::test]
async fn tools_added_and_removed_at_run_time_are_announced() {
    let server = common::server();
    let mut ready = TestClient::connect_legacy(&server, "2025-06-18").await;
    let mut not_ready = TestClient::connect(&server);
    not_ready
        .request_raw("initialize", Some(json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}})))
        .await
        .unwrap();
    let mut modern = TestClient::connect_modern(&server);
    modern.request("tools/list", json!({})).await.unwrap();

    server.add_tool(common::failing_tool("late")).unwrap();
    ready.next_notification("notifications/tools/list_changed").await.unwrap();
    assert!(ready.list_all_tools().await.unwrap().iter().any(|t| t["name"] == "late"));
    assert!(server.remove_tool("late"));
    ready.next_notification("notifications/tools/list_changed").await.unwrap();
    assert!(!ready.list_all_tools().await.unwrap().iter().any(|t| t["name"] == "late"));

    not_ready.request_raw("ping", None).await.unwrap();
    assert!(not_ready.notifications().is_empty(), "no list_changed before notifications/initialized");
    modern.request("tools/list", json!({})).await.unwrap();
    assert!(modern.notifications().is_empty(), "2026-07-28 clients only hear through listen streams");
}
