//! Bad input: every bad line gets the JSON-RPC error the spec names (or,
//! for a notification, nothing), and the server keeps serving.

use mcp_server::ServerOptions;
use mcp_testkit::TestClient;
use serde_json::{Value, json};

use crate::common;

/// Sends raw bytes and returns the single line that answers them.
async fn answer(c: &mut TestClient, bytes: &[u8]) -> Value {
    c.send_raw(bytes).await.unwrap();
    let line = c.recv_line().await.unwrap();
    serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"))
}

/// The server still answers a normal request.
async fn still_serving(c: &mut TestClient) {
    let r = c.request_raw("tools/list", Some(json!({}))).await.unwrap();
    assert!(r["result"]["tools"].is_array(), "{r}");
}

fn code(v: &Value) -> i64 {
    v["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {v}"))
}

#[tokio::test]
async fn unparseable_input_is_a_parse_error_with_null_id() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    for bad in [
        &b"{not json"[..],
        b"{\"jsonrpc\":\"2.0\",",
        b"\xff\xfe",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}",
        b"]",
    ] {
        let r = answer(&mut c, bad).await;
        assert_eq!(code(&r), -32700, "{:?}", String::from_utf8_lossy(bad));
        assert_eq!(r["id"], Value::Null);
        assert_eq!(r["jsonrpc"], "2.0");
        still_serving(&mut c).await;
    }
}

#[tokio::test]
async fn invalid_requests_are_32600() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    let cases: [(&str, Value); 10] = [
        ("42", Value::Null),
        ("\"x\"", Value::Null),
        ("null", Value::Null),
        ("true", Value::Null),
        (r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#, json!(5)),
        (r#"{"id":6,"method":"ping"}"#, json!(6)),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":8}"#, json!(8)),
    ];
    for (line, id) in cases {
        let r = answer(&mut c, line.as_bytes()).await;
        assert_eq!(code(&r), -32600, "{line}");
        assert_eq!(r["id"], id, "{line}");
        still_serving(&mut c).await;
    }
    let r = answer(&mut c, br#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":3}"#).await;
    assert_eq!((code(&r), r["id"].clone()), (-32600, json!(9)), "params must be structured");
    let r = answer(&mut c, br#"{"jsonrpc":"2.0","id":10,"method":7}"#).await;
    assert_eq!(code(&r), -32600, "method must be a string");
}

#[tokio::test]
async fn unknown_methods_and_wrong_param_types_are_named() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    let r = c.request_raw("tools/explode", Some(json!({}))).await.unwrap();
    assert_eq!(code(&r), -32601);
    assert!(r["error"]["message"].as_str().unwrap().contains("tools/explode"));
    for params in [json!({"name": 5}), json!({"name": "echo", "arguments": "x"}), json!([1, 2])] {
        let r = c.request_raw("tools/call", Some(params.clone())).await.unwrap();
        assert_eq!(code(&r), -32602, "{params}");
    }
    let r = c.request_raw("tools/list", Some(json!({"cursor": 5}))).await.unwrap();
    assert_eq!(code(&r), -32602);
    still_serving(&mut c).await;
}

#[tokio::test]
async fn unknown_fields_are_ignored() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    let r = answer(
        &mut c,
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","extra":true,"params":{"name":"echo","arguments":{"text":"x"},"future":{"a":1}}}"#,
    )
    .await;
    assert_eq!(r["result"]["content"][0]["text"], "x");
}

#[tokio::test]
async fn oversized_lines_are_refused_without_stopping_the_server() {
    let mut options = ServerOptions::default();
    options.max_message_size = 1024;
    let server = common::server_with(options);
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
        "x".repeat(10_000)
    );
    let r = answer(&mut c, big.as_bytes()).await;
    assert_eq!(code(&r), -32600);
    assert_eq!(r["id"], Value::Null);
    assert!(r["error"]["message"].as_str().unwrap().contains("1024"));
    still_serving(&mut c).await;

    // The default limit is 4 MiB.
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "y".repeat(5 * 1024 * 1024)
    );
    let r = answer(&mut c, huge.as_bytes()).await;
    assert_eq!(code(&r), -32600);
    still_serving(&mut c).await;
    let fits = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "y".repeat(3 * 1024 * 1024)
    );
    assert_eq!(answer(&mut c, fits.as_bytes()).await["result"], json!({}));
}

#[tokio::test]
async fn blank_lines_are_skipped_and_crlf_works() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    c.send_raw(b"").await.unwrap();
    c.send_raw(b"   \t").await.unwrap();
    let r = answer(&mut c, b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\r").await;
    assert_eq!((r["id"].clone(), r["result"].clone()), (json!(3), json!({})));
}

#[tokio::test]
async fn batches_are_served_in_2025_03_26() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-03-26").await;
    let r = answer(
        &mut c,
        br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}]"#,
    )
    .await;
    let items = r.as_array().expect("an array of responses");
    assert_eq!(items.len(), 2);
    let by_id = |id: Value| items.iter().find(|m| m["id"] == id).cloned().unwrap();
    assert_eq!(by_id(json!(1))["result"], json!({}));
    assert_eq!(by_id(json!("b"))["result"]["content"][0]["text"], "hi");

    // Only notifications: no output at all.
    c.send_raw(br#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"x"}]"#)
        .await
        .unwrap();
    let r = answer(&mut c, br#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#).await;
    assert_eq!(r["id"], 5, "nothing was written for the notification-only batch");

    let r = answer(&mut c, b"[]").await;
    assert!(r.is_object(), "an empty batch gets one error, not an array");
    assert_eq!(code(&r), -32600);

    let r = answer(&mut c, br#"[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}]"#).await;
    assert_eq!(code(&r[0]), -32600, "initialize must not be batched");

    let r = answer(&mut c, br#"[42,{"jsonrpc":"2.0","id":2,"method":"ping"}]"#).await;
    let items = r.as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert!(items.iter().any(|m| m["error"]["code"] == -32600 && m["id"].is_null()));
    assert!(items.iter().any(|m| m["id"] == 2 && m["result"] == json!({})));
    still_serving(&mut c).await;
}

#[tokio::test]
async fn batches_are_refused_in_other_revisions() {
    let server = common::server();
    for v in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut c = TestClient::connect_legacy(&server, v).await;
        let r = answer(&mut c, br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).await;
        assert!(r.is_object(), "{v}");
        assert_eq!((code(&r), r["id"].clone()), (-32600, Value::Null), "{v}");
        still_serving(&mut c).await;
    }
    let mut c = TestClient::connect(&server);
    let r = answer(&mut c, br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).await;
    assert_eq!(code(&r), -32600, "no batch before initialize");
}
