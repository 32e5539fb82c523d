//! Command tools: real processes, argv templating, injection refusals,
//! exit codes, timeouts, the environment allow-list, the output cap and
//! load-time errors.

use std::path::Path;

use serde_json::json;
use switchboard_tools::{CommandToolSpec, ToolsError, command_tool};
use switchboard_tree::{FilesOptions, ServedTree};

use crate::common::{client, is_error, spec, text};

/// The served tree of `root` with the default rules.
fn tree(root: &Path) -> ServedTree {
    ServedTree::new(root, &FilesOptions::default()).expect("a served folder")
}

fn tool(toml_text: &str, root: &Path) -> switchboard_server::Tool {
    command_tool(&spec::<CommandToolSpec>(toml_text), &tree(root)).expect("the command tool builds")
}

fn load_error(toml_text: &str, root: &Path) -> ToolsError {
    command_tool(&spec::<CommandToolSpec>(toml_text), &tree(root)).expect_err("the spec is refused")
}

#[tokio::test]
async fn runs_a_program_with_templated_arguments_and_lists_its_definition() {
    let dir = tempfile::tempdir().unwrap();
    let greet = tool(
        r#"
        name = "greet"
        title = "Greet"
        description = "Echoes a greeting."
        command = ["/bin/echo", "hello", "{name}", "{{literal}}", "--tag={tag}", "{extra}"]
        read_only = true
        idempotent = true
        [input_schema]
        type = "object"
        properties.name = { type = "string" }
        properties.tag = { type = "string" }
        properties.extra = { type = "array", items = { type = "string" } }
        required = ["name"]
        "#,
        dir.path(),
    );
    let mut c = client(vec![greet]).await;
    let tools = c.list_all_tools().await.unwrap();
    assert_eq!(tools[0]["name"], "greet");
    assert_eq!(tools[0]["title"], "Greet");
    assert_eq!(tools[0]["annotations"], json!({"readOnlyHint": true, "idempotentHint": true}));
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["name"]));
    assert_eq!(tools[0]["outputSchema"]["required"].as_array().unwrap().len(), 6);

    let r = c.call_tool("greet", json!({"name": "world; rm -rf /", "extra": ["a b", "c"]})).await.unwrap();
    assert!(!is_error(&r), "{r}");
    // No shell: the `;` is data, the absent tag drops its element, a list gives one element per item.
    assert_eq!(text(&r), "hello world; rm -rf / {literal} a b c\n");
    assert_eq!(
        r["structuredContent"],
        json!({"exitCode": 0, "stdout": "hello world; rm -rf / {literal} a b c\n", "stderr": "",
               "truncated": false, "timedOut": false, "totalBytes": 38})
    );
    let r = c.call_tool("greet", json!({"name": "x", "tag": "t1"})).await.unwrap();
    assert_eq!(r["structuredContent"]["stdout"], "hello x {literal} --tag=t1\n");
}

#[tokio::test]
async fn schema_validation_happens_before_the_program_runs() {
    let dir = tempfile::tempdir().unwrap();
    let t = tool(
        r#"
        name = "count"
        command = ["/bin/echo", "{n}"]
        [input_schema]
        type = "object"
        properties.n = { type = "integer", minimum = 1 }
        required = ["n"]
        "#,
        dir.path(),
    );
    let mut c = client(vec![t]).await;
    let r = c.call_tool("count", json!({"n": "three"})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("/n"), "{r}");
    let r = c.call_tool("count", json!({"n": 3})).await.unwrap();
    assert_eq!(r["structuredContent"]["stdout"], "3\n");
}

#[tokio::test]
async fn argument_injection_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = tool(
        r#"
        name = "fetch"
        command = ["/bin/echo", "{remote}", "x{suffix}", "--", "{word}"]
        [input_schema]
        type = "object"
        properties.remote = { type = ["string", "array"] }
        properties.suffix = { type = "string" }
        properties.word = { type = "string" }
        "#,
        dir.path(),
    );
    let mut c = client(vec![t]).await;
    for (args, what) in [
        (json!({"remote": "--upload-pack=touch /tmp/pwned"}), "starts with '-'"),
        (json!({"remote": ["origin", "-n"]}), "starts with '-'"),
        (json!({"remote": "a\u{0}b"}), "NUL"),
        (json!({"suffix": "a\u{0}b"}), "NUL"),
    ] {
        let r = c.call_tool("fetch", args.clone()).await.unwrap();
        assert!(is_error(&r), "{args} → {r}");
        assert!(text(&r).contains(what), "{args} → {r}");
        assert!(text(&r).contains("fetch"), "names the tool: {r}");
    }
    // Inside other text, or after a literal `--`, a leading dash is data.
    let r = c.call_tool("fetch", json!({"suffix": "-y", "word": "-weird-name"})).await.unwrap();
    assert!(!is_error(&r), "{r}");
    assert_eq!(r["structuredContent"]["stdout"], "x-y -- -weird-name\n");

    let allowed = tool(
        r#"
        name = "flags"
        command = ["/bin/echo", "{flag}", "end"]
        allow_leading_dash = true
        input_schema = { type = "object", properties = { flag = { type = "string" } } }
        "#,
        dir.path(),
    );
    let mut c = client(vec![allowed]).await;
    let r = c.call_tool("flags", json!({"flag": "-e"})).await.unwrap();
    assert!(!is_error(&r), "{r}");
}

#[tokio::test]
async fn a_non_zero_exit_is_a_tool_error_with_both_streams() {
    let dir = tempfile::tempdir().unwrap();
    let t = tool(
        r#"name = "fail"
        command = ["/bin/sh", "-c", "echo out; echo oops >&2; exit 3"]"#,
        dir.path(),
    );
    let mut c = client(vec![t]).await;
    let r = c.call_tool("fail", json!({})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert_eq!(r["structuredContent"]["exitCode"], 3);
    assert_eq!(r["structuredContent"]["stdout"], "out\n");
    assert_eq!(r["structuredContent"]["stderr"], "oops\n");
    let t = text(&r);
    assert!(t.contains("exited with code 3"), "{t}");
    assert!(t.find("out").unwrap() < t.find("--- stderr ---\noops").unwrap(), "{t}");
}

#[tokio::test]
async fn a_missing_program_is_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let t = tool(
        r#"name = "ghost"
        command = ["switchboard-no-such-program-4711"]"#,
        dir.path(),
    );
    let mut c = client(vec![t]).await;
    let r = c.call_tool("ghost", json!({})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("\"switchboard-no-such-program-4711\" was not found"), "{r}");
}

/// Whether a process is gone (or a zombie waiting for its parent).
fn is_dead(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[tokio::test]
async fn a_timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let t = tool(
        r#"
        name = "slow"
        command = ["/bin/sh", "-c", "sleep 30 & echo $! > pid; echo started; wait"]
        timeout = "1s"
        "#,
        dir.path(),
    );
    let mut c = client(vec![t]).await;
    let r = c.call_tool("slow", json!({})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("timed out after 1 s"), "{r}");
    assert_eq!(r["structuredContent"]["timedOut"], true);
    assert_eq!(r["structuredContent"]["exitCode"], json!(null));
    assert_eq!(r["structuredContent"]["stdout"], "started\n", "output before the kill is kept");
    // The background `sleep`, a grandchild, was killed with the group.
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    let pid = pid.trim();
    let mut dead = is_dead(pid);
    for _ in 0..50 {
        if dead {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        dead = is_dead(pid);
    }
    assert!(dead, "grandchild {pid} survived the timeout");
}

#[tokio::test]
async fn cancelling_the_request_kills_the_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pids");
    let t = tool(
        r#"
        name = "long"
        command = ["/bin/sh", "-c", "sleep 30 & echo $$ $! > pids.tmp; mv pids.tmp pids; wait"]
        timeout = "60s"
        "#,
        dir.path(),
    );
    let mut c = client(vec![t]).await;
    let id = c.next_id();
    c.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "long", "arguments": {}}}))
        .await
        .unwrap();
    let mut pids = None;
    for _ in 0..100 {
        if let Ok(s) = std::fs::read_to_string(&pidfile) {
            pids = Some(s);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let pids = pids.expect("the program started");
    c.notify("notifications/cancelled", Some(json!({"requestId": id, "reason": "user"}))).await.unwrap();
    for pid in pids.split_whitespace() {
        let mut dead = is_dead(pid);
        for _ in 0..50 {
            if dead {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            dead = is_dead(pid);
        }
        assert!(dead, "process {pid} survived the cancellation");
    }
    // The server keeps serving.
    let pong = c.request_raw("ping", None).await.unwrap();
    assert!(pong.get("result").is_some(), "{pong}");
}

#[tokio::test]
async fn plain_sleep_is_killed_by_its_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let t = tool(
        r#"name = "nap"
        command = ["sleep", "30"]
        timeout = "1s""#,
        dir.path(),
    );
    let mut c = client(vec![t]).await;
    let r = c.call_tool("nap", json!({})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("nap: timed out after 1 s"), "{r}");
}

#[tokio::test]
async fn the_environment_is_an_allow_list() {
    let dir = tempfile::tempdir().unwrap();
    // cargo sets CARGO_PKG_NAME and CARGO_MANIFEST_DIR for the test process.
    assert!(std::env::var("CARGO_MANIFEST_DIR").is_ok());
    let t = tool(
        r#"
        name = "env"
        command = ["printenv"]
        env = ["CARGO_PKG_NAME", "SWITCHBOARD_SURELY_UNSET_VARIABLE"]
        set_env = { GREETING = "hi" }
        "#,
        dir.path(),
    );
    let mut c = client(vec![t]).await;
    let r = c.call_tool("env", json!({})).await.unwrap();
    let out = r["structuredContent"]["stdout"].as_str().unwrap();
    let names: Vec<&str> = out.lines().filter_map(|l| l.split('=').next()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["CARGO_PKG_NAME", "GREETING", "PATH"], "{out}");
    assert!(out.contains("CARGO_PKG_NAME=switchboard-tools\n"), "{out}");
    assert!(out.contains("GREETING=hi\n"), "{out}");
}

#[tokio::test]
async fn output_beyond_max_output_is_cut_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let t = tool(
        r#"
        name = "loud"
        command = ["/bin/sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo 0123456789; i=$((i+1)); done; echo err >&2"]
        max_output = 1000
        "#,
        dir.path(),
    );
    let mut c = client(vec![t]).await;
    let r = c.call_tool("loud", json!({})).await.unwrap();
    assert!(!is_error(&r), "the program succeeded: {r}");
    assert_eq!(r["structuredContent"]["truncated"], true);
    assert_eq!(r["structuredContent"]["stdout"].as_str().unwrap().len(), 1000);
    assert_eq!(r["structuredContent"]["stderr"], "", "stdout used the whole budget");
    // 2000 lines of 11 bytes, and "err\n".
    assert_eq!(r["structuredContent"]["totalBytes"], 22004);
    assert!(
        text(&r).ends_with(
            "[output truncated: showing the first 1000 bytes of 22004 bytes; the tool's max_output limit is 1000 bytes]"
        ),
        "{r}"
    );
}

#[tokio::test]
async fn output_beyond_max_output_is_an_error_when_the_tool_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let t = tool(
        r#"
        name = "loud"
        command = ["/bin/sh", "-c", "i=0; while [ $i -lt 100 ]; do echo 0123456789; i=$((i+1)); done"]
        max_output = 100
        on_large_output = "error"
        "#,
        dir.path(),
    );
    let mut c = client(vec![t]).await;
    let r = c.call_tool("loud", json!({})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert_eq!(r["structuredContent"]["totalBytes"], 1100);
    assert!(
        text(&r).starts_with(
            "loud: the output is 1100 bytes, more than the tool's max_output limit of 100 bytes"
        ),
        "{r}"
    );
    assert!(!text(&r).contains("0123456789"), "no partial output: {r}");
}

#[tokio::test]
async fn cwd_is_inside_the_root() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let t = tool(
        r#"name = "where"
        command = ["pwd"]
        cwd = "sub""#,
        dir.path(),
    );
    let mut c = client(vec![t]).await;
    let r = c.call_tool("where", json!({})).await.unwrap();
    let expected = format!("{}\n", dir.path().join("sub").canonicalize().unwrap().display());
    assert_eq!(r["structuredContent"]["stdout"], expected);

    for cwd in ["..", "/", "missing"] {
        let e = load_error(&format!("name = \"where\"\ncommand = [\"pwd\"]\ncwd = \"{cwd}\""), dir.path());
        assert!(matches!(e, ToolsError::BadCwd { .. }), "{cwd}: {e}");
        assert!(e.to_string().contains("\"where\""), "{e}");
    }
}

#[tokio::test]
async fn bad_specs_fail_at_load_naming_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let cases = [
        (
            r#"name = "t1"
            command = []"#,
            "command is empty",
        ),
        (
            r#"name = "t2"
            command = ["echo", "{who}"]"#,
            "placeholder {who} in command does not name a property",
        ),
        (
            r#"name = "t3"
            command = ["echo", "{who}"]
            input_schema = { type = "object", properties = { name = { type = "string" } } }"#,
            "{who}",
        ),
        (
            r#"name = "t4"
            command = ["echo", "{unclosed"]
            input_schema = { type = "object" }"#,
            "unclosed {",
        ),
        (
            r#"name = "t5"
            command = ["{prog}"]
            input_schema = { type = "object", properties = { prog = { type = "string" } } }"#,
            "must be a literal",
        ),
        (
            r#"name = "t6"
            command = ["echo"]
            input_schema = { type = "string" }"#,
            "type = \"object\"",
        ),
        (
            r#"name = "t7"
            command = ["echo"]
            input_schema = { type = "object", properties = { a = { type = 5 } } }"#,
            "invalid input_schema",
        ),
        ("name = \"t8\"\ncommand = [\"echo\"]\ntimeout = \"0s\"", "timeout: must be more than zero"),
        ("name = \"t9\"\ncommand = [\"echo\"]\nmax_output = 0", "max_output: must be more than zero"),
        (
            "name = \"t10\"\ncommand = [\"echo\"]\nenv = [\"A=B\"]",
            "env: \"A=B\" is not a valid variable name",
        ),
        ("name = \"t11\"\ncommand = [\"echo\"]\nset_env = { \"\" = \"x\" }", "set_env: \"\" is not a valid"),
    ];
    for (toml_text, expected) in cases {
        let e = load_error(toml_text, root).to_string();
        let name = toml_text.split('"').nth(1).unwrap();
        assert!(e.contains(&format!("tool \"{name}\"")), "{e}");
        assert!(e.contains(expected), "{name}: {e}");
    }
    // Unknown keys are refused by the TOML loader.
    let e = toml::from_str::<CommandToolSpec>("name = \"x\"\ncommand = [\"echo\"]\ntimeout_secs = 3")
        .unwrap_err()
        .to_string();
    assert!(e.contains("timeout_secs"), "{e}");
    let e = toml::from_str::<CommandToolSpec>("name = \"x\"\ncommand = [\"echo\"]\ntimeout = \"soon\"")
        .unwrap_err()
        .to_string();
    assert!(e.contains("timeout"), "{e}");
}

#[test]
fn defaults_are_sensible() {
    let s: CommandToolSpec = spec("name = \"x\"\ncommand = [\"echo\"]");
    assert_eq!(s.timeout, std::time::Duration::from_secs(30));
    assert_eq!(s.max_output, 65536);
    assert_eq!(s.cwd, Path::new("."));
    assert!(s.env.is_empty() && s.set_env.is_empty() && !s.allow_leading_dash);
    assert!(s.input_schema.is_none() && s.read_only.is_none());
}

#[tokio::test]
async fn a_command_tool_can_run_as_a_task() {
    let dir = tempfile::tempdir().unwrap();
    let build = tool(
        r#"
        name = "slow_build"
        command = ["/bin/sh", "-c", "sleep 0.3; echo built"]
        task = "optional"
        "#,
        dir.path(),
    );
    let server = switchboard_server::Server::builder("tasks", "1").tool(build).build().unwrap();
    let mut c = switchboard_testkit::TestClient::connect_modern(&server);
    let mut params = json!({"name": "slow_build", "arguments": {}});
    params["_meta"] = switchboard_testkit::TestClient::modern_meta();
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let created = c.request_raw("tools/call", Some(params.clone())).await.unwrap();
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].clone();
    let mut get = json!({"taskId": id});
    get["_meta"] = params["_meta"].clone();
    let mut done = json!(null);
    for _ in 0..200 {
        done = c.request_raw("tasks/get", Some(get.clone())).await.unwrap();
        if done["result"]["status"] == "completed" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(done["result"]["result"]["structuredContent"]["stdout"], "built\n", "{done}");

    // Without the extension the same tool answers in place.
    let mut plain = c.request("tools/call", json!({"name": "slow_build", "arguments": {}})).await.unwrap();
    assert_eq!(plain["structuredContent"]["stdout"].take(), "built\n");
}

/// Where Landlock holds nothing, a tool meant for the sandbox refuses its
/// calls, saying why and how to opt out, and never runs the program; a
/// spec that asks for the sandbox where none is configured is refused at
/// load.
#[tokio::test]
async fn a_sandboxed_tool_without_landlock_refuses_its_calls() {
    use switchboard_tools::{CommandSandbox, Launcher, Support, sandboxed_command_tool};
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let toml_text = format!("name = \"touch\"\ncommand = [\"touch\", {:?}]\n", marker.display().to_string());
    let none = Support { filesystem: false, tcp: false, scopes: false };
    let sandbox = CommandSandbox::new(Launcher::new("/nonexistent/launcher"), none);
    let tool =
        sandboxed_command_tool(&spec::<CommandToolSpec>(&toml_text), &tree(dir.path()), Some(&sandbox))
            .expect("the tool builds");
    let mut c = client(vec![tool]).await;
    let r = c.call_tool("touch", json!({})).await.unwrap();
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("Landlock is not available") && text(&r).contains("sandbox = false"), "{r}");
    assert!(!marker.exists(), "the program ran unsandboxed");
    let asks = format!("{toml_text}sandbox = true\n");
    let e = load_error(&asks, dir.path());
    assert!(e.to_string().contains("sandbox"), "{e}");
}
