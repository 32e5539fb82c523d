//! Every request that reaches a method runs in an `mcp.request` span with
//! its method, id, target, principal and outcome.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::json;
use switchboard_testkit::TestClient;
use tracing_subscriber::fmt::format::FmtSpan;

use crate::common::builder;

/// A writer into a shared buffer, for the fmt subscriber.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn requests_run_in_spans_with_method_target_and_outcome() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_span_events(FmtSpan::CLOSE)
        .with_max_level(tracing::Level::DEBUG)
        .finish();
    // The test runtime is single-threaded: the server's tasks see this too.
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = builder().build().unwrap();
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    client.call_tool("echo", json!({"text": "hi"})).await.unwrap();
    client.call_tool("echo", json!({})).await.unwrap();
    client.call_tool("nope", json!({})).await.unwrap_err();
    client.close().await.unwrap();

    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let closes: Vec<&str> =
        text.lines().filter(|l| l.contains("mcp.request") && l.contains("close")).collect();
    assert_eq!(closes.len(), 3, "one span per request that reached a method:\n{text}");
    assert!(
        closes[0].contains(r#"mcp.method="tools/call""#) && closes[0].contains(r#"mcp.target="echo""#),
        "{text}"
    );
    assert!(closes[0].contains(r#"mcp.outcome="ok""#), "{text}");
    assert!(closes[1].contains(r#"mcp.outcome="tool_error""#), "invalid arguments are a tool error: {text}");
    assert!(
        closes[2].contains(r#"mcp.outcome="error""#) && closes[2].contains("mcp.error_code=-32602"),
        "{text}"
    );
    assert!(text.contains("request finished"), "the DEBUG event at the end: {text}");
}
