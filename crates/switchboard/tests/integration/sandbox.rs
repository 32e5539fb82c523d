//! Command tools that the model's writes cannot turn against the user
//! (issue #28), through the real `switchboard` binary: with `write = true`,
//! the files a command tool runs are refused to every write path, and a
//! sandboxed command cannot reach past the served folder (files under
//! `$HOME`, beside the folder, the shared `/tmp`, TCP), while ordinary
//! commands (git, python, cargo) still work. Every check looks at the disk
//! or the listener afterwards, not only at the answer.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::Switchboard;
use serde_json::{Value, json};

/// A served folder `project/` inside a scratch folder that also holds a
/// fake home (`home/`, with a secret) and a secret beside the project.
struct Scratch {
    base: tempfile::TempDir,
    dir: PathBuf,
}

impl Scratch {
    fn new(config: &str) -> Self {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("project");
        put(&dir, "switchboard.toml", config);
        put(&dir, "scripts/test.sh", "#!/bin/sh\necho tests pass\n");
        put(&dir, "tools/gen.py", "print('generated')\n");
        put(&dir, "build.js", "console.log('built')\n");
        put(&dir, "README.md", "# Demo\n");
        make_executable(&dir.join("scripts/test.sh"));
        put(&base.path().join("home"), ".ssh/id_ed25519", "supersecret-home\n");
        std::fs::write(base.path().join("beside.txt"), "supersecret-beside\n").unwrap();
        Scratch { base, dir }
    }

    fn home(&self) -> PathBuf {
        self.base.path().join("home")
    }

    /// switchboard's environment: the fake home, a secret of its own, and
    /// the real toolchain folders (as a user with rustup or pyenv has them).
    fn env(&self) -> Vec<(String, String)> {
        let mut env = toolchains();
        env.push(("HOME".into(), self.home().display().to_string()));
        env.push(("SWITCHBOARD_TEST_TOKEN".into(), "supersecret-environ".into()));
        env
    }

    fn start(&self) -> Switchboard {
        let env = self.env();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        Switchboard::start_with_env(&["serve", "."], &self.dir, &env)
    }

    fn run(&self, args: &[&str]) -> (bool, String, String) {
        let env = self.env();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        common::run_with_env(args, &self.dir, &env)
    }
}

/// The toolchain homes of the real user (the test overrides `HOME`).
fn toolchains() -> Vec<(String, String)> {
    let home = std::env::var("HOME").unwrap_or_default();
    [("CARGO_HOME", ".cargo"), ("RUSTUP_HOME", ".rustup"), ("PYENV_ROOT", ".pyenv")]
        .into_iter()
        .filter_map(|(name, rel)| {
            let value = std::env::var(name).unwrap_or_else(|_| format!("{home}/{rel}"));
            Path::new(&value).exists().then(|| (name.to_owned(), value))
        })
        .collect()
}

fn put(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn call(switchboard: &mut Switchboard, name: &str, arguments: Value) -> Value {
    let r = switchboard.request("tools/call", json!({"name": name, "arguments": arguments}));
    r.get("result").cloned().unwrap_or_else(|| panic!("tools/call {name} failed: {r}"))
}

fn text(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

const ATTACK_CONFIG: &str = r#"
[tools.builtin]
write = true

[[tools.command]]
name = "run_tests"
command = ["./scripts/test.sh"]

[[tools.command]]
name = "gen"
command = ["python3", "tools/gen.py"]

[[tools.command]]
name = "build"
command = ["node", "./build.js"]

[[tools.command]]
name = "lint"
command = ["bash", "scripts/lint.sh", "{target}"]
input_schema = { type = "object", properties = { target = { type = "string" } } }

[[tools.command]]
name = "show"
command = ["cat", "{file}"]
input_schema = { type = "object", properties = { file = { type = "string" } } }
"#;

/// The attack of issue #28: the model rewrites the program of a command
/// tool (or a script it runs) and calls the tool. Every write path refuses
/// those files, including ones that do not exist yet, and they stay as
/// they were on disk.
#[test]
fn write_tools_refuse_the_files_command_tools_run() {
    let scratch = Scratch::new(ATTACK_CONFIG);
    let mut switchboard = scratch.start();
    let planted = "#!/bin/sh\nid; cat ../beside.txt\n";
    for path in ["scripts/test.sh", "./scripts/test.sh", "tools/gen.py", "build.js", "scripts/lint.sh"] {
        let r = call(&mut switchboard, "write_file", json!({"path": path, "content": planted}));
        assert_eq!(r["isError"], true, "write_file {path} was not refused: {r}");
    }
    let r = call(
        &mut switchboard,
        "edit_file",
        json!({"path": "scripts/test.sh", "old_text": "echo tests pass", "new_text": "id"}),
    );
    assert_eq!(r["isError"], true, "edit_file was not refused: {r}");
    assert_eq!(
        std::fs::read_to_string(scratch.dir.join("scripts/test.sh")).unwrap(),
        "#!/bin/sh\necho tests pass\n"
    );
    assert_eq!(std::fs::read_to_string(scratch.dir.join("tools/gen.py")).unwrap(), "print('generated')\n");
    assert!(!scratch.dir.join("scripts/lint.sh").exists(), "a script that did not exist yet was created");
    // A path argument of a command tool that may change files is refused too.
    let r = call(&mut switchboard, "show", json!({"file": "scripts/test.sh"}));
    assert_eq!(r["isError"], true, "a path argument named the protected script: {r}");
    // Other files are still writable, and the tool still runs its program.
    let r = call(&mut switchboard, "write_file", json!({"path": "scripts/notes.txt", "content": "ok\n"}));
    assert_ne!(r["isError"], true, "{r}");
    let r = call(&mut switchboard, "run_tests", json!({}));
    assert!(text(&r).contains("tests pass"), "{r}");
    switchboard.finish();
}

const SANDBOX_CONFIG: &str = r#"
[tools.builtin]
write = true

[[tools.command]]
name = "bash"
command = ["bash", "-c", "{script}"]
input_schema = { type = "object", properties = { script = { type = "string" } } }

[[tools.command]]
name = "bash_net"
network = true
command = ["bash", "-c", "{script}"]
input_schema = { type = "object", properties = { script = { type = "string" } } }

[[tools.command]]
name = "bash_open"
sandbox = false
command = ["bash", "-c", "{script}"]
input_schema = { type = "object", properties = { script = { type = "string" } } }

[[tools.command]]
name = "python"
command = ["python3", "-c", "{code}"]
input_schema = { type = "object", properties = { code = { type = "string" } } }

[[tools.command]]
name = "git"
command = ["git", "{args}"]
env = ["HOME"]
allow_leading_dash = true
input_schema = { type = "object", properties = { args = { type = "array", items = { type = "string" } } } }

[[tools.command]]
name = "cargo"
command = ["cargo", "{args}"]
cwd = "hello"
env = ["HOME", "CARGO_HOME", "RUSTUP_HOME"]
allow_leading_dash = true
timeout = "300s"
input_schema = { type = "object", properties = { args = { type = "array", items = { type = "string" } } } }

[[tools.command]]
name = "slow"
command = ["sh", "-c", "for i in 1 2 3 4 5 6 7 8; do echo line $i; sleep 0.25; done"]
"#;

fn sandbox_scratch() -> Scratch {
    let scratch = Scratch::new(SANDBOX_CONFIG);
    put(
        &scratch.dir,
        "hello/Cargo.toml",
        "[package]\nname = \"hello\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    put(&scratch.dir, "hello/src/main.rs", "fn main() { println!(\"hello\"); }\n");
    scratch
}

/// A loopback listener that records whether anything connected.
fn listener() -> (std::net::TcpListener, u16) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

fn connected(listener: &std::net::TcpListener) -> bool {
    match listener.accept() {
        Ok(_) => true,
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => false,
        Err(e) => panic!("accept failed: {e}"),
    }
}

/// A sandboxed command cannot read a secret under `$HOME` or beside the
/// served folder, nor switchboard's own environment through `/proc`;
/// cannot write to `$HOME`, the shared `/tmp` or the parent folder;
/// cannot connect to a loopback TCP port; cannot signal switchboard. It
/// can write in the folder and in its private temporary folder, which is
/// gone after the call.
#[test]
fn a_sandboxed_command_reaches_nothing_outside_the_folder() {
    let scratch = sandbox_scratch();
    let (listener, port) = listener();
    let home = scratch.home();
    let shared_tmp = std::env::temp_dir().join(format!("switchboard-sandbox-escape-{}", std::process::id()));
    let mut switchboard = scratch.start();
    let script = format!(
        "cat {home}/.ssh/id_ed25519; cat ../beside.txt; cat /proc/$PPID/environ; \
         echo planted > {home}/planted; echo planted > {tmp}; echo planted > ../escaped.txt; \
         echo hi > /dev/tcp/127.0.0.1/{port} && echo CONNECTED; kill -0 $PPID && echo SIGNALLED; \
         echo inside > inside.txt; echo private > $TMPDIR/t && cat $TMPDIR/t; echo tmp=$TMPDIR",
        home = home.display(),
        tmp = shared_tmp.display(),
    );
    let r = call(&mut switchboard, "bash", json!({"script": script}));
    let out = text(&r);
    assert!(!out.contains("supersecret"), "a secret leaked: {out}");
    assert!(!out.contains("CONNECTED") && !out.contains("SIGNALLED"), "{out}");
    assert!(out.matches("Permission denied").count() >= 5, "{out}");
    assert!(out.contains("private"), "the private temporary folder is not writable: {out}");
    assert!(!home.join("planted").exists(), "wrote to $HOME");
    assert!(!shared_tmp.exists(), "wrote to the shared /tmp");
    assert!(!scratch.base.path().join("escaped.txt").exists(), "wrote beside the folder");
    assert!(!connected(&listener), "the loopback listener saw a connection");
    assert_eq!(std::fs::read_to_string(scratch.dir.join("inside.txt")).unwrap(), "inside\n");
    let tmp = out.lines().find_map(|l| l.strip_prefix("tmp=")).expect("TMPDIR is set");
    assert!(!Path::new(tmp).exists(), "the private temporary folder {tmp} outlived the call");
    switchboard.finish();
}

/// Root in the sandbox holds no capability (so nothing that steps around
/// Landlock or the read-only mounts: `open_by_handle_at`, raw sockets),
/// cannot make device nodes in the folder, and what a command leaves
/// running in the background ends with its call.
#[test]
fn a_sandboxed_command_has_no_capabilities_no_device_nodes_and_no_afterlife() {
    let scratch = sandbox_scratch();
    let mut switchboard = scratch.start();
    // bash itself reads its status: it is the launcher's process, whose
    // /proc entry the policy lets it read (a child's would be another pid).
    let script = "while IFS= read -r l; do case $l in Cap*) echo \"$l\";; esac; done < /proc/self/status; \
                  python3 -c \"import os; os.mknod('kmsg', 0o20600, os.makedev(1, 11))\" 2>&1 | tail -1; \
                  python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, 1)\" 2>&1 | tail -1; \
                  (sleep 2; echo survived > afterlife.txt) </dev/null >/dev/null 2>&1 &";
    let r = call(&mut switchboard, "bash", json!({"script": script}));
    let out = text(&r);
    let caps: Vec<&str> = out.lines().filter(|l| l.starts_with("Cap")).collect();
    assert_eq!(caps.len(), 5, "{out}");
    for line in caps {
        assert!(line.ends_with("0000000000000000"), "a capability is left: {line}\n{out}");
    }
    assert!(out.matches("PermissionError").count() == 2, "mknod or a raw socket was allowed: {out}");
    assert!(!scratch.dir.join("kmsg").exists(), "a device node was made");
    std::thread::sleep(Duration::from_secs(3));
    assert!(!scratch.dir.join("afterlife.txt").exists(), "a background process outlived its call");
    switchboard.finish();
}

/// `network = true` lets TCP through; `sandbox = false` is the old,
/// unrestricted behaviour.
#[test]
fn network_true_allows_tcp_and_sandbox_false_runs_unrestricted() {
    let scratch = sandbox_scratch();
    let mut switchboard = scratch.start();
    let (listener, port) = listener();
    let r = call(
        &mut switchboard,
        "bash_net",
        json!({"script": format!("echo hi > /dev/tcp/127.0.0.1/{port} && echo CONNECTED")}),
    );
    assert!(text(&r).contains("CONNECTED"), "{r}");
    std::thread::sleep(Duration::from_millis(100));
    assert!(connected(&listener), "network = true did not connect");
    let r = call(&mut switchboard, "bash_net", json!({"script": "cat ../beside.txt"}));
    assert!(!text(&r).contains("supersecret"), "network = true opened the files too: {r}");
    let r = call(&mut switchboard, "bash_open", json!({"script": "cat ../beside.txt"}));
    assert!(text(&r).contains("supersecret-beside"), "sandbox = false is not the old behaviour: {r}");
    // Said at start, on stderr.
    let stderr = switchboard.wait_stderr("runs outside the sandbox");
    assert!(stderr.contains("bash_open"), "{stderr}");
    switchboard.finish();
}

/// git, python and cargo work in the sandbox: git reads its settings from
/// the home folder and writes its index, python writes a file in the
/// folder, cargo builds a crate without dependencies offline (the target
/// folder is in the served folder; `~/.cargo` stays read-only).
#[test]
fn ordinary_commands_work_in_the_sandbox() {
    let scratch = sandbox_scratch();
    put(&scratch.home(), ".gitconfig", "[user]\n\tname = Sandboxed Tester\n\temail = t@example.com\n");
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(&scratch.dir)
            .env("HOME", scratch.home())
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "README.md"]);
    git(&["commit", "-q", "-m", "first"]);
    let mut switchboard = scratch.start();
    let r = call(&mut switchboard, "git", json!({"args": ["status", "--short"]}));
    assert_ne!(r["isError"], true, "git status: {r}");
    let r = call(&mut switchboard, "git", json!({"args": ["log", "--format=%an %s"]}));
    assert!(text(&r).contains("Sandboxed Tester first"), "git log: {r}");
    let r = call(&mut switchboard, "git", json!({"args": ["config", "user.name"]}));
    assert!(text(&r).contains("Sandboxed Tester"), "git cannot read ~/.gitconfig: {r}");
    let r = call(&mut switchboard, "python", json!({"code": "open('from_python.txt', 'w').write('py\\n')"}));
    assert_ne!(r["isError"], true, "python: {r}");
    assert_eq!(std::fs::read_to_string(scratch.dir.join("from_python.txt")).unwrap(), "py\n");
    let r = call(&mut switchboard, "cargo", json!({"args": ["--version"]}));
    assert!(text(&r).starts_with("cargo "), "cargo --version: {r}");
    let r = call(&mut switchboard, "cargo", json!({"args": ["build", "--offline", "--quiet"]}));
    assert_ne!(r["isError"], true, "cargo build: {r}");
    assert!(scratch.dir.join("hello/target/debug/hello").exists(), "cargo build wrote no binary: {r}");
    switchboard.finish();
}

/// With a progress token, a command's output lines become progress
/// notifications (the last line as the message), at most 4 a second;
/// `switchboard call` shows them.
#[test]
fn output_lines_become_progress_notifications() {
    let scratch = sandbox_scratch();
    let mut switchboard = scratch.start();
    let r = switchboard
        .request("tools/call", json!({"name": "slow", "arguments": {}, "_meta": {"progressToken": "p1"}}));
    assert!(text(&r["result"]).contains("line 8"), "{r}");
    let progress: Vec<Value> = switchboard
        .received()
        .into_iter()
        .filter(|m| m["method"] == "notifications/progress" && m["params"]["progressToken"] == "p1")
        .collect();
    assert!(progress.len() >= 2, "too few progress notifications: {progress:?}");
    assert!(progress.len() <= 12, "more than 4 a second: {progress:?}");
    let values: Vec<f64> = progress.iter().map(|p| p["params"]["progress"].as_f64().unwrap()).collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    assert!(
        progress.iter().all(|p| p["params"]["message"].as_str().unwrap().starts_with("line ")),
        "{progress:?}"
    );
    switchboard.finish();
    let (ok, _, stderr) = scratch.run(&["call", "slow"]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("progress") && stderr.contains("line "),
        "switchboard call shows no progress: {stderr}"
    );
}

/// Over HTTP (a 2026-07-28 per-request call) the same tool is as
/// contained as over stdio.
#[tokio::test(flavor = "multi_thread")]
async fn a_sandboxed_call_over_http_2026_is_contained() {
    let scratch = sandbox_scratch();
    let env = scratch.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let (mut child, url) =
        common::start_http(&["serve", "--http", "127.0.0.1:0", "."], Some(&scratch.dir), &env).await;
    let client = reqwest::Client::new();
    let script = "cat ../beside.txt; echo planted > ../escaped.txt; echo done";
    let params =
        json!({"name": "bash", "arguments": {"script": script}, "_meta": common::meta_2026(json!({}))});
    let (status, _, answer) = common::post_tools_call_2026(&client, &url, 1, params).await;
    assert_eq!(status, 200, "{answer}");
    let body = answer["result"].to_string();
    assert!(body.contains("Permission denied") && body.contains("done"), "{answer}");
    assert!(!body.contains("supersecret"), "{answer}");
    assert!(!scratch.base.path().join("escaped.txt").exists(), "wrote beside the folder over HTTP");
    child.kill().await.unwrap();
}

/// `switchboard list` says what Landlock holds here (this kernel has it
/// all: a missing Landlock fails this test) and which tools are
/// sandboxed; `check` notes write tools next to command tools and the
/// tool that opted out.
#[test]
fn list_and_check_say_what_is_sandboxed() {
    let scratch = sandbox_scratch();
    let (ok, stdout, stderr) = scratch.run(&["list"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("Sandbox: Landlock: files, TCP, abstract UNIX sockets and signals"), "{stdout}");
    assert!(stdout.contains("unsandboxed: bash_open"), "{stdout}");
    let (ok, stdout, _) = scratch.run(&["list", "--json"]);
    assert!(ok);
    let listing: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(listing["sandbox"]["filesystem"], true, "{listing}");
    assert_eq!(listing["sandbox"]["tcp"], true);
    assert_eq!(listing["sandbox"]["scopes"], true);
    let (ok, stdout, _) = scratch.run(&["check", "--json"]);
    assert!(ok, "{stdout}");
    let notes = serde_json::from_str::<Value>(&stdout).unwrap()["notes"].to_string();
    assert!(notes.contains("commands may still run code the model edits"), "{notes}");
    assert!(notes.contains("bash_open") && notes.contains("runs outside the sandbox"), "{notes}");
}

/// A sandboxed command may write the served folder but not what
/// configures the server (a live reload would apply it), nor `.git` (a
/// hook would run later, outside the sandbox): not by writing, renaming
/// or removing them.
#[test]
fn a_sandboxed_command_cannot_change_the_configuration_or_git() {
    let scratch = sandbox_scratch();
    let status =
        std::process::Command::new("git").args(["init", "-q"]).current_dir(&scratch.dir).status().unwrap();
    assert!(status.success());
    put(&scratch.dir, "prompts/hello.md", "---\ndescription: hi\n---\nhello\n");
    let config_before = std::fs::read_to_string(scratch.dir.join("switchboard.toml")).unwrap();
    let mut switchboard = scratch.start();
    let script = "echo '[[tools.command]]' >> switchboard.toml; mv switchboard.toml moved.toml; \
                  rm -f switchboard.toml; echo planted > prompts/evil.md; mv prompts p2; \
                  echo 'id' > .git/hooks/pre-commit; mv .git gitx; echo ran";
    let r = call(&mut switchboard, "bash", json!({"script": script}));
    let out = text(&r);
    assert!(out.contains("ran"), "{r}");
    assert_eq!(std::fs::read_to_string(scratch.dir.join("switchboard.toml")).unwrap(), config_before);
    assert!(!scratch.dir.join("moved.toml").exists() && !scratch.dir.join("p2").exists(), "{out}");
    assert!(!scratch.dir.join("prompts/evil.md").exists(), "{out}");
    assert!(
        !scratch.dir.join(".git/hooks/pre-commit").exists() && !scratch.dir.join("gitx").exists(),
        "{out}"
    );
    assert!(!out.contains("warning"), "the read-only mounts were not made: {out}");
    // The rest of the folder stays writable.
    let r = call(&mut switchboard, "bash", json!({"script": "echo ok > src.txt && cat src.txt"}));
    assert!(text(&r).contains("ok"), "{r}");
    switchboard.finish();
}

/// What the model is never served, a sandboxed command does not read
/// either: the file of a `[[databases]]` entry (its bytes would read
/// around `exclude`) and the `env_file` the secrets come from. Both stay
/// intact on disk, and the database still answers through its own tool.
#[test]
fn a_sandboxed_command_cannot_read_what_is_never_served() {
    let config = format!(
        "{SANDBOX_CONFIG}\n[server]\nenv_file = \"secrets.env\"\n\n[[databases]]\nname = \"app\"\npath = \"data/app.sqlite\"\nexclude = [\"customers.ssn\"]\n"
    );
    let scratch = Scratch::new(&config);
    put(&scratch.dir, "hello/src/main.rs", "fn main() {}\n");
    std::fs::create_dir_all(scratch.dir.join("data")).unwrap();
    let db = rusqlite::Connection::open(scratch.dir.join("data/app.sqlite")).unwrap();
    db.execute_batch(
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, ssn TEXT);
         INSERT INTO customers (name, ssn) VALUES ('Ada', 'supersecret-ssn');",
    )
    .unwrap();
    drop(db);
    put(&scratch.dir, "secrets.env", "TOKEN=supersecret-env\n");
    let before = std::fs::read(scratch.dir.join("data/app.sqlite")).unwrap();
    let mut switchboard = scratch.start();
    let script = "grep -a -o 'supersecret-[a-z]*' data/app.sqlite secrets.env; \
                  cp data/app.sqlite copy.bin; grep -a -c supersecret copy.bin; echo done";
    let r = call(&mut switchboard, "bash", json!({"script": script}));
    let out = text(&r);
    assert!(out.contains("done"), "{r}");
    assert!(!out.contains("supersecret"), "a never-served file was read: {out}");
    assert!(!out.contains("warning"), "the mounts were not made: {out}");
    assert_eq!(std::fs::read(scratch.dir.join("data/app.sqlite")).unwrap(), before);
    let r = call(&mut switchboard, "app_query", json!({"sql": "SELECT name FROM customers"}));
    assert!(text(&r).contains("Ada"), "the database still answers: {r}");
    switchboard.finish();
}

/// Everything the server reads or runs outside the sandbox is as closed to
/// the model's writes as `switchboard.toml`: an OpenAPI document (it
/// decides the tools and where their credentials go, and reloads live) and
/// a stdio upstream's script (re-run on reconnect). And no write goes
/// through a symlink, even with `hidden = true` serving the dotfile it
/// points to.
#[test]
fn write_tools_refuse_openapi_documents_upstream_scripts_and_symlinks() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let config = r#"
[files]
hidden = true

[tools.builtin]
write = true
delete = true

[[tools.openapi]]
document = "openapi.yaml"

[[upstreams]]
name = "up"
command = ["python3", "up.py"]
"#;
    let openapi = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\nservers: [{url: 'http://127.0.0.1:9/api'}]\n\
                   paths:\n  /ping:\n    get:\n      operationId: ping\n      responses: {'200': {description: ok}}\n";
    let files = [
        ("switchboard.toml", config),
        ("openapi.yaml", openapi),
        ("up.py", "import sys; sys.exit(1)\n"),
        (".gitignore", "target/\n"),
    ];
    for (path, text) in files {
        std::fs::write(root.join(path), text).unwrap();
    }
    std::os::unix::fs::symlink(".gitignore", root.join("ignore-link")).unwrap();
    let mut switchboard = Switchboard::start(&["serve", "."], root);
    let attempts = [
        ("write_file", json!({"path": "openapi.yaml", "content": "openapi: 3.0.0\n"})),
        ("edit_file", json!({"path": "openapi.yaml", "old_text": "127.0.0.1:9", "new_text": "127.0.0.1:10"})),
        ("write_file", json!({"path": "up.py", "content": "open('/tmp/x', 'w')\n"})),
        ("move_file", json!({"source": "up.py", "destination": "moved.py"})),
        ("write_file", json!({"path": "ignore-link", "content": "!target/\n"})),
        ("edit_file", json!({"path": "ignore-link", "old_text": "target/", "new_text": "!target/"})),
        ("move_file", json!({"source": "ignore-link", "destination": "elsewhere"})),
        ("delete_file", json!({"path": "ignore-link"})),
    ];
    for (tool, args) in attempts {
        let r = call(&mut switchboard, tool, args.clone());
        assert_eq!(r["isError"], true, "{tool} {args} was not refused: {r}");
    }
    switchboard.finish();
    for (path, text) in files {
        assert_eq!(std::fs::read_to_string(root.join(path)).unwrap(), text, "{path} changed");
    }
    assert!(root.join("ignore-link").symlink_metadata().unwrap().file_type().is_symlink());
    assert!(!root.join("moved.py").exists() && !root.join("elsewhere").exists());
}
