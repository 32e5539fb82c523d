//! Builds and runs the example binary, then talks to it over stdio as a
//! client would: newline-delimited JSON-RPC on its stdin and stdout.

use std::path::Path;
use std::process::{Command, Stdio};

use switchboard_testkit::process::StdioProcess;

use serde_json::json;

/// Starts the binary in `dir` and completes the `initialize` handshake.
fn start(dir: &Path, args: &[&str]) -> StdioProcess {
    let mut command = Command::new(env!("CARGO_BIN_EXE_example-files"));
    command.args(args).current_dir(dir);
    StdioProcess::initialized(command, "2025-06-18")
}

/// A folder with a few files, hidden ones among them.
fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "Hello, files!\n").unwrap();
    std::fs::create_dir(dir.path().join("notes")).unwrap();
    std::fs::write(dir.path().join("notes/to do.md"), "# To do\n").unwrap();
    std::fs::write(dir.path().join("pixel.bin"), [0u8, 159, 146, 150]).unwrap();
    std::fs::write(dir.path().join(".secret"), "hidden").unwrap();
    dir
}

#[test]
fn lists_the_files_of_the_folder_given() {
    let dir = folder();
    // Started elsewhere, with the folder as its argument.
    let mut c = start(&std::env::temp_dir(), &[dir.path().to_str().unwrap()]);
    let list = c.result("resources/list", json!({}));
    let uris: Vec<&str> =
        list["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["file:///hello.txt", "file:///notes/to%20do.md", "file:///pixel.bin"]);
    let hello = &list["resources"][0];
    assert_eq!(hello["name"], "hello.txt");
    assert_eq!(hello["mimeType"], "text/plain");
    assert_eq!(hello["size"], 14);
    let templates = c.result("resources/templates/list", json!({}));
    assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "file:///{+path}");
}

#[test]
fn serves_the_current_directory_by_default() {
    let dir = folder();
    let mut c = start(dir.path(), &[]);
    let list = c.result("resources/list", json!({}));
    assert_eq!(list["resources"].as_array().unwrap().len(), 3, "{list}");
}

#[test]
fn reads_text_and_binary_files() {
    let dir = folder();
    let mut c = start(dir.path(), &[]);
    let r = c.result("resources/read", json!({"uri": "file:///hello.txt"}));
    assert_eq!(
        r["contents"],
        json!([{"uri": "file:///hello.txt", "mimeType": "text/plain", "text": "Hello, files!\n"}])
    );
    let r = c.result("resources/read", json!({"uri": "file:///notes/to%20do.md"}));
    assert_eq!(r["contents"][0]["text"], "# To do\n");
    assert_eq!(r["contents"][0]["mimeType"], "text/markdown");
    let r = c.result("resources/read", json!({"uri": "file:///pixel.bin"}));
    assert_eq!(r["contents"][0]["blob"], "AJ+Slg==");
    // Not listed, but inside the folder: readable, including files made after start.
    assert_eq!(
        c.result("resources/read", json!({"uri": "file:///.secret"}))["contents"][0]["text"],
        "hidden"
    );
    std::fs::write(dir.path().join("later.txt"), "new").unwrap();
    assert_eq!(c.result("resources/read", json!({"uri": "file:///later.txt"}))["contents"][0]["text"], "new");
}

#[test]
fn refuses_paths_outside_the_folder_and_missing_files() {
    let parent = tempfile::tempdir().unwrap();
    std::fs::write(parent.path().join("outside.txt"), "secret").unwrap();
    std::fs::create_dir(parent.path().join("served")).unwrap();
    let mut c = start(&parent.path().join("served"), &[]);
    for uri in ["file:///../outside.txt", "file:///%2e%2e/outside.txt", "file:///a/..%2f..%2foutside.txt"] {
        let r = c.request("resources/read", json!({"uri": uri}));
        assert_eq!(r["error"]["code"], -32602, "{uri}: {r}");
        assert!(!r.to_string().contains("secret"), "{r}");
    }
    // Missing: the spec's resource-not-found error (-32002 before 2026-07-28).
    let r = c.request("resources/read", json!({"uri": "file:///missing.txt"}));
    assert_eq!(r["error"]["code"], -32002, "{r}");
    assert_eq!(r["error"]["data"]["uri"], "file:///missing.txt");
    // Not a URI this server serves at all.
    let r = c.request("resources/read", json!({"uri": "https://example.com/"}));
    assert_eq!(r["error"]["code"], -32002, "{r}");
}

#[test]
fn a_missing_folder_is_an_error_at_start() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_example-files"))
        .arg("/definitely/not/here")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot serve /definitely/not/here"));
}
