//! initialize and version negotiation (legacy), per-request `_meta` and
//! server/discover (2026-07-28), and the line between the two eras.
//!
//! Every error path is followed by a request whose answer must be the very
//! next line the server writes: the connection keeps serving, and the error
//! was the only thing written.

use serde_json::{Value, json};
use switchboard_server::{Resource, Server, ServerOptions};
use switchboard_testkit::TestClient;

use crate::common::{self, ALL_VERSIONS, LEGACY_VERSIONS};

/// `supportedVersions`, newest first (`basic/versioning` of 2026-07-28).
const SUPPORTED: [&str; 5] = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

fn init_params(version: &str) -> Value {
    json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
}

/// `params` with the full 2026-07-28 `_meta` (version, capabilities, clientInfo).
fn modern(params: Value) -> Value {
    let mut p = params;
    p["_meta"] = TestClient::modern_meta();
    p
}

/// `params` with a `_meta` naming `version`, with capabilities and no clientInfo.
fn meta_version(params: Value, version: &str) -> Value {
    let mut p = params;
    p["_meta"] = json!({PROTOCOL_VERSION: version, CLIENT_CAPABILITIES: {}});
    p
}

/// Asserts that `response` is exactly a JSON-RPC error with `code` addressed to `id`.
fn assert_error(response: &Value, code: i64, id: &Value) {
    assert_eq!(response["jsonrpc"], "2.0", "{response}");
    assert_eq!(response.get("id"), Some(id), "error addressed to its request: {response}");
    assert_eq!(response["error"]["code"], code, "{response}");
    assert!(response["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{response}");
    assert!(response.get("result").is_none(), "{response}");
}

fn error_message(response: &Value) -> &str {
    response["error"]["message"].as_str().unwrap_or_else(|| panic!("not an error: {response}"))
}

/// Sends a request with exactly these params and returns the very next line
/// the server writes, parsed; it must answer this request.
async fn exchange(c: &mut TestClient, id: Value, method: &str, params: Option<Value>) -> Value {
    let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(p) = params {
        msg["params"] = p;
    }
    c.send(&msg).await.unwrap();
    let line = c.recv_line().await.unwrap();
    let response: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"));
    assert_eq!(response.get("id"), Some(&id), "the next line answers request {id}: {response}");
    response
}

/// A legacy `ping` is the next thing answered, with `{}`.
async fn legacy_ping_answers(c: &mut TestClient) {
    let id = json!(c.next_id());
    let r = exchange(c, id, "ping", None).await;
    assert_eq!(r["result"], json!({}), "{r}");
}

/// A 2026-07-28 `tools/list` is the next thing answered, with the tools.
async fn modern_list_answers(c: &mut TestClient) {
    let id = json!(c.next_id());
    let r = exchange(c, id, "tools/list", Some(modern(json!({})))).await;
    assert_eq!(tool_names(&r["result"]), ["echo", "add"], "{r}");
    assert_eq!(r["result"]["resultType"], "complete");
}

fn tool_names(list: &Value) -> Vec<&str> {
    list["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {list}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

/// A server with resources and logging, so that `logging/setLevel` and
/// `resources/(un)subscribe` exist for legacy clients.
fn full_server() -> Server {
    common::builder()
        .resource(Resource::new("test://doc", "doc").text("contents"))
        .enable_logging()
        .build()
        .unwrap()
}

#[tokio::test]
async fn initialize_echoes_every_supported_legacy_version() {
    let server = common::builder().instructions("Use echo.").build().unwrap();
    for v in LEGACY_VERSIONS {
        let mut c = TestClient::connect(&server);
        let r = exchange(&mut c, json!(1), "initialize", Some(init_params(v))).await;
        assert_eq!(r["jsonrpc"], "2.0");
        assert!(r.get("error").is_none(), "{v}: {r}");
        let result = &r["result"];
        assert_eq!(result["protocolVersion"], v);
        assert_eq!(result["capabilities"], json!({"tools": {"listChanged": true}}), "{v}");
        let mut info = json!({"name": "test-server", "version": "1.2.3"});
        if v >= "2025-06-18" {
            info["title"] = json!("Test server");
        }
        if v >= "2025-11-25" {
            info["description"] = json!("Used by the integration tests");
        }
        assert_eq!(result["serverInfo"], info, "{v}");
        assert_eq!(result["instructions"], "Use echo.", "{v}");
        let mut keys: Vec<&str> = result.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["capabilities", "instructions", "protocolVersion", "serverInfo"], "{v}: {result}");
        c.notify("notifications/initialized", None).await.unwrap();
        legacy_ping_answers(&mut c).await;
    }
}

#[tokio::test]
async fn initialize_omits_instructions_when_none_are_set() {
    let server = common::server();
    for v in LEGACY_VERSIONS {
        let mut c = TestClient::connect(&server);
        let result = c.initialize(v).await.unwrap();
        assert_eq!(result["protocolVersion"], v);
        assert!(result.get("instructions").is_none(), "{v}: {result}");
    }
}

#[tokio::test]
async fn legacy_results_carry_no_2026_fields() {
    let server = common::server();
    for v in LEGACY_VERSIONS {
        let mut c = TestClient::connect_legacy(&server, v).await;
        let list = c.request("tools/list", json!({})).await.unwrap();
        assert_eq!(tool_names(&list), ["echo", "add"], "{v}");
        let call = c.call_tool("echo", json!({"text": "hi"})).await.unwrap();
        assert_eq!(call["content"], json!([{"type": "text", "text": "hi"}]), "{v}");
        let ping = c.request("ping", json!({})).await.unwrap();
        assert_eq!(ping, json!({}), "{v}");
        for (what, result) in [("tools/list", &list), ("tools/call", &call)] {
            for key in ["resultType", "ttlMs", "cacheScope"] {
                assert!(result.get(key).is_none(), "{key} in a legacy {what} result ({v}): {result}");
            }
            assert!(
                result.get("_meta").is_none_or(|m| m.get(SERVER_INFO).is_none()),
                "2026 serverInfo _meta in a legacy {what} result ({v}): {result}"
            );
        }
    }
}

#[tokio::test]
async fn unknown_and_modern_versions_get_the_latest_legacy_revision_as_a_counter_offer() {
    let server = common::server();
    for asked in ["2024-10-07", "2026-01-01", "1.0.0", "2026-07-28"] {
        let mut c = TestClient::connect(&server);
        let r = exchange(&mut c, json!(1), "initialize", Some(init_params(asked))).await;
        assert!(r.get("error").is_none(), "asked {asked:?}: a counter-offer, never an error: {r}");
        assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "asked {asked:?}");
        // The result is shaped for the offered revision.
        assert_eq!(r["result"]["serverInfo"]["description"], "Used by the integration tests", "{asked}");
        assert!(r["result"].get("resultType").is_none(), "{asked}");
        c.notify("notifications/initialized", None).await.unwrap();
        // The connection now speaks 2025-11-25: requests are served, batches are not.
        let list = c.request("tools/list", json!({})).await.unwrap();
        assert_eq!(tool_names(&list), ["echo", "add"], "{asked}");
        c.send_raw(br#"[{"jsonrpc":"2.0","id":"b","method":"ping"}]"#).await.unwrap();
        let refused: Value = serde_json::from_str(&c.recv_line().await.unwrap()).unwrap();
        assert_error(&refused, -32600, &Value::Null);
        legacy_ping_answers(&mut c).await;
    }
}

#[tokio::test]
async fn a_second_initialize_on_the_same_connection_is_an_invalid_request() {
    let server = common::server();
    for v in LEGACY_VERSIONS {
        let mut c = TestClient::connect_legacy(&server, v).await;
        for again in LEGACY_VERSIONS {
            let id = json!(c.next_id());
            let r = exchange(&mut c, id.clone(), "initialize", Some(init_params(again))).await;
            assert_error(&r, -32600, &id);
            assert!(error_message(&r).contains("initialize"), "{r}");
            legacy_ping_answers(&mut c).await;
        }
        let list = c.request("tools/list", json!({})).await.unwrap();
        assert_eq!(tool_names(&list), ["echo", "add"], "{v}");
    }
}

#[tokio::test]
async fn a_second_initialize_before_initialized_is_also_refused() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    let r = exchange(&mut c, json!(1), "initialize", Some(init_params("2025-06-18"))).await;
    assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
    let r = exchange(&mut c, json!(2), "initialize", Some(init_params("2025-06-18"))).await;
    assert_error(&r, -32600, &json!(2));
    legacy_ping_answers(&mut c).await;
}

#[tokio::test]
async fn a_refused_second_initialize_keeps_the_negotiated_revision() {
    let server = common::server();
    let batch = br#"[{"jsonrpc":"2.0","id":"b1","method":"ping"}]"#;

    // 2025-06-18 stays 2025-06-18: a batch is still refused.
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    let r = exchange(&mut c, json!("again"), "initialize", Some(init_params("2025-03-26"))).await;
    assert_error(&r, -32600, &json!("again"));
    c.send_raw(batch).await.unwrap();
    let r: Value = serde_json::from_str(&c.recv_line().await.unwrap()).unwrap();
    assert_error(&r, -32600, &Value::Null);
    legacy_ping_answers(&mut c).await;

    // 2025-03-26 stays 2025-03-26: a batch is still served.
    let mut c = TestClient::connect_legacy(&server, "2025-03-26").await;
    let r = exchange(&mut c, json!("again"), "initialize", Some(init_params("2025-06-18"))).await;
    assert_error(&r, -32600, &json!("again"));
    c.send_raw(batch).await.unwrap();
    let r: Value = serde_json::from_str(&c.recv_line().await.unwrap()).unwrap();
    assert_eq!(r, json!([{"jsonrpc": "2.0", "id": "b1", "result": {}}]));
    legacy_ping_answers(&mut c).await;
}

#[tokio::test]
async fn malformed_initialize_params_are_invalid_params_and_leave_the_connection_uninitialized() {
    let server = common::server();
    for v in LEGACY_VERSIONS {
        let mut c = TestClient::connect(&server);
        let bad = [
            Some(json!({"protocolVersion": v, "capabilities": {}})),
            Some(json!({"protocolVersion": v, "capabilities": {}, "clientInfo": "t"})),
            Some(json!({"protocolVersion": v, "capabilities": {}, "clientInfo": {"version": "1"}})),
            Some(json!({"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})),
            Some(
                json!({"protocolVersion": 20250618, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
            ),
            None,
        ];
        for params in bad {
            let id = json!(c.next_id());
            let r = exchange(&mut c, id.clone(), "initialize", params.clone()).await;
            assert_error(&r, -32602, &id);
            // Still not initialized, still serving.
            let id = json!(c.next_id());
            let r = exchange(&mut c, id.clone(), "tools/list", Some(json!({}))).await;
            assert_error(&r, -32600, &id);
            legacy_ping_answers(&mut c).await;
        }
        // A correct initialize still succeeds afterwards.
        let result = c.initialize(v).await.unwrap();
        assert_eq!(result["protocolVersion"], v);
    }
}

#[tokio::test]
async fn requests_before_initialize_are_refused_but_ping_is_answered() {
    let server = common::server();
    for v in LEGACY_VERSIONS {
        let mut c = TestClient::connect(&server);
        legacy_ping_answers(&mut c).await;
        for (method, params) in
            [("tools/list", json!({})), ("tools/call", json!({"name": "echo", "arguments": {"text": "x"}}))]
        {
            let id = json!(c.next_id());
            let r = exchange(&mut c, id.clone(), method, Some(params)).await;
            assert_error(&r, -32600, &id);
            assert!(error_message(&r).contains("initialize"), "{method}: {r}");
            legacy_ping_answers(&mut c).await;
        }
        let r = exchange(&mut c, json!("p"), "ping", Some(json!({}))).await;
        assert_eq!(r["result"], json!({}), "ping with empty params before initialize");
        c.initialize(v).await.unwrap();
        legacy_ping_answers(&mut c).await;
        let list = c.request("tools/list", json!({})).await.unwrap();
        assert_eq!(tool_names(&list), ["echo", "add"], "{v}");
    }
}

#[tokio::test]
async fn notifications_are_never_answered() {
    let server = common::server();
    let notifications = [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"x": 1}}),
        json!({"jsonrpc": "2.0", "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": null}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "not an object"}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": 7}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12345}}),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "nope", "progress": 1}}),
        json!({"jsonrpc": "1.0", "method": "notifications/whatever"}),
        json!({"method": "notifications/whatever"}),
        json!({"jsonrpc": "2.0", "method": "notifications/whatever", "params": modern(json!({}))}),
    ];
    // Before initialize, and after it in every legacy revision.
    let mut connections = vec![TestClient::connect(&server)];
    for v in LEGACY_VERSIONS {
        connections.push(TestClient::connect_legacy(&server, v).await);
    }
    for mut c in connections {
        for n in &notifications {
            c.send(n).await.unwrap();
        }
        let r = exchange(&mut c, json!(99), "ping", None).await;
        assert_eq!(r["result"], json!({}), "the first line after the notifications is the ping's answer");
    }
    // And on a connection used only by 2026-07-28 requests.
    let mut c = TestClient::connect(&server);
    for n in &notifications {
        c.send(n).await.unwrap();
    }
    let r = exchange(&mut c, json!(99), "tools/list", Some(modern(json!({})))).await;
    assert_eq!(tool_names(&r["result"]), ["echo", "add"]);
}

#[tokio::test]
async fn string_ids_are_echoed_as_strings_and_integer_ids_as_integers() {
    let server = common::server();
    let ids = [json!("abc"), json!("7"), json!(""), json!(7), json!(0), json!(-3), json!(i64::MAX)];
    for v in ALL_VERSIONS {
        let mut c = if v == "2026-07-28" {
            TestClient::connect_modern(&server)
        } else {
            TestClient::connect_legacy(&server, v).await
        };
        for id in &ids {
            // A result...
            let params = c.with_meta(json!({}));
            let r = exchange(&mut c, id.clone(), "tools/list", Some(params)).await;
            assert_eq!(r.get("id"), Some(id), "{v}");
            assert!(r["result"]["tools"].is_array(), "{v}: {r}");
            // ...and an error keep the id's JSON type.
            let params = c.with_meta(json!({}));
            let r = exchange(&mut c, id.clone(), "tools/nothing", Some(params)).await;
            assert_error(&r, -32601, id);
        }
        // The id is raw JSON text: "abc" as written on the wire.
        let params = c.with_meta(json!({}));
        let mut msg = json!({"jsonrpc": "2.0", "id": "abc", "method": "tools/list"});
        msg["params"] = params;
        c.send(&msg).await.unwrap();
        let line = c.recv_line().await.unwrap();
        assert!(line.contains(r#""id":"abc""#), "{v}: {line}");
    }
}

#[tokio::test]
async fn server_discover_with_full_meta_describes_the_server() {
    let server = common::builder().instructions("hello").build().unwrap();
    // On a connection that never initialized, and on one per legacy revision.
    let mut connections = vec![("none", TestClient::connect(&server))];
    for v in LEGACY_VERSIONS {
        connections.push((v, TestClient::connect_legacy(&server, v).await));
    }
    for (label, mut c) in connections {
        let r = exchange(&mut c, json!("d"), "server/discover", Some(modern(json!({})))).await;
        assert_eq!(r["jsonrpc"], "2.0");
        let result = &r["result"];
        assert_eq!(result["supportedVersions"], json!(SUPPORTED), "{label}");
        assert_eq!(result["capabilities"], json!({"tools": {"listChanged": true}}), "{label}");
        assert_eq!(result["instructions"], "hello", "{label}");
        assert_eq!(result["resultType"], "complete", "{label}");
        assert!(result["ttlMs"].is_u64(), "ttlMs is an integer: {result}");
        assert_eq!(result["ttlMs"], 300_000, "the default discover TTL (5 min)");
        assert_eq!(result["cacheScope"], "public", "{label}");
        let info = &result["_meta"][SERVER_INFO];
        assert_eq!(info["name"], "test-server", "{label}");
        assert_eq!(info["version"], "1.2.3", "{label}");
        assert_eq!(info["title"], "Test server", "{label}");
        assert_eq!(info["description"], "Used by the integration tests", "{label}");
        modern_list_answers(&mut c).await;
    }
}

#[tokio::test]
async fn server_discover_ttl_follows_the_options() {
    let mut options = ServerOptions::default();
    options.discover_ttl = std::time::Duration::from_millis(1500);
    options.list_ttl = std::time::Duration::from_millis(250);
    let server = common::server_with(options);
    let mut c = TestClient::connect_modern(&server);
    assert_eq!(c.request("server/discover", json!({})).await.unwrap()["ttlMs"], 1500);
    assert_eq!(c.request("tools/list", json!({})).await.unwrap()["ttlMs"], 250);
}

#[tokio::test]
async fn server_discover_without_the_required_meta_is_invalid_params() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    let cases = [
        ("params {}", Some(json!({}))),
        ("no params", None),
        ("_meta {}", Some(json!({"_meta": {}}))),
        ("_meta not an object", Some(json!({"_meta": 5}))),
        ("missing clientCapabilities", Some(json!({"_meta": {PROTOCOL_VERSION: "2026-07-28"}}))),
        (
            "clientCapabilities not an object",
            Some(json!({"_meta": {PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: 5}})),
        ),
        ("missing protocolVersion", Some(json!({"_meta": {CLIENT_CAPABILITIES: {}}}))),
        (
            "protocolVersion not a string",
            Some(json!({"_meta": {PROTOCOL_VERSION: 20260728, CLIENT_CAPABILITIES: {}}})),
        ),
    ];
    for (what, params) in cases {
        let id = json!(c.next_id());
        let r = exchange(&mut c, id.clone(), "server/discover", params).await;
        assert_error(&r, -32602, &id);
        let again = exchange(&mut c, json!(what), "server/discover", Some(modern(json!({})))).await;
        assert_eq!(again["result"]["supportedVersions"], json!(SUPPORTED), "{what}: still serving");
    }
    // The same rules hold for every modern request (here: tools/list).
    let r =
        exchange(&mut c, json!("l"), "tools/list", Some(json!({"_meta": {PROTOCOL_VERSION: "2026-07-28"}})))
            .await;
    assert_error(&r, -32602, &json!("l"));
    assert!(error_message(&r).contains("clientCapabilities"), "{r}");
    modern_list_answers(&mut c).await;
}

#[tokio::test]
async fn unsupported_modern_versions_are_32022_with_the_discover_list() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    let discover = exchange(&mut c, json!("d"), "server/discover", Some(modern(json!({})))).await;
    let supported = discover["result"]["supportedVersions"].clone();
    assert_eq!(supported, json!(SUPPORTED));
    for method in ["server/discover", "tools/list"] {
        for requested in ["2099-01-01", "v999", ""] {
            let id = json!(c.next_id());
            let r = exchange(&mut c, id.clone(), method, Some(meta_version(json!({}), requested))).await;
            assert_error(&r, -32022, &id);
            assert_eq!(r["error"]["data"]["requested"], requested, "{method}");
            assert_eq!(r["error"]["data"]["supported"], supported, "{method}: same list as server/discover");
            modern_list_answers(&mut c).await;
        }
    }
}

#[tokio::test]
async fn a_legacy_version_in_meta_is_32022_pointing_at_initialize() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    for method in ["server/discover", "tools/list"] {
        for v in LEGACY_VERSIONS {
            let id = json!(c.next_id());
            let r = exchange(&mut c, id.clone(), method, Some(meta_version(json!({}), v))).await;
            assert_error(&r, -32022, &id);
            assert_eq!(r["error"]["data"]["requested"], v, "{method}");
            assert_eq!(r["error"]["data"]["supported"], json!(SUPPORTED), "{method}");
            assert!(error_message(&r).contains("initialize"), "{method} {v}: {r}");
            modern_list_answers(&mut c).await;
        }
    }
}

#[tokio::test]
async fn modern_tools_list_carries_result_type_and_cache_hints() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    let r = exchange(&mut c, json!(1), "tools/list", Some(modern(json!({})))).await;
    let list = &r["result"];
    assert_eq!(tool_names(list), ["echo", "add"]);
    assert_eq!(list["resultType"], "complete");
    assert!(list["ttlMs"].is_u64(), "ttlMs is an integer: {list}");
    assert_eq!(list["ttlMs"], 60_000, "the default list TTL (60 s)");
    assert_eq!(list["cacheScope"], "public");
    assert_eq!(list["_meta"][SERVER_INFO]["name"], "test-server");
    assert_eq!(list["_meta"][SERVER_INFO]["version"], "1.2.3");
}

#[tokio::test]
async fn modern_tools_call_carries_result_type_but_no_cache_hints() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    let r = exchange(
        &mut c,
        json!(1),
        "tools/call",
        Some(modern(json!({"name": "echo", "arguments": {"text": "x"}}))),
    )
    .await;
    let call = &r["result"];
    assert_eq!(call["content"], json!([{"type": "text", "text": "x"}]));
    assert_eq!(call["resultType"], "complete");
    assert!(call.get("ttlMs").is_none(), "tools/call is not cacheable: {call}");
    assert!(call.get("cacheScope").is_none(), "tools/call is not cacheable: {call}");
    assert_eq!(call["_meta"][SERVER_INFO]["name"], "test-server");
}

#[tokio::test]
async fn modern_requests_are_served_without_client_info() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    let r = exchange(&mut c, json!(1), "server/discover", Some(meta_version(json!({}), "2026-07-28"))).await;
    assert_eq!(r["result"]["supportedVersions"], json!(SUPPORTED), "{r}");
    let r = exchange(&mut c, json!(2), "tools/list", Some(meta_version(json!({}), "2026-07-28"))).await;
    assert_eq!(tool_names(&r["result"]), ["echo", "add"]);
    let call = meta_version(json!({"name": "add", "arguments": {"a": 2, "b": 3}}), "2026-07-28");
    let r = exchange(&mut c, json!(3), "tools/call", Some(call)).await;
    assert_eq!(r["result"]["structuredContent"], json!({"sum": 5}), "{r}");
    assert_eq!(r["result"]["resultType"], "complete");
}

#[tokio::test]
async fn modern_requests_work_on_a_connection_that_never_initialized() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    modern_list_answers(&mut c).await;
    let call = modern(json!({"name": "echo", "arguments": {"text": "stateless"}}));
    let r = exchange(&mut c, json!(2), "tools/call", Some(call)).await;
    assert_eq!(r["result"]["content"][0]["text"], "stateless");
    // Modern requests did not initialize the connection for legacy requests...
    let r = exchange(&mut c, json!(3), "tools/list", Some(json!({}))).await;
    assert_error(&r, -32600, &json!(3));
    legacy_ping_answers(&mut c).await;
    // ...which may still negotiate afterwards.
    assert_eq!(c.initialize("2025-06-18").await.unwrap()["protocolVersion"], "2025-06-18");
    let r = exchange(&mut c, json!(4), "tools/list", Some(json!({}))).await;
    assert!(r["result"].get("resultType").is_none(), "{r}");
    modern_list_answers(&mut c).await;
}

#[tokio::test]
async fn one_connection_serves_both_eras() {
    let server = common::server();
    for v in LEGACY_VERSIONS {
        let mut c = TestClient::connect_legacy(&server, v).await;
        let legacy = exchange(&mut c, json!(1), "tools/list", Some(json!({}))).await;
        assert!(legacy["result"].get("resultType").is_none(), "{v}: {legacy}");
        let echo = &legacy["result"]["tools"][0];
        assert_eq!(echo.get("title").is_some(), v >= "2025-06-18", "legacy shaping for {v}: {echo}");

        let modern_list = exchange(&mut c, json!(2), "tools/list", Some(modern(json!({})))).await;
        assert_eq!(modern_list["result"]["resultType"], "complete", "{v}: served statelessly");
        assert_eq!(modern_list["result"]["ttlMs"], 60_000, "{v}");
        assert_eq!(
            modern_list["result"]["tools"][0]["title"], "Echo",
            "{v}: 2026 shaping whatever the connection negotiated"
        );
        let call = modern(json!({"name": "echo", "arguments": {"text": "m"}}));
        let r = exchange(&mut c, json!(3), "tools/call", Some(call)).await;
        assert_eq!(r["result"]["resultType"], "complete", "{v}");
        let r = exchange(&mut c, json!(4), "server/discover", Some(modern(json!({})))).await;
        assert_eq!(r["result"]["supportedVersions"], json!(SUPPORTED), "{v}");

        // And the legacy session is untouched.
        let r = exchange(
            &mut c,
            json!(5),
            "tools/call",
            Some(json!({"name": "echo", "arguments": {"text": "l"}})),
        )
        .await;
        assert_eq!(r["result"], json!({"content": [{"type": "text", "text": "l"}]}), "{v}");
        legacy_ping_answers(&mut c).await;
    }
}

#[tokio::test]
async fn methods_removed_in_2026_are_method_not_found_for_modern_requests() {
    let server = full_server();
    let removed = [
        ("initialize", init_params("2025-06-18")),
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "debug"})),
        ("resources/subscribe", json!({"uri": "test://doc"})),
        ("resources/unsubscribe", json!({"uri": "test://doc"})),
    ];
    // A connection that never initialized.
    let mut c = TestClient::connect(&server);
    for (method, params) in &removed {
        let id = json!(c.next_id());
        let r = exchange(&mut c, id.clone(), method, Some(modern(params.clone()))).await;
        assert_error(&r, -32601, &id);
        modern_list_answers(&mut c).await;
    }
    // The modern initialize did not initialize the connection.
    let r = exchange(&mut c, json!("l"), "tools/list", Some(json!({}))).await;
    assert_error(&r, -32600, &json!("l"));

    // Connections that initialized: the same methods are served as legacy
    // requests and refused as modern ones.
    for v in LEGACY_VERSIONS {
        let mut c = TestClient::connect_legacy(&server, v).await;
        for (method, params) in &removed {
            let id = json!(c.next_id());
            let r = exchange(&mut c, id.clone(), method, Some(modern(params.clone()))).await;
            assert_error(&r, -32601, &id);
            modern_list_answers(&mut c).await;
            if *method != "initialize" {
                let id = json!(c.next_id());
                let r = exchange(&mut c, id, method, Some(params.clone())).await;
                assert_eq!(r["result"], json!({}), "legacy {method} under {v}: {r}");
            }
        }
    }
}

#[tokio::test]
async fn a_meta_that_is_not_an_object_is_invalid_params_for_every_method_in_both_eras() {
    let server = common::server();
    let mut legacy = TestClient::connect_legacy(&server, "2025-06-18").await;
    let mut fresh = TestClient::connect(&server);
    for bad in [json!(5), json!("x"), json!([1]), json!(true)] {
        for method in ["ping", "tools/list", "tools/call", "prompts/get"] {
            let params = json!({"name": "echo", "_meta": bad});
            for c in [&mut legacy, &mut fresh] {
                let id = json!(c.next_id());
                let r = exchange(c, id.clone(), method, Some(params.clone())).await;
                assert_error(&r, -32602, &id);
                assert!(error_message(&r).ends_with("params._meta must be an object"), "{method} {bad}: {r}");
            }
        }
    }
    // `null` stands for no `_meta`.
    let id = json!(legacy.next_id());
    let r = exchange(&mut legacy, id, "ping", Some(json!({"_meta": null}))).await;
    assert_eq!(r["result"], json!({}), "{r}");
}
