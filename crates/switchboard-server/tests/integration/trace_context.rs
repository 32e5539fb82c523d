//! W3C trace context in `_meta` (`traceparent`, `tracestate`, `baggage`;
//! 2026-07-28 `basic/index.mdx` §`_meta`): without the `otel` feature the
//! framework hands the values to handlers as sent, in every revision, and a
//! value it cannot use never fails a request. (Spans parented by them: the
//! `otel` feature, tested in `crates/switchboard/tests/integration/otel.rs`.)

use serde_json::{Value, json};
use switchboard_server::{NoArgs, RequestContext, Server, Tool};
use switchboard_testkit::TestClient;

use crate::common::{ALL_VERSIONS, builder};

const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

/// The standard server plus `trace`: what `ctx.trace_context()` holds, as JSON
/// text (`null` without any).
fn server() -> Server {
    builder()
        .tool(Tool::new("trace").description("The request's trace context.").handler(
            |_: NoArgs, ctx: RequestContext| async move {
                let seen = ctx.trace_context().map(|t| {
                    json!({"traceparent": t.traceparent(), "tracestate": t.tracestate(), "baggage": t.baggage()})
                });
                Ok(seen.unwrap_or(Value::Null).to_string())
            },
        ))
        .build()
        .unwrap()
}

async fn client(server: &Server, version: &str) -> TestClient {
    if version == "2026-07-28" {
        TestClient::connect_modern(server)
    } else {
        TestClient::connect_legacy(server, version).await
    }
}

/// Calls `trace` with this `_meta` (the client adds the 2026-07-28 keys) and
/// returns what the handler saw.
async fn seen(c: &mut TestClient, meta: Option<Value>) -> Value {
    let mut params = json!({"name": "trace", "arguments": {}});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    let result = c.request("tools/call", params).await.unwrap();
    assert_ne!(result["isError"], true, "{result}");
    serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn trace_context_in_meta_reaches_the_handler_in_every_revision() {
    let server = server();
    for version in ALL_VERSIONS {
        let mut c = client(&server, version).await;
        let meta = json!({"traceparent": TRACEPARENT, "tracestate": "host=1", "baggage": "tenant=acme"});
        assert_eq!(
            seen(&mut c, Some(meta)).await,
            json!({"traceparent": TRACEPARENT, "tracestate": "host=1", "baggage": "tenant=acme"}),
            "{version}"
        );
        let meta = json!({"baggage": "tenant=acme"});
        assert_eq!(
            seen(&mut c, Some(meta)).await,
            json!({"traceparent": null, "tracestate": null, "baggage": "tenant=acme"}),
            "each key on its own ({version})"
        );
        c.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_request_without_trace_meta_has_no_trace_context() {
    let server = server();
    for version in ["2025-11-25", "2026-07-28"] {
        let mut c = client(&server, version).await;
        assert_eq!(seen(&mut c, None).await, Value::Null, "no _meta ({version})");
        assert_eq!(seen(&mut c, Some(json!({"progressToken": 1}))).await, Value::Null, "{version}");
        let not_strings = json!({"traceparent": 5, "tracestate": {}, "baggage": null});
        assert_eq!(seen(&mut c, Some(not_strings)).await, Value::Null, "non-strings ignored ({version})");
        c.close().await.unwrap();
    }
}

#[tokio::test]
async fn an_invalid_traceparent_is_never_an_error() {
    let server = server();
    for version in ["2025-11-25", "2026-07-28"] {
        let mut c = client(&server, version).await;
        for bad in ["garbage", "", "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"] {
            let meta = json!({"traceparent": bad, "tracestate": "=", "baggage": ";;"});
            assert_eq!(seen(&mut c, Some(meta)).await["traceparent"], bad, "kept as sent ({version})");
        }
        c.close().await.unwrap();
    }
}
