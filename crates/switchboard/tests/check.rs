//! `switchboard check`: every problem of a configuration in one run, each at
//! its line and column and in plain words; `--json` for editors and CI; exit
//! status 3 with problems, 0 without.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// Runs `switchboard ARGS` in `dir`: (exit status, stdout, stderr).
fn switchboard(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("switchboard runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().expect("an exit status"), text(&out.stdout), text(&out.stderr))
}

/// Two unknown keys in different tables, a wrong type, a bad glob, a
/// program that is not installed and a placeholder naming no parameter.
const BROKEN: &str = r#"[server]
titel = "Demo"

[files]
exclude = ["target/", "[unclosed"]
max_file_size = "1MB"

[git]
log_limt = 10

[[tools.command]]
name = "test"
command = ["surely-not-an-installed-program", "{filter}"]
input_schema = { type = "object", properties = { pattern = { type = "string" } } }
"#;

/// Where each problem of [`BROKEN`] is, and what its message says.
const EXPECTED: [(usize, usize, &str); 6] = [
    (2, 1, "unknown key `titel` in [server]; did you mean `title`?"),
    (5, 23, "\"[unclosed\" in `exclude` is not a valid glob"),
    (6, 17, "`max_file_size` must be a whole number of bytes, like `1048576`; found the text \"1MB\""),
    (9, 1, "unknown key `log_limt` in [git]; did you mean `log_limit`?"),
    (13, 12, "program \"surely-not-an-installed-program\" is not on PATH"),
    (13, 47, "placeholder {filter} in command does not name a property of input_schema"),
];

fn broken_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("switchboard.toml"), BROKEN).unwrap();
    dir
}

#[test]
fn check_reports_every_problem_of_the_file_in_one_run_at_its_line_and_column() {
    let dir = broken_project();
    let (status, stdout, stderr) = switchboard(&["check"], dir.path());
    assert_eq!(status, 3, "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("switchboard.toml:")).collect();
    assert_eq!(lines.len(), EXPECTED.len(), "{stderr}");
    for (line, (l, c, message)) in lines.iter().zip(EXPECTED) {
        let place = format!("switchboard.toml:{l}:{c}: ");
        assert!(line.starts_with(&place) && line.contains(message), "{line}\n  expected {place}…{message}…");
    }
    assert!(stderr.contains("6 problems in the configuration"), "{stderr}");
}

#[test]
fn check_json_prints_the_problems_as_a_document_and_exits_3() {
    let dir = broken_project();
    let (status, stdout, stderr) = switchboard(&["check", "--json"], dir.path());
    assert_eq!(status, 3, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("stdout is one JSON document");
    assert_eq!(report["ok"], false);
    assert_eq!(report["file"], "switchboard.toml");
    let problems = report["problems"].as_array().unwrap();
    assert_eq!(problems.len(), EXPECTED.len(), "{report:#}");
    for (problem, (line, column, message)) in problems.iter().zip(EXPECTED) {
        assert_eq!(problem["file"], "switchboard.toml");
        assert_eq!(
            (problem["line"].as_u64(), problem["column"].as_u64()),
            (Some(line as u64), Some(column as u64))
        );
        assert!(problem["message"].as_str().unwrap().contains(message), "{problem}");
    }
    assert_eq!(
        report["summary"],
        json!({"problems": 6, "files": 1, "tools": null, "prompts": null, "resources": null, "resourceTemplates": null, "skills": null})
    );
    assert!(!stderr.contains("switchboard.toml:"), "the problems are not repeated on stderr: {stderr}");
}

#[test]
fn check_messages_use_no_rust_jargon() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[files]\nmax_file_size = \"1MB\"\nexclude = \"*.lock\"\nroots = { path = \".\" }\n\
                [git]\nlog_limit = true\n[tools.builtin]\nwrite = 1\n[http]\nallowed_hosts = [1]\n";
    std::fs::write(dir.path().join("switchboard.toml"), text).unwrap();
    let (status, _, stderr) = switchboard(&["check"], dir.path());
    assert_eq!(status, 3, "{stderr}");
    assert_eq!(stderr.lines().filter(|l| l.starts_with("switchboard.toml:")).count(), 6, "{stderr}");
    for jargon in ["expected u64", "expected usize", "expected a sequence", "sequence", "map", "invalid type"]
    {
        assert!(!stderr.contains(jargon), "{jargon:?} in:\n{stderr}");
    }
}

#[test]
fn a_valid_configuration_exits_0_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# Demo\n").unwrap();
    let text = "#:schema ./switchboard.schema.json\n[server]\nname = \"demo\"\n\n[[tools.command]]\nname = \"greet\"\n\
                command = [\"echo\", \"hello\", \"{who}\"]\n\
                input_schema = { type = \"object\", properties = { who = { type = \"string\" } } }\n";
    std::fs::write(dir.path().join("switchboard.toml"), text).unwrap();
    let (status, stdout, stderr) = switchboard(&["check"], dir.path());
    assert_eq!(status, 0, "{stderr}");
    assert!(stdout.starts_with("switchboard.toml: ok — 6 tools"), "{stdout}");
    let (status, stdout, stderr) = switchboard(&["check", "--json"], dir.path());
    assert_eq!(status, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["problems"], json!([]));
    assert_eq!(report["summary"]["problems"], 0);
    assert_eq!(report["summary"]["tools"], 6);
    assert_eq!(report["summary"]["resources"], 2, "README.md and switchboard.toml");
}

#[test]
fn check_json_with_no_file_checks_the_embedded_default() {
    let dir = tempfile::tempdir().unwrap();
    let (status, stdout, stderr) = switchboard(&["check", "--json"], dir.path());
    assert_eq!(status, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!((report["ok"].clone(), report["file"].clone()), (json!(true), Value::Null));
}

#[test]
fn check_json_reports_a_file_that_cannot_be_read() {
    let dir = tempfile::tempdir().unwrap();
    // A folder where the file should be: it exists, but reading it fails.
    std::fs::create_dir(dir.path().join("odd.toml")).unwrap();
    let (status, stdout, _) = switchboard(&["check", "--json", "--config", "odd.toml", "."], dir.path());
    assert_eq!(status, 3);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["file"], "odd.toml");
    assert_eq!(
        (report["problems"][0]["line"].clone(), report["problems"][0]["column"].clone()),
        (json!(1), json!(1))
    );
    assert!(report["problems"][0]["message"].as_str().unwrap().starts_with("cannot read it"), "{report:#}");
}

/// `--json` prints one document even when there is nothing to check: a
/// `--config` file that does not exist (exit 3) or a folder that does not
/// (exit 4).
#[test]
fn check_json_reports_a_missing_configuration_file_or_folder() {
    let dir = tempfile::tempdir().unwrap();
    for (args, code, words) in [
        (&["check", "--json", "--config", "missing.toml", "."][..], 3, "missing.toml"),
        (&["check", "--json", "no-such-folder"][..], 4, "no-such-folder"),
    ] {
        let (status, stdout, _) = switchboard(args, dir.path());
        assert_eq!(status, code, "{args:?}");
        let report: Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"));
        assert_eq!(report["ok"], false);
        assert_eq!(report["summary"]["problems"], 1);
        assert_eq!(report["problems"][0]["line"], Value::Null);
        assert!(report["problems"][0]["message"].as_str().unwrap().contains(words), "{report:#}");
    }
}
