//! CORS over real loopback HTTP, in both eras: preflights and response
//! headers for the origins named in `HttpOptions::allowed_origins`, nothing
//! for any other origin, nothing at all when none is named.

use std::time::Duration;

use reqwest::header::HeaderMap;
use reqwest::{Client, Method};
use serde_json::json;
use switchboard_http::HttpOptions;

use crate::support::{Serving, echo_server};

/// Bounds every wait of these tests.
const WAIT: Duration = Duration::from_secs(20);

const APP: &str = "https://app.example.com";

struct Running {
    url: String,
    client: Client,
    _serving: Serving,
}

async fn start(allowed_origins: &[&str]) -> Running {
    let mut options = HttpOptions::default();
    options.allowed_origins = allowed_origins.iter().map(|o| (*o).to_owned()).collect();
    let serving = Serving::start(echo_server("cors"), options).await;
    Running { url: serving.url.clone(), client: Client::new(), _serving: serving }
}

impl Running {
    /// A browser's preflight for a POST from `origin`.
    async fn preflight(&self, origin: &str, request_headers: &str) -> (u16, HeaderMap) {
        let r = self
            .client
            .request(Method::OPTIONS, &self.url)
            .timeout(WAIT)
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", request_headers)
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.headers().clone())
    }

    /// A 2025-11-25 `initialize` from `origin`.
    async fn initialize(&self, origin: &str) -> (u16, HeaderMap) {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "browser", "version": "1"}}});
        let r = self
            .client
            .post(&self.url)
            .timeout(WAIT)
            .header("origin", origin)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.headers().clone())
    }

    /// A 2026-07-28 `tools/call` of `echo` from `origin`: status, headers, body.
    async fn call_2026(&self, origin: &str) -> (u16, HeaderMap, String) {
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "echo", "arguments": {"text": "hi"},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}});
        let r = self
            .client
            .post(&self.url)
            .timeout(WAIT)
            .header("origin", origin)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "echo")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let (status, headers) = (r.status().as_u16(), r.headers().clone());
        (status, headers, r.text().await.unwrap())
    }
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default()
}

/// The names of the `Access-Control-*` headers in `headers`.
fn cors_headers(headers: &HeaderMap) -> Vec<String> {
    headers.keys().map(|k| k.as_str().to_owned()).filter(|k| k.starts_with("access-control-")).collect()
}

/// The comma-separated items of `value`, lower-cased.
fn items(value: &str) -> Vec<String> {
    value.split(',').map(|i| i.trim().to_ascii_lowercase()).filter(|i| !i.is_empty()).collect()
}

#[tokio::test]
async fn a_preflight_from_a_named_origin_is_answered_with_what_both_eras_send() {
    let running = start(&[APP]).await;
    let (status, headers) = running
        .preflight(APP, "content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region")
        .await;
    assert_eq!(status, 204, "{headers:?}");
    assert_eq!(header(&headers, "access-control-allow-origin"), APP);
    let methods = items(header(&headers, "access-control-allow-methods"));
    for method in ["get", "post", "delete", "options"] {
        assert!(methods.contains(&method.to_owned()), "{methods:?}");
    }
    let allowed = items(header(&headers, "access-control-allow-headers"));
    for name in [
        "content-type",
        "accept",
        "authorization",
        "mcp-session-id",
        "mcp-protocol-version",
        "last-event-id",
        "mcp-method",
        "mcp-name",
        "mcp-param-region",
    ] {
        assert!(allowed.contains(&name.to_owned()), "{name} missing from {allowed:?}");
    }
    assert!(header(&headers, "access-control-max-age").parse::<u32>().unwrap() > 0);
    assert!(items(header(&headers, "vary")).contains(&"origin".to_owned()), "{headers:?}");
}

#[tokio::test]
async fn responses_to_a_named_origin_expose_the_session_id_in_both_eras() {
    let running = start(&[APP]).await;

    let (status, headers) = running.initialize(APP).await;
    assert_eq!(status, 200, "{headers:?}");
    assert!(!header(&headers, "mcp-session-id").is_empty(), "a session was opened");
    assert_eq!(header(&headers, "access-control-allow-origin"), APP);
    let exposed = items(header(&headers, "access-control-expose-headers"));
    assert!(exposed.contains(&"mcp-session-id".to_owned()), "{exposed:?}");
    assert!(exposed.contains(&"www-authenticate".to_owned()), "{exposed:?}");
    assert!(items(header(&headers, "vary")).contains(&"origin".to_owned()), "{headers:?}");

    let (status, headers, body) = running.call_2026(APP).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("hi"), "{body}");
    assert_eq!(header(&headers, "access-control-allow-origin"), APP);
    assert!(header(&headers, "access-control-expose-headers").contains("Mcp-Session-Id"), "{headers:?}");
}

#[tokio::test]
async fn an_origin_not_named_gets_no_cors_headers_and_the_existing_refusal() {
    let running = start(&[APP]).await;
    for origin in ["https://evil.example", "http://app.example.com", "null"] {
        let (status, headers) = running.preflight(origin, "content-type").await;
        assert_eq!(status, 403, "{origin}: {headers:?}");
        assert_eq!(cors_headers(&headers), Vec::<String>::new(), "{origin}");
        let (status, headers) = running.initialize(origin).await;
        assert_eq!(status, 403, "{origin}");
        assert_eq!(cors_headers(&headers), Vec::<String>::new(), "{origin}");
        let (status, headers, _) = running.call_2026(origin).await;
        assert_eq!(status, 403, "{origin}");
        assert_eq!(cors_headers(&headers), Vec::<String>::new(), "{origin}");
    }
    // A loopback page passes the Host/Origin check as before, but it was not
    // named: it is served, and the browser is not told it may read the answer.
    let (status, headers, _) = running.call_2026("http://localhost:5173").await;
    assert_eq!(status, 200);
    assert_eq!(cors_headers(&headers), Vec::<String>::new());
    let (status, headers) = running.preflight("http://localhost:5173", "content-type").await;
    assert_eq!(status, 405);
    assert_eq!(cors_headers(&headers), Vec::<String>::new());
}

#[tokio::test]
async fn without_named_origins_there_are_no_cors_headers_in_either_era() {
    let running = start(&[]).await;
    let origin = "http://localhost:5173";
    let (status, headers) = running.preflight(origin, "content-type, mcp-method").await;
    assert_eq!(status, 405, "no preflight answer: {headers:?}");
    assert_eq!(cors_headers(&headers), Vec::<String>::new());
    let (status, headers) = running.initialize(origin).await;
    assert_eq!(status, 200);
    assert_eq!(cors_headers(&headers), Vec::<String>::new());
    assert!(headers.get("vary").is_none(), "{headers:?}");
    let (status, headers, _) = running.call_2026(origin).await;
    assert_eq!(status, 200);
    assert_eq!(cors_headers(&headers), Vec::<String>::new());
    // A foreign origin is refused as always.
    let (status, headers) = running.initialize(APP).await;
    assert_eq!(status, 403);
    assert_eq!(cors_headers(&headers), Vec::<String>::new());
}
