//! What an upstream asks and announces during a session reaches the right
//! client through `[[upstreams]]`, at that client's revision: real
//! `switchboard` processes serving the conformance fixtures behind one
//! switchboard, one over stdio (`s_`) and one over HTTP (`h_`).
//!
//! - A handshake-era client gets the upstream's elicitation, sampling and
//!   roots requests live and its answers reach the upstream tool.
//! - A 2026-07-28 client gets them as `InputRequiredResult` rounds; its
//!   retries replay the upstream call, which finds the answers.
//! - A client that did not declare a capability is never asked; the
//!   upstream tool hears why.
//! - Over stdio nothing links an upstream's question to the call it belongs
//!   to: with two calls in flight the question is refused, never shown to a
//!   client it may not belong to. Over HTTP the upstream's answer stream
//!   links it, so the same two calls work.
//! - A resource update upstream reaches the client subscribed in front.

use crate::common;

use common::Switchboard;

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

const EXE: &str = env!("CARGO_BIN_EXE_switchboard");

/// The front's configuration: no local tools, the fixtures over stdio
/// (`s_`) and over HTTP at `http_url` (`h_`), and a folder over stdio
/// (`f_`, its files passed through as resources).
fn front_folder(dir: &Path, http_url: &str, files: &Path) -> String {
    let text = format!(
        r#"
[tools.builtin]
search = false
read = false

[files]
enabled = false

[prompts]
builtin = false

[[upstreams]]
name = "stdio"
prefix = "s"
command = [{EXE:?}, "serve", "--fixtures", "conformance"]

[[upstreams]]
name = "web"
prefix = "h"
url = "{http_url}"
resources = false

[[upstreams]]
name = "folder"
prefix = "f"
command = [{EXE:?}, "serve", {files:?}]
"#,
        files = files.display().to_string()
    );
    std::fs::write(dir.join("switchboard.toml"), &text).unwrap();
    text
}

/// A front and its upstreams, started; dropped at the end of the test.
struct Front {
    _web: tokio::process::Child,
    _runtime: tokio::runtime::Runtime,
    dir: tempfile::TempDir,
    files: tempfile::TempDir,
}

fn start_front() -> Front {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (web, web_url) = runtime.block_on(common::start_http(
        &["serve", "--fixtures", "conformance", "--http", "127.0.0.1:0"],
        None,
        &[],
    ));
    let dir = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    std::fs::write(files.path().join("notes.md"), "# Notes\n").unwrap();
    front_folder(dir.path(), &web_url, files.path());
    Front { _web: web, _runtime: runtime, dir, files }
}

/// Polls tools/list (at most 120 times, 250 ms apart) until every upstream
/// tool in `names` is listed.
fn wait_for_tools(client: &mut Switchboard, names: &[&str]) {
    for _ in 0..120 {
        let list = client.result("tools/list", json!({}));
        let listed: Vec<&str> =
            list["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
        if names.iter().all(|n| listed.contains(n)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!("the upstream tools {names:?} never appeared; stderr:\n{}", client.stderr());
}

/// What the client answers each question with.
fn answer(method: &str) -> Value {
    match method {
        "elicitation/create" => json!({"action": "accept", "content": {"name": "Ada"}}),
        "sampling/createMessage" => json!({"role": "assistant", "content": {"type": "text", "text": "Paris"},
                                           "model": "probe", "stopReason": "endTurn"}),
        "roots/list" => json!({"roots": [{"uri": "file:///probe/root", "name": "probe"}]}),
        other => panic!("unexpected question {other}"),
    }
}

/// Calls `tool` over stdio and answers every question it brings; returns
/// the response and the methods asked, in order. Other messages that
/// arrive meanwhile are kept in `others`.
fn call_answering(
    client: &mut Switchboard,
    id: i64,
    tool: &str,
    others: &mut Vec<Value>,
) -> (Value, Vec<String>) {
    client.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                        "params": {"name": tool, "arguments": {}}}));
    let mut asked = Vec::new();
    loop {
        let message = client.next_message();
        if let Some(method) = message["method"].as_str()
            && message.get("id").is_some()
        {
            asked.push(method.to_owned());
            client.send(&json!({"jsonrpc": "2.0", "id": message["id"], "result": answer(method)}));
        } else if message["id"] == id && message.get("method").is_none() {
            return (message, asked);
        } else {
            others.push(message);
        }
    }
}

fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {response}"))
}

const ALL: &str = r#"{"elicitation": {}, "sampling": {}, "roots": {}}"#;

#[test]
fn a_handshake_client_answers_the_questions_of_upstream_tools_over_stdio_and_http_upstreams() {
    let front = start_front();
    let dir = front.dir.path().to_str().unwrap();
    let caps: Value = serde_json::from_str(ALL).unwrap();
    let mut client = Switchboard::start_as(&["serve", dir], front.dir.path(), &[], "2025-06-18", caps);
    wait_for_tools(
        &mut client,
        &["s_test_input_required_result_elicitation", "h_test_input_required_result_elicitation"],
    );

    let mut id = 100;
    for prefix in ["s", "h"] {
        for (tool, asked, expect) in [
            (
                "test_input_required_result_elicitation",
                vec!["elicitation/create"],
                r#"Hello, {"name":"Ada"}"#,
            ),
            (
                "test_input_required_result_sampling",
                vec!["sampling/createMessage"],
                "The model answered: Paris",
            ),
            ("test_input_required_result_list_roots", vec!["roots/list"], "Roots: file:///probe/root"),
            (
                "test_input_required_result_multi_round",
                vec!["elicitation/create"; 2],
                r#"step1={"name":"Ada"}"#,
            ),
        ] {
            id += 1;
            let tool = format!("{prefix}_{tool}");
            let (response, questions) = call_answering(&mut client, id, &tool, &mut Vec::new());
            assert_eq!(questions, asked, "{tool}: {response}");
            assert!(text(&response).contains(expect), "{tool}: {response}");
        }
        // Three questions at once, answered in any order.
        id += 1;
        let tool = format!("{prefix}_test_input_required_result_multiple_inputs");
        let (response, mut questions) = call_answering(&mut client, id, &tool, &mut Vec::new());
        questions.sort();
        assert_eq!(questions, ["elicitation/create", "roots/list", "sampling/createMessage"], "{response}");
        assert_eq!(
            text(&response),
            r#"name={"name":"Ada"} greeting=Paris roots=file:///probe/root"#,
            "{tool}: {response}"
        );
    }
    client.finish();
}

#[test]
fn a_client_that_declared_nothing_is_never_asked_and_the_upstream_tool_hears_why() {
    let front = start_front();
    let dir = front.dir.path().to_str().unwrap();
    let mut client = Switchboard::start_at(&["serve", dir], front.dir.path(), &[], "2025-11-25");
    wait_for_tools(
        &mut client,
        &["s_test_input_required_result_elicitation", "h_test_input_required_result_elicitation"],
    );
    for (id, tool) in
        [(1001, "s_test_input_required_result_elicitation"), (1002, "h_test_input_required_result_sampling")]
    {
        let (response, asked) = call_answering(&mut client, id, tool, &mut Vec::new());
        assert!(asked.is_empty(), "{tool} asked {asked:?}");
        let reason = response.to_string();
        assert!(reason.contains("did not declare the"), "{tool}: {response}");
    }
    client.finish();
}

#[test]
fn over_stdio_an_unattributable_question_is_refused_while_over_http_it_reaches_its_caller() {
    let front = start_front();
    let dir = front.dir.path().to_str().unwrap();
    let caps: Value = serde_json::from_str(ALL).unwrap();
    let mut client = Switchboard::start_as(&["serve", dir], front.dir.path(), &[], "2025-11-25", caps);
    wait_for_tools(&mut client, &["s_slow_compute", "h_slow_compute"]);
    for (prefix, refused) in [("s", true), ("h", false)] {
        // A slow call is in flight to the same upstream...
        let slow = if refused { 2001 } else { 2003 };
        client.send(&json!({"jsonrpc": "2.0", "id": slow, "method": "tools/call",
                            "params": {"name": format!("{prefix}_slow_compute"), "arguments": {"seconds": 2}}}));
        std::thread::sleep(Duration::from_millis(300));
        // ...when another call's upstream tool asks a question.
        let tool = format!("{prefix}_test_input_required_result_elicitation");
        let mut others = Vec::new();
        let (response, asked) = call_answering(&mut client, slow + 1, &tool, &mut others);
        if refused {
            assert!(asked.is_empty(), "a question that may belong to another call was shown: {asked:?}");
            assert!(response.to_string().contains("several client requests"), "{response}");
        } else {
            assert_eq!(asked, ["elicitation/create"], "{response}");
            assert!(text(&response).contains("Ada"), "{response}");
        }
        let done = match others.into_iter().find(|m| m["id"] == slow) {
            Some(done) => done,
            None => client.response(slow),
        };
        assert!(done.to_string().contains("Computed"), "{done}");
    }
    client.finish();
}

#[test]
fn a_resource_update_upstream_reaches_the_client_subscribed_in_front() {
    let front = start_front();
    let dir = front.dir.path().to_str().unwrap();
    let mut client = Switchboard::start_at(&["serve", dir], front.dir.path(), &[], "2025-11-25");
    let mut uri = None;
    for _ in 0..120 {
        let list = client.result("resources/list", json!({}));
        uri = list["resources"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["uri"].as_str())
            .find(|u| u.ends_with("notes.md"))
            .map(str::to_owned);
        if uri.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    let uri =
        uri.unwrap_or_else(|| panic!("the folder upstream's notes.md never listed:\n{}", client.stderr()));
    client.result("resources/subscribe", json!({"uri": uri}));
    std::fs::write(front.files.path().join("notes.md"), "# Notes\n\nchanged\n").unwrap();
    let update = client.notification("notifications/resources/updated", Some(&uri));
    assert_eq!(update["params"]["uri"], uri.as_str());
    let read = client.result("resources/read", json!({"uri": uri}));
    assert!(read["contents"][0]["text"].as_str().unwrap().contains("changed"), "{read}");
    client.finish();
}

/// Calls `tool` on the front at `url` as a 2026-07-28 client that declared
/// `capabilities`, answering each `InputRequiredResult` round and retrying
/// with `inputResponses` and the `requestState`; returns the final result
/// and the questions of each round.
async fn call_in_rounds(url: &str, tool: &str, capabilities: Value) -> (Value, Vec<Vec<String>>) {
    let http = reqwest::Client::new();
    let mut params = json!({"name": tool, "arguments": {}, "_meta": common::meta_2026(capabilities)});
    let mut rounds = Vec::new();
    for _ in 0..5 {
        let (_, _, message) = common::post_tools_call_2026(&http, url, 1, params.clone()).await;
        let result = message["result"].clone();
        let Some(requests) = result["inputRequests"].as_object() else { return (message, rounds) };
        let mut responses = serde_json::Map::new();
        let mut asked = Vec::new();
        for (key, request) in requests {
            let method = request["method"].as_str().unwrap();
            asked.push(method.to_owned());
            responses.insert(key.clone(), answer(method));
        }
        asked.sort();
        rounds.push(asked);
        params["inputResponses"] = Value::Object(responses);
        params["requestState"] = result["requestState"].clone();
    }
    panic!("{tool} still asking after 5 rounds: {rounds:?}");
}

#[test]
fn a_2026_07_28_client_answers_upstream_questions_in_rounds_that_replay_the_upstream_call() {
    let front = start_front();
    let dir = front.dir.path().to_str().unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let (_server, url) = common::start_http(&["serve", dir, "--http", "127.0.0.1:0"], None, &[]).await;
        let caps: Value = serde_json::from_str(ALL).unwrap();
        for prefix in ["s", "h"] {
            let mut tries = 0;
            let (response, rounds) = loop {
                let tool = format!("{prefix}_test_input_required_result_multi_round");
                let (response, rounds) = call_in_rounds(&url, &tool, caps.clone()).await;
                // The upstreams connect in the background: wait until listed.
                if response.to_string().contains("Unknown tool") && tries < 120 {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(250)).await;
                    continue;
                }
                break (response, rounds);
            };
            assert_eq!(rounds, [["elicitation/create"], ["elicitation/create"]], "{prefix}: {response}");
            assert_eq!(
                text(&response),
                r#"step1={"name":"Ada"} step2={"name":"Ada"}"#,
                "{prefix}: {response}"
            );

            let tool = format!("{prefix}_test_input_required_result_multiple_inputs");
            let (response, rounds) = call_in_rounds(&url, &tool, caps.clone()).await;
            let mut asked: Vec<String> = rounds.concat();
            asked.sort();
            assert_eq!(asked, ["elicitation/create", "roots/list", "sampling/createMessage"], "{response}");
            assert_eq!(
                text(&response),
                r#"name={"name":"Ada"} greeting=Paris roots=file:///probe/root"#,
                "{prefix}: {response}"
            );

            // No elicitation declared: never asked, and the tool hears why.
            let tool = format!("{prefix}_test_input_required_result_elicitation");
            let (response, rounds) = call_in_rounds(&url, &tool, json!({})).await;
            assert!(rounds.is_empty(), "{rounds:?}");
            assert!(response.to_string().contains("did not declare the elicitation"), "{response}");
        }
    });
}

#[test]
fn upstream_progress_reaches_the_client_in_order_before_the_result_over_stdio_and_http_upstreams() {
    let front = start_front();
    let dir = front.dir.path().to_str().unwrap();
    let mut client = Switchboard::start_at(&["serve", dir], front.dir.path(), &[], "2025-11-25");
    wait_for_tools(&mut client, &["s_test_tool_with_progress", "h_test_tool_with_progress"]);
    for (id, prefix) in [(3001, "s"), (3002, "h")] {
        let token = format!("ticks-{prefix}");
        client.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": format!("{prefix}_test_tool_with_progress"), "arguments": {},
            "_meta": {"progressToken": token}}}));
        let mut seen = Vec::new();
        loop {
            let message = client.next_message();
            if message["method"] == "notifications/progress" {
                assert_eq!(message["params"]["progressToken"], token.as_str(), "our token: {message}");
                seen.push(message["params"]["progress"].as_f64().unwrap());
            } else if message["id"] == id {
                assert_eq!(text(&message), "Progress test completed", "{message}");
                break;
            }
        }
        assert_eq!(seen, [0.0, 50.0, 100.0], "{prefix}: every progress, in order, before the result");
    }
    client.finish();
}
