//! OpenTelemetry export (the default `otel` feature): with
//! `OTEL_EXPORTER_OTLP_ENDPOINT` set, the `mcp.request` spans reach an OTLP
//! collector over HTTP. The collector here is a minimal HTTP listener on
//! loopback that records what it is sent.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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

#[test]
fn request_spans_are_exported_over_otlp_http() {
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
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"traced"}}}}}}"#).unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"nope","arguments":{{}}}}}}"#
    )
    .unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"echo","arguments":{{}}}}}}"#
    )
    .unwrap();
    let mut lines = stdout.lines();
    for _ in 0..4 {
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
    let body: Vec<u8> = traces.iter().flat_map(|(_, b)| b.clone()).collect();
    for needle in
        ["mcp.request", "tools/call", "echo", "nope", "switchboard-otel-test", "mcp.outcome", "tool_error"]
    {
        assert!(contains(&body, needle), "{needle:?} missing from the exported spans");
    }
}
