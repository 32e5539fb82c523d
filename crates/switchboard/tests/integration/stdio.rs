//! End-to-end: the real `switchboard` binary over real pipes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

struct Switchboard {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Switchboard {
    fn start() -> Self {
        Self::start_with(&["serve", "--fixtures", "demo"])
    }

    fn start_with(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(args)
            .env("SWITCHBOARD_LOG", "debug")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("switchboard starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        Self { child, stdin, stdout }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write to switchboard");
        stdin.flush().expect("flush");
    }

    /// Reads one line; every line on stdout must be a JSON-RPC message.
    fn recv(&mut self) -> Value {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).expect("read from switchboard");
        assert!(n > 0, "switchboard closed stdout early");
        let v: Value =
            serde_json::from_str(&line).unwrap_or_else(|_| panic!("stdout line is not JSON: {line:?}"));
        assert_eq!(v["jsonrpc"], "2.0", "{line}");
        v
    }

    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.recv();
            if m["id"] == id && m.get("method").is_none() {
                return m;
            }
        }
    }

    /// Closes stdin and waits for a clean exit; returns stderr.
    fn finish(mut self) -> String {
        drop(self.stdin.take());
        let mut rest = String::new();
        while self.stdout.read_line(&mut rest).expect("read") > 0 {}
        let output = self.child.wait_with_output().expect("switchboard exits");
        assert!(output.status.success(), "switchboard exited with {:?}", output.status);
        String::from_utf8_lossy(&output.stderr).into_owned()
    }
}

#[test]
fn serves_initialize_tools_list_and_tools_call_over_stdio() {
    let mut switchboard = Switchboard::start();
    let init = switchboard.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["result"]["serverInfo"]["name"], "switchboard");
    assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true);
    switchboard.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let list = switchboard.request(2, "tools/list", json!({}));
    let names: Vec<&str> =
        list["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    for expected in ["echo", "add", "word_count", "countdown", "create_basket", "add_item", "view_basket"] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }

    let sum = switchboard.request(3, "tools/call", json!({"name": "add", "arguments": {"a": 1.5, "b": 2}}));
    assert_eq!(sum["result"]["structuredContent"], json!({"sum": 3.5}));

    let bad = switchboard.request(4, "tools/call", json!({"name": "add", "arguments": {"a": "x", "b": 1}}));
    assert_eq!(bad["result"]["isError"], true);

    let basket = switchboard.request(5, "tools/call", json!({"name": "create_basket", "arguments": {}}));
    let id = basket["result"]["structuredContent"]["basket_id"].as_str().unwrap().to_owned();
    let added = switchboard.request(
        6,
        "tools/call",
        json!({"name": "add_item", "arguments": {"basket_id": id, "item": "apple", "quantity": 3}}),
    );
    assert_eq!(added["result"]["structuredContent"]["total_quantity"], 3);
    let forged = switchboard.request(
        7,
        "tools/call",
        json!({"name": "view_basket", "arguments": {"basket_id": "basket_forged"}}),
    );
    assert_eq!(forged["result"]["isError"], true);
    assert!(forged["result"]["content"][0]["text"].as_str().unwrap().contains("create_basket"));

    // Garbage gets an error and the process keeps serving.
    switchboard.stdin.as_mut().unwrap().write_all(b"not json\n").unwrap();
    let err = switchboard.recv();
    assert_eq!(err["error"]["code"], -32700);
    assert_eq!(err["id"], Value::Null);
    assert_eq!(switchboard.request(8, "ping", json!({}))["result"], json!({}));

    let stderr = switchboard.finish();
    // Logs went to stderr (debug level was requested), never to stdout.
    assert!(!stderr.is_empty());
}

#[test]
fn progress_and_cancellation_reach_a_running_tool() {
    let mut switchboard = Switchboard::start();
    let modern = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "progressToken": "p1"
    });
    switchboard.send(&json!({
        "jsonrpc": "2.0", "id": "slow", "method": "tools/call",
        "params": {"name": "countdown", "arguments": {"seconds": 30}, "_meta": modern}
    }));
    let progress = switchboard.recv();
    assert_eq!(progress["method"], "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "p1");
    assert_eq!(progress["params"]["progress"], 1.0);
    assert_eq!(progress["params"]["total"], 30.0);
    switchboard.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "slow"}}),
    );
    // The next thing answered is the ping: the cancelled request says nothing more.
    switchboard.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    }}}));
    loop {
        let m = switchboard.recv();
        if m["method"] == "notifications/progress" {
            continue; // one may have been in the pipe before the cancel landed
        }
        assert_eq!(m["id"], 2, "unexpected message after cancel: {m}");
        assert_eq!(m["result"]["resultType"], "complete");
        break;
    }
    switchboard.finish();
}

#[test]
fn serves_resources_templates_prompts_and_completion_over_stdio() {
    let mut switchboard = Switchboard::start();
    let init = switchboard.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}),
    );
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["resources"], json!({"subscribe": true, "listChanged": true}));
    assert_eq!(caps["prompts"], json!({"listChanged": true}));
    assert_eq!(caps["completions"], json!({}));
    switchboard.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let list = switchboard.request(2, "resources/list", json!({}));
    let uris: Vec<&str> =
        list["result"]["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["switchboard://server/info", "switchboard://server/guide"]);
    let info = switchboard.request(3, "resources/read", json!({"uri": "switchboard://server/info"}));
    let info: Value = serde_json::from_str(info["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(info["name"], "switchboard");
    let templates = switchboard.request(4, "resources/templates/list", json!({}));
    assert_eq!(templates["result"]["resourceTemplates"][0]["uriTemplate"], "switchboard://tools/{name}");
    let tool = switchboard.request(5, "resources/read", json!({"uri": "switchboard://tools/add"}));
    let tool: Value = serde_json::from_str(tool["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(tool["name"], "add");
    let missing = switchboard.request(6, "resources/read", json!({"uri": "switchboard://tools/nope"}));
    assert_eq!(missing["error"]["code"], -32002);
    assert_eq!(missing["error"]["data"]["uri"], "switchboard://tools/nope");
    let names = switchboard.request(
        7,
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "switchboard://tools/{name}"}, "argument": {"name": "name", "value": "c"}}),
    );
    assert_eq!(names["result"]["completion"]["values"], json!(["countdown", "create_basket"]));

    let prompts = switchboard.request(8, "prompts/list", json!({}));
    assert_eq!(prompts["result"]["prompts"][0]["name"], "code_review");
    let review = switchboard.request(
        9,
        "prompts/get",
        json!({"name": "code_review", "arguments": {"code": "x = 1", "language": "python"}}),
    );
    let text = review["result"]["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(text.contains("(python)") && text.contains("x = 1"), "{text}");
    let no_code = switchboard.request(10, "prompts/get", json!({"name": "code_review", "arguments": {}}));
    assert_eq!(no_code["error"]["code"], -32602);
    let langs = switchboard.request(
        11,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "code_review"}, "argument": {"name": "language", "value": "py"}}),
    );
    assert_eq!(langs["result"]["completion"]["values"], json!(["python"]));
    switchboard.finish();
}

#[test]
fn serves_the_benchmark_fixtures() {
    let mut switchboard = Switchboard::start_with(&["serve", "--fixtures", "bench"]);
    let init = switchboard.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "switchboard-bench");
    let echo = switchboard.request(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "hello world"}}),
    );
    assert_eq!(echo["result"]["content"][0]["text"], "hello world");
    // Every item of every page, in order, with exactly the peers' fields
    // (the source reuses one buffer per page, so a stale field would show).
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    let mut id = 3;
    loop {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let page = switchboard.request(id, "resources/list", params);
        id += 1;
        let resources = page["result"]["resources"].as_array().unwrap();
        assert_eq!(resources.len(), 100);
        items.extend(resources.iter().cloned());
        match page["result"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(items.len(), 10_000);
    for (i, item) in items.iter().enumerate() {
        assert_eq!(
            *item,
            json!({"uri": format!("mem://item/{i}"), "name": format!("item-{i}"), "mimeType": "text/plain"})
        );
    }
    let item = switchboard.request(id, "resources/read", json!({"uri": "mem://item/42"}));
    assert_eq!(item["result"]["contents"][0]["text"], "content of item 42");
    let greet =
        switchboard.request(id + 1, "prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}}));
    assert_eq!(greet["result"]["messages"][0]["content"]["text"], "Hello, Ada!");
    switchboard.finish();
}

/// The bench fixtures' schemas are derived from Rust types, so they are
/// compiled on the first call rather than before `initialize` is answered:
/// the very first call with bad arguments is still refused, and the first
/// structured result is still checked against its output schema.
#[test]
fn derived_schemas_check_the_first_call() {
    let mut switchboard = Switchboard::start_with(&["serve", "--fixtures", "bench"]);
    let init = switchboard.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "switchboard-bench");
    let refused =
        switchboard.request(2, "tools/call", json!({"name": "add", "arguments": {"a": "one", "b": 2}}));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Invalid arguments for tool \"add\"") && text.contains("/a"), "{text}");
    let missing = switchboard.request(3, "tools/call", json!({"name": "echo", "arguments": {}}));
    assert_eq!(missing["result"]["isError"], true, "{missing}");
    let sum = switchboard.request(4, "tools/call", json!({"name": "add", "arguments": {"a": 1.5, "b": 2}}));
    assert_eq!(sum["result"]["structuredContent"], json!({"sum": 3.5}), "{sum}");
    assert!(sum["result"].get("isError").is_none_or(|e| e == false), "{sum}");
    switchboard.finish();
}

#[test]
fn exits_cleanly_on_immediate_eof() {
    let switchboard = Switchboard::start();
    switchboard.finish();
}

#[test]
fn list_command_prints_the_fixtures_definitions() {
    let out = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["list", "--fixtures", "demo", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let listing: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(listing["tools"].as_array().unwrap().iter().any(|t| t["name"] == "countdown"));
    assert!(listing["prompts"].as_array().unwrap().iter().any(|p| p["name"] == "code_review"));
}
