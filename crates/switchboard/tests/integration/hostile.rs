//! Hostile input to the real binary over stdio and HTTP: each message gets
//! its error, nothing is buffered without bound, and the server keeps serving.

use crate::common;

use std::io::Write;

use common::Switchboard;
use serde_json::json;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# hi\n").unwrap();
    std::fs::create_dir_all(dir.path().join("inner")).unwrap();
    std::fs::write(dir.path().join("inner/a.txt"), "a").unwrap();
    dir
}

#[test]
fn oversized_nested_and_broken_lines_get_errors_and_serving_goes_on() {
    let dir = project();
    let mut switchboard = Switchboard::start(&["serve"], dir.path());
    // 100 MB on one line: skipped without being held in memory, answered -32600.
    {
        let stdin = switchboard.stdin();
        let chunk = vec![b'x'; 1024 * 1024];
        stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"ping\",\"params\":{\"pad\":\"")
            .unwrap();
        for _ in 0..100 {
            stdin.write_all(&chunk).unwrap();
        }
        stdin.write_all(b"\"}}\n").unwrap();
        stdin.flush().unwrap();
    }
    let big = switchboard.next_message();
    assert_eq!(big["error"]["code"], -32600, "{big}");
    assert!(big["error"]["message"].as_str().unwrap().contains("larger than"), "{big}");

    // 100,000 levels of nesting, no stack overflow: where the server must
    // look inside (tool arguments) it is refused; where it never looks (the
    // params of ping) the valid JSON is simply not examined.
    let nest = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"search","arguments":{{"pattern":{}}}}}}}"#,
        nest(100_000)
    );
    switchboard.send_raw(deep.as_bytes());
    let reply = switchboard.next_message();
    let code = reply["error"]["code"].as_i64().unwrap_or(0);
    assert!(code == -32700 || code == -32602 || reply["result"]["isError"] == true, "{reply}");
    let deep_ping =
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{"x":{}}}}}"#, nest(100_000));
    switchboard.send_raw(deep_ping.as_bytes());
    let reply = switchboard.next_message();
    assert_eq!(reply["id"], 2, "{reply}");

    // Not UTF-8, not JSON, JSON but not JSON-RPC.
    switchboard.send_raw(&[0xff, 0xfe, b'{', b'}']);
    assert_eq!(switchboard.next_message()["error"]["code"], -32700);
    switchboard.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":");
    assert_eq!(switchboard.next_message()["error"]["code"], -32700);
    switchboard.send_raw(b"[]");
    assert!(switchboard.next_message().get("error").is_some());

    assert!(switchboard.result("ping", json!({})).is_object());
    switchboard.finish();
}

#[test]
fn traversal_forged_cursors_and_unknown_things_are_refused() {
    let dir = project();
    let mut switchboard = Switchboard::start(&["serve", "inner"], dir.path());
    for uri in [
        "file:///../README.md",
        "file:///%2e%2e/README.md",
        "file:///%2E%2E%2FREADME.md",
        "file:////etc/passwd",
        "file:///a.txt%00.png",
        "file:///..%5cREADME.md",
    ] {
        let r = switchboard.request("resources/read", json!({"uri": uri}));
        let code = r["error"]["code"].as_i64().unwrap_or(0);
        assert!(code == -32002 || code == -32602, "{uri}: {r}");
    }
    let read = switchboard.result("resources/read", json!({"uri": "file:///a.txt"}));
    assert_eq!(read["contents"][0]["text"], "a");
    let r = switchboard
        .request("tools/call", json!({"name": "read_file", "arguments": {"path": "../README.md"}}));
    assert_eq!(r["result"]["isError"], true, "{r}");
    let r = switchboard.request("resources/list", json!({"cursor": "AAAAAAAAAAAAAAAAAAAAAAAAAAAA"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = switchboard.request("tools/call", json!({"name": "no_such_tool", "arguments": {}}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    switchboard.finish();
}

#[tokio::test]
async fn allow_host_names_are_accepted_as_host_and_other_names_refused() {
    let (_child, url) = common::start_http(
        &["serve", "--fixtures", "demo", "--http", "127.0.0.1:0", "--allow-host", "example.test"],
        None,
        &[],
    )
    .await;
    let client = reqwest::Client::builder().timeout(common::WAIT).build().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}});
    let initialize = |header: &'static str, value: &'static str| {
        client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header(header, value)
            .body(init.to_string())
            .send()
    };
    for host in ["example.test", "example.test:8080"] {
        let r = initialize("host", host).await.unwrap();
        assert_eq!(r.status(), 200, "{host}");
        let body: serde_json::Value = r.json().await.unwrap();
        assert_eq!(body["result"]["protocolVersion"], "2025-11-25", "{host}: {body}");
    }
    let r = initialize("origin", "http://example.test").await.unwrap();
    assert_eq!(r.status(), 200);
    // Loopback stays allowed; a name not given is refused.
    assert_eq!(initialize("host", "localhost").await.unwrap().status(), 200);
    for host in ["other.test", "example.test.evil.com"] {
        let r = initialize("host", host).await.unwrap();
        assert_eq!(r.status(), 403, "{host}");
    }
    assert_eq!(initialize("origin", "http://other.test").await.unwrap().status(), 403);
}

#[tokio::test]
async fn allow_origin_names_get_cors_answers_and_other_origins_none() {
    let (_child, url) = common::start_http(
        &[
            "serve",
            "--fixtures",
            "demo",
            "--http",
            "127.0.0.1:0",
            "--allow-origin",
            "https://app.example.com",
        ],
        None,
        &[],
    )
    .await;
    let client = reqwest::Client::builder().timeout(common::WAIT).build().unwrap();
    let preflight = |origin: &'static str| {
        client
            .request(reqwest::Method::OPTIONS, &url)
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "content-type, mcp-protocol-version")
            .send()
    };
    let r = preflight("https://app.example.com").await.unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(r.headers()["access-control-allow-origin"], "https://app.example.com");
    let r = preflight("https://other.example.com").await.unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.headers().get("access-control-allow-origin").is_none());

    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}});
    let r = client
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("origin", "https://app.example.com")
        .body(init.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "a named origin passes the Origin check");
    assert_eq!(r.headers()["access-control-allow-origin"], "https://app.example.com");
    assert!(r.headers()["access-control-expose-headers"].to_str().unwrap().contains("Mcp-Session-Id"));
    // A value that is no origin is a usage error.
    let (ok, _, stderr) =
        common::run(&["serve", "--http", "0", "--allow-origin", "*"], std::path::Path::new("."));
    assert!(!ok);
    assert!(stderr.contains("scheme://host"), "{stderr}");
}
