//! A harness for end-to-end tests of the real `switchboard` binary over stdio:
//! a reader thread turns stdout lines into messages, so every wait has a
//! timeout and a test never hangs on a missing notification.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long any single wait may take before the test fails.
pub const WAIT: Duration = Duration::from_secs(30);

/// The lines of `stdout`, read by a thread of their own (so a test waits
/// on a channel with a timeout, never on the pipe).
pub fn read_lines(stdout: std::process::ChildStdout) -> mpsc::Receiver<String> {
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    lines
}

/// A running `switchboard serve` on stdio.
pub struct Switchboard {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stash: VecDeque<Value>,
    next_id: i64,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    /// The client's roots: when set, every `roots/list` request is
    /// answered with them as it arrives ([`Switchboard::start_with_roots`]).
    roots: Option<Value>,
    /// How many `roots/list` requests were answered.
    pub roots_asked: usize,
}

impl Switchboard {
    /// Starts `switchboard` with `args` in `cwd`, initialized as a 2025-11-25 client.
    pub fn start(args: &[&str], cwd: &Path) -> Self {
        Self::start_with_env(args, cwd, &[])
    }

    /// [`Switchboard::start`] with `env` added to switchboard's environment.
    pub fn start_with_env(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Self {
        Self::start_at(args, cwd, env, "2025-11-25")
    }

    /// [`Switchboard::start_with_env`], initialized at protocol `version`.
    pub fn start_at(args: &[&str], cwd: &Path, env: &[(&str, &str)], version: &str) -> Self {
        Self::start_as(args, cwd, env, version, json!({}))
    }

    /// [`Switchboard::start_with_env`] as a client that declares `roots`
    /// (with `listChanged`) and answers `roots/list` with `roots` (an array
    /// of `{"uri", "name"}`), until [`Switchboard::change_roots`].
    pub fn start_with_roots(args: &[&str], cwd: &Path, env: &[(&str, &str)], roots: Value) -> Self {
        Self::start_full(args, cwd, env, "2025-11-25", json!({"roots": {"listChanged": true}}), Some(roots))
    }

    /// Answers `roots/list` with `roots` from now on and tells switchboard
    /// (`notifications/roots/list_changed`).
    pub fn change_roots(&mut self, roots: Value) {
        self.roots = Some(roots);
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
    }

    /// [`Switchboard::start_at`], declaring the client `capabilities`.
    pub fn start_as(
        args: &[&str],
        cwd: &Path,
        env: &[(&str, &str)],
        version: &str,
        capabilities: Value,
    ) -> Self {
        Self::start_full(args, cwd, env, version, capabilities, None)
    }

    fn start_full(
        args: &[&str],
        cwd: &Path,
        env: &[(&str, &str)],
        version: &str,
        capabilities: Value,
        roots: Option<Value>,
    ) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(args)
            .current_dir(cwd)
            .env("SWITCHBOARD_LOG", "info")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("switchboard starts");
        let lines = read_lines(child.stdout.take().expect("stdout is piped"));
        let stderr_pipe = child.stderr.take().expect("stderr is piped");
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines() {
                let Ok(line) = line else { return };
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        let stdin = child.stdin.take();
        let mut switchboard =
            Self { child, stdin, lines, stash: VecDeque::new(), next_id: 0, stderr, roots, roots_asked: 0 };
        let init = switchboard.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "e2e", "version": "1"}}),
        );
        assert_eq!(init["result"]["protocolVersion"], version, "initialize failed: {init}");
        switchboard.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        switchboard
    }

    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write to switchboard");
        stdin.flush().expect("flush");
    }

    /// The next message before `deadline`; a `roots/list` request is
    /// answered here when the client has roots, and not returned.
    fn recv(&mut self, deadline: Instant) -> Option<Value> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).ok()?;
            let v: Value =
                serde_json::from_str(&line).unwrap_or_else(|_| panic!("stdout line is not JSON: {line:?}"));
            assert_eq!(v["jsonrpc"], "2.0", "{line}");
            if v["method"] == "roots/list"
                && v.get("id").is_some()
                && let Some(roots) = self.roots.clone()
            {
                self.roots_asked += 1;
                self.send(&json!({"jsonrpc": "2.0", "id": v["id"], "result": {"roots": roots}}));
                continue;
            }
            return Some(v);
        }
    }

    /// The child's stdin, for writing raw bytes.
    pub fn stdin(&mut self) -> &mut ChildStdin {
        self.stdin.as_mut().expect("stdin open")
    }

    /// Writes `bytes` followed by a newline.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin();
        stdin.write_all(bytes).expect("write to switchboard");
        stdin.write_all(b"\n").expect("write to switchboard");
        stdin.flush().expect("flush");
    }

    /// The next message on stdout, whatever it is.
    pub fn next_message(&mut self) -> Value {
        if let Some(m) = self.stash.pop_front() {
            return m;
        }
        let deadline = Instant::now() + WAIT;
        self.recv(deadline)
            .unwrap_or_else(|| panic!("no message within {WAIT:?}; stderr:\n{}", self.stderr()))
    }

    /// Sends a request and returns the whole response (result or error).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(id)
    }

    /// Waits for the response to request `id` (sent earlier), keeping what
    /// comes before it.
    pub fn response(&mut self, id: i64) -> Value {
        let answered = |m: &Value| m["id"] == id && m.get("method").is_none();
        if let Some(pos) = self.stash.iter().position(answered) {
            return self.stash.remove(pos).expect("in range");
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let m =
                self.recv(deadline).unwrap_or_else(|| panic!("no answer to request {id} within {WAIT:?}"));
            if answered(&m) {
                return m;
            }
            self.stash.push_back(m);
        }
    }

    /// A request's result; panics with the error otherwise.
    pub fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        match response.get("result") {
            Some(r) => r.clone(),
            None => panic!("{method} failed: {response}"),
        }
    }

    /// Waits for a notification with this method (and, if given, a `uri`).
    pub fn notification(&mut self, method: &str, uri: Option<&str>) -> Value {
        let matches = |m: &Value| m["method"] == method && uri.is_none_or(|u| m["params"]["uri"] == u);
        if let Some(pos) = self.stash.iter().position(matches) {
            return self.stash.remove(pos).expect("in range");
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let Some(m) = self.recv(deadline) else {
                panic!("no {method} {uri:?} within {WAIT:?}; stderr:\n{}", self.stderr())
            };
            if matches(&m) {
                return m;
            }
            self.stash.push_back(m);
        }
    }

    /// Every message received so far and not yet taken, without waiting.
    pub fn received(&mut self) -> Vec<Value> {
        let mut out: Vec<Value> = self.stash.drain(..).collect();
        while let Ok(line) = self.lines.try_recv() {
            out.push(
                serde_json::from_str(&line).unwrap_or_else(|_| panic!("stdout line is not JSON: {line:?}")),
            );
        }
        out
    }

    /// Forgets notifications received so far.
    pub fn drain(&mut self) {
        while let Ok(line) = self.lines.try_recv() {
            let _ = line;
        }
        self.stash.clear();
    }

    /// Everything switchboard wrote on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits until stderr contains `needle`.
    pub fn wait_stderr(&self, needle: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let text = self.stderr();
            if text.contains(needle) {
                return text;
            }
            assert!(Instant::now() < deadline, "stderr never said {needle:?}:\n{text}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The process id of switchboard.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes switchboard's stdin (the client went away).
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Waits up to `timeout` for switchboard to exit; panics if it does not.
    pub fn wait_exit(&mut self, timeout: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("switchboard can be waited for") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "switchboard still running after {timeout:?}; stderr:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Closes stdin and waits for a clean exit.
    pub fn finish(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().expect("switchboard exits");
        assert!(status.success(), "switchboard exited with {status:?}; stderr:\n{}", self.stderr());
    }
}

impl Drop for Switchboard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `switchboard` with `args` in `cwd` to completion: (success, stdout, stderr).
pub fn run(args: &[&str], cwd: &Path) -> (bool, String, String) {
    run_with_env(args, cwd, &[])
}

/// [`run`] with `env` added to switchboard's environment (stdin is empty).
pub fn run_with_env(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(args)
        .current_dir(cwd)
        .envs(env.iter().copied())
        .output()
        .expect("switchboard runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Starts `switchboard` with `args` (which serve HTTP on `127.0.0.1:0`), in `dir`
/// when given, with `env` added; returns the child (killed when dropped)
/// and the MCP URL it printed on its one stdout line.
pub async fn start_http(
    args: &[&str],
    dir: Option<&Path>,
    env: &[(&str, &str)],
) -> (tokio::process::Child, String) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command.args(args).stdout(Stdio::piped()).stderr(Stdio::null()).kill_on_drop(true);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("switchboard starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stdout));
    let line = tokio::time::timeout(WAIT, lines.next_line())
        .await
        .expect("switchboard prints where it listens")
        .expect("stdout is readable")
        .expect("a line");
    let url = line
        .strip_prefix("switchboard listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    (child, url.to_owned())
}

/// POSTs one 2026-07-28 `tools/call` with `params` (its `name`, and a
/// `_meta` with the per-request version and client capabilities) and the
/// headers the revision requires; returns the status, the headers and the
/// JSON-RPC message (the last SSE event's data when the answer streamed).
pub async fn post_tools_call_2026(
    http: &reqwest::Client,
    url: &str,
    id: u64,
    params: Value,
) -> (u16, reqwest::header::HeaderMap, Value) {
    let tool = params["name"].as_str().unwrap_or_default().to_owned();
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    let response = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let json =
        text.lines().filter_map(|l| l.strip_prefix("data:")).rfind(|d| !d.trim().is_empty()).map_or_else(
            || serde_json::from_str(&text).unwrap_or(Value::Null),
            |d| serde_json::from_str(d.trim()).unwrap(),
        );
    (status, headers, json)
}

/// The `_meta` of a 2026-07-28 request from a client with `capabilities`.
pub fn meta_2026(capabilities: Value) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": capabilities})
}

/// One POST of any era (`version` is its `MCP-Protocol-Version`; the method and
/// the name or uri are mirrored as `Mcp-Method` / `Mcp-Name`); the JSON-RPC answer (the last SSE event's data when it streamed)
/// and the session id handed out, if any.
pub async fn post_mcp(
    http: &reqwest::Client,
    url: &str,
    version: &str,
    session: Option<&str>,
    body: Value,
) -> (Value, Option<String>) {
    let method = body["method"].as_str().unwrap_or_default().to_owned();
    let name = body["params"]["name"].as_str().or(body["params"]["uri"].as_str()).map(str::to_owned);
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", version)
        .header("mcp-method", method);
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.body(body.to_string()).send().await.unwrap();
    let session = response.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().await.unwrap();
    let json =
        text.lines().filter_map(|l| l.strip_prefix("data:")).rfind(|d| !d.trim().is_empty()).map_or_else(
            || serde_json::from_str(&text).unwrap_or(Value::Null),
            |d| serde_json::from_str(d.trim()).unwrap(),
        );
    (json, session)
}
