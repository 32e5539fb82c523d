//! The proxy in front of a real upstream: `switchboard serve --fixtures demo` as
//! a child process over stdio and as an HTTP server, through the library
//! (`switchboard-proxy`, driven by the in-memory client) and through `switchboard proxy`.

use crate::common;

use std::time::Duration;

use serde_json::{Value, json};
use switchboard_proxy::{Proxy, Upstream};
use switchboard_server::Server;
use switchboard_testkit::TestClient;

fn demo_args() -> Vec<String> {
    ["serve", "--fixtures", "demo"].map(String::from).to_vec()
}

async fn proxied(prefix: Option<&str>) -> (Proxy, Server) {
    let upstream = Upstream::spawn(env!("CARGO_BIN_EXE_switchboard"), &demo_args()).unwrap();
    let proxy = Proxy::connect(upstream, prefix.map(str::to_owned)).await.unwrap();
    let server = proxy.register(Server::builder("front", "1")).await.unwrap().build().unwrap();
    proxy.follow(server.clone());
    (proxy, server)
}

fn names(items: &[Value]) -> Vec<String> {
    items.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn every_primitive_crosses_the_proxy_at_every_revision() {
    let (proxy, server) = proxied(None).await;
    assert_eq!(proxy.upstream_info().name, "switchboard");
    for version in ["2024-11-05", "2025-06-18", "2026-07-28"] {
        let mut client = if version == "2026-07-28" {
            TestClient::connect_modern(&server)
        } else {
            TestClient::connect_legacy(&server, version).await
        };
        let tools = client.list_all_tools().await.unwrap();
        assert!(names(&tools).contains(&"echo".to_owned()), "{version}: {tools:?}");
        let add = tools.iter().find(|t| t["name"] == "add").unwrap();
        assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]), "schemas pass through");

        let echo = client.call_tool("echo", json!({"text": "through"})).await.unwrap();
        assert_eq!(echo["content"][0]["text"], "through", "{version}");
        let sum = client.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
        if version != "2024-11-05" {
            assert_eq!(sum["structuredContent"]["sum"], 5.0, "{version}: {sum}");
        }
        // Bad arguments are refused by the proxy's own validation, with the spec's answer.
        let bad = client.call_tool("add", json!({"a": "two"})).await.unwrap();
        assert_eq!(bad["isError"], true, "{version}: {bad}");
        let unknown = client.call_tool("nope", json!({})).await.unwrap_err();
        assert_eq!(unknown.code(), Some(-32602), "{version}");

        let prompt = client.get_prompt("code_review", json!({"code": "fn main() {}"})).await.unwrap();
        assert!(prompt["messages"][0]["content"]["text"].as_str().unwrap().contains("fn main"), "{prompt}");
        let info = client.read_resource("switchboard://server/info").await.unwrap();
        assert!(info["contents"][0]["text"].as_str().is_some(), "{info}");
        let templated = client.read_resource("switchboard://tools/echo").await.unwrap();
        assert!(templated["contents"][0]["text"].as_str().unwrap().contains("echo"), "{templated}");
        let missing = client.read_resource("switchboard://nothing/here").await.unwrap_err();
        let not_found = if version == "2026-07-28" { -32602 } else { -32002 };
        assert_eq!(missing.code(), Some(not_found), "{version}: the client's revision spells not-found");

        let completion = client
            .complete(json!({"type": "ref/resource", "uri": "switchboard://tools/{name}"}), "name", "ec")
            .await
            .unwrap();
        assert_eq!(completion["completion"]["values"], json!(["echo"]), "completion is asked upstream");
    }
}

#[tokio::test]
async fn progress_is_relayed_and_names_take_the_prefix() {
    let (_proxy, server) = proxied(Some("demo")).await;
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(names(&tools).iter().all(|n| n.starts_with("demo_")), "{tools:?}");
    let id = json!(client.next_id());
    client
        .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "demo_countdown", "arguments": {"seconds": 1}, "_meta": {"progressToken": "tick"}}}))
        .await
        .unwrap();
    let progress = client.next_notification("notifications/progress").await.unwrap();
    assert_eq!(progress["params"]["progressToken"], "tick", "our token, not the upstream's: {progress}");
    assert_eq!(progress["params"]["progress"], 1.0);
    let done = client.response_to(&id).await.unwrap();
    assert_eq!(done["result"]["content"][0]["text"], "Counted down 1 seconds.");

    // A cancelled request gets no answer, and the proxy keeps serving.
    let id = json!(client.next_id());
    client
        .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "demo_countdown", "arguments": {"seconds": 30}}}))
        .await
        .unwrap();
    client
        .notify("notifications/cancelled", Some(json!({"requestId": id, "reason": "changed my mind"})))
        .await
        .unwrap();
    let echo = tokio::time::timeout(
        Duration::from_secs(10),
        client.call_tool("demo_echo", json!({"text": "still here"})),
    )
    .await
    .expect("the proxy answers while the cancelled call is gone")
    .unwrap();
    assert_eq!(echo["content"][0]["text"], "still here");
}

#[tokio::test]
async fn an_upstream_that_goes_away_is_an_error_not_a_hang() {
    let upstream = Upstream::spawn(env!("CARGO_BIN_EXE_switchboard"), &["no-such-command".into()]).unwrap();
    let err = Proxy::connect(upstream, None).await.unwrap_err();
    assert!(err.to_string().contains("went away") || err.to_string().contains("closed"), "{err}");
    let err = Upstream::spawn("/nonexistent/upstream-server", &[]).unwrap_err();
    assert!(err.to_string().contains("could not start"), "{err}");
}

/// Starts `switchboard` with `args` and returns the child and the URL it prints.
async fn start_http(args: &[&str]) -> (tokio::process::Child, String) {
    common::start_http(args, None, &[]).await
}

#[tokio::test]
async fn switchboard_proxy_puts_http_in_front_of_a_stdio_server() {
    let exe = env!("CARGO_BIN_EXE_switchboard");
    let (_child, url) = start_http(&[
        "proxy",
        "--http",
        "127.0.0.1:0",
        "--metrics",
        "--",
        exe,
        "serve",
        "--fixtures",
        "demo",
    ])
    .await;
    let client = reqwest::Client::new();
    // A 2026-07-28 request: the upstream only speaks the initialize era.
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": "over http"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let response = client
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    assert!(text.contains("over http"), "{text}");
    let metrics = client.get(url.replace("/mcp", "/metrics")).send().await.unwrap().text().await.unwrap();
    assert!(
        metrics.contains(r#"mcp_requests_total{method="tools/call",name="echo",outcome="ok"} 1"#),
        "{metrics}"
    );
}

#[test]
fn switchboard_proxy_puts_stdio_in_front_of_an_http_server() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (_upstream, url) =
        runtime.block_on(start_http(&["serve", "--fixtures", "demo", "--http", "127.0.0.1:0"]));
    let dir = tempfile::tempdir().unwrap();
    let mut proxy = common::Switchboard::start(&["proxy", "--url", &url], dir.path());
    let result = proxy.result("tools/call", json!({"name": "echo", "arguments": {"text": "over stdio"}}));
    assert_eq!(result["content"][0]["text"], "over stdio");
    let basket = proxy.result("tools/call", json!({"name": "create_basket", "arguments": {}}));
    assert!(
        basket["structuredContent"]["basket_id"].is_string() || basket["content"][0]["text"].is_string(),
        "{basket}"
    );
    proxy.finish();
    drop(runtime);
}

/// Gives the upstream switchboard (serving `dir`) a `hello` command tool by
/// writing its switchboard.toml, waits for the proxy's client to hear of it
/// (`expectation` says through what) and calls it.
async fn add_hello_tool_and_call_it(dir: &std::path::Path, client: &mut TestClient, expectation: &str) {
    std::fs::write(
        dir.join("switchboard.toml"),
        "[[tools.command]]\nname = \"hello\"\ndescription = \"Says hello.\"\ncommand = [\"echo\", \"hello\"]\n",
    )
    .unwrap();
    tokio::time::timeout(
        Duration::from_secs(20),
        client.next_notification("notifications/tools/list_changed"),
    )
    .await
    .expect(expectation)
    .unwrap();
    let result = client.call_tool("hello", json!({})).await.unwrap();
    assert_eq!(result["content"][0]["text"].as_str().unwrap().trim(), "hello");
}

#[tokio::test]
async fn upstream_list_changes_are_followed() {
    // A project-mode upstream: editing its folder changes its lists live.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "hello\n").unwrap();
    let args: Vec<String> = vec!["serve".into(), dir.path().display().to_string()];
    let upstream = Upstream::spawn(env!("CARGO_BIN_EXE_switchboard"), &args).unwrap();
    let proxy = Proxy::connect(upstream, None).await.unwrap();
    let server = proxy.register(Server::builder("front", "1")).await.unwrap().build().unwrap();
    proxy.follow(server.clone());
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    assert!(!names(&client.list_all_tools().await.unwrap()).contains(&"hello".to_owned()));

    add_hello_tool_and_call_it(
        dir.path(),
        &mut client,
        "the upstream's list change reaches the proxy's clients",
    )
    .await;

    // Writing switchboard.toml was itself a new file: announcements may come in
    // more than one burst, so wait for the one that brings NEW.md.
    std::fs::write(dir.path().join("NEW.md"), "new file\n").unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        tokio::time::timeout_at(deadline, client.next_notification("notifications/resources/list_changed"))
            .await
            .expect("new upstream resources are announced")
            .unwrap();
        let listed = client.list_all("resources/list", "resources").await.unwrap();
        if listed.iter().any(|r| r["uri"] == "file:///NEW.md") {
            break;
        }
    }
    let read = client.read_resource("file:///NEW.md").await.unwrap();
    assert_eq!(read["contents"][0]["text"], "new file\n");
}

#[tokio::test]
async fn an_http_upstreams_list_changes_are_followed_through_its_get_stream() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "hello\n").unwrap();
    let folder = dir.path().display().to_string();
    let (_upstream, url) = start_http(&["serve", "--http", "127.0.0.1:0", &folder]).await;
    let proxy = Proxy::connect(Upstream::http(&url).unwrap(), None).await.unwrap();
    let server = proxy.register(Server::builder("front", "1")).await.unwrap().build().unwrap();
    proxy.follow(server.clone());
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    add_hello_tool_and_call_it(
        dir.path(),
        &mut client,
        "the HTTP upstream's list change reaches the proxy's clients",
    )
    .await;
}
