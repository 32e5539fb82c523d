//! What several modules share: a server on a loopback port, stopped when
//! dropped, and the events of an SSE body.

use std::net::SocketAddr;

use serde_json::{Value, json};
use switchboard_http::HttpOptions;
use switchboard_server::{CallToolResult, Server, Tool};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A server answering on a loopback port until this is dropped.
pub struct Serving {
    pub addr: SocketAddr,
    /// The MCP endpoint, `http://{addr}/mcp`.
    pub url: String,
    _shutdown: oneshot::Sender<()>,
}

impl Serving {
    /// `server` with `options` on a fresh loopback port.
    pub async fn start(server: Server, options: HttpOptions) -> Self {
        Self::on(loopback().await, server, options)
    }

    /// `server` on a listener already bound: for options that need its
    /// address first (an authorization resource URI).
    pub fn on(listener: TcpListener, server: Server, options: HttpOptions) -> Self {
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(switchboard_http::serve_listener(server, listener, options, async move {
            let _ = rx.await;
        }));
        Self { addr, url: format!("http://{addr}/mcp"), _shutdown: tx }
    }
}

/// A listener on a free loopback port.
pub async fn loopback() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").await.unwrap()
}

/// A server named `name` with one tool, `echo`, answering its `text`.
pub fn echo_server(name: &str) -> Server {
    Server::builder(name, "1")
        .tool(
            Tool::new("echo")
                .description("echo")
                .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}}))
                .raw_handler(|args: Value, _| async move {
                    Ok(CallToolResult::text(args["text"].as_str().unwrap_or_default()))
                }),
        )
        .build()
        .unwrap()
}

/// The ids and `data:` payloads of an SSE body.
pub fn sse_events(text: &str) -> Vec<(Option<String>, String)> {
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let mut id = None;
        let mut data = None;
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("id: ") {
                id = Some(v.to_owned());
            } else if let Some(v) = line.strip_prefix("data:") {
                data = Some(v.trim_start().to_owned());
            }
        }
        if let Some(data) = data {
            out.push((id, data));
        }
    }
    out
}
