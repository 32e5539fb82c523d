//! OpenTelemetry (the default `otel` feature).
//!
//! Export: with `OTEL_EXPORTER_OTLP_ENDPOINT` set, the `mcp.request` spans
//! reach an OTLP collector over HTTP. The collector here is a minimal HTTP
//! listener on loopback that records what it is sent.
//!
//! Trace context: `traceparent` / `tracestate` / `baggage` in a request's
//! `_meta` (2026-07-28 `basic/index.mdx` §`_meta`) make the host's span the
//! parent of the `mcp.request` span. In process, the framework (its `otel`
//! feature, which this binary turns on) runs under a subscriber with the
//! OpenTelemetry layer and the SDK's in-memory exporter, over the line
//! transport and over HTTP; end to end, the binary's OTLP export carries the
//! host's trace and span ids.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry::baggage::BaggageExt as _;
use opentelemetry::trace::{SpanId, TraceId, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};
use switchboard_server::{NoArgs, RequestContext, Server, Tool};
use switchboard_testkit::TestClient;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::layer::SubscriberExt as _;

/// Accepts connections on 127.0.0.1 and records each request's first line
/// and body, answering `200` with an empty body.
/// Requests a collector received: request line and body.
type Received = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

fn collector() -> (String, Received) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming().take(100) {
            let Ok(stream) = stream else { continue };
            stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            loop {
                let mut request_line = String::new();
                if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
                    break;
                }
                let mut length = 0usize;
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                        break;
                    }
                    if let Some((name, value)) = header.split_once(':')
                        && name.eq_ignore_ascii_case("content-length")
                    {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length.min(16 << 20)];
                if reader.read_exact(&mut body).is_err() {
                    break;
                }
                sink.lock().unwrap().push((request_line.trim().to_owned(), body));
                let mut out = stream.try_clone().unwrap();
                if out.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_err() {
                    break;
                }
            }
        }
    });
    (url, seen)
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Runs `switchboard serve --fixtures demo` over stdio exporting to a fresh
/// collector: a 2025-11-25 handshake, then `calls` (one line each, each
/// answered). Returns the bodies of the collector's `POST /v1/traces`,
/// concatenated, once the process has exited (flushing its spans).
fn export_of(calls: &[String]) -> Vec<u8> {
    let (endpoint, seen) = collector();
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["serve", "--fixtures", "demo"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)
        .env("OTEL_SERVICE_NAME", "switchboard-otel-test")
        .env("NO_PROXY", "127.0.0.1")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"otel","version":"1"}}}}}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
    for call in calls {
        writeln!(stdin, "{call}").unwrap();
    }
    let mut lines = stdout.lines();
    for _ in 0..=calls.len() {
        lines.next().expect("an answer").unwrap();
    }
    // End of input: switchboard finishes, flushing its spans before it exits.
    drop(stdin);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        assert!(std::time::Instant::now() < deadline, "switchboard did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(child.wait().unwrap().success());
    let seen = seen.lock().unwrap();
    let traces: Vec<&(String, Vec<u8>)> =
        seen.iter().filter(|(line, _)| line.starts_with("POST /v1/traces")).collect();
    assert!(
        !traces.is_empty(),
        "no export reached the collector: {:?}",
        seen.iter().map(|s| &s.0).collect::<Vec<_>>()
    );
    traces.iter().flat_map(|(_, b)| b.clone()).collect()
}

/// A `tools/call` line with this id, tool, arguments and (if any) `_meta`.
fn call_line(id: u32, tool: &str, arguments: Value, meta: Option<Value>) -> String {
    let mut params = json!({"name": tool, "arguments": arguments});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

#[test]
fn request_spans_are_exported_over_otlp_http() {
    let body = export_of(&[
        call_line(2, "echo", json!({"text": "traced"}), None),
        call_line(3, "nope", json!({}), None),
        call_line(4, "echo", json!({}), None),
    ]);
    for needle in
        ["mcp.request", "tools/call", "echo", "nope", "switchboard-otel-test", "mcp.outcome", "tool_error"]
    {
        assert!(contains(&body, needle), "{needle:?} missing from the exported spans");
    }
}

/// The host's trace, as W3C `traceparent` parts.
const TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
const PARENT_ID: &str = "b7ad6b7169203331";

fn traceparent() -> String {
    format!("00-{TRACE_ID}-{PARENT_ID}-01")
}

fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn the_binary_exports_request_spans_in_the_hosts_trace() {
    let body = export_of(&[call_line(
        2,
        "echo",
        json!({"text": "joined"}),
        Some(json!({"traceparent": traceparent(), "tracestate": "host=tenant-7"})),
    )]);
    // OTLP/protobuf carries ids as raw bytes: the span's trace id and its
    // parent span id are the host's.
    assert!(body.windows(16).any(|w| w == hex_bytes(TRACE_ID)), "the host's trace id is not exported");
    assert!(body.windows(8).any(|w| w == hex_bytes(PARENT_ID)), "the host's span is not the parent");
    assert!(contains(&body, "host=tenant-7"), "tracestate is exported with the span");
}

/// A subscriber with the OpenTelemetry layer, installed for this thread,
/// exporting finished spans into memory.
struct Otel {
    exporter: InMemorySpanExporter,
    _provider: SdkTracerProvider,
    _guard: tracing::subscriber::DefaultGuard,
}

fn otel() -> Otel {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("otel-test"));
    // The test runtime is single-threaded: the server's tasks see it too.
    let guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
    Otel { exporter, _provider: provider, _guard: guard }
}

impl Otel {
    /// The `mcp.request` spans finished so far, once there are `n` of them.
    async fn request_spans(&self, n: usize) -> Vec<SpanData> {
        for _ in 0..500 {
            let spans: Vec<SpanData> = self
                .exporter
                .get_finished_spans()
                .unwrap()
                .into_iter()
                .filter(|s| s.name == "mcp.request")
                .collect();
            if spans.len() >= n {
                return spans;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("fewer than {n} mcp.request spans were exported");
    }
}

/// `echo`, and `baggage`: the baggage of the OpenTelemetry context its
/// handler runs in, `key=value` sorted and comma-separated.
fn server() -> Server {
    Server::builder("otel-test", "1")
        .tool(
            Tool::new("echo")
                .description("Echoes text.")
                .input_schema(json!({"type": "object"}))
                .raw_handler(|args, _| async move {
                    Ok(switchboard_server::CallToolResult::text(args["text"].as_str().unwrap_or_default()))
                }),
        )
        .tool(Tool::new("baggage").description("The baggage the handler sees.").handler(
            |_: NoArgs, _ctx: RequestContext| async move {
                let cx = tracing::Span::current().context();
                let mut entries: Vec<String> =
                    cx.baggage().iter().map(|(k, (v, _))| format!("{k}={v}")).collect();
                entries.sort();
                Ok(entries.join(","))
            },
        ))
        .build()
        .unwrap()
}

/// A client in `version`'s era: a handshake, or none for 2026-07-28.
async fn client(server: &Server, version: &str) -> TestClient {
    if version == "2026-07-28" {
        TestClient::connect_modern(server)
    } else {
        TestClient::connect_legacy(server, version).await
    }
}

/// Calls `tool` with these `_meta` keys (the client adds the 2026-07-28
/// ones) and returns the text of the result.
async fn call(c: &mut TestClient, tool: &str, meta: Option<Value>) -> String {
    let mut params = json!({"name": tool, "arguments": {}});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    let result = c.request("tools/call", params).await.unwrap();
    assert_ne!(result["isError"], true, "{result}");
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

fn assert_child_of_host(span: &SpanData) {
    assert_eq!(span.span_context.trace_id(), TraceId::from_hex(TRACE_ID).unwrap(), "the host's trace");
    assert_eq!(span.parent_span_id, SpanId::from_hex(PARENT_ID).unwrap(), "the host's span is the parent");
    assert!(span.parent_span_is_remote, "the parent came from the client");
    assert!(span.span_context.is_sampled(), "the host's sampled flag is kept");
}

fn assert_fresh_root(span: &SpanData) {
    assert!(span.span_context.is_valid());
    assert_ne!(span.span_context.trace_id(), TraceId::from_hex(TRACE_ID).unwrap(), "a new trace");
    assert_eq!(span.parent_span_id, SpanId::INVALID, "a root span");
}

#[tokio::test]
async fn traceparent_in_meta_parents_the_request_span_in_every_revision() {
    let otel = otel();
    let server = server();
    let versions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
    for version in versions {
        let mut c = client(&server, version).await;
        let meta = json!({"traceparent": traceparent(), "tracestate": "host=tenant-7,other=x"});
        call(&mut c, "echo", Some(meta)).await;
        c.close().await.unwrap();
    }
    let spans = otel.request_spans(versions.len()).await;
    for span in &spans {
        assert_child_of_host(span);
        assert_eq!(span.span_context.trace_state().header(), "host=tenant-7,other=x", "tracestate is kept");
    }
}

#[tokio::test]
async fn traceparent_in_meta_parents_the_request_span_over_http() {
    let otel = otel();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (_stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(switchboard_http::serve_listener(server(), listener, Default::default(), async move {
        let _ = stopped.await;
    }));
    let http = reqwest::Client::new();
    let post = |body: Value| {
        http.post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string())
    };
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "traceparent": traceparent(),
    });
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": meta}});
    let r = post(call)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["result"]["content"][0]["text"], "hi", "{body}");

    // A legacy session: `_meta` in the params of a handshake-era request.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = post(init).send().await.unwrap();
    let session = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let r = post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": {"traceparent": traceparent()}}});
    let r = post(call)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);

    let spans = otel.request_spans(2).await;
    assert_eq!(spans.len(), 2, "initialize runs in no request span");
    spans.iter().for_each(assert_child_of_host);
}

#[tokio::test]
async fn baggage_in_meta_is_in_the_request_span_context() {
    let otel = otel();
    let server = server();
    for version in ["2025-06-18", "2026-07-28"] {
        let mut c = client(&server, version).await;
        let meta = json!({"traceparent": traceparent(), "baggage": "tenant=acme,region=eu;ttl=60"});
        assert_eq!(call(&mut c, "baggage", Some(meta)).await, "region=eu,tenant=acme", "{version}");
        // Baggage without a valid traceparent is kept; the span is a new trace.
        let meta = json!({"traceparent": "not-a-traceparent", "baggage": "tenant=acme"});
        assert_eq!(call(&mut c, "baggage", Some(meta)).await, "tenant=acme", "{version}");
        assert_eq!(call(&mut c, "baggage", None).await, "", "no baggage without _meta ({version})");
        c.close().await.unwrap();
    }
    let spans = otel.request_spans(6).await;
    assert_child_of_host(&spans[0]);
    assert_fresh_root(&spans[1]);
}

#[tokio::test]
async fn malformed_traceparent_starts_a_fresh_trace() {
    let otel = otel();
    let server = server();
    let malformed = [
        json!("garbage"),
        json!(format!("ff-{TRACE_ID}-{PARENT_ID}-01")),
        json!(format!("00-{}-{PARENT_ID}-01", TRACE_ID.to_uppercase())),
        json!(format!("00-00000000000000000000000000000000-{PARENT_ID}-01")),
        json!(format!("00-{TRACE_ID}-0000000000000000-01")),
        json!(format!("00-{TRACE_ID}-{PARENT_ID}")),
        json!(format!("00-{TRACE_ID}-{PARENT_ID}-01-extra")),
        json!(5),
        json!({"traceId": TRACE_ID}),
    ];
    for version in ["2025-11-25", "2026-07-28"] {
        let mut c = client(&server, version).await;
        for traceparent in &malformed {
            let meta = json!({"traceparent": traceparent, "tracestate": "host=tenant-7"});
            assert_eq!(call(&mut c, "baggage", Some(meta)).await, "", "served as usual ({version})");
        }
        c.close().await.unwrap();
    }
    let spans = otel.request_spans(2 * malformed.len()).await;
    for span in &spans {
        assert_fresh_root(span);
        assert_eq!(span.span_context.trace_state().header(), "", "no tracestate without its traceparent");
    }
    let traces: std::collections::HashSet<TraceId> =
        spans.iter().map(|s| s.span_context.trace_id()).collect();
    assert_eq!(traces.len(), spans.len(), "each request is a trace of its own");
}

#[tokio::test]
async fn a_request_without_trace_meta_is_a_root_span_as_before() {
    let otel = otel();
    let server = server();
    let mut legacy = client(&server, "2025-11-25").await;
    call(&mut legacy, "echo", None).await;
    call(&mut legacy, "echo", Some(json!({"progressToken": "p"}))).await;
    legacy.close().await.unwrap();
    let mut modern = client(&server, "2026-07-28").await;
    call(&mut modern, "echo", None).await;
    modern.close().await.unwrap();
    let spans = otel.request_spans(3).await;
    for span in &spans {
        assert_fresh_root(span);
        let method =
            span.attributes.iter().find(|kv| kv.key.as_str() == "mcp.method").map(|kv| kv.value.to_string());
        assert_eq!(method.as_deref(), Some("tools/call"), "the span's fields are unchanged");
    }
}
