//! Bad input: every bad line gets the JSON-RPC error the spec names (or,
//! for a notification, nothing), and the server keeps serving.
//!
//! After each bad line the test sends a normal request and requires its
//! answer to be the very next line: the server is still serving, and the
//! bad line produced exactly one response.

use serde_json::{Value, json};
use switchboard_server::ServerOptions;
use switchboard_testkit::{Era, TestClient};

use crate::common::{self, ALL_VERSIONS};

/// The next line the server writes, parsed.
async fn next(c: &mut TestClient) -> Value {
    let line = c.recv_line().await.unwrap();
    serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"))
}

/// Sends raw bytes (plus the newline) and returns the next line, parsed.
async fn answer(c: &mut TestClient, bytes: &[u8]) -> Value {
    c.send_raw(bytes).await.unwrap();
    next(c).await
}

/// The server still answers a normal request, and its answer is the next
/// line (so nothing else was written before it). Uninitialized connections
/// use `ping`; others `tools/list` in the client's era.
async fn still_serving(c: &mut TestClient) {
    let id = c.next_id();
    let msg = if *c.era() == Era::None {
        json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
    } else {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": c.with_meta(json!({}))})
    };
    c.send(&msg).await.unwrap();
    let r = next(c).await;
    assert_eq!(r["id"], id, "the next line answers the follow-up request: {r}");
    if *c.era() == Era::None {
        assert_eq!(r["result"], json!({}), "{r}");
    } else {
        assert!(r["result"]["tools"].is_array(), "{r}");
    }
}

/// Asserts that `response` is exactly one JSON-RPC error object with `code`
/// and this `id` (present, `null` included).
fn assert_error(response: &Value, code: i64, id: &Value) {
    assert!(response.is_object(), "one error object: {response}");
    assert_eq!(response["jsonrpc"], "2.0", "{response}");
    assert_eq!(response.get("id"), Some(id), "{response}");
    assert_eq!(response["error"]["code"], code, "{response}");
    assert!(response["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{response}");
    assert!(response.get("result").is_none(), "{response}");
}

/// One client per revision: legacy ones initialized, 2026-07-28 modern,
/// plus one that never initialized.
async fn every_kind_of_connection(server: &switchboard_server::Server) -> Vec<(&'static str, TestClient)> {
    let mut out = vec![("uninitialized", TestClient::connect(server))];
    for v in ALL_VERSIONS {
        let c = if v == "2026-07-28" {
            TestClient::connect_modern(server)
        } else {
            TestClient::connect_legacy(server, v).await
        };
        out.push((v, c));
    }
    out
}

#[tokio::test]
async fn malformed_json_is_a_parse_error_with_null_id() {
    let server = common::server();
    for (label, mut c) in every_kind_of_connection(&server).await {
        for bad in [
            &b"{not json"[..],
            b"{\"jsonrpc\":\"2.0\",",
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} trailing",
            b"]",
            b"[1,",
            b"nul",
        ] {
            let r = answer(&mut c, bad).await;
            assert_eq!(r["error"]["code"], -32700, "{label}: {}", String::from_utf8_lossy(bad));
            assert_error(&r, -32700, &Value::Null);
            still_serving(&mut c).await;
        }
    }
}

#[tokio::test]
async fn invalid_utf8_is_a_parse_error_with_null_id() {
    let server = common::server();
    for (label, mut c) in every_kind_of_connection(&server).await {
        for bad in [&b"\xff\xfe"[..], b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}"] {
            let r = answer(&mut c, bad).await;
            assert_eq!(r["error"]["code"], -32700, "{label}: {}", String::from_utf8_lossy(bad));
            assert_error(&r, -32700, &Value::Null);
            still_serving(&mut c).await;
        }
    }
}

#[tokio::test]
async fn json_that_is_not_an_object_is_an_invalid_request_with_null_id() {
    let server = common::server();
    for (label, mut c) in every_kind_of_connection(&server).await {
        for line in ["42", "\"x\"", "null", "true", "3.5", "{}"] {
            let r = answer(&mut c, line.as_bytes()).await;
            assert_eq!(r["error"]["code"], -32600, "{label}: {line}");
            assert_error(&r, -32600, &Value::Null);
            still_serving(&mut c).await;
        }
    }
}

#[tokio::test]
async fn a_wrong_or_missing_jsonrpc_version_is_an_invalid_request_to_the_readable_id() {
    let server = common::server();
    for (label, mut c) in every_kind_of_connection(&server).await {
        let cases = [
            (r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#, json!(5)),
            (r#"{"jsonrpc":"1.0","id":"abc","method":"ping"}"#, json!("abc")),
            (r#"{"id":6,"method":"ping"}"#, json!(6)),
            (r#"{"id":"six","method":"tools/list","params":{}}"#, json!("six")),
            (r#"{"jsonrpc":"2.00","id":7,"method":"ping"}"#, json!(7)),
        ];
        for (line, id) in cases {
            let r = answer(&mut c, line.as_bytes()).await;
            assert_eq!(r["error"]["code"], -32600, "{label}: {line}");
            assert_error(&r, -32600, &id);
            still_serving(&mut c).await;
        }
    }
}

#[tokio::test]
async fn null_or_non_scalar_ids_are_invalid_requests_with_null_id() {
    let server = common::server();
    for (label, mut c) in every_kind_of_connection(&server).await {
        for line in [
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
        ] {
            let r = answer(&mut c, line.as_bytes()).await;
            assert_eq!(r["error"]["code"], -32600, "{label}: {line}");
            assert_error(&r, -32600, &Value::Null);
            still_serving(&mut c).await;
        }
    }
}

#[tokio::test]
async fn a_request_without_a_method_is_an_invalid_request() {
    let server = common::server();
    for (label, mut c) in every_kind_of_connection(&server).await {
        let r = answer(&mut c, br#"{"jsonrpc":"2.0","id":8}"#).await;
        assert_eq!(r["error"]["code"], -32600, "{label}");
        assert_error(&r, -32600, &json!(8));
        still_serving(&mut c).await;
        let r = answer(&mut c, br#"{"jsonrpc":"2.0","id":"m","params":{}}"#).await;
        assert_error(&r, -32600, &json!("m"));
        still_serving(&mut c).await;
        // A method that is not a string.
        let r = answer(&mut c, br#"{"jsonrpc":"2.0","id":10,"method":7}"#).await;
        assert_eq!(r["error"]["code"], -32600, "{label}: {r}");
        still_serving(&mut c).await;
    }
}

#[tokio::test]
async fn params_that_are_not_structured_are_an_invalid_request() {
    let server = common::server();
    for (label, mut c) in every_kind_of_connection(&server).await {
        for (n, params) in ["3", "\"x\"", "true", "null"].into_iter().enumerate() {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/list","params":{params}}}"#);
            let r = answer(&mut c, line.as_bytes()).await;
            assert_eq!(r["error"]["code"], -32600, "{label}: {line}");
            assert_error(&r, -32600, &json!(n));
            still_serving(&mut c).await;
        }
    }
}

#[tokio::test]
async fn unknown_methods_are_method_not_found() {
    let server = common::server();
    for (label, mut c) in every_kind_of_connection(&server).await {
        if *c.era() == Era::None {
            continue; // Before initialize every legacy request but ping is -32600.
        }
        for method in ["tools/explode", "nothing", "prompts/list", "resources/list"] {
            let params = c.with_meta(json!({}));
            let id = json!(c.next_id());
            c.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await.unwrap();
            let r = next(&mut c).await;
            assert_eq!(r["error"]["code"], -32601, "{label}: {method}");
            assert_error(&r, -32601, &id);
            if method == "tools/explode" {
                assert!(r["error"]["message"].as_str().unwrap().contains("tools/explode"), "{r}");
            }
            still_serving(&mut c).await;
        }
    }
}

#[tokio::test]
async fn wrong_param_types_are_invalid_params() {
    let server = common::server();
    for (label, mut c) in every_kind_of_connection(&server).await {
        if *c.era() == Era::None {
            continue;
        }
        let cases = [
            ("tools/call", json!({"name": 5})),
            ("tools/call", json!({"name": 5, "arguments": {}})),
            ("tools/call", json!({"name": "echo", "arguments": "x"})),
            ("tools/call", json!({"name": "echo", "arguments": [1]})),
            ("tools/call", json!({"arguments": {"text": "x"}})),
            ("tools/list", json!({"cursor": 5})),
        ];
        for (method, params) in cases {
            let params = c.with_meta(params);
            let id = json!(c.next_id());
            c.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await.unwrap();
            let r = next(&mut c).await;
            assert_eq!(r["error"]["code"], -32602, "{label}: {method} {params}");
            assert_error(&r, -32602, &id);
            still_serving(&mut c).await;
        }
        // By-position params are not MCP's shape either.
        if *c.era() != Era::Modern {
            let r =
                answer(&mut c, br#"{"jsonrpc":"2.0","id":"arr","method":"tools/call","params":[1,2]}"#).await;
            assert_error(&r, -32602, &json!("arr"));
            still_serving(&mut c).await;
        }
    }
}

#[tokio::test]
async fn unknown_fields_in_the_envelope_and_in_params_are_ignored() {
    let server = common::server();
    for (label, mut c) in every_kind_of_connection(&server).await {
        if *c.era() == Era::None {
            // Unknown fields in initialize params and in a ping envelope.
            let r = answer(
                &mut c,
                br#"{"jsonrpc":"2.0","id":"i","method":"initialize","extra":1,"params":{"protocolVersion":"2025-06-18","capabilities":{"future":{}},"clientInfo":{"name":"x","version":"1","future":true},"future":[1]}}"#,
            )
            .await;
            assert_eq!(r["id"], "i");
            assert_eq!(r["result"]["protocolVersion"], "2025-06-18", "{r}");
            continue;
        }
        let mut call = c.with_meta(json!({"name": "echo", "arguments": {"text": "x"}, "future": {"a": 1}}));
        if let Some(meta) = call.get_mut("_meta") {
            meta["com.example/unknown"] = json!(true);
        }
        let msg = json!({"jsonrpc": "2.0", "id": "u", "method": "tools/call", "extra": true, "params": call});
        c.send(&msg).await.unwrap();
        let r = next(&mut c).await;
        assert_eq!(r["id"], "u", "{label}");
        assert_eq!(r["result"]["content"], json!([{"type": "text", "text": "x"}]), "{label}: {r}");

        let list = c.with_meta(json!({"future": "field"}));
        let msg =
            json!({"jsonrpc": "2.0", "id": "v", "method": "tools/list", "params": list, "x-extra": [1]});
        c.send(&msg).await.unwrap();
        let r = next(&mut c).await;
        assert_eq!(r["id"], "v", "{label}");
        assert_eq!(r["result"]["tools"].as_array().map(Vec::len), Some(2), "{label}: {r}");
        still_serving(&mut c).await;
    }
}

#[tokio::test]
async fn a_line_over_the_configured_limit_gets_one_error_and_serving_continues() {
    let mut options = ServerOptions::default();
    options.max_message_size = 1024;
    let server = common::server_with(options);
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
        "x".repeat(10_000)
    );
    assert!(big.len() > 10_000);
    let r = answer(&mut c, big.as_bytes()).await;
    assert_error(&r, -32600, &Value::Null);
    assert!(r["error"]["message"].as_str().unwrap().contains("1024"), "names the limit: {r}");
    still_serving(&mut c).await;

    // The limit is inclusive: a 1024-byte line is served, a 1025-byte line is not.
    let line_of = |len: usize, id: u32| {
        let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"pad":""#);
        let tail = r#""}}"#;
        format!("{head}{}{tail}", "p".repeat(len - head.len() - tail.len()))
    };
    let fits = line_of(1024, 2);
    assert_eq!(fits.len(), 1024);
    let r = answer(&mut c, fits.as_bytes()).await;
    assert_eq!((r["id"].clone(), r["result"].clone()), (json!(2), json!({})), "{r}");
    let over = line_of(1025, 3);
    let r = answer(&mut c, over.as_bytes()).await;
    assert_error(&r, -32600, &Value::Null);
    still_serving(&mut c).await;

    // An oversized line of garbage and an oversized batch are refused the same way.
    let r = answer(&mut c, &vec![b'{'; 5000]).await;
    assert_error(&r, -32600, &Value::Null);
    still_serving(&mut c).await;
    let batch =
        format!(r#"[{{"jsonrpc":"2.0","id":4,"method":"ping","params":{{"pad":"{}"}}}}]"#, "b".repeat(2000));
    let r = answer(&mut c, batch.as_bytes()).await;
    assert_error(&r, -32600, &Value::Null);
    still_serving(&mut c).await;
}

#[tokio::test]
async fn a_line_over_the_default_4_mib_limit_gets_an_error_and_serving_continues() {
    let server = common::server();
    assert_eq!(server.options().max_message_size, 4 * 1024 * 1024);
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "y".repeat(5_000_000)
    );
    let r = answer(&mut c, huge.as_bytes()).await;
    assert_error(&r, -32600, &Value::Null);
    assert!(r["error"]["message"].as_str().unwrap().contains("4194304"), "names the limit: {r}");
    still_serving(&mut c).await;
    let fits = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "y".repeat(3 * 1024 * 1024)
    );
    let r = answer(&mut c, fits.as_bytes()).await;
    assert_eq!((r["id"].clone(), r["result"].clone()), (json!(2), json!({})));
    still_serving(&mut c).await;
}

#[tokio::test]
async fn a_2025_03_26_batch_gets_one_array_with_a_response_per_request() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-03-26").await;
    let r = answer(
        &mut c,
        br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}]"#,
    )
    .await;
    let items = r.as_array().unwrap_or_else(|| panic!("an array of responses: {r}"));
    assert_eq!(items.len(), 2, "one response per request, none for the notification: {r}");
    let by_id =
        |id: Value| items.iter().find(|m| m["id"] == id).cloned().unwrap_or_else(|| panic!("{id}: {r}"));
    assert_eq!(by_id(json!(1)), json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    let call = by_id(json!("b"));
    assert_eq!(call["jsonrpc"], "2.0");
    assert_eq!(call["result"]["content"], json!([{"type": "text", "text": "hi"}]));
    still_serving(&mut c).await;
}

#[tokio::test]
async fn a_2025_03_26_batch_of_only_notifications_gets_no_output() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-03-26").await;
    c.send_raw(
        br#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"none"}}]"#,
    )
    .await
    .unwrap();
    // The ping's answer is the very next line: nothing was written for the batch.
    let r = answer(&mut c, br#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#).await;
    assert_eq!(r, json!({"jsonrpc": "2.0", "id": 5, "result": {}}));
    still_serving(&mut c).await;
}

#[tokio::test]
async fn an_empty_2025_03_26_batch_gets_a_single_invalid_request() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-03-26").await;
    for line in ["[]", " [ ] "] {
        let r = answer(&mut c, line.as_bytes()).await;
        assert!(r.is_object(), "an empty batch gets one error, not an array: {r}");
        assert_error(&r, -32600, &Value::Null);
        still_serving(&mut c).await;
    }
}

#[tokio::test]
async fn initialize_inside_a_2025_03_26_batch_is_an_invalid_request() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-03-26").await;
    let r = answer(
        &mut c,
        br#"[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
    )
    .await;
    let items = r.as_array().unwrap_or_else(|| panic!("an array: {r}"));
    assert_eq!(items.len(), 2, "{r}");
    let init = items.iter().find(|m| m["id"] == 1).unwrap();
    assert_error(init, -32600, &json!(1));
    assert!(init["error"]["message"].as_str().unwrap().contains("batch"), "{init}");
    assert!(items.iter().any(|m| *m == json!({"jsonrpc": "2.0", "id": 2, "result": {}})), "{r}");
    still_serving(&mut c).await;
}

#[tokio::test]
async fn an_invalid_element_of_a_2025_03_26_batch_gets_its_error_inside_the_array() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-03-26").await;
    let r = answer(&mut c, br#"[42,{"jsonrpc":"2.0","id":2,"method":"ping"}]"#).await;
    let items = r.as_array().unwrap_or_else(|| panic!("an array: {r}"));
    assert_eq!(items.len(), 2, "{r}");
    let bad = items.iter().find(|m| m.get("error").is_some()).unwrap();
    assert_error(bad, -32600, &Value::Null);
    assert!(items.iter().any(|m| *m == json!({"jsonrpc": "2.0", "id": 2, "result": {}})), "{r}");
    still_serving(&mut c).await;

    // Several kinds of bad element, each answered in place.
    let r = answer(
        &mut c,
        br#"[{"jsonrpc":"2.0","id":null,"method":"ping"},{"jsonrpc":"1.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"nothing"},{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":5}}]"#,
    )
    .await;
    let items = r.as_array().unwrap_or_else(|| panic!("an array: {r}"));
    assert_eq!(items.len(), 4, "{r}");
    assert!(items.iter().any(|m| m["id"].is_null() && m["error"]["code"] == -32600), "{r}");
    assert!(items.iter().any(|m| m["id"] == 3 && m["error"]["code"] == -32600), "{r}");
    assert!(items.iter().any(|m| m["id"] == 4 && m["error"]["code"] == -32601), "{r}");
    assert!(items.iter().any(|m| m["id"] == 5 && m["error"]["code"] == -32602), "{r}");
    still_serving(&mut c).await;
}

#[tokio::test]
async fn batches_are_refused_with_one_invalid_request_in_other_revisions() {
    let server = common::server();
    let batch =
        br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]"#;
    for v in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut c = TestClient::connect_legacy(&server, v).await;
        let r = answer(&mut c, batch).await;
        assert!(r.is_object(), "{v}: one error, not an array: {r}");
        assert_eq!(r["error"]["code"], -32600, "{v}");
        assert_error(&r, -32600, &Value::Null);
        still_serving(&mut c).await;
    }
}

#[tokio::test]
async fn a_batch_before_initialize_is_an_invalid_request() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    let r = answer(&mut c, br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).await;
    assert_error(&r, -32600, &Value::Null);
    still_serving(&mut c).await;
    // Not even initialize itself may open the connection in a batch.
    let r = answer(
        &mut c,
        br#"[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}]"#,
    )
    .await;
    assert_error(&r, -32600, &Value::Null);
    still_serving(&mut c).await;
    // The connection is still uninitialized, and can initialize normally.
    let r = answer(&mut c, br#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#).await;
    assert_error(&r, -32600, &json!("l"));
    c.initialize("2025-03-26").await.unwrap();
    still_serving(&mut c).await;
}

#[tokio::test]
async fn a_batch_of_2026_requests_is_an_invalid_request() {
    let server = common::server();
    let mut c = TestClient::connect_modern(&server);
    let item = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": c.with_meta(json!({}))});
    let r = answer(&mut c, json!([item]).to_string().as_bytes()).await;
    assert_error(&r, -32600, &Value::Null);
    still_serving(&mut c).await;
}

#[tokio::test]
async fn whitespace_only_lines_are_ignored() {
    let server = common::server();
    for (_, mut c) in every_kind_of_connection(&server).await {
        for blank in [&b""[..], b"   ", b"\t", b" \t \r", b"\r"] {
            c.send_raw(blank).await.unwrap();
        }
        still_serving(&mut c).await;
    }
}

#[tokio::test]
async fn crlf_line_endings_work() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    // The whole handshake over CRLF.
    let r = answer(
        &mut c,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"x\",\"version\":\"1\"}}}\r",
    )
    .await;
    assert_eq!(r["result"]["protocolVersion"], "2025-06-18", "{r}");
    c.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r").await.unwrap();
    let r = answer(&mut c, b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\r").await;
    assert_eq!(r, json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
    let r = answer(
        &mut c,
        b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"crlf\"}}}\r",
    )
    .await;
    assert_eq!(r["result"]["content"], json!([{"type": "text", "text": "crlf"}]), "{r}");
    // A bad line ending in CRLF is still one error.
    let r = answer(&mut c, b"{oops\r").await;
    assert_error(&r, -32700, &Value::Null);
    still_serving(&mut c).await;
}
