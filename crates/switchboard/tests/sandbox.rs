//! Command tools that the model's writes cannot turn against the user
//! (issue #28), through the real `switchboard` binary: with `write = true`,
//! the files a command tool runs are refused to every write path, and a
//! sandboxed command cannot reach past the served folder (files under
//! `$HOME`, beside the folder, the shared `/tmp`, TCP), while ordinary
//! commands (git, python, cargo) still work. Every check looks at the disk
//! or the listener afterwards, not only at the answer.

mod common;

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

    fn start(&self) -> Switchboard {
        let home = self.home();
        Switchboard::start_with_env(&["serve", "."], &self.dir, &[("HOME", home.to_str().unwrap())])
    }
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
