//! End-to-end: no process started by switchboard outlives it. A command tool's
//! program and its own child (a grandchild of switchboard) are killed when switchboard
//! gets SIGTERM, SIGINT or SIGHUP, or when its client closes stdin; the
//! same for `switchboard serve --http`, `switchboard call` and a stdio upstream of
//! `switchboard proxy`. And `switchboard serve` with no folder refuses to serve `/` or
//! the home folder.

use crate::common;

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::{Switchboard, run_with_env};
use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;

/// A tool whose shell starts a background `sleep` (a grandchild of switchboard),
/// writes both pids to `child.pid` and waits. The timeout is far away: only
/// the kill under test can end it.
const CONFIG: &str = r#"
[[tools.command]]
name = "linger"
command = ["sh", "-c", "sleep 300 & echo $! > child.pid; echo $$ >> child.pid; wait"]
timeout = "10m"
"#;

/// How long the program may take to start, and switchboard to stop.
const BOUND: Duration = Duration::from_secs(10);

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("switchboard.toml"), CONFIG).unwrap();
    dir
}

/// The pids in `file` once it holds `count` of them (waits up to [`BOUND`]).
fn pids(file: &Path, count: usize) -> Vec<i32> {
    let deadline = Instant::now() + BOUND;
    loop {
        if let Ok(text) = std::fs::read_to_string(file) {
            let pids: Vec<i32> = text.split_whitespace().filter_map(|p| p.parse().ok()).collect();
            if pids.len() >= count {
                return pids;
            }
        }
        assert!(Instant::now() < deadline, "{} never held {count} pids", file.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `pid` is gone: no such process, or a zombie left for its new
/// parent (init, or a subreaper) to reap.
fn gone(pid: i32) -> bool {
    if kill(Pid::from_raw(pid), None) == Err(Errno::ESRCH) {
        return true;
    }
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_or(true, |stat| stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')))
}

/// Asserts every pid is gone within a few seconds (survivors are killed
/// before the test fails, so a failure leaves nothing running).
fn assert_gone(pids: &[i32], after: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    for &pid in pids {
        while !gone(pid) {
            if Instant::now() > deadline {
                for &pid in pids {
                    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
                }
                panic!("process {pid} survived {after}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn signal(pid: u32, signal: Signal) {
    kill(Pid::from_raw(i32::try_from(pid).unwrap()), signal).unwrap();
}

/// Exit status 128 + the signal's number, as a shell reports a process
/// killed by it.
fn assert_stopped_by(status: ExitStatus, by: Signal) {
    assert_eq!(status.code(), Some(128 + by as i32), "after {by}: {status:?}");
}

/// Starts `switchboard serve DIR` over stdio and calls `linger` without waiting
/// for the answer; returns switchboard and the program's two pids.
fn serving_linger() -> (tempfile::TempDir, Switchboard, Vec<i32>) {
    let dir = project();
    let folder = dir.path().to_str().unwrap().to_owned();
    let mut switchboard = Switchboard::start(&["serve", &folder], dir.path());
    switchboard.send(&json!({"jsonrpc": "2.0", "id": 1000, "method": "tools/call",
                      "params": {"name": "linger", "arguments": {}}}));
    let pids = pids(&dir.path().join("child.pid"), 2);
    (dir, switchboard, pids)
}

#[test]
fn a_signal_to_switchboard_serve_kills_the_tool_and_its_children() {
    for by in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        let (_dir, mut switchboard, pids) = serving_linger();
        assert!(!pids.iter().any(|&p| gone(p)), "the program runs");
        signal(switchboard.pid(), by);
        let status = switchboard.wait_exit(BOUND);
        assert_gone(&pids, &format!("{by} to switchboard serve"));
        assert_stopped_by(status, by);
    }
}

#[test]
fn closing_stdin_kills_the_tool_and_its_children() {
    let (_dir, mut switchboard, pids) = serving_linger();
    switchboard.close_stdin();
    // Requests in flight get the server's grace period (10 s) to finish
    // once input ends; then they are cancelled, and switchboard exits.
    let status = switchboard.wait_exit(Duration::from_secs(30));
    assert!(status.success(), "{status:?}");
    assert_gone(&pids, "stdin EOF");
}

#[tokio::test]
async fn sigterm_to_switchboard_serve_http_kills_the_tool_and_its_children() {
    let dir = project();
    let folder = dir.path().to_str().unwrap();
    let (mut child, url) = common::start_http(&["serve", "--http", "127.0.0.1:0", folder], None, &[]).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "linger", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let request = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "linger")
        .body(call.to_string())
        .send();
    // The answer comes only when the program ends: keep the request going.
    let answer = tokio::spawn(async move { request.await.map(|r| r.status()) });
    let file = dir.path().join("child.pid");
    let pids = tokio::task::spawn_blocking(move || pids(&file, 2)).await.unwrap();
    signal(child.id().unwrap(), Signal::SIGTERM);
    let status = tokio::time::timeout(BOUND, child.wait()).await.expect("switchboard stops").unwrap();
    assert_gone(&pids, "SIGTERM to switchboard serve --http");
    assert_stopped_by(status, Signal::SIGTERM);
    // The request in flight ended too, one way or another.
    let _ = tokio::time::timeout(BOUND, answer).await.expect("the request ends");
}

#[test]
fn sigterm_to_switchboard_call_kills_the_tool_and_its_children() {
    let dir = project();
    let mut call = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["call", "linger"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pids = pids(&dir.path().join("child.pid"), 2);
    signal(call.id(), Signal::SIGTERM);
    let deadline = Instant::now() + BOUND;
    let status = loop {
        if let Some(status) = call.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = call.kill();
            panic!("switchboard call still running {BOUND:?} after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_gone(&pids, "SIGTERM to switchboard call");
    assert_stopped_by(status, Signal::SIGTERM);
}

#[test]
fn sigterm_to_switchboard_proxy_kills_the_stdio_upstream_and_its_children() {
    let dir = tempfile::tempdir().unwrap();
    // The upstream: a shell that starts a background `sleep`, writes both
    // pids, then becomes `switchboard serve --fixtures demo` (same pid).
    let script =
        "sleep 300 & echo $! > upstream.pid; echo $$ >> upstream.pid; exec \"$0\" serve --fixtures demo";
    let mut proxy = Switchboard::start(
        &["proxy", "--", "sh", "-c", script, env!("CARGO_BIN_EXE_switchboard")],
        dir.path(),
    );
    let tools = proxy.result("tools/list", json!({}));
    assert!(tools["tools"].as_array().unwrap().iter().any(|t| t["name"] == "echo"), "{tools}");
    let pids = pids(&dir.path().join("upstream.pid"), 2);
    signal(proxy.pid(), Signal::SIGTERM);
    let status = proxy.wait_exit(BOUND);
    assert_gone(&pids, "SIGTERM to switchboard proxy");
    assert_stopped_by(status, Signal::SIGTERM);
}

#[test]
fn serve_without_a_folder_refuses_the_home_and_root_folders() {
    let home = tempfile::tempdir().unwrap();
    let home_str = home.path().to_str().unwrap();
    let env = [("HOME", home_str)];
    for cwd in [home.path(), Path::new("/")] {
        let started = Instant::now();
        let (ok, stdout, stderr) = run_with_env(&["serve"], cwd, &env);
        assert!(!ok, "switchboard served {}", cwd.display());
        assert!(started.elapsed() < BOUND, "the refusal took {:?}", started.elapsed());
        assert!(stdout.is_empty(), "{stdout}");
        assert!(stderr.contains("no folder to serve was named"), "{stderr}");
        assert!(stderr.contains("switchboard serve /path/to/project"), "{stderr}");
    }
    // The other commands that take a folder share the rule.
    let (ok, _, stderr) = run_with_env(&["list"], home.path(), &env);
    assert!(!ok && stderr.contains("switchboard list /path/to/project"), "{stderr}");

    // Named explicitly, the home folder is served as asked.
    let mut switchboard = Switchboard::start_with_env(&["serve", home_str], home.path(), &env);
    let tools = switchboard.result("tools/list", json!({}));
    assert!(tools["tools"].as_array().unwrap().iter().any(|t| t["name"] == "read_file"), "{tools}");
    switchboard.finish();
    // So is a folder named by --config.
    std::fs::write(home.path().join("switchboard.toml"), "[server]\nname = \"home\"\n").unwrap();
    let mut switchboard =
        Switchboard::start_with_env(&["serve", "--config", "switchboard.toml"], home.path(), &env);
    switchboard.result("tools/list", json!({}));
    switchboard.finish();
}
