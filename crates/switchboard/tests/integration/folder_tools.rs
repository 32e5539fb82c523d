//! The folder tools (list_directory, find_files, file_info, read_file with
//! images and several paths, edit_file with edits and a diff,
//! create_directory, move_file, delete_file) through the real `switchboard`
//! binary: each works over stdio, and each is refused, as an attacker
//! would try it, for `..`, absolute paths, a symlink out, a symlinked
//! folder, an ignored, a hidden and an `[files] exclude`d file, `.git` and
//! the configuration, over stdio and over HTTP in both eras (a 2025-11-25
//! session, and 2026-07-28 requests that each carry their revision).
//! Every secret contains `supersecret`; no answer may carry one, and after
//! the refused writes every byte on disk is as before.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::Switchboard;
use serde_json::{Value, json};

/// Every secret's marker.
const SECRET: &str = "supersecret";

/// The configuration: writing and deleting on, `*.secret` excluded, no
/// rate limit (the probes are many calls back to back).
const CONFIG: &str = "[files]\nexclude = [\"*.secret\"]\n\n[tools.builtin]\nwrite = true\ndelete = true\n\n\
                      [limits]\ntool_calls_per_minute = 0\n";

/// The smallest PNG (1x1, grey), under a name that does not say so.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, b'I', b'H', b'D', b'R', 0, 0, 0, 1, 0, 0, 0,
    1, 8, 0, 0, 0, 0, 0x3a, 0x7e, 0x9b, 0x55, 0, 0, 0, 10, b'I', b'D', b'A', b'T', 0x78, 0x9c, 0x63, 0x60, 0,
    0, 0, 2, 0, 1, 0x48, 0xaf, 0xa4, 0x71, 0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xae, 0x42, 0x60, 0x82,
];

/// A git folder with served files, an ignored, a hidden and an excluded
/// secret, a symlink out, a symlinked folder and a secret outside.
struct Project {
    base: tempfile::TempDir,
    dir: PathBuf,
}

fn project() -> Project {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("project");
    std::fs::create_dir_all(&dir).unwrap();
    git2::Repository::init(&dir).unwrap();
    put(&dir, "README.md", "# Demo\n");
    put(&dir, "src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n");
    put(&dir, "src/util/mod.rs", "pub fn util() {}\n");
    put(&dir, "docs/guide.md", "Guide\n");
    std::fs::write(dir.join("docs/picture.dat"), PNG).unwrap();
    put(&dir, ".gitignore", "ignored.log\n");
    put(&dir, "ignored.log", "supersecret-log\n");
    put(&dir, ".env", "API_KEY=supersecret-env\n");
    put(&dir, "keys.secret", "supersecret-excluded\n");
    let mut git_config = std::fs::read_to_string(dir.join(".git/config")).unwrap();
    git_config.push_str("# supersecret-git-config\n");
    put(&dir, ".git/config", &git_config);
    put(&dir, "switchboard.toml", CONFIG);
    std::fs::write(base.path().join("outside.txt"), "supersecret-outside\n").unwrap();
    std::os::unix::fs::symlink(base.path().join("outside.txt"), dir.join("out-link.txt")).unwrap();
    std::os::unix::fs::symlink(base.path(), dir.join("linked-dir")).unwrap();
    Project { base, dir }
}

fn put(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Every file and folder under `dir` (symlinks not followed) with its
/// content, to compare before and after.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                out.insert(path.clone(), b"<dir>".to_vec());
                stack.push(path);
            } else if kind.is_symlink() {
                out.insert(
                    path.clone(),
                    std::fs::read_link(&path).unwrap().into_os_string().into_encoded_bytes(),
                );
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// Paths that name something not served (or nothing inside the folder).
fn hostile_paths(p: &Project) -> Vec<String> {
    let outside = p.base.path().join("outside.txt").display().to_string();
    let inside_absolute = p.dir.join("README.md").display().to_string();
    [
        "..",
        "../outside.txt",
        "src/../../outside.txt",
        &outside,
        &inside_absolute,
        "/etc/passwd",
        "out-link.txt",
        "linked-dir",
        "linked-dir/outside.txt",
        "linked-dir/project/.env",
        "ignored.log",
        ".env",
        "keys.secret",
        ".git",
        ".git/config",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect()
}

/// Every new tool called on every hostile path, and the moves and folders
/// aimed at protected, dot and excluded names.
fn hostile_calls(p: &Project) -> Vec<(&'static str, Value)> {
    let mut calls = Vec::new();
    for path in hostile_paths(p) {
        calls.push(("list_directory", json!({"path": path, "depth": 3})));
        calls.push(("find_files", json!({"pattern": "**", "path": path})));
        calls.push(("file_info", json!({"path": path})));
        calls.push(("read_file", json!({"path": path})));
        calls.push(("read_file", json!({"paths": [path]})));
        calls.push(("edit_file", json!({"path": path, "edits": [{"old_text": SECRET, "new_text": "x"}]})));
        calls.push(("move_file", json!({"source": path, "destination": "moved.txt"})));
        calls.push(("move_file", json!({"source": "README.md", "destination": path})));
        calls.push(("create_directory", json!({"path": path})));
        calls.push(("delete_file", json!({"path": path})));
    }
    let outside_dir = p.base.path().join("new-folder").display().to_string();
    for path in
        ["../new-folder", &outside_dir, "linked-dir/new-folder", ".hidden", "src/.hidden", ".git/hooks2"]
    {
        calls.push(("create_directory", json!({"path": path})));
    }
    for path in ["folder.secret", "prompts", "skills/evil", "switchboard.toml"] {
        calls.push(("create_directory", json!({"path": path})));
    }
    for destination in [
        "../moved.txt",
        "linked-dir/moved.txt",
        ".env2",
        "src/.moved",
        ".git/hooks/pre-commit",
        "moved.secret",
        "prompts/evil.md",
        "skills/evil/SKILL.md",
        "switchboard.toml",
        "src/main.rs",
    ] {
        calls.push(("move_file", json!({"source": "README.md", "destination": destination})));
    }
    calls.push(("move_file", json!({"source": "switchboard.toml", "destination": "config.toml"})));
    calls.push(("move_file", json!({"source": "src", "destination": "source"})));
    calls.push(("delete_file", json!({"path": "switchboard.toml"})));
    calls.push(("delete_file", json!({"path": "src"})));
    calls.push((
        "edit_file",
        json!({"path": "switchboard.toml", "old_text": "write = true", "new_text": "x"}),
    ));
    calls.push(("find_files", json!({"pattern": "**/.env"})));
    calls.push(("find_files", json!({"pattern": "*.secret"})));
    calls.push(("find_files", json!({"pattern": ".git/**"})));
    calls.push(("find_files", json!({"pattern": "**/*.log"})));
    calls.push(("find_files", json!({"pattern": "linked-dir/**"})));
    calls
}

/// Checks a hostile call's answer: no secret, and refused (a glob that
/// only narrows answers with no match instead).
fn assert_refused(tool: &str, args: &Value, result: &Value) {
    assert!(!result.to_string().contains(SECRET), "{tool} {args} leaked a secret: {result}");
    if tool == "find_files" && args.get("path").is_none() {
        assert!(
            result["structuredContent"]["files"].as_array().is_some_and(Vec::is_empty),
            "{tool} {args}: {result}"
        );
    } else {
        assert_eq!(result["isError"], true, "{tool} {args} was not refused: {result}");
    }
}

/// A tool call over stdio.
fn call(switchboard: &mut Switchboard, name: &str, arguments: Value) -> Value {
    let r = switchboard.request("tools/call", json!({"name": name, "arguments": arguments}));
    r.get("result").cloned().unwrap_or_else(|| panic!("tools/call {name} failed: {r}"))
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn each_folder_tool_works_over_stdio() {
    let p = project();
    let mut sb = Switchboard::start(&["serve", "."], &p.dir);
    let r = call(&mut sb, "list_directory", json!({"depth": 2}));
    assert_eq!(
        text(&r),
        "./\n  README.md\n  docs/\n    guide.md\n    picture.dat\n  src/\n    main.rs\n    util/\n",
        "the configuration is never served: {r}"
    );
    let r = call(&mut sb, "find_files", json!({"pattern": "**/*.rs"}));
    assert_eq!(text(&r), "src/main.rs\nsrc/util/mod.rs\n");
    let r = call(&mut sb, "file_info", json!({"path": "src/main.rs"}));
    let info = &r["structuredContent"];
    assert_eq!(
        (info["kind"].as_str(), info["lines"].as_u64(), info["mimeType"].as_str()),
        (Some("file"), Some(3), Some("text/x-rust"))
    );
    assert_eq!(info["writable"], true);
    let r = call(&mut sb, "file_info", json!({"path": "switchboard.toml"}));
    assert_eq!(r["isError"], true, "the configuration is never served, so never described: {r}");
    let r = call(&mut sb, "read_file", json!({"path": "docs/picture.dat"}));
    assert_eq!(
        (r["content"][0]["type"].as_str(), r["content"][0]["mimeType"].as_str()),
        (Some("image"), Some("image/png"))
    );
    let r = call(&mut sb, "read_file", json!({"paths": ["README.md", "docs/guide.md"]}));
    let texts: Vec<&str> =
        r["content"].as_array().unwrap().iter().map(|b| b["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["==> README.md <==", "# Demo\n", "==> docs/guide.md <==", "Guide\n"]);
    let r = call(&mut sb, "search", json!({"pattern": "println"}));
    assert_eq!(r["structuredContent"]["matches"][0]["column"], 5, "{r}");

    let edits =
        json!([{"old_text": "hello", "new_text": "hi"}, {"old_text": "fn main()", "new_text": "fn start()"}]);
    let r = call(&mut sb, "edit_file", json!({"path": "src/main.rs", "edits": edits, "dry_run": true}));
    assert!(
        r["structuredContent"]["diff"].as_str().unwrap().contains("+fn start() {\n+    println!(\"hi\");\n"),
        "{r}"
    );
    assert!(
        std::fs::read_to_string(p.dir.join("src/main.rs")).unwrap().contains("hello"),
        "dry run writes nothing"
    );
    let r = call(&mut sb, "edit_file", json!({"path": "src/main.rs", "edits": edits}));
    assert_ne!(r["isError"], true, "{r}");
    assert_eq!(
        std::fs::read_to_string(p.dir.join("src/main.rs")).unwrap(),
        "fn start() {\n    println!(\"hi\");\n}\n"
    );

    let r = call(&mut sb, "create_directory", json!({"path": "notes/2026"}));
    assert_ne!(r["isError"], true, "{r}");
    assert!(p.dir.join("notes/2026").is_dir());
    let r =
        call(&mut sb, "move_file", json!({"source": "docs/guide.md", "destination": "notes/2026/guide.md"}));
    assert_ne!(r["isError"], true, "{r}");
    assert!(!p.dir.join("docs/guide.md").exists());
    assert_eq!(std::fs::read_to_string(p.dir.join("notes/2026/guide.md")).unwrap(), "Guide\n");
    let r = call(&mut sb, "delete_file", json!({"path": "notes/2026/guide.md"}));
    assert_ne!(r["isError"], true, "{r}");
    let r = call(&mut sb, "delete_file", json!({"path": "notes/2026"}));
    assert_ne!(r["isError"], true, "{r}");
    assert!(!p.dir.join("notes/2026").exists() && p.dir.join("notes").is_dir());
    sb.finish();
}

#[test]
fn every_folder_tool_refuses_what_is_not_served_over_stdio() {
    let p = project();
    let before = snapshot(p.base.path());
    let mut sb = Switchboard::start(&["serve", "."], &p.dir);
    for (tool, args) in hostile_calls(&p) {
        let r = call(&mut sb, tool, args.clone());
        assert_refused(tool, &args, &r);
    }
    sb.finish();
    assert_eq!(snapshot(p.base.path()), before, "a refused call changed the disk");
}

#[test]
fn search_shows_a_match_deep_in_a_minified_line_and_tail_lines_reads_the_end() {
    let p = project();
    // One 600 KB line with the only match at offset 480,000.
    let mut line = "x".repeat(600_000);
    line.replace_range(480_000..480_006, "NEEDLE");
    put(&p.dir, "dist/app.min.js", &line);
    put(&p.dir, "logs.txt", "one\ntwo\nthree\n");
    let mut sb = Switchboard::start(&["serve", "."], &p.dir);
    let r = call(&mut sb, "search", json!({"pattern": "NEEDLE", "fixed_strings": true}));
    let found = &r["structuredContent"]["matches"][0];
    assert_eq!(
        (found["path"].as_str(), found["column"].as_u64()),
        (Some("dist/app.min.js"), Some(480_001)),
        "{r}"
    );
    let shown = found["text"].as_str().unwrap();
    assert!(shown.contains("NEEDLE") && shown.starts_with('…') && shown.ends_with('…'), "{shown}");
    assert!(shown.len() < 1_000, "a window, not the line: {} bytes", shown.len());
    assert!(text(&r).contains("dist/app.min.js:1:480001:"), "{r}");
    let r = call(&mut sb, "read_file", json!({"path": "logs.txt", "tail_lines": 2}));
    assert_eq!(text(&r), "two\nthree\n", "{r}");
    sb.finish();
}

#[tokio::test]
async fn every_folder_tool_refuses_the_same_over_http_in_both_eras() {
    let p = project();
    let before = snapshot(p.base.path());
    let (mut child, url) =
        common::start_http(&["serve", "--http", "127.0.0.1:0", "."], Some(&p.dir), &[]).await;
    let http = reqwest::Client::new();

    // 2025-11-25: a session from the handshake.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}});
    let (answer, session) = common::post_mcp(&http, &url, "2025-11-25", None, init).await;
    assert_eq!(answer["result"]["protocolVersion"], "2025-11-25", "{answer}");
    let session = session.expect("a session id");
    common::post_mcp(
        &http,
        &url,
        "2025-11-25",
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    let mut id = 0;
    for (tool, args) in hostile_calls(&p) {
        id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args}});
        let (answer, _) = common::post_mcp(&http, &url, "2025-11-25", Some(&session), body).await;
        assert_refused(tool, &args, &answer["result"]);
    }
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {"name": "list_directory", "arguments": {}}});
    let (answer, _) = common::post_mcp(&http, &url, "2025-11-25", Some(&session), body).await;
    assert!(answer["result"]["content"][0]["text"].as_str().unwrap().contains("README.md"), "{answer}");

    // 2026-07-28: no session, each request carries its revision.
    for (tool, args) in hostile_calls(&p) {
        id += 1;
        let params = json!({"name": tool, "arguments": args, "_meta": common::meta_2026(json!({}))});
        let (status, _, answer) = common::post_tools_call_2026(&http, &url, id, params).await;
        assert_eq!(status, 200, "{tool} {args}: {answer}");
        assert_refused(tool, &args, &answer["result"]);
    }
    let params = json!({"name": "find_files", "arguments": {"pattern": "*.md"}, "_meta": common::meta_2026(json!({}))});
    let (_, _, answer) = common::post_tools_call_2026(&http, &url, 0, params).await;
    assert_eq!(answer["result"]["content"][0]["text"], "README.md\ndocs/guide.md\n", "{answer}");
    child.kill().await.unwrap();
    assert_eq!(snapshot(p.base.path()), before, "a refused call changed the disk");
}
