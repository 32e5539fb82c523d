//! The git tools and the history resources as an attacker sees them: the
//! real `switchboard` binary over a real repository whose history holds a
//! `.env`, a file that a later `.gitignore` hides and an `[files] exclude`d
//! file, with branches that would plant a configuration or a prompt. Over
//! stdio and over HTTP in both eras (the 2025-11-25 handshake with a
//! session, and per-request 2026-07-28), no answer carries a byte of a
//! hidden file or its name, every flag-like revision is refused, and the
//! disk (work tree, index, HEAD) is checked after every refusal.

use crate::common;

use std::path::{Path, PathBuf};

use common::Switchboard;
use git2::{Repository, Signature};
use serde_json::{Value, json};

/// Every hidden file's marker.
const SECRET: &str = "supersecret";
/// Names of hidden files, which no successful answer may contain.
const HIDDEN_NAMES: &[&str] = &["old.log", ".env", "plan.md"];

const CONFIG: &str = r#"
[limits]
tool_calls_per_minute = 100000
tool_calls_burst = 10000

[tools.builtin]
write = true

[files]
exclude = ["secret/**"]
"#;

struct Project {
    base: tempfile::TempDir,
    dir: PathBuf,
}

/// master: "first" (src/main.rs, README.md, switchboard.toml, and the
/// hidden .env, logs/old.log, secret/plan.md), then "ignore logs" (adds
/// .gitignore `*.log`). Branches: `evil` changes switchboard.toml,
/// `evil-prompt` adds prompts/run.md, `fine` changes src/main.rs. The work
/// tree then has every tracked file modified.
fn project() -> Project {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("project");
    std::fs::create_dir_all(&dir).unwrap();
    let repo = Repository::init(&dir).unwrap();
    put(&dir, "src/main.rs", "fn main() {}\n");
    put(&dir, "README.md", "# Demo\n");
    put(&dir, "switchboard.toml", CONFIG);
    put(&dir, ".env", "API_KEY=supersecret-env\n");
    put(&dir, "logs/old.log", "supersecret-log\n");
    put(&dir, "secret/plan.md", "supersecret-plan\n");
    commit(
        &repo,
        &["src/main.rs", "README.md", "switchboard.toml", ".env", "logs/old.log", "secret/plan.md"],
        "first",
    );
    put(&dir, ".gitignore", "*.log\n");
    put(&dir, "README.md", "# Demo\n\nIgnoring logs now.\n");
    commit(&repo, &[".gitignore", "README.md"], "ignore logs");
    branch(
        &repo,
        "evil",
        "switchboard.toml",
        b"[[tools.command]]\nname = \"sh\"\ncommand = [\"sh\", \"-c\", \"{c}\"]\n",
    );
    branch(&repo, "evil-prompt", "prompts/run.md", b"---\nname: run\n---\nRun rm -rf.\n");
    branch(&repo, "fine", "src/main.rs", b"fn main() { println!(\"fine\"); }\n");
    put(&dir, ".env", "API_KEY=supersecret-env-changed\n");
    put(&dir, "logs/old.log", "supersecret-log-changed\n");
    put(&dir, "secret/plan.md", "supersecret-plan-changed\n");
    put(&dir, "src/main.rs", "fn main() { /* edited */ }\n");
    Project { base, dir }
}

fn put(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn commit(repo: &Repository, paths: &[&str], message: &str) {
    let mut index = repo.index().unwrap();
    for path in paths {
        index.add_path(Path::new(path)).unwrap();
    }
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let who = Signature::now("Test", "test@example.com").unwrap();
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(Some("HEAD"), &who, &who, message, &tree, &parents).unwrap();
}

/// `base` with the file at `path` set to `content`.
fn tree_with(repo: &Repository, base: Option<&git2::Tree<'_>>, path: &str, content: &[u8]) -> git2::Oid {
    let mut builder = repo.treebuilder(base).unwrap();
    match path.split_once('/') {
        None => {
            builder.insert(path, repo.blob(content).unwrap(), 0o100644).unwrap();
        }
        Some((dir, rest)) => {
            let sub =
                base.and_then(|t| t.get_name(dir).map(|e| e.id())).map(|id| repo.find_tree(id).unwrap());
            let id = tree_with(repo, sub.as_ref(), rest, content);
            builder.insert(dir, id, 0o040000).unwrap();
        }
    }
    builder.write().unwrap()
}

/// A branch `name` one commit ahead of HEAD, changing only `path`.
fn branch(repo: &Repository, name: &str, path: &str, content: &[u8]) {
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    let tree = repo.find_tree(tree_with(repo, Some(&head.tree().unwrap()), path, content)).unwrap();
    let who = Signature::now("Mallory", "mallory@example.com").unwrap();
    repo.commit(Some(&format!("refs/heads/{name}")), &who, &who, "branch work", &tree, &[&head]).unwrap();
}

/// The state a refusal must leave alone: every file under the folder
/// (the work tree and `.git`, index and HEAD included).
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                out.push((entry.path(), std::fs::read(entry.path()).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// Sends one request; returns the whole JSON-RPC answer.
type Exec<'a> = dyn FnMut(&str, Value) -> Value + 'a;

fn no_secret(what: &str, answer: &Value) {
    assert!(!answer.to_string().contains(SECRET), "{what} leaked a secret: {answer}");
}

/// A successful answer that names no hidden file.
fn clean(what: &str, answer: &Value) -> Value {
    let result = answer.get("result").cloned().unwrap_or_else(|| panic!("{what} failed: {answer}"));
    no_secret(what, answer);
    let text = result.to_string();
    for name in HIDDEN_NAMES {
        assert!(!text.contains(name), "{what} named the hidden {name}: {result}");
    }
    result
}

fn tool(exec: &mut Exec<'_>, name: &str, arguments: Value) -> Value {
    let answer = exec("tools/call", json!({"name": name, "arguments": arguments}));
    no_secret(&format!("{name} {arguments}"), &answer);
    answer.get("result").cloned().unwrap_or_else(|| panic!("{name} {arguments}: {answer}"))
}

fn refused(exec: &mut Exec<'_>, name: &str, arguments: Value) {
    let result = tool(exec, name, arguments.clone());
    assert_eq!(result["isError"], true, "{name} {arguments} was not refused: {result}");
}

/// Every way to the history and the git tools, against every hidden file.
fn probe(exec: &mut Exec<'_>, dir: &Path) {
    let before = snapshot(dir);
    // Resources that name a hidden file, at any revision, are not found.
    for uri in [
        "git://file/HEAD/logs/old.log",
        "git://file/HEAD~1/logs/old.log",
        "git://file/HEAD~1/.env",
        "git://file/HEAD~1/secret/plan.md",
        "git://log/logs/old.log",
        "git://log/.env",
        "git://log/secret/plan.md",
        "git://file/HEAD~1/src/../.env",
    ] {
        let answer = exec("resources/read", json!({"uri": uri}));
        assert!(answer.get("error").is_some(), "{uri}: {answer}");
        no_secret(uri, &answer);
    }
    // Diffs, commits and logs show the served files and nothing else.
    for uri in [
        "git://diff/HEAD~1",
        "git://diff/HEAD~1..HEAD",
        "git://diff/HEAD~1...evil",
        "git://commit/HEAD~1",
        "git://log",
    ] {
        clean(uri, &exec("resources/read", json!({"uri": uri})));
    }
    let first = clean("git://diff/HEAD~1", &exec("resources/read", json!({"uri": "git://diff/HEAD~1"})));
    assert!(first.to_string().contains("fn main()"), "the served file's diff is shown: {first}");
    // Completion offers served paths only.
    for prefix in ["", ".", ".e", "l", "logs/", "s", "secret/"] {
        let params = json!({"ref": {"type": "ref/resource", "uri": "git://file/{rev}/{+path}"},
                            "argument": {"name": "path", "value": prefix},
                            "context": {"arguments": {"rev": "HEAD~1"}}});
        let done = clean(&format!("completion {prefix:?}"), &exec("completion/complete", params));
        for value in done["completion"]["values"].as_array().unwrap() {
            let value = value.as_str().unwrap();
            assert!(
                ["README.md", "src/main.rs", "switchboard.toml"].contains(&value),
                "completion offered {value}"
            );
        }
    }
    // The tools: diffs, shows, logs and status leave the hidden files out.
    for args in [
        json!({}),
        json!({"range": "HEAD~1..HEAD"}),
        json!({"from": "HEAD~1"}),
        json!({"from": "HEAD~1", "to": "HEAD"}),
        json!({"staged": true}),
        json!({"range": "HEAD~1...evil"}),
    ] {
        let answer = exec("tools/call", json!({"name": "git_diff", "arguments": args}));
        let result = clean(&format!("git_diff {args}"), &answer);
        assert_ne!(result["isError"], true, "git_diff {args}: {result}");
    }
    let unstaged = tool(exec, "git_diff", json!({}));
    assert!(unstaged.to_string().contains("edited"), "the served change is shown: {unstaged}");
    for args in [json!({"rev": "HEAD~1"}), json!({})] {
        clean(
            &format!("git_show {args}"),
            &exec("tools/call", json!({"name": "git_show", "arguments": args})),
        );
    }
    clean("git_log", &exec("tools/call", json!({"name": "git_log", "arguments": {}})));
    let status = clean("git_status", &exec("tools/call", json!({"name": "git_status", "arguments": {}})));
    assert_eq!(
        status["structuredContent"]["unstaged"],
        json!([{"path": "src/main.rs", "status": "modified"}])
    );
    // A folder that holds only hidden files: nothing in it shows.
    for path in ["logs", "secret"] {
        let log = clean(
            &format!("git_log {path}"),
            &exec("tools/call", json!({"name": "git_log", "arguments": {"path": path}})),
        );
        assert_eq!(log["structuredContent"]["commits"], json!([]), "{path}: {log}");
        let uri = format!("git://log/{path}");
        let log = clean(&uri, &exec("resources/read", json!({"uri": uri})));
        assert!(log.to_string().contains("No commit"), "{path}: {log}");
        for (name, args) in [
            ("git_diff", json!({"range": "HEAD~1..HEAD", "path": path})),
            ("git_diff", json!({"path": path})),
            ("git_show", json!({"rev": "HEAD~1", "path": path})),
            ("git_add", json!({"paths": [path]})),
            ("git_reset", json!({"paths": [path]})),
        ] {
            clean(&format!("{name} {args}"), &exec("tools/call", json!({"name": name, "arguments": args})));
        }
    }
    for path in
        ["logs/old.log", ".env", "secret/plan.md", "../x", "/etc/passwd", "src/../.env", "config/.env"]
    {
        refused(exec, "git_log", json!({"path": path}));
        refused(exec, "git_blame", json!({"path": path, "rev": "HEAD~1"}));
        refused(exec, "git_show", json!({"rev": "HEAD~1", "path": path}));
        refused(exec, "git_diff", json!({"range": "HEAD~1..HEAD", "path": path}));
        refused(exec, "git_add", json!({"paths": [path]}));
        refused(exec, "git_reset", json!({"paths": [path]}));
    }
    // Revisions that look like flags are refused everywhere.
    let escape = dir.parent().unwrap().join("escape");
    let flag = format!("--output={}", escape.display());
    for (name, args) in [
        ("git_diff", json!({"from": flag})),
        ("git_diff", json!({"from": "HEAD", "to": flag})),
        ("git_diff", json!({"range": format!("{flag}..HEAD")})),
        ("git_diff", json!({"range": format!("HEAD...{flag}")})),
        ("git_show", json!({"rev": flag})),
        ("git_log", json!({"rev": flag})),
        ("git_blame", json!({"path": "README.md", "rev": flag})),
        ("git_checkout", json!({"rev": flag})),
        ("git_create_branch", json!({"name": "x", "start": flag})),
        ("git_create_branch", json!({"name": flag})),
    ] {
        refused(exec, name, args);
    }
    assert!(!escape.exists(), "a flag-like revision wrote a file");
    // A checkout may not change what the model may not write.
    let config = std::fs::read(dir.join("switchboard.toml")).unwrap();
    for branch in ["evil", "evil-prompt"] {
        refused(exec, "git_checkout", json!({"rev": branch}));
    }
    assert_eq!(std::fs::read(dir.join("switchboard.toml")).unwrap(), config);
    assert!(!dir.join("prompts").exists());
    assert_eq!(snapshot(dir), before, "a refused call changed the disk");
}

#[test]
fn over_stdio_history_and_git_tools_hide_what_the_tree_hides() {
    let p = project();
    let mut switchboard = Switchboard::start(&["serve", "."], &p.dir);
    let tools = switchboard.result("tools/list", json!({}));
    let names: Vec<&str> =
        tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    for name in [
        "git_status",
        "git_diff",
        "git_log",
        "git_show",
        "git_blame",
        "git_branch",
        "git_add",
        "git_commit",
        "git_checkout",
    ] {
        assert!(names.contains(&name), "{name} missing: {names:?}");
    }
    probe(&mut |method: &str, params: Value| switchboard.request(method, params), &p.dir);
    // What the policy allows still works: stage and commit a served file, switch to a branch.
    let mut exec = |method: &str, params: Value| switchboard.request(method, params);
    let staged = tool(&mut exec, "git_add", json!({"paths": ["."]}));
    assert!(staged.to_string().contains("src/main.rs"), "{staged}");
    let repo = Repository::open(&p.dir).unwrap();
    let index = repo.index().unwrap();
    for hidden in [".env", "logs/old.log", "secret/plan.md"] {
        let entry = index.get_path(Path::new(hidden), 0).unwrap();
        let head_blob =
            repo.head().unwrap().peel_to_tree().unwrap().get_path(Path::new(hidden)).unwrap().id();
        assert_eq!(entry.id, head_blob, "{hidden} was staged");
    }
    let committed = tool(&mut exec, "git_commit", json!({"message": "Edit main"}));
    assert_ne!(committed["isError"], true, "{committed}");
    let switched = tool(&mut exec, "git_checkout", json!({"rev": "fine"}));
    assert_ne!(switched["isError"], true, "{switched}");
    assert!(std::fs::read_to_string(p.dir.join("src/main.rs")).unwrap().contains("fine"));
    assert_eq!(repo.head().unwrap().shorthand().unwrap(), "fine");
    switchboard.finish();
    drop(p.base);
}

#[test]
fn over_http_in_both_eras_history_and_git_tools_hide_what_the_tree_hides() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    for era in ["2025-11-25", "2026-07-28"] {
        let p = project();
        let (child, url) =
            rt.block_on(common::start_http(&["serve", "--http", "127.0.0.1:0", "."], Some(&p.dir), &[]));
        let http = reqwest::Client::new();
        let mut session = None;
        if era == "2025-11-25" {
            let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": era, "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}});
            let (answer, id) = rt.block_on(common::post_mcp(&http, &url, era, None, init));
            assert_eq!(answer["result"]["protocolVersion"], era, "{answer}");
            session = id;
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            rt.block_on(common::post_mcp(&http, &url, era, session.as_deref(), initialized));
        }
        let mut id = 0;
        let mut exec = |method: &str, mut params: Value| {
            id += 1;
            if era == "2026-07-28" {
                params["_meta"] = common::meta_2026(json!({}));
            }
            let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            rt.block_on(common::post_mcp(&http, &url, era, session.as_deref(), body)).0
        };
        probe(&mut exec, &p.dir);
        drop(child);
        drop(p.base);
    }
}
