//! The official TypeScript MCP client SDKs (`@modelcontextprotocol/sdk`
//! 1.32.2 and `@modelcontextprotocol/client` 2.4.0, pinned in
//! `clients/package.json`) against the real `switchboard` binary: progress
//! (`clients/progress.mjs`), input from the client in both eras
//! (`clients/input.mjs`) and the v1 SDK's task client on the 2025-11-25
//! tasks model (`clients/tasks.mjs`).
//!
//! Why with the real clients: they handle a response at once but run
//! notification handlers on a later microtask, so a progress notification
//! read together with its response was lost (issue #19); only the SDKs
//! themselves show whether the stdio transport's progress hold
//! (`switchboard_server::transport::PROGRESS_HOLD`) keeps them apart.
//! `clients/run.sh` installs the SDKs and Node 22 from the npm registry into
//! `clients/node_modules` on first use; these tests fail (never skip) when
//! that is impossible.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

/// tools/call rounds per client: each reports progress 0, 50 and 100.
const ROUNDS: usize = 20;

/// A first run installs the SDKs; later runs take a few seconds.
const RUN_LIMIT: Duration = Duration::from_secs(300);

/// One client at a time: the first run installs into a shared folder, and
/// the rounds are timing-sensitive on a small machine.
static CLIENTS: Mutex<()> = Mutex::new(());

/// Runs `clients/progress.mjs` for one SDK and transport; its JSON report.
fn progress_report(sdk: &str, transport: &str) -> Value {
    client_report(
        "progress.mjs",
        &[sdk, transport, &ROUNDS.to_string(), env!("CARGO_BIN_EXE_switchboard")],
        &[],
    )
}

/// Runs `clients/input.mjs` for one SDK and transport; its JSON report.
fn input_report(sdk: &str, transport: &str) -> Value {
    client_report("input.mjs", &[sdk, transport, env!("CARGO_BIN_EXE_switchboard")], &[])
}

/// [`input_report`] against a switchboard that serves no tools of its own
/// and the fixtures through an `[[upstreams]]` entry (unprefixed).
fn input_report_through_an_upstream(sdk: &str, transport: &str) -> Value {
    let front = tempfile::tempdir().expect("a temporary folder");
    let exe = env!("CARGO_BIN_EXE_switchboard");
    std::fs::write(
        front.path().join("switchboard.toml"),
        format!(
            r#"
[server]
name = "gateway-under-test"

[tools.builtin]
search = false
read = false

[files]
enabled = false

[prompts]
builtin = false

[[upstreams]]
name = "fixtures"
prefix = ""
command = [{exe:?}, "serve", "--fixtures", "conformance"]
"#
        ),
    )
    .expect("write switchboard.toml");
    let serve = serde_json::json!(["serve", front.path()]).to_string();
    let report = client_report("input.mjs", &[sdk, transport, exe], &[("SWITCHBOARD_SERVE", &serve)]);
    assert_eq!(report["server"], "gateway-under-test", "the SDK must talk to the gateway: {report}");
    report
}

/// Runs `clients/tasks.mjs` over one transport; its JSON report.
fn tasks_report(transport: &str) -> Value {
    client_report("tasks.mjs", &[transport, env!("CARGO_BIN_EXE_switchboard")], &[])
}

/// Runs a script of `clients/` (with `env` added) and returns the JSON
/// object it prints last.
fn client_report(script: &str, args: &[&str], env: &[(&str, &str)]) -> Value {
    let _one_at_a_time = CLIENTS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let (sdk, transport) = (script, args[0]);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut child = Command::new("bash")
        .arg(root.join("clients/run.sh"))
        .arg(script)
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash runs clients/run.sh");
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let out = std::thread::spawn(move || read_all(&mut stdout));
    let err = std::thread::spawn(move || read_all(&mut stderr));
    let status = wait_bounded(&mut child, RUN_LIMIT);
    let (out, err) = (out.join().expect("stdout reader"), err.join().expect("stderr reader"));
    let status =
        status.unwrap_or_else(|| panic!("{sdk} over {transport} ran over {RUN_LIMIT:?}:\n{out}\n{err}"));
    assert!(status.success(), "{sdk} over {transport} failed ({status}):\n{out}\n{err}");
    let last = out.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("no JSON report ({e}):\n{out}\n{err}"))
}

fn read_all(from: &mut impl Read) -> String {
    let mut text = String::new();
    let _ = from.read_to_string(&mut text);
    text
}

/// The child's exit status, or `None` after killing it at `limit`.
fn wait_bounded(child: &mut std::process::Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if let Some(status) = child.try_wait().expect("wait for clients/run.sh") {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Every round's progress reached the SDK's callback, in order, before
/// callTool resolved, and the SDK reported nothing unknown.
fn assert_every_progress_before_the_result(report: &Value) {
    let rounds = report["rounds"].as_array().expect("rounds");
    assert_eq!(rounds.len(), ROUNDS, "{report}");
    for (i, round) in rounds.iter().enumerate() {
        assert_eq!(round["seen"], serde_json::json!([0, 50, 100]), "round {i}: {report}");
        assert_eq!(round["late"], serde_json::json!([]), "round {i}: {report}");
        assert_eq!(round["text"], "Progress test completed", "round {i}: {report}");
    }
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
}

#[test]
fn typescript_sdk_v1_gets_every_progress_before_the_result_over_stdio() {
    assert_every_progress_before_the_result(&progress_report("v1", "stdio"));
}

#[test]
fn typescript_client_v2_gets_every_progress_before_the_result_over_stdio() {
    assert_every_progress_before_the_result(&progress_report("v2", "stdio"));
}

#[test]
fn typescript_sdk_v1_gets_every_progress_before_the_result_over_http() {
    assert_every_progress_before_the_result(&progress_report("v1", "http"));
}

#[test]
fn typescript_client_v2_gets_every_progress_before_the_result_over_http() {
    assert_every_progress_before_the_result(&progress_report("v2", "http"));
}

/// The same fixture handlers answered through the SDK's own request
/// handlers: live server-to-client requests for the v1 SDK (a handshake
/// revision), multi round-trip `input_required` rounds for the v2 client
/// pinned to 2026-07-28.
fn assert_every_question_answered(report: &Value, version: &str) {
    assert_eq!(report["version"], version, "{report}");
    let calls = &report["calls"];
    assert_eq!(
        calls["test_input_required_result_elicitation"], "Hello, {\"name\":\"name-answer\"}",
        "{report}"
    );
    assert_eq!(
        calls["test_input_required_result_multi_round"],
        "step1={\"name\":\"name-answer\"} step2={\"city\":\"city-answer\"}",
        "{report}"
    );
    assert_eq!(
        calls["test_input_required_result_multiple_inputs"],
        "name={\"name\":\"name-answer\"} greeting=Paris roots=file:///probe/root",
        "{report}"
    );
    assert_eq!(calls["test_input_required_result_prompt"], "Use this context: context-answer", "{report}");
    for method in ["elicitation/create", "sampling/createMessage", "roots/list"] {
        assert!(report["asked"].as_array().unwrap().iter().any(|m| m == method), "{method}: {report}");
    }
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
}

#[test]
fn typescript_sdk_v1_answers_live_requests_over_stdio() {
    assert_every_question_answered(&input_report("v1", "stdio"), "handshake");
}

#[test]
fn typescript_sdk_v1_answers_live_requests_over_http() {
    assert_every_question_answered(&input_report("v1", "http"), "handshake");
}

#[test]
fn typescript_client_v2_answers_input_required_rounds_over_stdio() {
    assert_every_question_answered(&input_report("v2", "stdio"), "2026-07-28");
}

#[test]
fn typescript_client_v2_answers_input_required_rounds_over_http() {
    assert_every_question_answered(&input_report("v2", "http"), "2026-07-28");
}

/// An upstream's questions cross the gateway to the SDK at its revision:
/// the upstream (a handshake session to switchboard) asks live; the v1 SDK
/// is asked live in turn, the v2 client in `input_required` rounds whose
/// retries replay the upstream call.
#[test]
fn typescript_sdk_v1_answers_an_upstreams_questions_through_the_gateway_over_stdio() {
    assert_every_question_answered(&input_report_through_an_upstream("v1", "stdio"), "handshake");
}

#[test]
fn typescript_sdk_v1_answers_an_upstreams_questions_through_the_gateway_over_http() {
    assert_every_question_answered(&input_report_through_an_upstream("v1", "http"), "handshake");
}

#[test]
fn typescript_client_v2_answers_an_upstreams_questions_in_rounds_through_the_gateway_over_stdio() {
    assert_every_question_answered(&input_report_through_an_upstream("v2", "stdio"), "2026-07-28");
}

#[test]
fn typescript_client_v2_answers_an_upstreams_questions_in_rounds_through_the_gateway_over_http() {
    assert_every_question_answered(&input_report_through_an_upstream("v2", "http"), "2026-07-28");
}

/// The v1 SDK's task client (the 2025-11-25 tasks model) sees a
/// task-capable tool, gets a task, its status updates and its result,
/// finds it in `tasks/list`, and cancels another.
fn assert_tasks_run(report: &Value) {
    assert_eq!(report["taskSupport"], "optional", "{report}");
    let stream: Vec<&str> =
        report["stream"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    assert_eq!(stream.first(), Some(&"taskCreated"), "{report}");
    assert_eq!(stream.last(), Some(&"result"), "{report}");
    assert_eq!(report["text"], "Computed sdk after 0.3 s", "{report}");
    assert_eq!(report["listed"], true, "{report}");
    assert_eq!(report["cancelled"], "cancelled", "{report}");
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
}

#[test]
fn typescript_sdk_v1_runs_tasks_over_stdio() {
    assert_tasks_run(&tasks_report("stdio"));
}

#[test]
fn typescript_sdk_v1_runs_tasks_over_http() {
    assert_tasks_run(&tasks_report("http"));
}
