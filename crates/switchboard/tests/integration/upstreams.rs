//! `[[upstreams]]`: real `switchboard` processes behind one switchboard —
//! two over stdio (the demo fixtures, and a folder whose `die` tool kills
//! its own server) and one over HTTP — listed with prefixes, filters and
//! overrides beside a local tool, called over stdio at 2025-06-18 and over
//! HTTP at 2026-07-28; an upstream killed mid-session leaves the list
//! (with `list_changed`) and comes back; `/readyz` and `list` show the
//! states; `check` places a bad entry and the clashes it can see.

use crate::common;

use common::Switchboard;

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

const EXE: &str = env!("CARGO_BIN_EXE_switchboard");

/// The names `tools/list` shows now.
fn tool_names(client: &mut Switchboard) -> Vec<String> {
    let list = client.result("tools/list", json!({}));
    list["tools"].as_array().expect("tools").iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

/// Polls tools/list (at most 120 times, 250 ms apart) until `ready` holds.
fn tools_until(client: &mut Switchboard, what: &str, ready: impl Fn(&[String]) -> bool) -> Vec<String> {
    for _ in 0..120 {
        let names = tool_names(client);
        if ready(&names) {
            return names;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!("tools never {what}: {:?}", tool_names(client));
}

fn mortal_folder(dir: &Path) {
    std::fs::write(
        dir.join("switchboard.toml"),
        r#"
[tools.builtin]
search = false
read = false

[[tools.command]]
name = "hi"
description = "Says hi."
command = ["echo", "hi"]

[[tools.command]]
name = "die"
description = "Ends this server."
command = ["sh", "-c", "kill -TERM $PPID"]
"#,
    )
    .unwrap();
}

fn front_config(mortal: &Path, http_url: &str) -> String {
    format!(
        r#"
[tools.builtin]
search = false
read = false

[prompts]
builtin = false

[[tools.command]]
name = "local_hello"
command = ["echo", "hello"]

[[upstreams]]
name = "demo"
command = [{EXE:?}, "serve", "--fixtures", "demo"]
exclude_tools = ["*_basket", "add_item", "countdown"]
backoff_initial = "100ms"
backoff_max = "1s"

[upstreams.tools.echo]
name = "say"
description = "Says it back."
annotations = {{ readOnlyHint = true }}

[[upstreams]]
name = "mortal"
prefix = "m"
command = [{EXE:?}, "serve", {mortal:?}]
backoff_initial = "100ms"
backoff_max = "1s"

[[upstreams]]
name = "web"
url = "{http_url}"
include_tools = ["add", "word_count"]
resources = false
"#,
        mortal = mortal.display().to_string()
    )
}

const EXPECTED: [&str; 7] = ["local_hello", "say", "demo_add", "demo_word_count", "m_hi", "m_die", "web_add"];

#[test]
fn upstreams_are_served_beside_local_tools_and_come_back_after_a_crash() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (_web, web_url) = runtime.block_on(common::start_http(
        &["serve", "--fixtures", "demo", "--http", "127.0.0.1:0"],
        None,
        &[],
    ));
    let front = tempfile::tempdir().unwrap();
    let mortal = tempfile::tempdir().unwrap();
    mortal_folder(mortal.path());
    std::fs::write(front.path().join("switchboard.toml"), front_config(mortal.path(), &web_url)).unwrap();
    let dir = front.path().to_str().unwrap();

    // `list` tries each upstream once and shows its state.
    let (ok, out, err) = common::run(&["list", dir], front.path());
    assert!(ok, "{err}");
    assert!(out.contains("Upstreams (3):"), "{out}");
    for name in ["demo", "mortal", "web"] {
        let line = out.lines().find(|l| l.trim_start().starts_with(name)).unwrap_or_else(|| panic!("{out}"));
        assert!(line.contains("connected"), "{line}");
    }
    for name in EXPECTED {
        assert!(out.contains(name), "{name} in {out}");
    }

    // A 2025-06-18 client over stdio.
    let mut client = Switchboard::start_at(&["serve", dir], front.path(), &[], "2025-06-18");
    let names = tools_until(&mut client, "listed every upstream", |n| {
        EXPECTED.iter().all(|e| n.iter().any(|x| x == e))
    });
    for hidden in ["demo_echo", "demo_create_basket", "demo_countdown", "web_echo", "web_word_count_x"] {
        assert!(!names.iter().any(|n| n == hidden), "{hidden} is filtered or renamed: {names:?}");
    }
    assert!(names.iter().any(|n| n == "web_word_count"), "{names:?}");
    let list = client.request("tools/list", json!({}));
    let say =
        list["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "say").unwrap().clone();
    assert_eq!(say["description"], "Says it back.", "{say}");
    assert_eq!(say["annotations"]["readOnlyHint"], true, "{say}");

    let said = client.request("tools/call", json!({"name": "say", "arguments": {"text": "through"}}));
    assert_eq!(said["result"]["content"][0]["text"], "through", "{said}");
    let sum = client.request("tools/call", json!({"name": "web_add", "arguments": {"a": 2, "b": 3}}));
    assert_eq!(sum["result"]["structuredContent"]["sum"], 5.0, "{sum}");
    let hi = client.request("tools/call", json!({"name": "m_hi", "arguments": {}}));
    assert!(hi["result"]["content"][0]["text"].as_str().unwrap().contains("hi"), "{hi}");
    let local = client.request("tools/call", json!({"name": "local_hello", "arguments": {}}));
    assert!(local["result"]["content"][0]["text"].as_str().unwrap().contains("hello"), "{local}");
    // Prompts with the prefix; resources of the demo pass through, the web's do not.
    let prompts = client.request("prompts/list", json!({}));
    assert!(prompts.to_string().contains("\"demo_code_review\""), "{prompts}");
    let prompt = client
        .request("prompts/get", json!({"name": "demo_code_review", "arguments": {"code": "fn x() {}"}}));
    assert!(
        prompt["result"]["messages"][0]["content"]["text"].as_str().unwrap().contains("fn x"),
        "{prompt}"
    );
    let read = client.request("resources/read", json!({"uri": "switchboard://tools/echo"}));
    assert!(read["result"]["contents"][0]["text"].as_str().unwrap().contains("echo"), "{read}");
    let templates = client.request("resources/templates/list", json!({}));
    let count = templates.to_string().matches("switchboard://tools/{name}").count();
    assert_eq!(count, 1, "one upstream's template (the web's resources are off): {templates}");
    let completion = client.request(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "switchboard://tools/{name}"}, "argument": {"name": "name", "value": "ec"}}),
    );
    assert_eq!(completion["result"]["completion"]["values"], json!(["echo"]), "{completion}");

    // The mortal upstream dies mid-session: its tools leave, the rest stay.
    client.drain();
    let died = client.request("tools/call", json!({"name": "m_die", "arguments": {}}));
    assert!(died.get("result").is_some() || died.get("error").is_some(), "{died}");
    client.notification("notifications/tools/list_changed", None);
    let _ = tools_until(&mut client, "dropped the dead upstream's tools", |n| {
        !n.iter().any(|x| x.starts_with("m_"))
    });
    // … and it is restarted with backoff and its tools come back.
    let back =
        tools_until(&mut client, "brought the restarted upstream back", |n| n.iter().any(|x| x == "m_hi"));
    assert!(back.iter().any(|x| x == "say") && back.iter().any(|x| x == "web_add"), "{back:?}");
    let hi = client.request("tools/call", json!({"name": "m_hi", "arguments": {}}));
    assert!(hi["result"]["content"][0]["text"].as_str().unwrap().contains("hi"), "{hi}");
    drop(client);
    drop(runtime);
}

#[test]
fn over_http_a_2026_07_28_client_calls_upstream_tools_and_readyz_shows_each_upstream() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let (mut web, web_url) =
            common::start_http(&["serve", "--fixtures", "demo", "--http", "127.0.0.1:0"], None, &[]).await;
        let front = tempfile::tempdir().unwrap();
        let mortal = tempfile::tempdir().unwrap();
        mortal_folder(mortal.path());
        std::fs::write(front.path().join("switchboard.toml"), front_config(mortal.path(), &web_url)).unwrap();
        let dir = front.path().to_str().unwrap();
        let (_front, url) = common::start_http(&["serve", dir, "--http", "127.0.0.1:0"], None, &[]).await;
        let http = reqwest::Client::new();
        let call = |name: &'static str, arguments: Value| {
            let params = json!({"name": name, "arguments": arguments, "_meta": common::meta_2026(json!({}))});
            common::post_tools_call_2026(&http, &url, 1, params)
        };
        let readyz = url.replace("/mcp", "/readyz");
        let ready = |http: reqwest::Client, readyz: String| async move {
            let response = http.get(&readyz).send().await.unwrap();
            assert_eq!(response.status(), 200, "local serving is fine");
            response.json::<Value>().await.unwrap()
        };
        let mut body = Value::Null;
        for _ in 0..120 {
            body = ready(http.clone(), readyz.clone()).await;
            if body["upstreamsNotConnected"] == json!([]) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        assert_eq!(body["upstreamsNotConnected"], json!([]), "{body}");
        assert_eq!(body["upstreams"].as_array().unwrap().len(), 3, "{body}");

        for (name, args, expect) in [
            ("web_add", json!({"a": 1, "b": 2}), "3"),
            ("say", json!({"text": "modern"}), "modern"),
            ("m_hi", json!({}), "hi"),
        ] {
            let (status, _, reply) = call(name, args).await;
            assert_eq!(status, 200, "{name}");
            let text = reply.to_string();
            assert!(text.contains(expect), "{name}: {text}");
        }

        // The HTTP upstream goes away: /readyz still answers 200 and names it.
        web.kill().await.unwrap();
        let mut body = Value::Null;
        for _ in 0..120 {
            body = ready(http.clone(), readyz.clone()).await;
            if body["upstreamsNotConnected"] == json!(["web"]) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        assert_eq!(body["upstreamsNotConnected"], json!(["web"]), "{body}");
        let web_state =
            body["upstreams"].as_array().unwrap().iter().find(|u| u["name"] == "web").unwrap().clone();
        assert!(web_state["error"].is_string(), "{web_state}");
        let gone = call("web_add", json!({"a": 1, "b": 2})).await.2.to_string();
        assert!(!gone.contains("\"sum\""), "its tools left the list: {gone}");
        let still = call("say", json!({"text": "still here"})).await.2.to_string();
        assert!(still.contains("still here"), "{still}");
    });
}

#[test]
fn check_places_a_bad_upstream_and_the_clashes_it_can_see() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"[[tools.command]]
name = "say"
command = ["echo", "x"]

[[upstreams]]
name = "a"
url = "ftp://example.com"

[[upstreams]]
name = "b"
prefix = "a"
command = ["echo"]
[upstreams.tools.echo]
name = "say"

[[upstreams]]
name = "b"
url = "http://127.0.0.1:9/mcp"
commnd = ["x"]
"#;
    std::fs::write(dir.path().join("switchboard.toml"), text).unwrap();
    let (ok, _, err) = common::run(&["check", dir.path().to_str().unwrap()], dir.path());
    assert!(!ok, "{err}");
    let expect = [
        ("switchboard.toml:7:7:", "http:// or https://"),
        ("switchboard.toml:11:10:", "prefix \"a\" is already the prefix of the upstream on line 6"),
        ("switchboard.toml:14:8:", "tool name \"say\""),
        ("switchboard.toml:17:8:", "upstream name \"b\" is already used"),
        ("switchboard.toml:19:1:", "unknown key `commnd`"),
    ];
    for (place, words) in expect {
        assert!(err.lines().any(|l| l.contains(place) && l.contains(words)), "{place} {words:?} in:\n{err}");
    }
    // The same entries, fixed, pass.
    let fixed = "[[upstreams]]\nname = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\n[[upstreams]]\nname = \"b\"\ncommand = [\"echo\"]\n";
    std::fs::write(dir.path().join("switchboard.toml"), fixed).unwrap();
    let (ok, out, err) = common::run(&["check", dir.path().to_str().unwrap()], dir.path());
    assert!(ok, "{out}{err}");
}

#[test]
fn upstreams_follow_edits_of_the_configuration() {
    // One upstream at start; an edit adds a second, changes the first's
    // filter, then removes the second: each time the tool list follows,
    // with `list_changed`, while the server keeps serving.
    let front = tempfile::tempdir().unwrap();
    let mortal = tempfile::tempdir().unwrap();
    mortal_folder(mortal.path());
    let config = |with_mortal: bool, demo_tools: &str| {
        let mut text = format!(
            r#"
[tools.builtin]
search = false
read = false

[prompts]
builtin = false

[[upstreams]]
name = "demo"
command = [{EXE:?}, "serve", "--fixtures", "demo"]
include_tools = [{demo_tools}]
"#
        );
        if with_mortal {
            text.push_str(&format!(
                "\n[[upstreams]]\nname = \"mortal\"\nprefix = \"m\"\ncommand = [{EXE:?}, \"serve\", {:?}]\n",
                mortal.path().display().to_string()
            ));
        }
        text
    };
    let file = front.path().join("switchboard.toml");
    std::fs::write(&file, config(false, "\"add\"")).unwrap();
    let mut client =
        Switchboard::start_at(&["serve", front.path().to_str().unwrap()], front.path(), &[], "2025-06-18");
    tools_until(&mut client, "showed demo_add", |names| names == ["demo_add"]);

    std::fs::write(&file, config(true, "\"add\"")).unwrap();
    client.notification("notifications/tools/list_changed", None);
    let names = tools_until(&mut client, "gained the second upstream", |n| n.iter().any(|t| t == "m_hi"));
    assert!(names.contains(&"demo_add".to_owned()), "{names:?}");
    let hi = client.request("tools/call", json!({"name": "m_hi", "arguments": {}}));
    assert_eq!(hi["result"]["structuredContent"]["stdout"], "hi\n", "{hi}");

    std::fs::write(&file, config(true, "\"add\", \"word_count\"")).unwrap();
    tools_until(&mut client, "followed the new filter", |n| n.iter().any(|t| t == "demo_word_count"));

    std::fs::write(&file, config(false, "\"word_count\"")).unwrap();
    // The restarted upstream's list is empty for a moment: wait for the
    // whole expected list, not only for what must be gone.
    let names = tools_until(&mut client, "lost the removed upstream and the filtered tool", |n| {
        n == ["demo_word_count"]
    });
    assert!(!names.iter().any(|t| t.starts_with("m_") || t == "demo_add"), "{names:?}");
}

#[test]
fn a_stdio_upstream_gets_only_its_allowed_environment_and_credentials_stay_out_of_list() {
    // The upstream's own `env` tool passes SECRET_TOKEN and ALLOWED_VAR on
    // to its program: whatever of them reaches the upstream process shows.
    let inner = tempfile::tempdir().unwrap();
    std::fs::write(
        inner.path().join("switchboard.toml"),
        r#"
[tools.builtin]
search = false
read = false

[[tools.command]]
name = "env"
description = "Prints its environment."
command = ["env"]
env = ["ALLOWED_VAR", "SECRET_TOKEN"]
"#,
    )
    .unwrap();
    let front = tempfile::tempdir().unwrap();
    std::fs::write(
        front.path().join("switchboard.toml"),
        format!(
            r#"
[tools.builtin]
search = false
read = false

[prompts]
builtin = false

[[upstreams]]
name = "inner"
command = [{EXE:?}, "serve", {inner:?}]
env = ["ALLOWED_VAR"]

[[upstreams]]
name = "remote"
url = "http://127.0.0.1:9/mcp"
bearer_token_env = "REMOTE_TOKEN"
connect_timeout = "1s"
"#,
            inner = inner.path().display().to_string()
        ),
    )
    .unwrap();
    let secrets =
        [("SECRET_TOKEN", "s3cr3t-value"), ("ALLOWED_VAR", "allowed-value"), ("REMOTE_TOKEN", "t0ken-value")];
    let mut client = Switchboard::start_at(
        &["serve", front.path().to_str().unwrap()],
        front.path(),
        &secrets,
        "2025-06-18",
    );
    tools_until(&mut client, "showed the inner upstream", |names| names.iter().any(|n| n == "inner_env"));
    let env = client.request("tools/call", json!({"name": "inner_env", "arguments": {}}));
    let stdout = env["result"]["structuredContent"]["stdout"].as_str().unwrap_or_default().to_owned();
    assert!(stdout.contains("ALLOWED_VAR=allowed-value"), "the allow-list passes: {env}");
    assert!(!stdout.contains("s3cr3t-value") && !stdout.contains("t0ken-value"), "nothing else: {stdout}");

    let (_, out, err) =
        common::run_with_env(&["list", front.path().to_str().unwrap()], front.path(), &secrets);
    assert!(out.contains("remote"), "{out}");
    for secret in ["t0ken-value", "s3cr3t-value"] {
        assert!(!out.contains(secret) && !err.contains(secret), "{secret} in list: {out}\n{err}");
    }
    let log = client.stderr();
    assert!(log.contains("remote"), "the log speaks of the upstream: {log}");
    assert!(!log.contains("t0ken-value") && !log.contains("s3cr3t-value"), "credentials in the log: {log}");
}

#[test]
fn call_runs_an_upstream_tool_and_names_the_upstreams_that_are_down_when_a_tool_is_missing() {
    let front = tempfile::tempdir().unwrap();
    let config = format!(
        r#"
[tools.builtin]
search = false
read = false

[[upstreams]]
name = "demo"
command = [{EXE:?}, "serve", "--fixtures", "demo"]

[[upstreams]]
name = "remote"
url = "http://127.0.0.1:9/mcp"
connect_timeout = "1s"
"#
    );
    std::fs::write(front.path().join("switchboard.toml"), config).unwrap();
    let dir = front.path().to_str().unwrap();
    let (ok, out, err) =
        common::run(&["call", "demo_add", "--args", r#"{"a": 2, "b": 3}"#, "--json", dir], front.path());
    assert!(ok, "{out}\n{err}");
    let result: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(result["structuredContent"]["sum"], 5.0, "{out}");

    let (ok, _, err) = common::run(&["call", "remote_fetch", dir], front.path());
    assert!(!ok, "{err}");
    assert!(err.contains("no tool named \"remote_fetch\""), "{err}");
    assert!(
        err.contains("upstream remote") && err.contains("down"),
        "the unreachable upstream is named: {err}"
    );
    assert!(!err.contains("upstream demo"), "a connected upstream is not: {err}");
}
