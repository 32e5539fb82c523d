//! The server's own configuration is the user's, never the model's: the
//! real `switchboard` binary, reached through every path a model or client
//! has (search, read_file, write_file, file:// resources, their list and
//! completion, git history, command-tool path arguments; stdio and HTTP
//! 2026-07-28), never shows a byte of `switchboard.toml`, of a `--config`
//! file or of the `env_file` it reads secrets from, even with
//! `hidden = true`. Every such byte carries `supersecret`.
//!
//! And a secret that is not set leaves out only what needs it: an HTTP
//! tool, an OpenAPI entry or an upstream whose variable is set neither in
//! the environment nor in the `env_file` is left out with a note on stderr
//! (and to clients on a reload), the rest is served, and `check` and
//! `list` say so.

use crate::common;

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
[server]
env_file = "secrets/tokens.env"

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
    let dir = project(CONFIG, &[("secrets/tokens.env", "TOKEN=supersecret-env-file\n")]);
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    probe(&mut switchboard, &["switchboard.toml", "secrets/tokens.env"]);
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

/// An HTTP API that echoes the `Authorization` header it got.
struct EchoApi {
    port: u16,
    _runtime: tokio::runtime::Runtime,
}

fn start_echo_api() -> EchoApi {
    use axum::http::HeaderMap;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = axum::Router::new().route(
        "/echo",
        axum::routing::get(|headers: HeaderMap| async move {
            let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
            axum::Json(json!({"authorization": auth}))
        }),
    );
    runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
    EchoApi { port, _runtime: runtime }
}

/// A configuration whose secrets come from an `env_file` (one tool), from
/// nowhere (an HTTP tool, an OpenAPI entry, an upstream) and from a
/// variable a test may set later.
fn secrets_config(port: u16) -> String {
    format!(
        r#"[server]
env_file = ".switchboard.env"

[[tools.http]]
name = "from_file"
description = "Echoes the authorization header (token from the env_file)."
url = "http://127.0.0.1:{port}/echo"
headers = {{ Authorization = "Bearer ${{SWITCHBOARD_TEST_FILE_TOKEN}}" }}

[[tools.http]]
name = "needs_unset"
description = "Needs a token that is set nowhere."
url = "http://127.0.0.1:{port}/echo"
[tools.http.headers]
Authorization = "Bearer ${{SWITCHBOARD_TEST_SURELY_UNSET}}"

[[tools.http]]
name = "later"
description = "Needs a token the env_file may drop."
url = "http://127.0.0.1:{port}/echo"
headers = {{ X-Token = "${{SWITCHBOARD_TEST_LATER}}" }}

[[tools.openapi]]
document = "api.json"
prefix = "api"
base_url = "http://127.0.0.1:{port}"
auth = {{ type = "bearer", token_env = "SWITCHBOARD_TEST_SURELY_UNSET_API" }}

[[upstreams]]
name = "remote"
url = "http://127.0.0.1:9/mcp"
bearer_token_env = "SWITCHBOARD_TEST_SURELY_UNSET_UPSTREAM"
"#
    )
}

const API_DOCUMENT: &str = r#"{"openapi": "3.1.0", "info": {"title": "echo", "version": "1"},
  "paths": {"/echo": {"get": {"operationId": "echo", "responses": {"200": {"description": "ok"}}}}}}"#;

fn secrets_project(port: u16, env_file: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "switchboard.toml", &secrets_config(port));
    put(dir.path(), ".switchboard.env", env_file);
    put(dir.path(), "api.json", API_DOCUMENT);
    dir
}

fn tool_names(switchboard: &mut Switchboard) -> Vec<String> {
    let tools = switchboard.result("tools/list", json!({}));
    tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn an_entry_whose_secret_is_unset_is_left_out_and_the_rest_is_served() {
    let api = start_echo_api();
    let dir =
        secrets_project(api.port, "SWITCHBOARD_TEST_FILE_TOKEN=from-the-file\nSWITCHBOARD_TEST_LATER=x\n");
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    switchboard.result("logging/setLevel", json!({"level": "warning"}));
    let names = tool_names(&mut switchboard);
    assert!(names.contains(&"from_file".to_owned()) && names.contains(&"later".to_owned()), "{names:?}");
    assert!(!names.iter().any(|n| n == "needs_unset" || n.starts_with("api")), "{names:?}");
    // The tool whose token the env_file holds works, with that token.
    let r = call(&mut switchboard, "from_file", json!({}));
    assert_eq!(r["structuredContent"]["authorization"], "Bearer from-the-file", "{r}");
    // stderr says what was left out, where and why, for each.
    for needle in [
        "SWITCHBOARD_TEST_SURELY_UNSET}, which is not set",
        "\"SWITCHBOARD_TEST_SURELY_UNSET_API\" is not set",
        "SWITCHBOARD_TEST_SURELY_UNSET_UPSTREAM, which is not set",
    ] {
        let stderr = switchboard.wait_stderr(needle);
        let line = stderr.lines().find(|l| l.contains(needle)).unwrap();
        assert!(line.contains("left out until it is set") && line.contains("switchboard.toml:"), "{line}");
        assert!(!line.contains("from-the-file"), "no secret in the log: {line}");
    }
    // A reload whose env_file no longer sets a variable leaves that tool
    // out too, and tells the connected client.
    put(dir.path(), ".switchboard.env", "SWITCHBOARD_TEST_FILE_TOKEN=from-the-file\n");
    put(dir.path(), "switchboard.toml", &format!("{}\n# edited\n", secrets_config(api.port)));
    let message = switchboard.notification("notifications/message", None);
    assert_eq!(message["params"]["level"], "warning", "{message}");
    assert!(message.to_string().contains("SWITCHBOARD_TEST_LATER"), "{message}");
    let names = tool_names(&mut switchboard);
    assert!(names.contains(&"from_file".to_owned()) && !names.contains(&"later".to_owned()), "{names:?}");
    // An edit of the env_file alone reloads too: the variable is back.
    put(
        dir.path(),
        ".switchboard.env",
        "SWITCHBOARD_TEST_FILE_TOKEN=from-the-file\nSWITCHBOARD_TEST_LATER=y\n",
    );
    let back = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        tool_names(&mut switchboard).contains(&"later".to_owned())
    });
    assert!(back, "the env_file edit was not applied: {}", switchboard.stderr());
    switchboard.finish();
}

#[test]
fn the_environment_comes_before_the_env_file() {
    let api = start_echo_api();
    let dir = secrets_project(api.port, "SWITCHBOARD_TEST_FILE_TOKEN=from-the-file\n");
    let env = [("SWITCHBOARD_TEST_FILE_TOKEN", "from-the-host")];
    let mut switchboard = Switchboard::start_with_env(&["serve", "."], dir.path(), &env);
    let r = call(&mut switchboard, "from_file", json!({}));
    assert_eq!(r["structuredContent"]["authorization"], "Bearer from-the-host", "{r}");
    switchboard.finish();
}

#[test]
fn check_reports_an_unset_secret_at_its_line_and_list_shows_what_is_left_out() {
    let dir = secrets_project(
        9,
        "SWITCHBOARD_TEST_FILE_TOKEN=from-the-file\nSWITCHBOARD_TEST_LATER=x\nnot a line\n",
    );
    let (ok, _, stderr) = common::run(&["check"], dir.path());
    assert!(!ok, "{stderr}");
    let config = secrets_config(9);
    let line_of = |needle: &str| config.lines().position(|l| l.contains(needle)).unwrap() + 1;
    for (needle, at) in [
        ("SWITCHBOARD_TEST_SURELY_UNSET}", line_of("${SWITCHBOARD_TEST_SURELY_UNSET}")),
        ("SWITCHBOARD_TEST_SURELY_UNSET_API", line_of("SWITCHBOARD_TEST_SURELY_UNSET_API")),
        ("SWITCHBOARD_TEST_SURELY_UNSET_UPSTREAM", line_of("SWITCHBOARD_TEST_SURELY_UNSET_UPSTREAM")),
    ] {
        let line = stderr
            .lines()
            .find(|l| l.contains(needle) && !l.contains(" WARN "))
            .unwrap_or_else(|| panic!("{needle}: {stderr}"));
        assert!(line.starts_with(&format!("switchboard.toml:{at}:")), "{needle} placed at line {at}: {line}");
    }
    // A line of the env_file that is not NAME=value is placed there, unquoted.
    let bad =
        stderr.lines().find(|l| l.starts_with(".switchboard.env:3:1:")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(!bad.contains("not a line"), "{bad}");
    let (ok, stdout, stderr) = common::run(&["list"], dir.path());
    assert!(ok, "{stderr}");
    assert!(stdout.contains("Left out (4):"), "{stdout}");
    assert!(stdout.contains("SWITCHBOARD_TEST_SURELY_UNSET_UPSTREAM"), "{stdout}");
    // With everything set, check passes.
    let env = [
        ("SWITCHBOARD_TEST_SURELY_UNSET", "a"),
        ("SWITCHBOARD_TEST_SURELY_UNSET_API", "b"),
        ("SWITCHBOARD_TEST_SURELY_UNSET_UPSTREAM", "c"),
    ];
    put(dir.path(), ".switchboard.env", "SWITCHBOARD_TEST_FILE_TOKEN=t\nSWITCHBOARD_TEST_LATER=x\n");
    let (ok, stdout, stderr) = common::run_with_env(&["check"], dir.path(), &env);
    assert!(ok, "{stdout}{stderr}");
}

#[test]
fn serve_starts_with_a_literal_credential_and_warns_without_repeating_it() {
    let dir = tempfile::tempdir().unwrap();
    let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let config = format!(
        "[[tools.http]]\nname = \"api\"\ndescription = \"Calls the API.\"\nurl = \"http://127.0.0.1:9/x\"\n\
         headers = {{ Authorization = \"Bearer {token}\" }}\n"
    );
    put(dir.path(), "switchboard.toml", &config);
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    assert!(tool_names(&mut switchboard).contains(&"api".to_owned()));
    let stderr = switchboard.wait_stderr("holds a literal credential");
    let line = stderr.lines().find(|l| l.contains("holds a literal credential")).unwrap();
    assert!(line.contains("switchboard.toml:5:29:"), "placed at the value: {line}");
    assert!(!stderr.contains(token), "the token is never repeated: {stderr}");
    switchboard.finish();
}
