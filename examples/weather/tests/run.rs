//! Builds and runs the example binary, then talks to it over stdio as a
//! client would: newline-delimited JSON-RPC on its stdin and stdout.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long any one answer may take before the test fails.
const WAIT: Duration = Duration::from_secs(10);

/// The example binary, spoken to over its stdin and stdout.
struct Client {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: i64,
}

impl Client {
    /// Starts the binary and completes the `initialize` handshake.
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_example-weather"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the example starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut client = Client { child, stdin, lines, next_id: 0 };
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
        );
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and waits (bounded) for the response with its id;
    /// other messages are skipped.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + WAIT;
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
    fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn lists_the_tool_with_its_output_schema() {
    let mut c = Client::start(&[]);
    let tools = c.result("tools/list", json!({}));
    let forecast = &tools["tools"][0];
    assert_eq!(forecast["name"], "forecast");
    assert_eq!(forecast["inputSchema"]["required"], json!(["city", "days"]));
    assert_eq!(forecast["inputSchema"]["properties"]["days"]["maximum"], 7);
    let output = &forecast["outputSchema"];
    assert_eq!(output["type"], "object");
    assert_eq!(output["required"], json!(["city", "days"]));
    assert!(output["$defs"]["Day"]["properties"]["high_celsius"].is_object(), "{output}");
}

#[test]
fn a_call_returns_structured_content() {
    let mut c = Client::start(&[]);
    let r = c.result("tools/call", json!({"name": "forecast", "arguments": {"city": "Lisbon", "days": 3}}));
    assert_ne!(r["isError"], true, "{r}");
    let data = &r["structuredContent"];
    assert_eq!(data["city"], "Lisbon");
    assert_eq!(data["days"].as_array().unwrap().len(), 3);
    assert_eq!(data["days"][2]["offset"], 2);
    // The same data as text, for clients that do not read structuredContent.
    let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, data);
    // Deterministic: asking again gives the same forecast.
    let again =
        c.result("tools/call", json!({"name": "forecast", "arguments": {"city": "Lisbon", "days": 3}}));
    assert_eq!(again["structuredContent"], *data);
}

#[test]
fn bad_calls_are_errors() {
    let mut c = Client::start(&[]);
    // Arguments outside the input schema: a tool result with isError.
    let r = c.result("tools/call", json!({"name": "forecast", "arguments": {"city": "Oslo", "days": 9}}));
    assert_eq!(r["isError"], true, "{r}");
    assert!(r["content"][0]["text"].as_str().unwrap().contains("/days"), "{r}");
    let r = c.result("tools/call", json!({"name": "forecast", "arguments": {"city": "Oslo"}}));
    assert_eq!(r["isError"], true, "{r}");
    // The tool's own refusal.
    let r = c.result("tools/call", json!({"name": "forecast", "arguments": {"city": " ", "days": 1}}));
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(r["content"][0]["text"], "city must not be empty");
    // An unknown tool: a JSON-RPC error.
    let r = c.request("tools/call", json!({"name": "nope", "arguments": {}}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
}

#[test]
fn reads_the_current_weather_resource() {
    let mut c = Client::start(&[]);
    let templates = c.result("resources/templates/list", json!({}));
    assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "weather://{city}/current");
    let r = c.result("resources/read", json!({"uri": "weather://Oslo/current"}));
    let contents = &r["contents"][0];
    assert_eq!(contents["uri"], "weather://Oslo/current");
    assert_eq!(contents["mimeType"], "text/plain");
    assert!(contents["text"].as_str().unwrap().starts_with("Oslo: "), "{r}");
}
