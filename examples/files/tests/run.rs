//! Builds and runs the example binary, then talks to it over stdio as a
//! client would: newline-delimited JSON-RPC on its stdin and stdout.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
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
    /// Starts the binary in `dir` and completes the `initialize` handshake.
    fn start(dir: &Path, args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_example-files"))
            .args(args)
            .current_dir(dir)
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

/// A folder with a few files, hidden ones among them.
fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "Hello, files!\n").unwrap();
    std::fs::create_dir(dir.path().join("notes")).unwrap();
    std::fs::write(dir.path().join("notes/to do.md"), "# To do\n").unwrap();
    std::fs::write(dir.path().join("pixel.bin"), [0u8, 159, 146, 150]).unwrap();
    std::fs::write(dir.path().join(".secret"), "hidden").unwrap();
    dir
}

#[test]
fn lists_the_files_of_the_folder_given() {
    let dir = folder();
    // Started elsewhere, with the folder as its argument.
    let mut c = Client::start(&std::env::temp_dir(), &[dir.path().to_str().unwrap()]);
    let list = c.result("resources/list", json!({}));
    let uris: Vec<&str> =
        list["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["file:///hello.txt", "file:///notes/to%20do.md", "file:///pixel.bin"]);
    let hello = &list["resources"][0];
    assert_eq!(hello["name"], "hello.txt");
    assert_eq!(hello["mimeType"], "text/plain");
    assert_eq!(hello["size"], 14);
    let templates = c.result("resources/templates/list", json!({}));
    assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "file:///{+path}");
}

#[test]
fn serves_the_current_directory_by_default() {
    let dir = folder();
    let mut c = Client::start(dir.path(), &[]);
    let list = c.result("resources/list", json!({}));
    assert_eq!(list["resources"].as_array().unwrap().len(), 3, "{list}");
}

#[test]
fn reads_text_and_binary_files() {
    let dir = folder();
    let mut c = Client::start(dir.path(), &[]);
    let r = c.result("resources/read", json!({"uri": "file:///hello.txt"}));
    assert_eq!(
        r["contents"],
        json!([{"uri": "file:///hello.txt", "mimeType": "text/plain", "text": "Hello, files!\n"}])
    );
    let r = c.result("resources/read", json!({"uri": "file:///notes/to%20do.md"}));
    assert_eq!(r["contents"][0]["text"], "# To do\n");
    assert_eq!(r["contents"][0]["mimeType"], "text/markdown");
    let r = c.result("resources/read", json!({"uri": "file:///pixel.bin"}));
    assert_eq!(r["contents"][0]["blob"], "AJ+Slg==");
    // Not listed, but inside the folder: readable, including files made after start.
    assert_eq!(
        c.result("resources/read", json!({"uri": "file:///.secret"}))["contents"][0]["text"],
        "hidden"
    );
    std::fs::write(dir.path().join("later.txt"), "new").unwrap();
    assert_eq!(c.result("resources/read", json!({"uri": "file:///later.txt"}))["contents"][0]["text"], "new");
}

#[test]
fn refuses_paths_outside_the_folder_and_missing_files() {
    let parent = tempfile::tempdir().unwrap();
    std::fs::write(parent.path().join("outside.txt"), "secret").unwrap();
    std::fs::create_dir(parent.path().join("served")).unwrap();
    let mut c = Client::start(&parent.path().join("served"), &[]);
    for uri in ["file:///../outside.txt", "file:///%2e%2e/outside.txt", "file:///a/..%2f..%2foutside.txt"] {
        let r = c.request("resources/read", json!({"uri": uri}));
        assert_eq!(r["error"]["code"], -32602, "{uri}: {r}");
        assert!(!r.to_string().contains("secret"), "{r}");
    }
    // Missing: the spec's resource-not-found error (-32002 before 2026-07-28).
    let r = c.request("resources/read", json!({"uri": "file:///missing.txt"}));
    assert_eq!(r["error"]["code"], -32002, "{r}");
    assert_eq!(r["error"]["data"]["uri"], "file:///missing.txt");
    // Not a URI this server serves at all.
    let r = c.request("resources/read", json!({"uri": "https://example.com/"}));
    assert_eq!(r["error"]["code"], -32002, "{r}");
}

#[test]
fn a_missing_folder_is_an_error_at_start() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_example-files"))
        .arg("/definitely/not/here")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot serve /definitely/not/here"));
}
