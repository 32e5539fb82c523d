//! Backpressure on a line transport: a client that pipelines more requests
//! than `max_in_flight` gets every one answered, the connection stops
//! reading while its window and queue are full (so memory stays bounded),
//! and cancellations still get through. Per-message dispatch (what HTTP
//! uses) keeps refusing the excess with `-32029`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_server::transport::LineTransport;
use switchboard_server::{Accepted, CallToolResult, ProtocolVersion, Server, ServerOptions, Tool, ToolError};
use switchboard_testkit::TestClient;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

/// Every test here fails instead of hanging past this.
const DEADLINE: Duration = Duration::from_secs(120);

/// Counts handlers that started, that are running, the most that ever ran
/// at once, and those stopped before they finished (cancelled).
#[derive(Debug, Default)]
struct Counts {
    started: AtomicUsize,
    running: AtomicUsize,
    peak: AtomicUsize,
    stopped: AtomicUsize,
}

/// Held by a running handler: counts it in and out.
struct Running {
    counts: Arc<Counts>,
    finished: bool,
}

impl Running {
    fn new(counts: &Arc<Counts>) -> Self {
        counts.started.fetch_add(1, Ordering::SeqCst);
        let now = counts.running.fetch_add(1, Ordering::SeqCst) + 1;
        counts.peak.fetch_max(now, Ordering::SeqCst);
        Self { counts: Arc::clone(counts), finished: false }
    }

    fn finish(mut self) {
        self.finished = true;
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.counts.running.fetch_sub(1, Ordering::SeqCst);
        if !self.finished {
            self.counts.stopped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// The input schema of tools that take any arguments.
fn any_object() -> Value {
    json!({"type": "object"})
}

/// A server with `quick`, `pause` (sleeps `arguments.ms`), `gate` (waits
/// for a permit of `gate`) and `hang` (an hour), all counted in `counts`.
fn server(max_in_flight: usize, counts: &Arc<Counts>, gate: &Arc<Semaphore>) -> Server {
    let mut options = ServerOptions::default();
    options.max_in_flight = max_in_flight;
    let quick = Tool::new("quick")
        .description("q")
        .raw_handler(|_: Value, _| async { Ok::<_, ToolError>(CallToolResult::text("ok")) });
    let c = Arc::clone(counts);
    let pause =
        Tool::new("pause").description("p").input_schema(any_object()).raw_handler(move |args: Value, _| {
            let running = Running::new(&c);
            async move {
                tokio::time::sleep(Duration::from_millis(args["ms"].as_u64().unwrap_or(1))).await;
                running.finish();
                Ok::<_, ToolError>(CallToolResult::text("paused"))
            }
        });
    let (c, g) = (Arc::clone(counts), Arc::clone(gate));
    let gated =
        Tool::new("gate").description("g").input_schema(any_object()).raw_handler(move |_: Value, _| {
            let (running, gate) = (Running::new(&c), Arc::clone(&g));
            async move {
                gate.acquire().await.expect("the gate stays open").forget();
                running.finish();
                Ok::<_, ToolError>(CallToolResult::text("through"))
            }
        });
    let c = Arc::clone(counts);
    let hang = Tool::new("hang").description("h").raw_handler(move |_: Value, _| {
        let running = Running::new(&c);
        async move {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            running.finish();
            Ok::<_, ToolError>(CallToolResult::text("late"))
        }
    });
    Server::builder("backpressure", "1")
        .options(options)
        .tool(quick)
        .tool(pause)
        .tool(gated)
        .tool(hang)
        .build()
        .unwrap()
}

/// A 2026-07-28 `tools/call` (no handshake needed), as one line.
fn call(id: u64, tool: &str, arguments: Value) -> Vec<u8> {
    let params = json!({"name": tool, "arguments": arguments, "_meta": TestClient::modern_meta()});
    let mut line =
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
            .unwrap();
    line.push(b'\n');
    line
}

/// Runs `server`'s connection loop over an in-memory pipe of `capacity`
/// bytes each way; the client's halves.
fn connect(
    server: &Server,
    capacity: usize,
) -> (WriteHalf<DuplexStream>, BufReader<ReadHalf<DuplexStream>>, JoinHandle<switchboard_server::Result<()>>)
{
    let (client, server_end) = tokio::io::duplex(capacity);
    let (read, write) = tokio::io::split(server_end);
    let transport = LineTransport::new(read, write, server.options().max_message_size);
    let server = server.clone();
    let task = tokio::spawn(async move { server.serve(transport).await });
    let (read, write) = tokio::io::split(client);
    (write, BufReader::new(read), task)
}

/// Reads responses until `expected` have arrived; each must be a result
/// (an error fails the test with the first few) and no id may repeat.
async fn read_answers(mut reader: BufReader<ReadHalf<DuplexStream>>, expected: usize) -> usize {
    let mut seen = vec![false; expected + 1];
    let (mut answered, mut errors) = (0, Vec::new());
    let mut line = String::new();
    while answered < expected {
        line.clear();
        assert!(reader.read_line(&mut line).await.unwrap() > 0, "the server closed after {answered}");
        let message: Value = serde_json::from_str(&line).unwrap();
        let Some(id) = message["id"].as_u64() else { continue };
        let id = usize::try_from(id).unwrap();
        assert!(!std::mem::replace(&mut seen[id], true), "id {id} answered twice");
        answered += 1;
        if message.get("result").is_none() || message["result"]["isError"] == true {
            errors.push(message);
        }
    }
    assert!(
        errors.is_empty(),
        "{} of {expected} answered with errors, e.g. {:?}",
        errors.len(),
        &errors[..3.min(errors.len())]
    );
    answered
}

#[tokio::test]
async fn ten_thousand_pipelined_requests_are_all_answered_without_errors() {
    const REQUESTS: u64 = 10_000;
    const WINDOW: usize = 32;
    let counts = Arc::new(Counts::default());
    let server = server(WINDOW, &counts, &Arc::new(Semaphore::new(0)));
    let (mut writer, reader, task) = connect(&server, 64 * 1024);
    // Twice the window of 200 ms pauses first, so the window and its queue
    // are certainly full; then every eighth request pauses 2 ms.
    let writing = tokio::spawn(async move {
        for id in 1..=REQUESTS {
            let line = match id {
                1..=64 => call(id, "pause", json!({"ms": 200})),
                _ if id % 8 == 0 => call(id, "pause", json!({"ms": 2})),
                _ => call(id, "quick", json!({})),
            };
            writer.write_all(&line).await.unwrap();
        }
        writer
    });
    let answered =
        tokio::time::timeout(DEADLINE, read_answers(reader, 10_000)).await.expect("answered in time");
    assert_eq!(answered, 10_000);
    assert_eq!(counts.peak.load(Ordering::SeqCst), WINDOW, "the window filled and was never exceeded");
    assert_eq!(counts.stopped.load(Ordering::SeqCst), 0);
    drop(writing.await.unwrap());
    task.await.unwrap().unwrap();
}

#[tokio::test(start_paused = true)]
async fn reading_stops_while_the_window_and_its_queue_are_full() {
    const WINDOW: usize = 4;
    const REQUESTS: u64 = 200;
    const PAD: usize = 16 * 1024;
    // What may sit between the writer and the queue once reading stops:
    // the reader's 64 KiB buffer and the pipe's, in whole lines, plus one.
    const IN_BUFFERS: usize = (64 * 1024 + PAD) / PAD + 1;
    let counts = Arc::new(Counts::default());
    let gate = Arc::new(Semaphore::new(0));
    let server = server(WINDOW, &counts, &gate);
    let (mut writer, reader, task) = connect(&server, PAD);
    let written = Arc::new(AtomicUsize::new(0));
    let w = Arc::clone(&written);
    let writing = tokio::spawn(async move {
        for id in 1..=REQUESTS {
            writer.write_all(&call(id, "gate", json!({"pad": "x".repeat(PAD)}))).await.unwrap();
            w.fetch_add(1, Ordering::SeqCst);
        }
        writer
    });
    let answers = tokio::spawn(read_answers(reader, 200));
    // The clock is paused: this sleep ends only once every task is stuck.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let stuck_at = written.load(Ordering::SeqCst);
    assert_eq!(counts.started.load(Ordering::SeqCst), WINDOW, "only the window runs");
    assert!(
        (2 * WINDOW..=2 * WINDOW + IN_BUFFERS).contains(&stuck_at),
        "the client could write {stuck_at} of {REQUESTS} requests before the server stopped reading"
    );
    gate.add_permits(200);
    let answered = tokio::time::timeout(DEADLINE, answers).await.expect("answered in time").unwrap();
    assert_eq!(answered, 200);
    assert_eq!(counts.peak.load(Ordering::SeqCst), WINDOW);
    drop(writing.await.unwrap());
    task.await.unwrap().unwrap();
}

/// Sends a legacy `tools/call`.
async fn send_call(client: &mut TestClient, id: i64, tool: &str) {
    let params = json!({"name": tool, "arguments": {}});
    client
        .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
        .await
        .unwrap();
}

async fn cancel(client: &mut TestClient, id: i64) {
    let params = json!({"requestId": id, "reason": "no longer needed"});
    client
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}))
        .await
        .unwrap();
}

/// Waits until `n` handlers are running (the caller bounds the wait).
async fn running(counts: &Counts, n: usize) {
    while counts.running.load(Ordering::SeqCst) < n {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Reads until the responses to `until` arrived; the ids answered, in order.
async fn answered_ids(client: &mut TestClient, until: &[i64]) -> Vec<i64> {
    let mut ids = Vec::new();
    while !until.iter().all(|id| ids.contains(id)) {
        let message = client.recv().await.unwrap();
        if let (Some(id), None) = (message["id"].as_i64(), message.get("method")) {
            assert!(message.get("result").is_some() && message["result"]["isError"] != true, "{message}");
            ids.push(id);
        }
    }
    ids
}

#[tokio::test]
async fn a_cancel_reaches_a_running_request_while_the_window_is_full() {
    let counts = Arc::new(Counts::default());
    let server = server(2, &counts, &Arc::new(Semaphore::new(0)));
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    tokio::time::timeout(DEADLINE, async {
        send_call(&mut client, 1, "hang").await;
        send_call(&mut client, 2, "hang").await;
        running(&counts, 2).await;
        // The window is full: this one waits for a place.
        send_call(&mut client, 3, "quick").await;
        cancel(&mut client, 1).await;
        let ids = answered_ids(&mut client, &[3]).await;
        assert_eq!(ids, [3], "the cancelled request is not answered");
        assert_eq!(counts.stopped.load(Ordering::SeqCst), 1, "its handler was stopped");
        assert_eq!(counts.running.load(Ordering::SeqCst), 1, "the other still runs");
    })
    .await
    .expect("in time");
}

#[tokio::test]
async fn a_cancel_reaches_a_request_still_waiting_for_a_place() {
    let counts = Arc::new(Counts::default());
    let server = server(2, &counts, &Arc::new(Semaphore::new(0)));
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    tokio::time::timeout(DEADLINE, async {
        for id in 1..=3 {
            send_call(&mut client, id, "hang").await;
        }
        running(&counts, 2).await;
        cancel(&mut client, 3).await;
        cancel(&mut client, 1).await;
        send_call(&mut client, 4, "quick").await;
        let ids = answered_ids(&mut client, &[4]).await;
        assert_eq!(ids, [4], "neither cancelled request is answered");
        assert_eq!(counts.started.load(Ordering::SeqCst), 2, "the waiting one never started");
    })
    .await
    .expect("in time");
}

#[tokio::test]
async fn a_batch_larger_than_the_connection_holds_is_refused_beyond_it() {
    // max_in_flight 1: the connection holds 1 running + 1 waiting.
    let counts = Arc::new(Counts::default());
    let server = server(1, &counts, &Arc::new(Semaphore::new(0)));
    let mut client = TestClient::connect_legacy(&server, "2025-03-26").await;
    let batch: Vec<Value> = (1..=3)
        .map(|id| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "quick", "arguments": {}}}))
        .collect();
    client.send(&Value::Array(batch)).await.unwrap();
    let reply = tokio::time::timeout(DEADLINE, client.recv()).await.expect("in time").unwrap();
    let replies = reply.as_array().unwrap_or_else(|| panic!("a batch reply: {reply}"));
    let refused: Vec<&Value> = replies.iter().filter(|r| r.get("error").is_some()).collect();
    assert_eq!(replies.len() - refused.len(), 2, "{reply}");
    assert_eq!(refused.len(), 1, "{reply}");
    assert_eq!(refused[0]["id"], 3);
    assert_eq!(refused[0]["error"]["code"], -32029);
    assert_eq!(refused[0]["error"]["data"]["maxInFlight"], 2);
}

#[tokio::test]
async fn per_message_dispatch_still_refuses_requests_beyond_max_in_flight() {
    // What HTTP does: each message on its own through Server::accept.
    let counts = Arc::new(Counts::default());
    let server = server(2, &counts, &Arc::new(Semaphore::new(0)));
    let (tx, _rx) = tokio::sync::mpsc::channel(16);
    let session = server.new_session(tx, None);
    session.assume_initialized(ProtocolVersion::V2025_06_18);
    let frame = |id: u64| {
        let mut line = call(id, "hang", json!({}));
        line.pop();
        // Legacy: no _meta.
        let mut v: Value = serde_json::from_slice(&line).unwrap();
        v["params"].as_object_mut().unwrap().remove("_meta");
        serde_json::to_vec(&v).unwrap()
    };
    let held: Vec<Accepted> = (1..=2).map(|id| server.accept(&session, &frame(id))).collect();
    assert!(held.iter().all(|a| matches!(a, Accepted::Pending(_))), "{held:?}");
    let Accepted::Done(Some(bytes)) = server.accept(&session, &frame(3)) else { panic!("refused at once") };
    let refused: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(refused["error"]["code"], -32029, "{refused}");
    assert_eq!(refused["error"]["data"]["maxInFlight"], 2);
}
