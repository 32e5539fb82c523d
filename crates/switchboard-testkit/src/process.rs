//! A client for a server that runs as a process and speaks MCP on its
//! stdin and stdout (newline-delimited JSON-RPC): what the example crates'
//! tests use to run their real binaries as a client would.
//!
//! Every wait is bounded ([`StdioProcess::WAIT`]), so a server that hangs
//! fails the test instead of blocking it, and the process is killed when
//! the client is dropped.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A server process, spoken to over its stdin and stdout.
#[derive(Debug)]
pub struct StdioProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: i64,
}

impl StdioProcess {
    /// How long any one answer may take.
    pub const WAIT: Duration = Duration::from_secs(10);

    /// Starts `command` with piped stdin and stdout (stderr passes through).
    pub fn start(mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("{command:?} does not start: {e}"));
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self { child, stdin, lines, next_id: 0 }
    }

    /// Starts `command` and completes the `initialize` handshake at `version`.
    pub fn initialized(command: Command, version: &str) -> Self {
        let mut process = Self::start(command);
        let init = process.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
        );
        assert_eq!(init["result"]["protocolVersion"], version, "{init}");
        process.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        process
    }

    /// Writes one message and a newline.
    pub fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("the server reads its stdin");
        self.stdin.flush().expect("the server reads its stdin");
    }

    /// Sends a request and waits (at most [`Self::WAIT`]) for the response
    /// with its id; other messages are skipped.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + Self::WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|e| panic!("no answer to {method}: {e}"));
            let message: Value = serde_json::from_str(&line).expect("stdout carries JSON only");
            if message["id"] == id {
                return message;
            }
        }
    }

    /// The `result` of a request that must succeed.
    pub fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }
}

impl Drop for StdioProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
