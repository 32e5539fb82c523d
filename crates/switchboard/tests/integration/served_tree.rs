//! The served folder as an attacker sees it: the real `switchboard` binary over a
//! git folder with secrets kept out of git, reached through every path a
//! client or model has (each built-in tool, each resource method, the
//! templates and their completion, subscriptions, git history, command-tool
//! path arguments), in zero-config and with `write = true`, over stdio and
//! over HTTP with authorization. Every secret contains `supersecret`; no
//! answer may contain a byte of one, and no refused write may change disk.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::Switchboard;
use serde_json::{Value, json};

/// Every secret's marker.
const SECRET: &str = "supersecret";
/// A search pattern that finds the marker without containing it (a "no
/// matches" answer repeats its pattern).
const SECRET_PATTERN: &str = "super[s]ecret";

/// A git repository with a committed `.env` (then ignored), ignored files,
/// a nested ignore file, symlinks in and out, and a secret outside.
struct Project {
    base: tempfile::TempDir,
    dir: PathBuf,
}

fn project(config: Option<&str>) -> Project {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("project");
    std::fs::create_dir_all(&dir).unwrap();
    let repo = git2::Repository::init(&dir).unwrap();
    put(&dir, ".env", "API_KEY=supersecret-env\n");
    put(&dir, "config/.secrets.toml", "token = \"supersecret-dotfile\"\n");
    put(&dir, "src/main.rs", "fn main() { println!(\"hello\"); }\n");
    // Committed while still served: the history has them.
    commit(&repo, &[".env", "config/.secrets.toml", "src/main.rs"]);
    put(&dir, ".gitignore", "ignored.log\n*.key\n/build/\n");
    put(&dir, "ignored.log", "supersecret-log\n");
    put(&dir, "private.key", "supersecret-key\n");
    put(&dir, "build/out.txt", "supersecret-build\n");
    put(&dir, "src/nested/.gitignore", "local.txt\n");
    put(&dir, "src/nested/local.txt", "supersecret-nested\n");
    put(&dir, "src/nested/kept.txt", "kept\n");
    put(&dir, "README.md", "# Demo\n");
    let mut git_config = std::fs::read_to_string(dir.join(".git/config")).unwrap();
    git_config.push_str("# supersecret-git-config\n");
    put(&dir, ".git/config", &git_config);
    std::fs::write(base.path().join("outside.txt"), "supersecret-outside\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink(base.path().join("outside.txt"), dir.join("out-link.txt")).unwrap();
        symlink(dir.join(".env"), dir.join("env-link.txt")).unwrap();
        symlink(dir.join("ignored.log"), dir.join("log-link.txt")).unwrap();
        symlink(base.path(), dir.join("up")).unwrap();
    }
    if let Some(config) = config {
        put(&dir, "switchboard.toml", config);
    }
    Project { base, dir }
}

fn put(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn commit(repo: &git2::Repository, paths: &[&str]) {
    let mut index = repo.index().unwrap();
    for path in paths {
        index.add_path(Path::new(path)).unwrap();
    }
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let who = git2::Signature::now("Test", "test@example.com").unwrap();
    repo.commit(Some("HEAD"), &who, &who, "first", &tree, &[]).unwrap();
}

/// Paths a model might try, each naming something that is not served.
const HOSTILE_PATHS: &[&str] = &[
    ".env",
    "./.env",
    "src/../.env",
    "src/./../.env",
    "/.env",
    "%2e%2e/outside.txt",
    "../outside.txt",
    "..",
    ".ENV",
    ".Env",
    "IGNORED.log",
    ".git/config",
    ".git",
    ".gitignore",
    "config/.secrets.toml",
    "ignored.log",
    "private.key",
    "build/out.txt",
    "build",
    "src/nested/local.txt",
    "out-link.txt",
    "env-link.txt",
    "log-link.txt",
    "up/outside.txt",
    "up/project/.env",
];

/// Globs a search might use to widen what it sees.
const HOSTILE_GLOBS: &[&str] = &[
    "*", "**", "**/*", ".env", "**/.env", "../*", "*.log", "**/*.key", "build/**", ".git/**", "*link*",
    "!*.rs",
];

/// A tool call's result, waiting out the rate limit as a client would
/// (zero-config keeps switchboard's default of 60 calls in a burst).
fn call(switchboard: &mut Switchboard, name: &str, arguments: Value) -> Value {
    for _ in 0..100 {
        let r = switchboard.request("tools/call", json!({"name": name, "arguments": arguments}));
        if r["error"]["code"] == -32029 {
            let wait = r["error"]["data"]["retryAfterMs"].as_u64().unwrap_or(100);
            std::thread::sleep(Duration::from_millis(wait + 5));
            continue;
        }
        return r.get("result").cloned().unwrap_or_else(|| panic!("tools/call {name} failed: {r}"));
    }
    panic!("tools/call {name} stayed rate-limited");
}

/// Asserts that no part of `answer` carries a secret.
fn no_secret(what: &str, answer: &Value) {
    assert!(!answer.to_string().contains(SECRET), "{what} leaked a secret: {answer}");
}

/// A `file:///` URI of a raw path, percent-encoding nothing but what a
/// client would (spaces stay out of these paths).
fn file_uri(path: &str) -> String {
    format!("file:///{}", path.trim_start_matches('/'))
}

/// Every read path of the model and the client, for every hostile path.
fn probe_reads(switchboard: &mut Switchboard) {
    for path in HOSTILE_PATHS {
        let r = call(switchboard, "read_file", json!({"path": path}));
        assert_eq!(r["isError"], true, "read_file {path}: {r}");
        no_secret(&format!("read_file {path}"), &r);

        let r = call(switchboard, "search", json!({"pattern": SECRET_PATTERN, "path": path}));
        no_secret(&format!("search in {path}"), &r);

        for uri in [file_uri(path), file_uri(&path.replace('.', "%2E")), file_uri(&path.replace('/', "%2F"))]
        {
            let r = switchboard.request("resources/read", json!({"uri": uri}));
            assert!(r.get("error").is_some(), "resources/read {uri}: {r}");
            no_secret(&format!("resources/read {uri}"), &r);
        }
        let r = switchboard.request("resources/read", json!({"uri": format!("git://file/HEAD/{path}")}));
        no_secret(&format!("git://file/HEAD/{path}"), &r);
        let r = switchboard.request("resources/read", json!({"uri": format!("git://log/{path}")}));
        no_secret(&format!("git://log/{path}"), &r);
    }
    for glob in HOSTILE_GLOBS {
        let r = call(switchboard, "search", json!({"pattern": SECRET_PATTERN, "glob": glob}));
        no_secret(&format!("search glob {glob}"), &r);
        let r = call(
            switchboard,
            "search",
            json!({"pattern": "API_KEY|token|secret", "glob": glob, "case_insensitive": true}),
        );
        no_secret(&format!("search glob {glob}"), &r);
    }
    // What is served is still found.
    let r = call(switchboard, "search", json!({"pattern": "hello", "glob": "*"}));
    assert!(r["content"][0]["text"].as_str().unwrap().contains("src/main.rs:1"), "{r}");
    let r = call(switchboard, "read_file", json!({"path": "src/nested/kept.txt"}));
    assert_eq!(r["content"][0]["text"], "kept\n", "{r}");

    // Lists, templates and completion show only what is served.
    let listed = switchboard.result("resources/list", json!({}));
    let uris: Vec<&str> =
        listed["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    let mut expected =
        vec!["file:///README.md", "file:///src/main.rs", "file:///src/nested/kept.txt", "git://log"];
    if let Some(config) = uris.iter().find(|u| u.ends_with("switchboard.toml")) {
        expected.push(config);
    }
    let mut sorted = uris.clone();
    sorted.sort_unstable();
    expected.sort_unstable();
    assert_eq!(sorted, expected, "{listed}");
    no_secret("resources/templates/list", &switchboard.result("resources/templates/list", json!({})));
    for (uri, name, context) in [
        ("file:///{+path}", "path", json!({})),
        ("git://file/{rev}/{+path}", "path", json!({"arguments": {"rev": "HEAD"}})),
        ("git://log/{+path}", "path", json!({})),
    ] {
        for prefix in ["", ".", ".e", ".g", "i", "b", "src/nested/", "config/", "c", "o", "e", "l", "u"] {
            let mut params = json!({"ref": {"type": "ref/resource", "uri": uri}, "argument": {"name": name, "value": prefix}});
            if context.get("arguments").is_some() {
                params["context"] = context.clone();
            }
            let done = switchboard.result("completion/complete", params);
            for value in done["completion"]["values"].as_array().unwrap() {
                let value = value.as_str().unwrap();
                assert!(
                    ["README.md", "src/main.rs", "src/nested/kept.txt", "switchboard.toml"].contains(&value),
                    "completion of {uri} {prefix:?} offered {value}"
                );
            }
        }
    }
    // The history: the committed .env and dotfile never show.
    for uri in ["git://diff/HEAD", "git://commit/HEAD", "git://log", "git://file/HEAD/.env"] {
        let r = switchboard.request("resources/read", json!({"uri": uri}));
        no_secret(uri, &r);
    }
    let diff = switchboard.result("resources/read", json!({"uri": "git://diff/HEAD"}));
    assert!(diff.to_string().contains("println"), "the served file's diff is shown: {diff}");
    let r = switchboard.result("resources/read", json!({"uri": "git://file/HEAD/src/main.rs"}));
    assert!(r["contents"][0]["text"].as_str().unwrap().contains("hello"), "{r}");
}

/// Subscribing to a secret's URI never yields a notification about it.
fn probe_subscriptions(switchboard: &mut Switchboard, dir: &Path) {
    for path in [".env", "ignored.log", "build/out.txt", "src/nested/local.txt"] {
        let _ = switchboard.request("resources/subscribe", json!({"uri": file_uri(path)}));
    }
    switchboard.result("resources/subscribe", json!({"uri": "file:///README.md"}));
    for path in [".env", "ignored.log", "build/out.txt", "src/nested/local.txt"] {
        put(dir, path, "supersecret-changed\n");
    }
    std::thread::sleep(Duration::from_millis(100));
    put(dir, "README.md", "# Demo, edited\n");
    let updated = switchboard.notification("notifications/resources/updated", Some("file:///README.md"));
    no_secret("resources/updated", &updated);
    // Everything that arrived meanwhile (the watcher runs once per burst):
    // nothing names a secret's URI.
    std::thread::sleep(Duration::from_millis(400));
    switchboard.result("ping", json!({}));
    for message in switchboard.received() {
        no_secret("a notification", &message);
        let uri = message["params"]["uri"].as_str().unwrap_or_default();
        assert!(
            !["file:///.env", "file:///ignored.log", "file:///build/out.txt"].contains(&uri),
            "{message}"
        );
        assert!(!uri.contains("local.txt"), "{message}");
    }
    for path in [".env", "ignored.log", "build/out.txt", "src/nested/local.txt"] {
        let uri = file_uri(path);
        let r = switchboard.request("resources/read", json!({"uri": uri}));
        no_secret(&uri, &r);
    }
}

#[test]
fn zero_config_serves_no_byte_of_an_unserved_file() {
    let p = project(None);
    let mut switchboard = Switchboard::start(&["serve", "."], &p.dir);
    let tools = switchboard.result("tools/list", json!({}));
    let names: Vec<&str> =
        tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "search",
            "read_file",
            "list_directory",
            "find_files",
            "file_info",
            "git_status",
            "git_diff",
            "git_log",
            "git_show",
            "git_blame",
            "git_branch"
        ],
        "zero-config is read-only"
    );
    probe_reads(&mut switchboard);
    probe_subscriptions(&mut switchboard, &p.dir);
    switchboard.finish();
    drop(p.base);
}

const WRITE_CONFIG: &str = r#"
[limits]
tool_calls_per_minute = 100000
tool_calls_burst = 10000

[tools.builtin]
write = true

[[tools.command]]
name = "show"
description = "Prints a file of the project."
command = ["cat", "--", "{file}"]
read_only = true
[tools.command.input_schema]
type = "object"
required = ["file"]
properties.file = { type = "string" }

[[tools.command]]
name = "touch"
description = "Touches a file (may change files: its path must be writable)."
command = ["touch", "--", "{target_path}"]
[tools.command.input_schema]
type = "object"
required = ["target_path"]
properties.target_path = { type = "string" }
"#;

/// Writes the model may try to escalate with, and what each would do.
const HOSTILE_WRITES: &[&str] = &[
    // Reconfigure the server (a new command tool that runs a shell).
    "switchboard.toml",
    "./switchboard.toml",
    "prompts/evil.md",
    ".switchboard/prompts/evil.md",
    ".switchboard/switchboard.toml",
    // Un-ignore secrets.
    ".gitignore",
    ".ignore",
    "src/nested/.gitignore",
    // Code that runs the next time the user runs git.
    ".git/config",
    ".git/hooks/pre-commit",
    ".git/info/exclude",
    // Dotfiles in general.
    ".env",
    ".envrc",
    ".vscode/tasks.json",
    "config/.secrets.toml",
    // Ignored or outside.
    "ignored.log",
    "private.key",
    "build/out.txt",
    "out-link.txt",
    "env-link.txt",
    "up/outside.txt",
    "../outside.txt",
    "/tmp/switchboard-escape.txt",
];

/// Every file under `dir` (following nothing) with its contents.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                out.push((entry.path(), std::fs::read(entry.path()).unwrap()));
            } else {
                out.push((entry.path(), Vec::new()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn with_writes_on_the_escalation_chain_is_refused_and_reads_stay_closed() {
    let p = project(Some(WRITE_CONFIG));
    let mut switchboard = Switchboard::start(&["serve", "."], &p.dir);
    probe_reads(&mut switchboard);
    let before = snapshot(p.base.path());
    let tools_before = switchboard.result("tools/list", json!({}));
    for path in HOSTILE_WRITES {
        let shell = "[[tools.command]]\nname = \"sh\"\ncommand = [\"sh\", \"-c\", \"{c}\"]\n";
        let r = call(&mut switchboard, "write_file", json!({"path": path, "content": shell}));
        assert_eq!(r["isError"], true, "write_file {path} was not refused: {r}");
        let r = call(&mut switchboard, "edit_file", json!({"path": path, "old_text": "s", "new_text": "x"}));
        assert_eq!(r["isError"], true, "edit_file {path} was not refused: {r}");
        no_secret(&format!("edit_file {path}"), &r);
        let r = call(&mut switchboard, "touch", json!({"target_path": path}));
        assert_eq!(r["isError"], true, "touch {path} was not refused: {r}");
        // A read-only tool may read the configuration (it is served, not secret),
        // never anything unserved.
        let r = call(&mut switchboard, "show", json!({"file": path}));
        if path.trim_start_matches("./") != "switchboard.toml" {
            assert_eq!(r["isError"], true, "show {path} was not refused: {r}");
        }
        no_secret(&format!("show {path}"), &r);
    }
    let r = call(&mut switchboard, "write_file", json!({"path": ".gitignore", "content": ""}));
    assert!(r["content"][0]["text"].as_str().unwrap().contains("never written"), "the refusal says why: {r}");
    let r = call(&mut switchboard, "write_file", json!({"path": "switchboard.toml", "content": ""}));
    assert!(r["content"][0]["text"].as_str().unwrap().contains("configuration"), "the refusal says why: {r}");
    // Give a reload the chance it must not get, then compare.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(snapshot(p.base.path()), before, "a refused write changed the disk");
    assert!(!Path::new("/tmp/switchboard-escape.txt").exists());
    assert_eq!(switchboard.result("tools/list", json!({})), tools_before, "the tools changed");

    // What is allowed still works: a new file, an edit, a command on a served file.
    let r =
        call(&mut switchboard, "write_file", json!({"path": "src/new/lib.rs", "content": "pub fn f() {}\n"}));
    assert_ne!(r["isError"], true, "{r}");
    let r = call(
        &mut switchboard,
        "edit_file",
        json!({"path": "README.md", "old_text": "Demo", "new_text": "Project"}),
    );
    assert_ne!(r["isError"], true, "{r}");
    let r = call(&mut switchboard, "show", json!({"file": "src/new/lib.rs"}));
    assert_eq!(r["structuredContent"]["stdout"], "pub fn f() {}\n", "{r}");
    let r = call(&mut switchboard, "read_file", json!({"path": "src/new/lib.rs"}));
    assert_eq!(r["content"][0]["text"], "pub fn f() {}\n", "{r}");
    switchboard.finish();
}

#[test]
fn hidden_true_serves_dotfiles_but_never_git_nor_writes_them() {
    let p = project(Some("[files]\nhidden = true\n\n[tools.builtin]\nwrite = true\n"));
    let mut switchboard = Switchboard::start(&["serve", "."], &p.dir);
    let r = call(&mut switchboard, "read_file", json!({"path": "config/.secrets.toml"}));
    assert!(r["content"][0]["text"].as_str().unwrap().contains("supersecret-dotfile"), "{r}");
    for path in [".git/config", ".git/HEAD", "ignored.log"] {
        let r = call(&mut switchboard, "read_file", json!({"path": path}));
        assert_eq!(r["isError"], true, "{path}: {r}");
        no_secret(path, &r);
    }
    let r = call(&mut switchboard, "search", json!({"pattern": "super[s]ecret-git", "glob": "**"}));
    no_secret("search .git with hidden = true", &r);
    let r = call(&mut switchboard, "write_file", json!({"path": ".gitignore", "content": ""}));
    assert_eq!(r["isError"], true, "{r}");
    switchboard.finish();
}

#[tokio::test]
async fn over_http_with_authorization_scopes_do_not_widen_the_policy() {
    let config = format!(
        "{WRITE_CONFIG}\n[http.auth]\nresource = \"http://127.0.0.1/mcp\"\n\
         authorization_servers = [\"https://auth.example.com\"]\n\n[[http.auth.tokens]]\n\
         env = \"SWITCHBOARD_TEST_ADMIN\"\nsubject = \"admin\"\nscopes = [\"mcp\", \"admin\", \"files:write\"]\n"
    );
    let p = project(Some(&config));
    let (mut child, url) = common::start_http(
        &["serve", "--http", "127.0.0.1:0", "."],
        Some(&p.dir),
        &[("SWITCHBOARD_TEST_ADMIN", "admin-token")],
    )
    .await;
    let client = reqwest::Client::new();
    // 2026-07-28 requests: each carries its own revision, no session.
    let call = |id: u64, name: &str, arguments: Value| {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": name, "arguments": arguments,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}});
        client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", name)
            .header("authorization", "Bearer admin-token")
            .body(body.to_string())
            .send()
    };
    let mut id = 0;
    for path in HOSTILE_PATHS {
        id += 1;
        let r = call(id, "read_file", json!({"path": path})).await.unwrap();
        assert_eq!(r.status(), 200);
        let body = r.text().await.unwrap();
        assert!(!body.contains(SECRET), "read_file {path} over HTTP: {body}");
        assert!(body.contains("\"isError\":true"), "read_file {path} over HTTP: {body}");
    }
    for path in HOSTILE_WRITES {
        id += 1;
        let r = call(id, "write_file", json!({"path": path, "content": "x"})).await.unwrap();
        let body = r.text().await.unwrap();
        assert!(body.contains("\"isError\":true"), "write_file {path} over HTTP: {body}");
    }
    for glob in HOSTILE_GLOBS {
        id += 1;
        let r = call(id, "search", json!({"pattern": SECRET_PATTERN, "glob": glob})).await.unwrap();
        let body = r.text().await.unwrap();
        assert!(!body.contains(SECRET), "search {glob} over HTTP: {body}");
    }
    id += 1;
    let r = call(id, "read_file", json!({"path": "README.md"})).await.unwrap();
    assert!(r.text().await.unwrap().contains("# Demo"), "served files are still read over HTTP");
    child.kill().await.unwrap();
}

#[test]
fn a_huge_folder_does_not_hold_up_initialize() {
    // The whole file system, named explicitly: the scan takes far longer
    // than a host waits, so serving must not wait for it.
    let started = std::time::Instant::now();
    let mut switchboard = Switchboard::start(&["serve", "/"], Path::new("/"));
    let waited = started.elapsed();
    assert!(waited < Duration::from_secs(5), "initialize took {waited:?}");
    let tools = switchboard.result("tools/list", json!({}));
    assert_eq!(tools["tools"].as_array().unwrap().len(), 5, "{tools}");
    // Reads do not wait for the index either: the policy checks one path.
    let r = call(&mut switchboard, "read_file", json!({"path": "etc/hostname"}));
    assert!(
        r["isError"] != true || r["content"][0]["text"].as_str().unwrap().contains("no served file"),
        "{r}"
    );
}
