//! End-to-end backpressure over real pipes: `switchboard serve --fixtures
//! demo` answers every one of 10,000 pipelined requests with a result,
//! although far more than its `max_in_flight` (256) are sent before the
//! first is answered, and a `notifications/cancelled` still stops a running
//! request while the window is full.
//!
//! The client writes on one thread and reads on another, as a pipelining
//! client must: the server stops reading while its window is full, so a
//! client that wrote everything before reading anything would wait forever
//! on the pipe.

use std::io::Write;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common;

/// Every test here fails instead of hanging past this.
const DEADLINE: Duration = Duration::from_secs(120);

/// `switchboard serve --fixtures demo` with its stdout read by a thread.
struct Served {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Served {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(["serve", "--fixtures", "demo"])
            .current_dir(std::env::temp_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("switchboard starts");
        let lines = common::read_lines(child.stdout.take().expect("stdout is piped"));
        let stdin = child.stdin.take();
        Self { child, stdin, lines }
    }

    /// Writes the handshake and then `requests` on a thread of their own.
    fn write_all(&mut self, requests: Vec<Value>) -> JoinHandle<ChildStdin> {
        let mut stdin = self.stdin.take().expect("stdin not handed out yet");
        std::thread::spawn(move || {
            let handshake = [
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "pipeliner", "version": "1"}}}),
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ];
            let mut out = std::io::BufWriter::new(&mut stdin);
            for message in handshake.iter().chain(&requests) {
                writeln!(out, "{message}").expect("write to switchboard");
            }
            out.flush().expect("flush");
            drop(out);
            stdin
        })
    }

    /// The next response (messages without an id are skipped), or `None`
    /// once `deadline` has passed.
    fn next_response(&self, deadline: Instant) -> Option<Value> {
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let line = self.lines.recv_timeout(left).ok()?;
            let message: Value = serde_json::from_str(&line).expect("stdout lines are JSON");
            if message.get("id").is_some() && message.get("method").is_none() {
                return Some(message);
            }
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// Whether a response is a successful result (not an error, not a tool error).
fn succeeded(response: &Value) -> bool {
    response.get("result").is_some() && response["result"]["isError"] != true
}

#[test]
fn ten_thousand_pipelined_requests_over_stdio_are_all_answered_without_errors() {
    const REQUESTS: u64 = 10_000;
    // 300 one-second countdowns first fill the 256-request window; every
    // 16th request after them is another, the rest are echoes.
    let requests: Vec<Value> = (1..=REQUESTS)
        .map(|id| match id {
            1..=300 => call(id, "countdown", json!({"seconds": 1})),
            _ if id % 16 == 0 => call(id, "countdown", json!({"seconds": 1})),
            _ => call(id, "echo", json!({"text": format!("message {id}")})),
        })
        .collect();
    let mut served = Served::start();
    let writer = served.write_all(requests);
    let deadline = Instant::now() + DEADLINE;
    let mut answered = vec![false; usize::try_from(REQUESTS).unwrap() + 1];
    let (mut count, mut failures) = (0, Vec::new());
    while count < answered.len() {
        let response = served
            .next_response(deadline)
            .unwrap_or_else(|| panic!("only {count} of {} answered within {DEADLINE:?}", answered.len()));
        let id = usize::try_from(response["id"].as_u64().expect("integer ids")).unwrap();
        assert!(!std::mem::replace(&mut answered[id], true), "id {id} answered twice");
        count += 1;
        if !succeeded(&response) {
            failures.push(response);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {REQUESTS} requests failed, e.g. {:?}",
        failures.len(),
        &failures[..failures.len().min(3)]
    );
    drop(writer.join().expect("the writer finished"));
}

#[test]
fn a_cancel_stops_a_running_countdown_while_the_window_is_full() {
    // 256 minute-long countdowns fill the window; an echo waits behind
    // them until the cancel frees a place.
    let mut requests: Vec<Value> =
        (1..=256).map(|id| call(id, "countdown", json!({"seconds": 60}))).collect();
    requests.push(call(1000, "echo", json!({"text": "behind the window"})));
    requests.push(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}));
    let mut served = Served::start();
    let writer = served.write_all(requests);
    // Well under the countdowns' minute: the echo ran because the cancel got through.
    let deadline = Instant::now() + Duration::from_secs(30);
    let initialized = served.next_response(deadline).expect("initialize is answered");
    assert!(succeeded(&initialized), "{initialized}");
    let echoed = served.next_response(deadline).expect("the echo is answered once a place frees");
    assert_eq!(echoed["id"], 1000, "nothing else may finish first: {echoed}");
    assert_eq!(echoed["result"]["content"][0]["text"], "behind the window");
    drop(writer.join().expect("the writer finished"));
}
