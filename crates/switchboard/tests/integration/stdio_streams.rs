//! End-to-end: the kinds of stdin and stdout clients really hand `switchboard`.
//! Pipes and socket pairs (what libuv, and so Node clients, spawn with) are
//! read on the runtime's thread in non-blocking mode, and the flag is put
//! back on exit; a regular file falls back to blocking reads.
#![cfg(unix)]

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};

use nix::fcntl::{FcntlArg, OFlag, fcntl};
use serde_json::{Value, json};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const ECHO: &str =
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":3,"method":"resources/list","params":{}}"#;

fn switchboard() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command.args(["serve", "--fixtures", "bench"]).stderr(Stdio::null());
    command
}

fn read_message(reader: &mut impl BufRead) -> Value {
    let mut line = String::new();
    assert!(reader.read_line(&mut line).expect("read") > 0, "switchboard closed its output early");
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

/// Sends initialize, an echo call and a list request; checks the answers.
fn converse(writer: &mut impl Write, reader: &mut impl BufRead) {
    for message in [INIT, INITIALIZED, ECHO, LIST] {
        writeln!(writer, "{message}").expect("write");
    }
    writer.flush().expect("flush");
    let init = read_message(reader);
    assert_eq!(init["id"], 1);
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    let echo = read_message(reader);
    assert_eq!(echo["result"]["content"][0]["text"], "hi", "{echo}");
    let list = read_message(reader);
    assert_eq!(list["result"]["resources"].as_array().map(Vec::len), Some(100), "{list}");
    assert_eq!(
        list["result"]["resources"][0],
        json!({"uri": "mem://item/0", "name": "item-0", "mimeType": "text/plain"})
    );
}

fn is_non_blocking(fd: &OwnedFd) -> bool {
    OFlag::from_bits_retain(fcntl(fd, FcntlArg::F_GETFL).expect("F_GETFL")).contains(OFlag::O_NONBLOCK)
}

#[test]
fn serves_a_socket_pair_as_node_clients_spawn_it() {
    let (ours, theirs) = UnixStream::pair().expect("socketpair");
    let theirs = OwnedFd::from(theirs);
    let kept = theirs.try_clone().expect("dup");
    let mut child = switchboard()
        .stdin(Stdio::from(theirs.try_clone().expect("dup")))
        .stdout(Stdio::from(theirs))
        .spawn()
        .expect("switchboard starts");
    let mut writer = ours.try_clone().expect("dup");
    let mut reader = BufReader::new(ours.try_clone().expect("dup"));
    converse(&mut writer, &mut reader);
    assert!(is_non_blocking(&kept), "switchboard serves the socket through the reactor");
    // End of input: switchboard finishes and exits cleanly.
    ours.shutdown(std::net::Shutdown::Write).expect("shutdown");
    assert!(child.wait().expect("exit").success());
    // stdin and stdout were one socket: both ends restored the flag the
    // process found, whichever went last.
    assert!(!is_non_blocking(&kept), "switchboard put the blocking flag back on exit");
    drop(kept);
    let mut rest = String::new();
    reader.read_to_string(&mut rest).expect("read to end");
    assert!(rest.is_empty(), "{rest}");
}

#[test]
fn pipes_are_non_blocking_while_served_and_restored_on_exit() {
    // Close-on-exec, or switchboard processes that other tests start at the same
    // time would inherit the write end and this one would never see EOF.
    let (read_end, write_end) = nix::unistd::pipe2(OFlag::O_CLOEXEC).expect("pipe");
    assert!(!is_non_blocking(&read_end));
    let mut child = switchboard()
        .stdin(Stdio::from(read_end.try_clone().expect("dup")))
        .stdout(Stdio::piped())
        .spawn()
        .expect("switchboard starts");
    let mut writer = std::fs::File::from(write_end);
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    converse(&mut writer, &mut reader);
    // The flag is on the open file description, which this test shares.
    assert!(is_non_blocking(&read_end), "switchboard reads its stdin pipe through the reactor");
    drop(writer);
    assert!(child.wait().expect("exit").success());
    assert!(!is_non_blocking(&read_end), "switchboard put the blocking flag back on exit");
}

#[test]
fn a_regular_file_as_stdin_is_read_to_the_end() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("requests.jsonl");
    std::fs::write(&input, format!("{INIT}\n{INITIALIZED}\n{ECHO}\n{LIST}\n")).expect("write");
    let output = switchboard()
        .stdin(std::fs::File::open(&input).expect("open"))
        .stdout(Stdio::piped())
        .output()
        .expect("switchboard runs");
    assert!(output.status.success());
    let answers: Vec<Value> = output
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let ids: Vec<&Value> = answers.iter().map(|a| &a["id"]).collect();
    assert_eq!(ids, [&json!(1), &json!(2), &json!(3)], "{answers:?}");
    assert_eq!(answers[1]["result"]["content"][0]["text"], "hi");
}
