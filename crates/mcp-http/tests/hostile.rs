//! Hostile requests over real loopback HTTP: each gets its error and the
//! server keeps serving.

use std::time::Duration;

use mcp_http::HttpOptions;
use mcp_server::{CallToolResult, Server, Tool};
use reqwest::Client;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct Running {
    addr: std::net::SocketAddr,
    url: String,
    client: Client,
    _shutdown: tokio::sync::oneshot::Sender<()>,
}

async fn start(options: HttpOptions) -> Running {
    let server = Server::builder("hostile", "1")
        .tool(
            Tool::new("echo")
                .description("echo")
                .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}}))
                .raw_handler(|args: Value, _| async move {
                    Ok(CallToolResult::text(args["text"].as_str().unwrap_or_default()))
                }),
        )
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(mcp_http::serve_listener(server, listener, options, async move {
        let _ = rx.await;
    }));
    Running { addr, url: format!("http://{addr}/mcp"), client: Client::new(), _shutdown: tx }
}

impl Running {
    fn post(&self) -> reqwest::RequestBuilder {
        self.client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "echo")
    }

    /// A well-formed call still works.
    async fn still_serving(&self) {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
            "name": "echo", "arguments": {"text": "alive"},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}});
        let r: Value = self.post().body(body.to_string()).send().await.unwrap().json().await.unwrap();
        assert_eq!(r["result"]["content"][0]["text"], "alive", "{r}");
    }
}

#[tokio::test]
async fn deeply_nested_json_is_a_parse_error() {
    let s = start(HttpOptions::default()).await;
    let depth = 100_000;
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{}1{}}}}}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let r = s.post().body(body).send().await.unwrap();
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["code"], -32700, "{v}");
    s.still_serving().await;
}

#[tokio::test]
async fn a_100_mb_body_is_refused_with_413() {
    let s = start(HttpOptions::default()).await;
    // Declared up front: refused before a byte of the body is read.
    let mut tcp = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: {}\r\n\r\n",
        100 * 1024 * 1024
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    tcp.write_all(&[b' '; 64 * 1024]).await.unwrap();
    let mut reply = vec![0u8; 512];
    let n = tokio::time::timeout(Duration::from_secs(20), tcp.read(&mut reply)).await.unwrap().unwrap();
    let reply = String::from_utf8_lossy(&reply[..n]);
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    // Streamed without a length: cut off at the limit.
    let chunk = bytes_of(1024 * 1024);
    let stream = futures::stream::iter((0..100).map(move |_| Ok::<_, std::io::Error>(chunk.clone())));
    let result = s.post().body(reqwest::Body::wrap_stream(stream)).send().await;
    if let Ok(r) = result {
        assert_eq!(r.status(), 413);
    }
    s.still_serving().await;
}

fn bytes_of(n: usize) -> bytes::Bytes {
    bytes::Bytes::from(vec![b' '; n])
}

#[tokio::test]
async fn slow_senders_are_cut_off_at_the_header_timeout() {
    let mut options = HttpOptions::default();
    options.header_timeout = Duration::from_millis(500);
    let s = start(options).await;
    let mut tcp = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    tcp.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.unwrap();
    // Then nothing more: the server must hang up on us, not wait forever.
    let mut buf = vec![0u8; 256];
    let outcome = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => continue,
            }
        }
    })
    .await;
    assert!(outcome.is_ok(), "the connection was never closed");
    s.still_serving().await;
}

#[tokio::test]
async fn oversized_headers_invalid_utf8_and_wrong_methods() {
    let s = start(HttpOptions::default()).await;
    let r = s.post().header("x-huge", "a".repeat(512 * 1024)).body("{}").send().await;
    match r {
        Ok(r) => assert!(r.status().is_client_error(), "{}", r.status()),
        Err(e) => assert!(e.is_request() || e.is_connect() || e.is_body(), "{e}"),
    }
    let r = s.post().body(vec![0xff, 0xfe, 0x00]).send().await.unwrap();
    assert_eq!(r.status(), 400);
    let r = s.client.put(&s.url).send().await.unwrap();
    assert_eq!(r.status(), 405);
    s.still_serving().await;
}
