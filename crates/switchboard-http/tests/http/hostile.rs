//! Hostile requests over real loopback HTTP: each gets its error and the
//! server keeps serving.

use std::sync::Arc;
use std::time::Duration;

use reqwest::Client;
use serde_json::{Value, json};
use switchboard_http::{AuthOptions, HttpOptions, StaticTokens};
use switchboard_server::Principal;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::{Serving, echo_server};

/// Bounds every wait of these tests.
const WAIT: Duration = Duration::from_secs(20);

struct Running {
    addr: std::net::SocketAddr,
    url: String,
    client: Client,
    _serving: Serving,
}

async fn start(options: HttpOptions) -> Running {
    let serving = Serving::start(echo_server("hostile"), options).await;
    Running { addr: serving.addr, url: serving.url.clone(), client: Client::new(), _serving: serving }
}

impl Running {
    fn post(&self) -> reqwest::RequestBuilder {
        self.client
            .post(&self.url)
            .timeout(WAIT)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "echo")
    }

    /// A well-formed call still works.
    async fn still_serving(&self) {
        let r: Value = self.post().body(echo_call("alive")).send().await.unwrap().json().await.unwrap();
        assert_eq!(r["result"]["content"][0]["text"], "alive", "{r}");
    }

    /// A connection on which `head` (request line and headers, up to the
    /// blank line) and then `body` were sent; it stays open.
    async fn send_raw(&self, head: &str, body: &[u8]) -> tokio::net::TcpStream {
        let mut tcp = tokio::net::TcpStream::connect(self.addr).await.unwrap();
        tcp.write_all(head.as_bytes()).await.unwrap();
        tcp.write_all(body).await.unwrap();
        tcp
    }
}

/// A 2026-07-28 `tools/call` of `echo` (the body `Running::post` fits).
fn echo_call(text: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": text},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string()
}

/// The first bytes of the answer on `tcp`, or `None` when nothing came
/// within `wait` (the server is still reading the request).
async fn reply_within(tcp: &mut tokio::net::TcpStream, wait: Duration) -> Option<String> {
    let mut reply = vec![0u8; 4096];
    let n = tokio::time::timeout(wait, tcp.read(&mut reply)).await.ok()?.unwrap();
    Some(String::from_utf8_lossy(&reply[..n]).into_owned())
}

#[tokio::test]
async fn deeply_nested_json_is_a_parse_error() {
    // 100,000 levels of nesting, no stack overflow: where the server must
    // look inside (a tool's arguments) the parser's recursion limit refuses
    // it; a request refused earlier for another reason (no `_meta`) is
    // refused for that reason, without the nesting being examined.
    let s = start(HttpOptions::default()).await;
    let depth = 100_000;
    let nest = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let without_meta = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{nest}}}}}}}"#
    );
    let with_meta = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{nest}}},{meta}}}}}"#
    );
    for body in [without_meta, with_meta] {
        let r = s.post().body(body).send().await.unwrap();
        let status = r.status();
        let v: Value = r.json().await.unwrap();
        let code = v["error"]["code"].as_i64().unwrap_or_default();
        assert!(code == -32700 || code == -32602, "{status} {v}");
        assert!(status == 400 || (status == 200 && code == -32602), "{status} {v}");
    }
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

#[tokio::test]
async fn host_origin_and_token_are_checked_before_the_body_is_read() {
    let mut options = HttpOptions::default();
    let tokens = StaticTokens::new().with("good-token", Principal::new("p"));
    options.auth =
        Some(AuthOptions::new("http://127.0.0.1/mcp", "https://auth.example.com", Arc::new(tokens)));
    let s = start(options).await;
    let head = |extra: &str, length: usize| {
        format!(
            "POST /mcp HTTP/1.1\r\n{extra}Content-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: {length}\r\n\r\n"
        )
    };
    let few = b"{\"jsonrpc\": \"2.0\"";
    let (mib, hundred_mib) = (1024 * 1024, 100 * 1024 * 1024);
    let token = "Authorization: Bearer good-token\r\n";
    let cases = [
        // A body far above the limit: refused for the Host, not as too large.
        ("foreign Host, 100 MiB", format!("Host: evil.example.com\r\n{token}"), hundred_mib, "403"),
        // A body under the limit that never arrives: answered without waiting for it.
        ("foreign Host", format!("Host: evil.example.com\r\n{token}"), mib, "403"),
        (
            "foreign Origin",
            format!("Host: 127.0.0.1\r\nOrigin: http://evil.example.com\r\n{token}"),
            mib,
            "403",
        ),
        ("no token, 100 MiB", "Host: 127.0.0.1\r\n".to_owned(), hundred_mib, "401"),
        ("no token", "Host: 127.0.0.1\r\n".to_owned(), mib, "401"),
        ("wrong token", "Host: 127.0.0.1\r\nAuthorization: Bearer guessed\r\n".to_owned(), mib, "401"),
    ];
    for (why, extra, length, status) in cases {
        let mut tcp = s.send_raw(&head(&extra, length), few).await;
        let reply = reply_within(&mut tcp, WAIT).await.unwrap_or_else(|| panic!("{why}: no answer"));
        assert!(reply.starts_with(&format!("HTTP/1.1 {status} ")), "{why}: {reply}");
    }

    // The control: with a good token the server does wait for the declared
    // body (so an answer above means it was not awaited), and answers once
    // the rest arrives.
    let body = echo_call("late");
    let padded = format!("{body}{}", " ".repeat(mib - body.len()));
    let mut tcp =
        s.send_raw(&head(&format!("Host: 127.0.0.1\r\n{token}"), mib), &padded.as_bytes()[..16]).await;
    assert_eq!(reply_within(&mut tcp, Duration::from_millis(500)).await, None, "answered before the body");
    tcp.write_all(&padded.as_bytes()[16..]).await.unwrap();
    let reply = reply_within(&mut tcp, WAIT).await.expect("answered once the body is complete");
    assert!(reply.starts_with("HTTP/1.1 200 "), "{reply}");
}

#[tokio::test]
async fn a_configured_host_name_passes_and_a_request_without_host_is_refused() {
    let mut options = HttpOptions::default();
    options.allowed_hosts.push("example.test".to_owned());
    let s = start(options).await;
    let echo = |r: reqwest::RequestBuilder| async move {
        let r = r.body(echo_call("hi")).send().await.unwrap();
        (r.status(), r.text().await.unwrap())
    };
    for host in ["example.test", "example.test:8080", "EXAMPLE.test"] {
        let (status, body) = echo(s.post().header("host", host)).await;
        assert_eq!(status, 200, "{host}: {body}");
        assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["result"]["content"][0]["text"], "hi");
    }
    let (status, body) = echo(s.post().header("origin", "https://example.test")).await;
    assert_eq!(status, 200, "{body}");
    // Loopback stays allowed; other names do not become so.
    let (status, _) = echo(s.post().header("host", "localhost")).await;
    assert_eq!(status, 200);
    for host in ["other.test", "example.test.evil.com", "sub.example.test"] {
        let (status, body) = echo(s.post().header("host", host)).await;
        assert_eq!(status, 403, "{host}: {body}");
    }

    // No Host header at all (reqwest always sends one: a raw request).
    let body = echo_call("hi");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    let mut tcp = s.send_raw(&head, body.as_bytes()).await;
    let reply = reply_within(&mut tcp, WAIT).await.expect("an answer");
    assert!(reply.starts_with("HTTP/1.1 403 "), "{reply}");
    assert!(reply.contains("without Host is not allowed"), "{reply}");
    s.still_serving().await;
}
