//! End-to-end: the real `switchboard` binary serving a temporary project folder
//! over stdio and HTTP, with live changes and hot reload.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{Switchboard, run};
use serde_json::{Value, json};

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("src")).unwrap();
    std::fs::write(p.join(".gitignore"), "secret.txt\n").unwrap();
    std::fs::write(p.join("src/lib.rs"), "pub fn answer() -> u32 { 42 }\n").unwrap();
    std::fs::write(p.join("README.md"), "# Demo project\n").unwrap();
    std::fs::write(p.join("secret.txt"), "do not serve").unwrap();
    dir
}

fn uris(switchboard: &mut Switchboard) -> Vec<String> {
    let listed = switchboard.result("resources/list", json!({}));
    listed["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap().to_owned()).collect()
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn serves_a_folder_with_no_configuration() {
    let dir = project();
    let mut switchboard = Switchboard::start(&["serve"], dir.path());
    let listed = uris(&mut switchboard);
    assert_eq!(listed, ["file:///README.md", "file:///src/lib.rs"]);
    let read = switchboard.result("resources/read", json!({"uri": "file:///src/lib.rs"}));
    assert_eq!(read["contents"][0]["text"], "pub fn answer() -> u32 { 42 }\n");
    let refused = switchboard.request("resources/read", json!({"uri": "file:///secret.txt"}));
    assert_eq!(refused["error"]["code"], -32002, "{refused}");
    let done = switchboard.result(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "file:///{+path}"}, "argument": {"name": "path", "value": "src/"}}),
    );
    assert_eq!(done["completion"]["values"], json!(["src/lib.rs"]));
    let prompts = switchboard.result("prompts/list", json!({}));
    assert!(prompts["prompts"].as_array().unwrap().iter().any(|p| p["name"] == "code_review"));
    switchboard.finish();
}

#[test]
fn changes_on_disk_reach_subscribers_and_lists() {
    let dir = project();
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    switchboard.result("resources/subscribe", json!({"uri": "file:///src/lib.rs"}));
    write(&dir.path().join("src/lib.rs"), "pub fn answer() -> u32 { 43 }\n");
    switchboard.notification("notifications/resources/updated", Some("file:///src/lib.rs"));
    let read = switchboard.result("resources/read", json!({"uri": "file:///src/lib.rs"}));
    assert!(read["contents"][0]["text"].as_str().unwrap().contains("43"));

    write(&dir.path().join("src/new.rs"), "// new\n");
    switchboard.notification("notifications/resources/list_changed", None);
    assert!(uris(&mut switchboard).contains(&"file:///src/new.rs".to_owned()));

    std::fs::remove_file(dir.path().join("src/new.rs")).unwrap();
    switchboard.notification("notifications/resources/list_changed", None);
    assert!(!uris(&mut switchboard).contains(&"file:///src/new.rs".to_owned()));

    // A new folder is watched too: a file written into it later appears.
    std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
    write(&dir.path().join("src/deep/a.rs"), "// a\n");
    switchboard.notification("notifications/resources/list_changed", None);
    std::thread::sleep(Duration::from_millis(300));
    write(&dir.path().join("src/deep/b.rs"), "// b\n");
    let deadline = std::time::Instant::now() + common::WAIT;
    while !uris(&mut switchboard).contains(&"file:///src/deep/b.rs".to_owned()) {
        assert!(std::time::Instant::now() < deadline, "src/deep/b.rs never appeared");
        switchboard.notification("notifications/resources/list_changed", None);
    }
    // A build folder appears, then .gitignore leaves it out: it goes.
    std::fs::create_dir_all(dir.path().join("target/debug")).unwrap();
    write(&dir.path().join("target/debug/out"), "built");
    let deadline = std::time::Instant::now() + common::WAIT;
    while !uris(&mut switchboard).contains(&"file:///target/debug/out".to_owned()) {
        assert!(std::time::Instant::now() < deadline, "target/debug/out never appeared");
        switchboard.notification("notifications/resources/list_changed", None);
    }
    write(&dir.path().join(".gitignore"), "secret.txt\ntarget/\n");
    let deadline = std::time::Instant::now() + common::WAIT;
    while uris(&mut switchboard).iter().any(|u| u.contains("target")) {
        assert!(std::time::Instant::now() < deadline, "target/ is still listed");
        switchboard.notification("notifications/resources/list_changed", None);
    }
    switchboard.finish();
}

#[test]
fn editing_the_configuration_reloads_live_and_bad_edits_keep_the_last_good_one() {
    let dir = project();
    let config = dir.path().join("switchboard.toml");
    write(&config, "[server]\nname = \"demo\"\n");
    let mut switchboard = Switchboard::start(&["serve"], dir.path());
    let prompts = switchboard.result("prompts/list", json!({}));
    assert_eq!(prompts["prompts"].as_array().unwrap().len(), 3);

    // A good edit: the built-in prompts go, clients hear list_changed.
    write(&config, "[server]\nname = \"demo\"\n\n[prompts]\nbuiltin = false\n");
    switchboard.notification("notifications/prompts/list_changed", None);
    let prompts = switchboard.result("prompts/list", json!({}));
    assert_eq!(prompts["prompts"], json!([]));

    // After the reload the template still follows the live file index.
    write(&dir.path().join("src/after.rs"), "// after\n");
    switchboard.notification("notifications/resources/list_changed", None);
    let done = switchboard.result(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "file:///{+path}"}, "argument": {"name": "path", "value": "src/af"}}),
    );
    assert_eq!(done["completion"]["values"], json!(["src/after.rs"]));
    let read = switchboard.result("resources/read", json!({"uri": "file:///src%2Fafter.rs"}));
    assert_eq!(read["contents"][0]["text"], "// after\n");

    // A bad edit: reported with its line and column, nothing changes.
    write(&config, "[server]\nname = \"demo\"\n\n[prompts]\nbuiltin = \n");
    let stderr = switchboard.wait_stderr("last good configuration stays in force");
    assert!(stderr.contains("switchboard.toml:5:"), "{stderr}");
    let prompts = switchboard.result("prompts/list", json!({}));
    assert_eq!(prompts["prompts"], json!([]));

    // Files configuration: excluding a file removes it live.
    write(&config, "[server]\nname = \"demo\"\n\n[files]\nexclude = [\"README.md\"]\n");
    switchboard.notification("notifications/resources/list_changed", None);
    switchboard.notification("notifications/prompts/list_changed", None);
    assert_eq!(
        uris(&mut switchboard),
        // Listed in path order (from the file index, files added since
        // included); the configuration is never served.
        ["file:///src/after.rs", "file:///src/lib.rs"]
    );
    let prompts = switchboard.result("prompts/list", json!({}));
    assert_eq!(prompts["prompts"].as_array().unwrap().len(), 3);
    switchboard.finish();
}

fn prompt_names(switchboard: &mut Switchboard) -> Vec<String> {
    let listed = switchboard.result("prompts/list", json!({}));
    listed["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn prompt_files_are_served_and_reload_when_edited() {
    let dir = project();
    let prompts = dir.path().join("prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    write(
        &prompts.join("release-notes.md"),
        "---\ndescription: Drafts release notes.\narguments:\n  - name: version\n    required: true\n---\nDraft the notes for {{ version }}.\n",
    );
    // A file named like a built-in prompt replaces it.
    write(
        &prompts.join("code_review.md"),
        "---\narguments:\n  - name: code\n    required: true\n---\nHouse review rules apply.\n{{ code }}\n",
    );
    let mut switchboard = Switchboard::start(&["serve"], dir.path());
    assert_eq!(
        prompt_names(&mut switchboard),
        ["code_review", "release-notes", "explain_code", "write_tests"]
    );
    let got =
        switchboard.result("prompts/get", json!({"name": "release-notes", "arguments": {"version": "1.2"}}));
    assert_eq!(got["messages"][0]["content"]["text"], "Draft the notes for 1.2.");
    let got = switchboard.result("prompts/get", json!({"name": "code_review", "arguments": {"code": "x"}}));
    assert_eq!(got["messages"][0]["content"]["text"], "House review rules apply.\nx");

    // Editing a prompt file applies live.
    write(
        &prompts.join("release-notes.md"),
        "---\narguments:\n  - name: version\n    required: true\n---\nWrite the notes for {{ version }}.\n",
    );
    switchboard.notification("notifications/prompts/list_changed", None);
    let got =
        switchboard.result("prompts/get", json!({"name": "release-notes", "arguments": {"version": "2"}}));
    assert_eq!(got["messages"][0]["content"]["text"], "Write the notes for 2.");

    // A broken edit is reported with the file's line; the last good prompt stays.
    write(&prompts.join("release-notes.md"), "---\narguments:\n  - name: version\n---\nok\n{% if %}\n");
    let stderr = switchboard.wait_stderr("release-notes.md:6:");
    assert!(stderr.contains("the last good version of prompt \"release-notes\" stays in force"), "{stderr}");
    let got =
        switchboard.result("prompts/get", json!({"name": "release-notes", "arguments": {"version": "3"}}));
    assert_eq!(got["messages"][0]["content"]["text"], "Write the notes for 3.");

    // Fixing it applies the fix and a new file together.
    write(&prompts.join("a-new-one.md"), "---\n---\nSay hi.\n");
    write(
        &prompts.join("release-notes.md"),
        "---\narguments:\n  - name: version\n    required: true\n---\nNotes for {{ version }}.\n",
    );
    let deadline = std::time::Instant::now() + common::WAIT;
    while !prompt_names(&mut switchboard).contains(&"a-new-one".to_owned()) {
        assert!(std::time::Instant::now() < deadline, "a-new-one never appeared");
        std::thread::sleep(Duration::from_millis(50));
    }
    let got =
        switchboard.result("prompts/get", json!({"name": "release-notes", "arguments": {"version": "4"}}));
    assert_eq!(got["messages"][0]["content"]["text"], "Notes for 4.");
    switchboard.finish();
}

#[test]
fn check_reports_every_problem_with_file_line_and_column() {
    let dir = project();
    let (ok, stdout, _) = run(&["check"], dir.path());
    assert!(ok);
    assert!(stdout.contains("embedded default configuration: ok"), "{stdout}");

    write(&dir.path().join("switchboard.toml"), "[server]\nname = \"x\"\n[files]\nmax_file_sise = 3\n");
    let (ok, _, stderr) = run(&["check"], dir.path());
    assert!(!ok);
    assert!(stderr.contains("switchboard.toml:4:1: unknown key `max_file_sise` in [files]"), "{stderr}");

    write(&dir.path().join("switchboard.toml"), "[[files.roots]]\npath = \"nowhere\"\n");
    let (ok, _, stderr) = run(&["check"], dir.path());
    assert!(!ok);
    assert!(stderr.contains("nowhere"), "{stderr}");

    // serve refuses to start on a bad configuration, naming the problem.
    let (ok, _, stderr) = run(&["serve"], dir.path());
    assert!(!ok);
    assert!(stderr.contains("nowhere") && stderr.contains("switchboard check"), "{stderr}");
}

#[test]
fn list_prints_what_would_be_served() {
    let dir = project();
    let (ok, stdout, _) = run(&["list"], dir.path());
    assert!(ok);
    assert!(stdout.contains("file:///src/lib.rs") && stdout.contains("code_review"), "{stdout}");
    let (ok, stdout, _) = run(&["list", "--json"], dir.path());
    assert!(ok);
    let listing: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(listing["resources"].as_array().unwrap().len(), 2);
    assert_eq!(listing["resourceTemplates"][0]["uriTemplate"], "file:///{+path}");
    // --config elsewhere: the folder served is the configuration's folder.
    let other = tempfile::tempdir().unwrap();
    write(&other.path().join("only.txt"), "x");
    write(&other.path().join("c.toml"), "[prompts]\nbuiltin = false\n");
    let config = other.path().join("c.toml");
    let (ok, stdout, _) = run(&["list", "--json", "--config", config.to_str().unwrap()], dir.path());
    assert!(ok);
    let listing: Value = serde_json::from_str(&stdout).unwrap();
    let uris: Vec<&str> =
        listing["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["file:///only.txt"], "the configuration in use is never served");
    assert_eq!(listing["prompts"], json!([]));
}

/// The HTTP transport in front of the same project.
#[tokio::test]
async fn serves_the_project_over_http() {
    let dir = project();
    // A real repository, a prompt file and a command tool, as over stdio.
    std::fs::create_dir_all(dir.path().join("prompts")).unwrap();
    write(&dir.path().join("prompts/hello.md"), "---\narguments:\n  - name: who\n---\nHello {{ who }}!\n");
    write(
        &dir.path().join("switchboard.toml"),
        "[[tools.command]]\nname = \"count\"\ncommand = [\"wc\", \"-c\", \"README.md\"]\n",
    );
    let repo = git2::Repository::init(dir.path()).unwrap();
    git_commit(&repo, "Over HTTP");
    let (mut child, url) = serve_http(dir.path(), &[]).await;
    let client = reqwest::Client::new();
    let post = |body: Value, session: Option<String>| {
        let mut r = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(s) = session {
            r = r.header("mcp-session-id", s);
        }
        r.body(body.to_string()).send()
    };
    let init = post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}}),
        None,
    )
    .await
    .unwrap();
    assert_eq!(init.status(), 200);
    let session = init.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let name = dir.path().canonicalize().unwrap().file_name().unwrap().to_str().unwrap().to_owned();
    let init: Value = init.json().await.unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], name);
    let r = post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), Some(session.clone()))
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let read: Value = post(
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "file:///README.md"}}),
        Some(session.clone()),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(read["result"]["contents"][0]["text"], "# Demo project\n");
    let listed: Value =
        post(json!({"jsonrpc": "2.0", "id": 3, "method": "resources/list"}), Some(session.clone()))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert!(listed["result"]["resources"].as_array().unwrap().len() >= 4, "{listed}");
    let found: Value = post(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "search", "arguments": {"pattern": "Demo"}}}),
        Some(session.clone()),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert!(found["result"]["content"][0]["text"].as_str().unwrap().contains("README.md:1:"), "{found}");
    let rpc = |id: u64, method: &str, params: Value| {
        post(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}), Some(session.clone()))
    };
    let log: Value =
        rpc(5, "resources/read", json!({"uri": "git://log"})).await.unwrap().json().await.unwrap();
    assert!(log["result"]["contents"][0]["text"].as_str().unwrap().contains("Over HTTP"), "{log}");
    let prompt: Value = rpc(6, "prompts/get", json!({"name": "hello", "arguments": {"who": "web"}}))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(prompt["result"]["messages"][0]["content"]["text"], "Hello web!", "{prompt}");
    let counted: Value =
        rpc(7, "tools/call", json!({"name": "count", "arguments": {}})).await.unwrap().json().await.unwrap();
    assert_eq!(counted["result"]["structuredContent"]["stdout"], "15 README.md\n", "{counted}");
    child.kill().await.unwrap();
}

/// Commits everything in the work tree on HEAD.
fn git_commit(repo: &git2::Repository, message: &str) {
    let mut index = repo.index().unwrap();
    index.add_all(["*"], git2::IndexAddOption::DEFAULT, None).unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("Test", "test@example.com").unwrap();
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents).unwrap();
}

#[test]
fn serves_git_history_and_announces_new_commits() {
    let dir = project();
    let repo = git2::Repository::init(dir.path()).unwrap();
    git_commit(&repo, "First commit");
    let mut switchboard = Switchboard::start(&["serve"], dir.path());
    // .git is never a file resource; git:// resources are there instead.
    let listed = uris(&mut switchboard);
    assert!(listed.contains(&"git://log".to_owned()), "{listed:?}");
    assert!(!listed.iter().any(|u| u.contains(".git/")));
    let log = switchboard.result("resources/read", json!({"uri": "git://log"}));
    assert!(log["contents"][0]["text"].as_str().unwrap().contains("First commit"));
    let file = switchboard.result("resources/read", json!({"uri": "git://file/HEAD/src/lib.rs"}));
    assert_eq!(file["contents"][0]["text"], "pub fn answer() -> u32 { 42 }\n");

    switchboard.result("resources/subscribe", json!({"uri": "git://log"}));
    write(&dir.path().join("src/lib.rs"), "pub fn answer() -> u32 { 7 }\n");
    git_commit(&repo, "Second commit");
    switchboard.notification("notifications/resources/updated", Some("git://log"));
    let log = switchboard.result("resources/read", json!({"uri": "git://log"}));
    let text = log["contents"][0]["text"].as_str().unwrap().to_owned();
    assert!(text.lines().next().unwrap().ends_with("Second commit"), "{text}");
    let diff = switchboard.result("resources/read", json!({"uri": "git://diff/HEAD"}));
    assert!(diff["contents"][0]["text"].as_str().unwrap().contains("+pub fn answer() -> u32 { 7 }"));
    switchboard.finish();

    // [git] enabled = false: no history.
    write(&dir.path().join("switchboard.toml"), "[git]\nenabled = false\n");
    let mut switchboard = Switchboard::start(&["serve"], dir.path());
    assert!(!uris(&mut switchboard).iter().any(|u| u.starts_with("git://")));
    switchboard.finish();
}

const TOOLS_CONFIG: &str = r#"
[server]
name = "tools-demo"

[tools.builtin]
write = true

[[tools.command]]
name = "greet"
description = "Greets someone with echo."
command = ["echo", "hello", "{name}"]
read_only = true
[tools.command.input_schema]
type = "object"
properties.name = { type = "string" }
required = ["name"]

[[tools.command]]
name = "fail"
command = ["sh", "-c", "echo oops >&2; exit 3"]

[[tools.command]]
name = "hang"
command = ["sleep", "30"]
timeout = "1s"
"#;

#[test]
fn command_and_file_tools_from_the_configuration() {
    let dir = project();
    write(&dir.path().join("switchboard.toml"), TOOLS_CONFIG);
    let mut switchboard = Switchboard::start(&["serve"], dir.path());
    let listed = switchboard.result("tools/list", json!({}));
    let names: Vec<&str> =
        listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "search",
            "read_file",
            "list_directory",
            "find_files",
            "file_info",
            "write_file",
            "edit_file",
            "create_directory",
            "move_file",
            "greet",
            "fail",
            "hang"
        ]
    );

    let call = |switchboard: &mut Switchboard, name: &str, args: Value| {
        switchboard.result("tools/call", json!({"name": name, "arguments": args}))
    };
    let out = call(&mut switchboard, "greet", json!({"name": "Ada"}));
    assert_eq!(out["structuredContent"]["stdout"], "hello Ada\n", "{out}");
    assert!(out.get("isError").is_none_or(|e| e == false), "{out}");
    // Option injection through an argument is refused, the server keeps serving.
    let out = call(&mut switchboard, "greet", json!({"name": "--version"}));
    assert_eq!(out["isError"], true, "{out}");
    // Schema validation happens before anything runs.
    let out = call(&mut switchboard, "greet", json!({"name": 5}));
    assert_eq!(out["isError"], true, "{out}");
    let out = call(&mut switchboard, "fail", json!({}));
    assert_eq!(out["isError"], true);
    assert_eq!(out["structuredContent"]["exitCode"], 3);
    assert_eq!(out["structuredContent"]["stderr"], "oops\n");
    let out = call(&mut switchboard, "hang", json!({}));
    assert_eq!(out["isError"], true);
    assert_eq!(out["structuredContent"]["timedOut"], true, "{out}");

    // The file tools, inside the folder only.
    let out = call(&mut switchboard, "search", json!({"pattern": "answer"}));
    assert!(out["content"][0]["text"].as_str().unwrap().contains("src/lib.rs:1:"), "{out}");
    let out = call(&mut switchboard, "write_file", json!({"path": "notes/todo.md", "content": "- ship\n"}));
    assert!(out.get("isError").is_none_or(|e| e == false), "{out}");
    assert_eq!(std::fs::read_to_string(dir.path().join("notes/todo.md")).unwrap(), "- ship\n");
    let out = call(&mut switchboard, "write_file", json!({"path": "../escape.md", "content": "x"}));
    assert_eq!(out["isError"], true);
    assert!(!dir.path().parent().unwrap().join("escape.md").exists());
    // The new file also became a resource.
    switchboard.notification("notifications/resources/list_changed", None);
    switchboard.finish();
}

#[test]
fn call_runs_one_tool_for_scripts() {
    let dir = project();
    write(&dir.path().join("switchboard.toml"), TOOLS_CONFIG);
    let (ok, stdout, _) = run(&["call", "greet", "--args", r#"{"name": "Grace"}"#, "--json"], dir.path());
    assert!(ok);
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["structuredContent"]["stdout"], "hello Grace\n");
    let (ok, stdout, stderr) = run(&["call", "fail", "--json"], dir.path());
    assert!(!ok, "an error result exits non-zero");
    assert!(
        stdout.contains("\"exitCode\": 3") && stderr.contains("the tool reported an error"),
        "{stdout}{stderr}"
    );
    let (ok, _, stderr) = run(&["call", "nope"], dir.path());
    assert!(!ok);
    assert!(stderr.contains("no tool named \"nope\"") && stderr.contains("greet"), "{stderr}");
    let (ok, _, stderr) = run(&["call", "greet", "--args", "{not json"], dir.path());
    assert!(!ok);
    assert!(stderr.contains("--args is not valid JSON"), "{stderr}");
}

#[test]
fn bad_tool_definitions_are_placed_on_their_table() {
    let dir = project();
    write(
        &dir.path().join("switchboard.toml"),
        "[server]\nname = \"x\"\n\n[[tools.command]]\nname = \"bad\"\ncommand = [\"echo\", \"{missing}\"]\n\n[[tools.command]]\nname = \"search\"\ncommand = [\"true\"]\n\n[[tools.http]]\nname = \"h\"\nurl = \"http://127.0.0.1/{\"\n",
    );
    let (ok, _, stderr) = run(&["check"], dir.path());
    assert!(!ok);
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines.iter().any(|l| l.starts_with("switchboard.toml:6:20:") && l.contains("missing")),
        "{stderr}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("switchboard.toml:9:8:") && l.contains("already taken")),
        "{stderr}"
    );
    assert!(lines.iter().any(|l| l.starts_with("switchboard.toml:14:7:") && l.contains("\"h\"")), "{stderr}");
    assert!(stderr.contains("3 problems"), "{stderr}");
}

#[test]
fn the_example_configuration_is_valid_for_this_repository() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    let (ok, stdout, stderr) = run(&["check", "--config", "examples/switchboard.toml", "."], &repo);
    assert!(ok, "{stderr}");
    // 7 declared and built-in tools, and the 6 read-only git tools of this repository.
    assert!(stdout.starts_with("examples/switchboard.toml: ok — 13 tools, 5 prompts"), "{stdout}");
}

/// Starts `switchboard serve --http 127.0.0.1:0` in `dir` with `env`, returns the child and its URL.
async fn serve_http(dir: &Path, env: &[(&str, &str)]) -> (tokio::process::Child, String) {
    common::start_http(&["serve", "--http", "127.0.0.1:0", "--sse", "never"], Some(dir), env).await
}

const AUTH_CONFIG: &str = r#"
[http.auth]
resource = "http://127.0.0.1/mcp"
authorization_servers = ["https://auth.example.com"]
required_scopes = ["mcp"]

[[http.auth.tokens]]
env = "SWITCHBOARD_TEST_READER"
subject = "reader"
scopes = ["mcp"]

[[http.auth.tokens]]
env = "SWITCHBOARD_TEST_RUNNER"
subject = "runner"
scopes = ["mcp", "tools:run"]

[[tools.command]]
name = "greet"
command = ["echo", "hi"]
scopes = ["tools:run"]
"#;

#[tokio::test]
async fn http_authorization_from_the_configuration() {
    let dir = project();
    write(&dir.path().join("switchboard.toml"), AUTH_CONFIG);
    let env = [("SWITCHBOARD_TEST_READER", "reader-secret"), ("SWITCHBOARD_TEST_RUNNER", "runner-secret")];
    let (mut child, url) = serve_http(dir.path(), &env).await;
    let client = reqwest::Client::new();
    let base = url.trim_end_matches("/mcp").to_owned();
    let metadata: Value = client
        .get(format!("{base}/.well-known/oauth-protected-resource/mcp"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["resource"], "http://127.0.0.1/mcp");
    assert_eq!(metadata["authorization_servers"], json!(["https://auth.example.com"]));
    let call = |token: Option<&'static str>, body: Value| {
        let mut r = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(t) = token {
            r = r.header("authorization", format!("Bearer {t}"));
        }
        r.body(body.to_string()).send()
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}});
    let r = call(None, init.clone()).await.unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.headers()["www-authenticate"].to_str().unwrap().contains("resource_metadata="));
    let r = call(Some("reader-secret"), init.clone()).await.unwrap();
    assert_eq!(r.status(), 200);
    let session = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let with_session = |token: &'static str, body: Value| {
        client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .header("mcp-session-id", session.clone())
            .header("authorization", format!("Bearer {token}"))
            .body(body.to_string())
            .send()
    };
    with_session("reader-secret", json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await
        .unwrap();
    let listed: Value =
        with_session("reader-secret", json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["search", "read_file", "list_directory", "find_files", "file_info"],
        "the reader does not see greet"
    );
    let r = with_session(
        "reader-secret",
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "greet", "arguments": {}}}),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.headers()["www-authenticate"].to_str().unwrap().contains("scope=\"tools:run\""));
    child.kill().await.unwrap();

    // check: a token variable that is not set is a problem, not a silent hole.
    let (ok, _, stderr) = run(&["check"], dir.path());
    assert!(!ok);
    assert!(stderr.contains("$SWITCHBOARD_TEST_READER, which is not set"), "{stderr}");
}
