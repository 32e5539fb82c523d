//! End-to-end: the command line as a person meets it. `--http PORT` and
//! `HOST:PORT`, the banner in a terminal, `call` (progress as it arrives,
//! readable output, one exit status per kind of failure), `init`,
//! `completions`, `man`, `/healthz` and `/readyz`.
//!
//! Every wait is bounded: output is read on a thread and waited for with a
//! timeout, and every child is killed when its guard drops.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long any single wait may take before the test fails.
const WAIT: Duration = Duration::from_secs(30);

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

fn switchboard(args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(std::env::temp_dir()).stdin(Stdio::null());
    command
}

/// Runs `switchboard ARGS` to completion.
fn run(args: &[&str]) -> Output {
    switchboard(args).output().expect("switchboard runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts `out` ended with exit status `code`.
#[track_caller]
fn assert_status(out: &Output, code: i32) {
    assert_eq!(out.status.code(), Some(code), "stdout:\n{}\nstderr:\n{}", stdout(out), stderr(out));
}

/// A child process killed and reaped when dropped.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Guard {
    /// Waits up to [`WAIT`] for the child to exit.
    fn wait(&mut self) -> ExitStatus {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.0.try_wait().expect("the child can be waited for") {
                return status;
            }
            assert!(Instant::now() < deadline, "still running after {WAIT:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Lines read from `from` on a thread, each with the time it arrived.
fn lines(from: impl std::io::Read + Send + 'static) -> mpsc::Receiver<(Instant, String)> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { return };
            if tx.send((Instant::now(), line)).is_err() {
                return;
            }
        }
    });
    rx
}

/// The next line from `rx`, within [`WAIT`].
#[track_caller]
fn next_line(rx: &mpsc::Receiver<(Instant, String)>) -> (Instant, String) {
    rx.recv_timeout(WAIT).unwrap_or_else(|e| panic!("no line within {WAIT:?}: {e}"))
}

// ---------------------------------------------------------------- help

#[test]
fn help_names_every_command_and_every_exit_status() {
    let out = run(&["--help"]);
    assert_status(&out, 0);
    let help = stdout(&out);
    for command in
        ["serve", "check", "list", "call", "proxy", "init", "completions", "schema", "man", "bundle"]
    {
        assert!(help.contains(&format!("\n  {command} ")), "{command} missing:\n{help}");
    }
    for status in ["Exit status:", "  1 ", "  2 ", "  3 ", "  4 ", "128+N"] {
        assert!(help.contains(status), "{status:?} missing:\n{help}");
    }
    let call = stdout(&run(&["call", "--help"]));
    assert!(call.contains("Exit status:") && call.contains("--fixtures"), "{call}");
    let serve = stdout(&run(&["serve", "--help"]));
    assert!(serve.contains("localhost:8080") && serve.contains("/healthz"), "{serve}");
}

// ---------------------------------------------------------------- call

#[test]
fn call_shows_each_progress_line_as_it_arrives_and_before_the_result() {
    // stdout and stderr share one pipe, so the order of lines is the order
    // switchboard wrote them in.
    let (reader, writer) = std::io::pipe().expect("a pipe");
    let mut child = Guard(
        switchboard(&["call", "--fixtures", "demo", "countdown", "--args", r#"{"seconds": 2}"#])
            .stdout(writer.try_clone().expect("the pipe's writer clones"))
            .stderr(writer)
            .spawn()
            .expect("switchboard starts"),
    );
    let rx = lines(reader);
    let (_, first) = next_line(&rx);
    assert_eq!(first, "progress 1/2: 1 s left");
    // The first second is reported while the tool still runs (a second more).
    assert!(child.0.try_wait().expect("waitable").is_none(), "progress came only at the end");
    assert_eq!(next_line(&rx).1, "progress 2/2: 0 s left");
    assert_eq!(next_line(&rx).1, "Counted down 2 seconds.");
    assert!(child.wait().success());
    let rest: Vec<String> = rx.iter().map(|(_, line)| line).collect();
    assert!(rest.is_empty(), "more output: {rest:?}");
}

#[test]
fn call_prints_the_content_without_protocol_fields() {
    let out = run(&["call", "--fixtures", "demo", "add", "--args", r#"{"a": 2, "b": 3}"#]);
    assert_status(&out, 0);
    let text = stdout(&out);
    assert!(!text.contains("resultType") && !text.contains("_meta"), "{text}");
    assert!(text.contains('5'), "{text}");
    assert!(stderr(&out).is_empty(), "no progress, no noise: {}", stderr(&out));
}

#[test]
fn call_json_prints_the_whole_result() {
    let out = run(&["call", "--fixtures", "demo", "echo", "--args", r#"{"text": "hi"}"#, "--json"]);
    assert_status(&out, 0);
    let result: Value = serde_json::from_str(&stdout(&out)).expect("stdout is one JSON document");
    assert_eq!(result["content"][0]["text"], "hi");
    assert_ne!(result["isError"], true);
}

#[test]
fn call_exits_1_when_the_tool_reports_an_error() {
    let out = run(&["call", "--fixtures", "demo", "view_basket", "--args", r#"{"basket_id": "nope"}"#]);
    assert_status(&out, 1);
    assert!(stdout(&out).contains("unknown basket handle"), "the error text is printed: {}", stdout(&out));
}

#[test]
fn call_exits_2_for_an_unknown_tool() {
    let out = run(&["call", "--fixtures", "demo", "no_such_tool"]);
    assert_status(&out, 2);
    assert!(stderr(&out).contains("the tools are: echo"), "{}", stderr(&out));
}

#[test]
fn call_exits_2_for_arguments_that_are_not_a_json_object() {
    for args in ["{", "[1, 2]", "\"text\""] {
        let out = run(&["call", "--fixtures", "demo", "echo", "--args", args]);
        assert_status(&out, 2);
        assert!(stderr(&out).contains("--args"), "{args}: {}", stderr(&out));
    }
}

#[test]
fn usage_errors_exit_2() {
    assert_status(&run(&["call", "--no-such-option", "echo"]), 2);
    assert_status(&run(&["no-such-command"]), 2);
    assert_status(&run(&["call"]), 2);
    assert_status(&run(&["completions", "tcsh"]), 2);
    assert_status(&run(&["call", "--fixtures", "demo", "echo", "/tmp"]), 2);
}

#[test]
fn call_exits_3_for_a_broken_configuration() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("switchboard.toml"), "[files\n").unwrap();
    let out = run(&["call", "search", dir.path().to_str().unwrap()]);
    assert_status(&out, 3);
    assert!(stderr(&out).contains("switchboard.toml:1:"), "placed: {}", stderr(&out));
    let missing = dir.path().join("missing.toml");
    assert_status(&run(&["call", "search", "--config", missing.to_str().unwrap()]), 3);
}

#[test]
fn call_exits_4_for_a_missing_folder() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone");
    let out = run(&["call", "search", gone.to_str().unwrap()]);
    assert_status(&out, 4);
    assert!(stderr(&out).contains("gone"), "{}", stderr(&out));
}

// ---------------------------------------------------------------- init

#[test]
fn init_writes_a_file_check_accepts_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let file = dir.path().join("switchboard.toml");
    let out = run(&["init", folder]);
    assert_status(&out, 0);
    assert!(stdout(&out).contains("switchboard check"), "{}", stdout(&out));
    let written = std::fs::read_to_string(&file).expect("init wrote switchboard.toml");
    assert!(written.starts_with("# switchboard.toml"), "{written}");
    assert_status(&run(&["check", folder]), 0);

    std::fs::write(&file, "# mine\n").unwrap();
    let refused = run(&["init", folder]);
    assert_status(&refused, 4);
    assert!(stderr(&refused).contains("--force"), "{}", stderr(&refused));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "# mine\n", "left alone");

    assert_status(&run(&["init", "--force", folder]), 0);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), written, "replaced with --force");
}

#[test]
fn init_exits_4_for_a_missing_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["init", dir.path().join("gone").to_str().unwrap()]);
    assert_status(&out, 4);
}

// ------------------------------------------------------- completions, man

#[test]
fn completions_for_every_shell_name_the_subcommands() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(&["completions", shell]);
        assert_status(&out, 0);
        let script = stdout(&out);
        for command in ["serve", "call", "init", "completions", "man"] {
            assert!(script.contains(command), "{shell}: {command} missing");
        }
        assert!(script.contains("fixtures"), "{shell}: options are completed too");
    }
}

#[test]
fn the_man_page_is_roff_and_describes_every_subcommand() {
    let out = run(&["man"]);
    assert_status(&out, 0);
    let page = stdout(&out);
    assert!(page.contains(".TH switchboard 1"), "{page}");
    for command in
        ["serve", "check", "list", "proxy", "call", "init", "completions", "schema", "man", "bundle"]
    {
        assert!(page.contains(&format!(".SH \"switchboard {command}\"")), "{command} missing");
    }
    assert!(page.contains("\\-\\-http") && page.contains("128+N"), "options and exit statuses");
    assert_eq!(page.matches(".ds Aq \\(aq").count(), 1, "one preamble");
}

// ---------------------------------------------------------------- HTTP

/// `switchboard serve --fixtures demo --http ADDR`, and the address it
/// printed on its one stdout line.
fn serve_http(addr: &str) -> (Guard, SocketAddr) {
    let mut child = Guard(
        switchboard(&["serve", "--fixtures", "demo", "--http", addr])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("switchboard starts"),
    );
    let rx = lines(child.0.stdout.take().expect("piped"));
    let (_, line) = next_line(&rx);
    let url = line.strip_prefix("switchboard listening on http://").unwrap_or_else(|| panic!("{line:?}"));
    let bound = url.strip_suffix("/mcp").expect("the MCP path").parse().expect("an address");
    (child, bound)
}

/// `GET path` over plain HTTP/1.1: the status code.
fn get(addr: SocketAddr, path: &str) -> u16 {
    let mut stream = TcpStream::connect_timeout(&addr, WAIT).expect("connects");
    stream.set_read_timeout(Some(WAIT)).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("an answer");
    let status = response.split(' ').nth(1).unwrap_or_else(|| panic!("{response:?}"));
    status.parse().expect("a status code")
}

#[test]
fn http_with_a_port_alone_serves_loopback_and_answers_healthz() {
    let (_child, bound) = serve_http("0");
    assert_eq!(bound.ip(), std::net::Ipv4Addr::LOCALHOST, "a bare port is 127.0.0.1");
    assert_ne!(bound.port(), 0, "the port bound is printed, not the one asked for");
    assert_eq!(get(bound, "/healthz"), 200);
    assert_eq!(get(bound, "/readyz"), 200);
}

#[test]
fn http_with_a_host_name_resolves_it() {
    let (_child, bound) = serve_http("localhost:0");
    assert!(bound.ip().is_loopback(), "{bound}");
    assert_eq!(get(bound, "/healthz"), 200);
}

#[test]
fn http_on_a_port_in_use_exits_4() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = run(&["serve", "--fixtures", "demo", "--http", &port]);
    assert_status(&out, 4);
    assert!(stderr(&out).contains("binding 127.0.0.1:"), "{}", stderr(&out));
}

#[test]
fn http_on_a_non_loopback_address_needs_allow_host() {
    let out = run(&["serve", "--fixtures", "demo", "--http", "0.0.0.0:0"]);
    assert_status(&out, 2);
    assert!(stderr(&out).contains("--allow-host"), "{}", stderr(&out));
}

#[test]
fn http_with_a_malformed_address_is_a_usage_error() {
    for bad in ["localhost", "localhost:http", "[::1", "99999"] {
        let out = run(&["serve", "--fixtures", "demo", "--http", bad]);
        assert_status(&out, 2);
        // clap's line, then what would have been right.
        let message = stderr(&out);
        assert!(message.contains("invalid value") && message.contains("e.g."), "{bad}: {message}");
    }
}

// ---------------------------------------------------------------- banner

/// `switchboard ARGS` on a pseudo-terminal (util-linux `script`), its
/// stdin fed from a pipe we hold: stdin is a terminal to switchboard.
fn on_a_terminal(args: &[&str]) -> (Guard, std::process::ChildStdin, mpsc::Receiver<(Instant, String)>) {
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let line: Vec<String> = std::iter::once(BIN).chain(args.iter().copied()).map(quote).collect();
    let mut child = Command::new("script")
        .args(["-qec", &line.join(" "), "/dev/null"])
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("util-linux `script` runs (it gives switchboard a terminal)");
    let stdin = child.stdin.take().expect("piped");
    let rx = lines(child.stdout.take().expect("piped"));
    (Guard(child), stdin, rx)
}

#[test]
fn serve_in_a_terminal_says_what_it_serves_and_how_to_stop() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello\n").unwrap();
    let folder = dir.path().canonicalize().unwrap();
    let (mut child, stdin, rx) = on_a_terminal(&["serve", folder.to_str().unwrap()]);
    let (_, banner) = next_line(&rx);
    assert!(banner.starts_with(&format!("switchboard: serving {} (", folder.display())), "{banner}");
    assert!(banner.contains("1 resource"), "{banner}");
    assert!(banner.contains("Ctrl-C stops") && banner.contains("a host starts switchboard"), "{banner}");
    // End of input on the terminal ends the server, as on a pipe.
    drop(stdin);
    assert!(child.wait().success());
}

#[test]
fn serve_on_pipes_prints_no_banner() {
    let out = run(&["serve", "--fixtures", "demo"]);
    assert_status(&out, 0);
    assert!(stdout(&out).is_empty() && stderr(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn http_in_a_terminal_adds_the_banner_to_the_listening_line() {
    let (mut child, stdin, rx) = on_a_terminal(&["serve", "--fixtures", "demo", "--http", "0"]);
    let (_, listening) = next_line(&rx);
    let url = listening.trim_end().strip_prefix("switchboard listening on ").expect("the address first");
    let (_, banner) = next_line(&rx);
    assert!(banner.trim_end().ends_with(&format!("at {url}; Ctrl-C stops")), "{banner}");
    assert!(banner.contains("the demo fixtures (7 tools, 1 prompt, 2 resources)"), "{banner}");
    drop(stdin);
    let _ = child.0.kill();
    let _ = child.wait();
}
