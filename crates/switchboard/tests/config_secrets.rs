//! The server's own configuration is the user's, never the model's: the
//! real `switchboard` binary, reached through every path a model or client
//! has (search, read_file, write_file, file:// resources, their list and
//! completion, git history, command-tool path arguments; stdio and HTTP
//! 2026-07-28), never shows a byte of `switchboard.toml`, of a `--config`
//! file or of the `env_file` it reads secrets from, even with
//! `hidden = true`. Every such byte carries `supersecret`.

mod common;

use std::path::Path;
use std::time::Duration;

use common::Switchboard;
use serde_json::{Value, json};

/// Every configuration secret's marker.
const SECRET: &str = "supersecret";
/// A pattern that finds the marker without containing it.
const SECRET_PATTERN: &str = "super[s]ecret";

/// A configuration that serves dotfiles, allows writes and has a
/// read-only command tool with a path argument; its comment is the secret.
const CONFIG: &str = r#"# supersecret-config: the model never reads this line
[limits]
tool_calls_per_minute = 100000
tool_calls_burst = 10000

[files]
hidden = true

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
"#;

fn put(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A git repository whose configuration is committed (so the history has
/// it), with a served README and a symlink to the configuration.
fn project(config: &str, extra: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    put(dir.path(), "switchboard.toml", config);
    put(dir.path(), "README.md", "# Demo\nhello\n");
    for (path, text) in extra {
        put(dir.path(), path, text);
    }
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("switchboard.toml")).unwrap();
    index.add_path(Path::new("README.md")).unwrap();
    for (path, _) in extra {
        index.add_path(Path::new(path)).unwrap();
    }
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let who = git2::Signature::now("Test", "test@example.com").unwrap();
    repo.commit(Some("HEAD"), &who, &who, "first", &tree, &[]).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("switchboard.toml"), dir.path().join("config-link.toml"))
        .unwrap();
    dir
}

fn call(switchboard: &mut Switchboard, name: &str, arguments: Value) -> Value {
    let r = switchboard.request("tools/call", json!({"name": name, "arguments": arguments}));
    r.get("result").cloned().unwrap_or_else(|| panic!("tools/call {name} failed: {r}"))
}

fn no_secret(what: &str, answer: &Value) {
    assert!(!answer.to_string().contains(SECRET), "{what} leaked the configuration: {answer}");
}

/// Every path a model or client has to the files in `secret_paths`: each
/// is refused or absent, and nothing answers with a byte of them.
fn probe(switchboard: &mut Switchboard, secret_paths: &[&str]) {
    for path in secret_paths.iter().copied().chain(["config-link.toml"]) {
        for spelled in [path.to_owned(), format!("./{path}"), format!("README.md/../{path}")] {
            let r = call(switchboard, "read_file", json!({"path": spelled}));
            assert_eq!(r["isError"], true, "read_file {spelled}: {r}");
            no_secret(&format!("read_file {spelled}"), &r);
        }
        let r = call(switchboard, "search", json!({"pattern": SECRET_PATTERN, "path": path}));
        no_secret(&format!("search in {path}"), &r);
        let r = call(switchboard, "show", json!({"file": path}));
        assert_eq!(r["isError"], true, "show {path}: {r}");
        no_secret(&format!("show {path}"), &r);
        let r = switchboard.request("resources/read", json!({"uri": format!("file:///{path}")}));
        assert!(r.get("error").is_some(), "file:///{path}: {r}");
        no_secret(&format!("file:///{path}"), &r);
        for uri in [format!("git://file/HEAD/{path}"), format!("git://log/{path}")] {
            let r = switchboard.request("resources/read", json!({"uri": uri}));
            no_secret(&uri, &r);
        }
        // A write is refused and the file on disk is what it was.
        let r = call(switchboard, "write_file", json!({"path": path, "content": "[[tools.command]]\n"}));
        assert_eq!(r["isError"], true, "write_file {path}: {r}");
    }
    for glob in ["*", "**", "*.toml", "*.env", ".*", "switchboard*"] {
        let r = call(switchboard, "search", json!({"pattern": SECRET_PATTERN, "glob": glob}));
        no_secret(&format!("search glob {glob}"), &r);
    }
    let r = call(switchboard, "search", json!({"pattern": "tools|limits|TOKEN", "case_insensitive": true}));
    no_secret("search for configuration words", &r);
    // The served files still are.
    let r = call(switchboard, "search", json!({"pattern": "hello"}));
    assert!(r["content"][0]["text"].as_str().unwrap().contains("README.md:2"), "{r}");
    let listed = switchboard.result("resources/list", json!({}));
    no_secret("resources/list", &listed);
    let uris: Vec<&str> =
        listed["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert!(uris.contains(&"file:///README.md"), "{listed}");
    for path in secret_paths {
        assert!(!uris.iter().any(|u| u.ends_with(path)), "{path} listed: {listed}");
    }
    for (uri, context) in [
        ("file:///{+path}", json!(null)),
        ("git://file/{rev}/{+path}", json!({"arguments": {"rev": "HEAD"}})),
        ("git://log/{+path}", json!(null)),
    ] {
        for prefix in ["", "s", "switch", ".", ".s", "c", "e"] {
            let mut params = json!({"ref": {"type": "ref/resource", "uri": uri}, "argument": {"name": "path", "value": prefix}});
            if !context.is_null() {
                params["context"] = context.clone();
            }
            let done = switchboard.result("completion/complete", params);
            for value in done["completion"]["values"].as_array().unwrap() {
                let value = value.as_str().unwrap();
                assert!(!secret_paths.contains(&value), "completion of {uri} {prefix:?} offered {value}");
            }
        }
    }
    let diff = switchboard.result("resources/read", json!({"uri": "git://diff/HEAD"}));
    no_secret("git://diff/HEAD", &diff);
    assert!(diff.to_string().contains("README.md"), "the served file's diff is shown: {diff}");
    let commit = switchboard.result("resources/read", json!({"uri": "git://commit/HEAD"}));
    no_secret("git://commit/HEAD", &commit);
}

#[test]
fn the_configuration_in_use_is_never_served_even_with_hidden_files() {
    let dir = project(CONFIG, &[]);
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    probe(&mut switchboard, &["switchboard.toml"]);
    switchboard.finish();
    assert_eq!(std::fs::read_to_string(dir.path().join("switchboard.toml")).unwrap(), CONFIG);
}

#[test]
fn an_explicit_configuration_file_and_switchboard_toml_are_both_never_served() {
    let dir = project("# supersecret-unused\n", &[("conf/server.toml", CONFIG)]);
    let mut switchboard = Switchboard::start(&["serve", ".", "--config", "conf/server.toml"], dir.path());
    probe(&mut switchboard, &["switchboard.toml", "conf/server.toml"]);
    switchboard.finish();
    assert_eq!(std::fs::read_to_string(dir.path().join("conf/server.toml")).unwrap(), CONFIG);
}

#[test]
fn over_http_2026_07_28_a_search_never_finds_the_configuration() {
    let dir = project(CONFIG, &[]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let (_child, url) =
            common::start_http(&["serve", "--http", "127.0.0.1:0"], Some(dir.path()), &[]).await;
        let http = reqwest::Client::builder().timeout(common::WAIT).build().unwrap();
        for (id, arguments) in [
            json!({"pattern": SECRET_PATTERN}),
            json!({"pattern": SECRET_PATTERN, "glob": "*.toml"}),
            json!({"pattern": SECRET_PATTERN, "path": "switchboard.toml"}),
        ]
        .into_iter()
        .enumerate()
        {
            let params = json!({"name": "search", "arguments": arguments, "_meta": common::meta_2026(json!({}))});
            let (status, _, message) = common::post_tools_call_2026(&http, &url, id as u64 + 1, params).await;
            assert_eq!(status, 200, "{message}");
            assert!(message.get("result").is_some(), "{message}");
            no_secret("search over HTTP", &message);
        }
        let params = json!({"name": "search", "arguments": {"pattern": "hello"}, "_meta": common::meta_2026(json!({}))});
        let (_, _, message) = common::post_tools_call_2026(&http, &url, 9, params).await;
        assert!(message.to_string().contains("README.md:2"), "{message}");
    });
    // Give the child a moment to be killed before the folder goes.
    std::thread::sleep(Duration::from_millis(50));
}
