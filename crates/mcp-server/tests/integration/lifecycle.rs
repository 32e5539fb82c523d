//! initialize and version negotiation (legacy), per-request `_meta` and
//! server/discover (2026-07-28), and the line between the two eras.

use mcp_testkit::TestClient;
use serde_json::{Value, json};

use crate::common::{self, LEGACY_VERSIONS};

const SUPPORTED: [&str; 5] = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

fn init_params(version: &str) -> Value {
    json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
}

fn modern(params: Value) -> Value {
    let mut p = params;
    p["_meta"] = TestClient::modern_meta();
    p
}

fn error_code(response: &Value) -> i64 {
    response["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {response}"))
}

#[tokio::test]
async fn initialize_echoes_every_supported_legacy_version() {
    let server = common::builder().instructions("Use echo.").build().unwrap();
    for v in LEGACY_VERSIONS {
        let mut c = TestClient::connect(&server);
        let r = c.request_raw("initialize", Some(init_params(v))).await.unwrap();
        let result = &r["result"];
        assert_eq!(result["protocolVersion"], v);
        assert_eq!(result["capabilities"]["tools"], json!({"listChanged": true}));
        assert_eq!(result["serverInfo"]["name"], "test-server");
        assert_eq!(result["serverInfo"]["version"], "1.2.3");
        assert_eq!(result["serverInfo"].get("title").is_some(), v >= "2025-06-18", "{v}");
        assert_eq!(result["serverInfo"].get("description").is_some(), v >= "2025-11-25", "{v}");
        assert_eq!(result["instructions"], "Use echo.");
        for key in ["resultType", "ttlMs", "cacheScope", "_meta"] {
            assert!(result.get(key).is_none(), "{key} in a legacy result ({v})");
        }
    }
}

#[tokio::test]
async fn unknown_and_modern_versions_get_a_counter_offer_not_an_error() {
    let server = common::server();
    for asked in ["2024-10-07", "2026-01-01", "1.0.0", "2026-07-28", ""] {
        let mut c = TestClient::connect(&server);
        let r = c.request_raw("initialize", Some(init_params(asked))).await.unwrap();
        assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "asked {asked:?}");
    }
}

#[tokio::test]
async fn initialize_twice_or_malformed_is_refused() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    let r = c.request_raw("initialize", Some(json!({"protocolVersion": "2025-06-18"}))).await.unwrap();
    assert_eq!(error_code(&r), -32602, "clientInfo is required");
    c.initialize("2025-06-18").await.unwrap();
    let r = c.request_raw("initialize", Some(init_params("2025-06-18"))).await.unwrap();
    assert_eq!(error_code(&r), -32600);
    assert_eq!(c.request("ping", json!({})).await.unwrap(), json!({}), "still serving");
}

#[tokio::test]
async fn requests_before_initialize_are_refused_but_ping_works() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    for (method, params) in
        [("tools/list", json!({})), ("tools/call", json!({"name": "echo", "arguments": {"text": "x"}}))]
    {
        let r = c.request_raw(method, Some(params)).await.unwrap();
        assert_eq!(error_code(&r), -32600, "{method}");
        assert!(r["error"]["message"].as_str().unwrap().contains("initialize"));
    }
    assert_eq!(c.request_raw("ping", None).await.unwrap()["result"], json!({}));
    c.initialize("2025-03-26").await.unwrap();
    assert_eq!(c.request_raw("ping", None).await.unwrap()["result"], json!({}));
    assert!(c.request("tools/list", json!({})).await.is_ok());
}

#[tokio::test]
async fn notifications_are_never_answered() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    c.notify("notifications/initialized", None).await.unwrap();
    c.notify("notifications/whatever", Some(json!({"x": 1}))).await.unwrap();
    c.notify("notifications/cancelled", Some(json!({"requestId": null}))).await.unwrap();
    c.notify("notifications/cancelled", Some(json!("not an object"))).await.unwrap();
    c.send(&json!({"jsonrpc": "2.0", "id": 99, "method": "ping"})).await.unwrap();
    let next: Value = serde_json::from_str(&c.recv_line().await.unwrap()).unwrap();
    assert_eq!(next["id"], 99, "the first line after the notifications is the ping's answer");
}

#[tokio::test]
async fn ids_keep_their_json_type() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    c.send(&json!({"jsonrpc": "2.0", "id": "abc", "method": "ping"})).await.unwrap();
    let r: Value = serde_json::from_str(&c.recv_line().await.unwrap()).unwrap();
    assert_eq!(r["id"], json!("abc"));
    c.send(&json!({"jsonrpc": "2.0", "id": "7", "method": "ping"})).await.unwrap();
    assert_eq!(serde_json::from_str::<Value>(&c.recv_line().await.unwrap()).unwrap()["id"], json!("7"));
    c.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})).await.unwrap();
    assert_eq!(serde_json::from_str::<Value>(&c.recv_line().await.unwrap()).unwrap()["id"], json!(7));
}

#[tokio::test]
async fn server_discover_describes_the_server() {
    let server = common::builder().instructions("hello").build().unwrap();
    let mut c = TestClient::connect(&server);
    let r = c.request_raw("server/discover", Some(modern(json!({})))).await.unwrap();
    let result = &r["result"];
    assert_eq!(result["supportedVersions"], json!(SUPPORTED));
    assert_eq!(result["capabilities"]["tools"], json!({"listChanged": true}));
    assert_eq!(result["instructions"], "hello");
    assert_eq!(result["resultType"], "complete");
    assert!(result["ttlMs"].is_u64());
    assert_eq!(result["cacheScope"], "public");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "test-server");
}

#[tokio::test]
async fn modern_requests_need_their_meta() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    let r = c.request_raw("server/discover", Some(json!({}))).await.unwrap();
    assert_eq!(error_code(&r), -32602, "discover without _meta");
    let r = c.request_raw("server/discover", None).await.unwrap();
    assert_eq!(error_code(&r), -32602);
    let no_caps = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
    let r = c.request_raw("tools/list", Some(no_caps)).await.unwrap();
    assert_eq!(error_code(&r), -32602);
    assert!(r["error"]["message"].as_str().unwrap().contains("clientCapabilities"));
    let bad_caps = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": 5}});
    assert_eq!(error_code(&c.request_raw("tools/list", Some(bad_caps)).await.unwrap()), -32602);
    let bad_meta = json!({"_meta": 5});
    assert_eq!(error_code(&c.request_raw("server/discover", Some(bad_meta)).await.unwrap()), -32602);
    // clientInfo is optional.
    let bare = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}});
    let r = c.request_raw("tools/list", Some(bare)).await.unwrap();
    assert!(r["result"]["tools"].is_array(), "{r}");
}

#[tokio::test]
async fn unsupported_modern_versions_get_32022_with_the_supported_list() {
    let server = common::server();
    let mut c = TestClient::connect(&server);
    for requested in ["2099-01-01", "v999", "2025-06-18"] {
        let params = json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": requested,
            "io.modelcontextprotocol/clientCapabilities": {}
        }});
        let r = c.request_raw("tools/list", Some(params)).await.unwrap();
        assert_eq!(error_code(&r), -32022, "{requested}");
        assert_eq!(r["error"]["data"]["requested"], requested);
        assert_eq!(r["error"]["data"]["supported"], json!(SUPPORTED), "same list as server/discover");
    }
    let r = c.request_raw("server/discover", Some(modern(json!({})))).await.unwrap();
    assert_eq!(r["result"]["supportedVersions"], json!(SUPPORTED));
}

#[tokio::test]
async fn modern_results_carry_result_type_and_cache_hints() {
    let server = common::server();
    let mut c = TestClient::connect_modern(&server);
    let list = c.request("tools/list", json!({})).await.unwrap();
    assert_eq!(list["resultType"], "complete");
    assert!(list["ttlMs"].is_u64());
    assert_eq!(list["cacheScope"], "public");
    assert_eq!(list["_meta"]["io.modelcontextprotocol/serverInfo"]["version"], "1.2.3");
    let call = c.call_tool("echo", json!({"text": "x"})).await.unwrap();
    assert_eq!(call["resultType"], "complete");
    assert!(call.get("ttlMs").is_none() && call.get("cacheScope").is_none(), "tools/call is not cacheable");
}

#[tokio::test]
async fn methods_removed_in_2026_are_unknown_to_modern_requests() {
    let server = common::server();
    let mut c = TestClient::connect_modern(&server);
    for method in ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"] {
        let e = c.request(method, json!({})).await.unwrap_err();
        assert_eq!(e.code(), Some(-32601), "{method}");
    }
    assert_eq!(c.request("tools/nothing", json!({})).await.unwrap_err().code(), Some(-32601));
}

#[tokio::test]
async fn one_connection_serves_both_eras() {
    let server = common::server();
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    let legacy = c.request("tools/list", json!({})).await.unwrap();
    assert!(legacy.get("resultType").is_none());
    let r = c.request_raw("tools/list", Some(modern(json!({})))).await.unwrap();
    assert_eq!(r["result"]["resultType"], "complete", "a modern request is served statelessly");
    let r = c.request_raw("server/discover", Some(modern(json!({})))).await.unwrap();
    assert!(r["result"]["supportedVersions"].is_array());
    // And the legacy session is untouched.
    assert!(c.request("tools/list", json!({})).await.unwrap().get("resultType").is_none());
}

#[tokio::test]
async fn modern_output_is_shaped_for_2026() {
    let server = common::server();
    let mut c = TestClient::connect_modern(&server);
    let r = c.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap();
    assert_eq!(r["structuredContent"], json!({"sum": 3}));
    let tools = c.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t["title"] == "Echo"));
}
