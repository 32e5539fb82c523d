//! An in-memory MCP client for testing servers built with `switchboard-server`.
//!
//! [`TestClient::connect`] runs the server's real connection loop over an
//! in-memory pipe with the same newline-delimited framing as stdio, so tests
//! exercise framing, dispatch, lifecycle and shaping exactly as a process
//! would, without spawning one.
//!
//! ```
//! use switchboard_server::{Server, Tool, RequestContext, NoArgs};
//! use switchboard_testkit::TestClient;
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let server = Server::builder("demo", "1.0")
//!     .tool(Tool::new("hello").handler(|_: NoArgs, _: RequestContext| async { Ok("hi") }))
//!     .build()
//!     .unwrap();
//! let mut client = TestClient::connect(&server);
//! client.initialize("2025-06-18").await.unwrap();
//! let result = client.call_tool("hello", json!({})).await.unwrap();
//! assert_eq!(result["content"][0]["text"], "hi");
//! # }
//! ```
//!
//! [`process::StdioProcess`] runs a server binary and speaks to it over its
//! stdin and stdout, with bounded waits.
//!
//! [`redis::RedisServer`] starts a real `redis-server` on a free loopback
//! port for tests of Redis-backed state (installing it with apt-get as root
//! when it is missing).
//!
//! [`postgres::PostgresServer`] starts a real PostgreSQL cluster on a free
//! loopback port (password authentication, installed with apt-get as root
//! when missing).
//!
//! [`chromium::executable`] finds a real Chromium for browser tests
//! (installing Debian's `chromium` with apt-get as root when missing).

mod apt;
pub mod chromium;
pub mod postgres;
pub mod process;
pub mod redis;

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_server::Server;
use switchboard_server::transport::LineTransport;
use switchboard_types::ErrorObject;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::task::JoinHandle;

/// How long the client waits for a message before failing the test. Not a
/// performance assertion: only a guard so a broken server fails instead of
/// hanging the test run.
pub const RECV_TIMEOUT: Duration = Duration::from_secs(30);

/// Errors from the test client itself.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server closed the connection.
    #[error("the server closed the connection")]
    Closed,
    /// Nothing arrived within [`RECV_TIMEOUT`].
    #[error("no message from the server within {0:?}")]
    Timeout(Duration),
    /// The server wrote something that is not JSON.
    #[error("the server wrote a line that is not JSON: {line:?}")]
    NotJson {
        /// The line.
        line: String,
    },
    /// The pipe failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The server answered with a JSON-RPC error.
    #[error("JSON-RPC error: {0}")]
    Rpc(ErrorObject),
}

/// Which lifecycle model the client speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Era {
    /// Not initialized yet.
    None,
    /// After `initialize`, with the negotiated version.
    Legacy(String),
    /// 2026-07-28: every request carries `_meta`.
    Modern,
}

/// A client connected to a server through an in-memory pipe.
#[derive(Debug)]
pub struct TestClient {
    writer: WriteHalf<DuplexStream>,
    reader: BufReader<ReadHalf<DuplexStream>>,
    server: Option<JoinHandle<switchboard_server::Result<()>>>,
    next_id: i64,
    inbox: VecDeque<Value>,
    era: Era,
}

impl TestClient {
    /// Connects to `server`: spawns its connection loop on the current runtime.
    pub fn connect(server: &Server) -> Self {
        let (client_end, server_end) = tokio::io::duplex(256 * 1024);
        let (server_read, server_write) = tokio::io::split(server_end);
        let transport = LineTransport::new(server_read, server_write, server.options().max_message_size);
        let server = server.clone();
        let task = tokio::spawn(async move { server.serve(transport).await });
        let (read, write) = tokio::io::split(client_end);
        Self {
            writer: write,
            reader: BufReader::new(read),
            server: Some(task),
            next_id: 0,
            inbox: VecDeque::new(),
            era: Era::None,
        }
    }

    /// Connects and performs a legacy `initialize` + `notifications/initialized`.
    pub async fn connect_legacy(server: &Server, version: &str) -> Self {
        let mut c = Self::connect(server);
        c.initialize(version).await.expect("initialize succeeds");
        c
    }

    /// Connects in the 2026-07-28 model (no handshake).
    pub fn connect_modern(server: &Server) -> Self {
        let mut c = Self::connect(server);
        c.era = Era::Modern;
        c
    }

    /// The lifecycle model in use.
    pub fn era(&self) -> &Era {
        &self.era
    }

    /// The `_meta` a 2026-07-28 request carries.
    pub fn modern_meta() -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "switchboard-testkit", "version": env!("CARGO_PKG_VERSION")}
        })
    }

    /// Writes raw bytes followed by a newline.
    pub async fn send_raw(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.writer.write_all(bytes).await?;
        self.writer.write_all(b"\n").await?;
        self.writer.flush().await?;
        Ok(())
    }

    /// Writes one JSON message.
    pub async fn send(&mut self, message: &Value) -> Result<(), Error> {
        self.send_raw(message.to_string().as_bytes()).await
    }

    /// The next line the server writes, raw.
    pub async fn recv_line(&mut self) -> Result<String, Error> {
        let mut line = String::new();
        let n = tokio::time::timeout(RECV_TIMEOUT, self.reader.read_line(&mut line))
            .await
            .map_err(|_| Error::Timeout(RECV_TIMEOUT))??;
        if n == 0 {
            return Err(Error::Closed);
        }
        if line.ends_with('\n') {
            line.pop();
        }
        Ok(line)
    }

    /// The next message the server writes (from the inbox first).
    pub async fn recv(&mut self) -> Result<Value, Error> {
        if let Some(v) = self.inbox.pop_front() {
            return Ok(v);
        }
        self.recv_wire().await
    }

    async fn recv_wire(&mut self) -> Result<Value, Error> {
        let line = self.recv_line().await?;
        serde_json::from_str(&line).map_err(|_| Error::NotJson { line })
    }

    /// A fresh integer request id.
    pub fn next_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// Waits for the response with this id; other messages are kept in the
    /// inbox for [`TestClient::recv`] and [`TestClient::notifications`].
    pub async fn response_to(&mut self, id: &Value) -> Result<Value, Error> {
        if let Some(pos) =
            self.inbox.iter().position(|m| m.get("id") == Some(id) && m.get("method").is_none())
        {
            return Ok(self.inbox.remove(pos).expect("position is in range"));
        }
        loop {
            let m = self.recv_wire().await?;
            if m.get("id") == Some(id) && m.get("method").is_none() {
                return Ok(m);
            }
            self.inbox.push_back(m);
        }
    }

    /// Sends a request with exactly these params (no `_meta` added) and
    /// returns the whole response message.
    pub async fn request_raw(&mut self, method: &str, params: Option<Value>) -> Result<Value, Error> {
        let id = json!(self.next_id());
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        self.send(&msg).await?;
        self.response_to(&id).await
    }

    /// Sends a request in the client's era (adding the 2026-07-28 `_meta`
    /// when modern) and returns its `result`, or the JSON-RPC error.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, Error> {
        let params = self.with_meta(params);
        let response = self.request_raw(method, Some(params)).await?;
        into_result(response)
    }

    /// Adds the 2026-07-28 `_meta` to `params` when the client is modern.
    pub fn with_meta(&self, mut params: Value) -> Value {
        if self.era == Era::Modern {
            if !params.is_object() {
                params = json!({});
            }
            let meta = params.as_object_mut().expect("object").entry("_meta").or_insert_with(|| json!({}));
            if let (Some(meta), Value::Object(base)) = (meta.as_object_mut(), Self::modern_meta()) {
                for (k, v) in base {
                    meta.entry(k).or_insert(v);
                }
            }
        }
        params
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Option<Value>) -> Result<(), Error> {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        self.send(&msg).await
    }

    /// Legacy handshake: `initialize` with `version`, then
    /// `notifications/initialized`, then a `ping` round trip. The server
    /// handles messages in order, so once the ping is answered it has seen
    /// `initialized`: notifications the test triggers afterwards are due to
    /// the client. Returns the `InitializeResult`.
    pub async fn initialize(&mut self, version: &str) -> Result<Value, Error> {
        let response = self
            .request_raw(
                "initialize",
                Some(json!({
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "switchboard-testkit", "version": env!("CARGO_PKG_VERSION")}
                })),
            )
            .await?;
        let result = into_result(response)?;
        let negotiated = result["protocolVersion"].as_str().unwrap_or_default().to_owned();
        self.notify("notifications/initialized", None).await?;
        into_result(self.request_raw("ping", None).await?)?;
        self.era = Era::Legacy(negotiated);
        Ok(result)
    }

    /// `tools/call` in the client's era; the `CallToolResult` or the error.
    pub async fn call_tool(&mut self, name: &str, arguments: Value) -> Result<Value, Error> {
        self.request("tools/call", json!({"name": name, "arguments": arguments})).await
    }

    /// Every tool, following `nextCursor` to the end.
    pub async fn list_all_tools(&mut self) -> Result<Vec<Value>, Error> {
        self.list_all("tools/list", "tools").await
    }

    /// Every item of a paginated list (`method` such as `"resources/list"`,
    /// `key` such as `"resources"`), following `nextCursor` to the end.
    pub async fn list_all(&mut self, method: &str, key: &str) -> Result<Vec<Value>, Error> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let page = self.request(method, params).await?;
            items.extend(page[key].as_array().cloned().unwrap_or_default());
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(c) => cursor = Some(c.to_owned()),
                None => return Ok(items),
            }
        }
    }

    /// `resources/read` in the client's era.
    pub async fn read_resource(&mut self, uri: &str) -> Result<Value, Error> {
        self.request("resources/read", json!({"uri": uri})).await
    }

    /// `prompts/get` in the client's era.
    pub async fn get_prompt(&mut self, name: &str, arguments: Value) -> Result<Value, Error> {
        self.request("prompts/get", json!({"name": name, "arguments": arguments})).await
    }

    /// `completion/complete` in the client's era; `reference` is the `ref`
    /// object, e.g. `{"type": "ref/prompt", "name": "code_review"}`.
    pub async fn complete(&mut self, reference: Value, argument: &str, value: &str) -> Result<Value, Error> {
        self.request(
            "completion/complete",
            json!({"ref": reference, "argument": {"name": argument, "value": value}}),
        )
        .await
    }

    /// Takes the notifications received so far (without waiting).
    pub fn notifications(&mut self) -> Vec<Value> {
        let (notes, rest): (Vec<Value>, Vec<Value>) =
            self.inbox.drain(..).partition(|m| m.get("method").is_some() && m.get("id").is_none());
        self.inbox = rest.into();
        notes
    }

    /// Takes the notifications with this method received so far (without
    /// waiting); the others stay for later calls.
    pub fn notifications_named(&mut self, method: &str) -> Vec<Value> {
        let (notes, rest): (Vec<Value>, Vec<Value>) =
            self.inbox.drain(..).partition(|m| m["method"] == method && m.get("id").is_none());
        self.inbox = rest.into();
        notes
    }

    /// Waits for the next notification with this method.
    pub async fn next_notification(&mut self, method: &str) -> Result<Value, Error> {
        if let Some(pos) = self.inbox.iter().position(|m| m["method"] == method && m.get("id").is_none()) {
            return Ok(self.inbox.remove(pos).expect("position is in range"));
        }
        loop {
            let m = self.recv_wire().await?;
            if m["method"] == method && m.get("id").is_none() {
                return Ok(m);
            }
            self.inbox.push_back(m);
        }
    }

    /// Closes the client's side (the server sees end of input) and waits for
    /// the server's connection loop to finish; returns what it returned.
    pub async fn close(mut self) -> switchboard_server::Result<()> {
        let _ = self.writer.shutdown().await;
        let task = self.server.take().expect("server task present until close");
        // Keep reading so the server never blocks on a full pipe while draining.
        let drain = async {
            let mut sink = String::new();
            while self.reader.read_line(&mut sink).await.map(|n| n > 0).unwrap_or(false) {
                sink.clear();
            }
        };
        let (result, ()) = tokio::join!(task, drain);
        result.expect("server task did not panic")
    }
}

/// Splits a response into its `result` or its error.
pub fn into_result(response: Value) -> Result<Value, Error> {
    if let Some(error) = response.get("error") {
        let error: ErrorObject = serde_json::from_value(error.clone())
            .unwrap_or_else(|_| ErrorObject::internal(format!("unreadable error object: {error}")));
        return Err(Error::Rpc(error));
    }
    Ok(response.get("result").cloned().unwrap_or(Value::Null))
}

impl Error {
    /// The JSON-RPC error code, if this is one.
    pub fn code(&self) -> Option<i32> {
        match self {
            Error::Rpc(e) => Some(e.code.0),
            _ => None,
        }
    }
}
