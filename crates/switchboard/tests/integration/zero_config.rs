//! End-to-end: a folder whose `prompts/` was made for something else (a
//! template for another tool, a README, a prompt file that does not load)
//! is served as it is with no `switchboard.toml`, each file left out noted
//! on stderr; with a `switchboard.toml`, the same folder is refused by
//! `check` with every problem placed. And source files are served with
//! their language's MIME type.

use crate::common;

use std::path::Path;

use common::{Switchboard, run};
use serde_json::{Value, json};

const GREET: &str = "---
description: Greets someone.
arguments:
  - name: who
    required: true
---
Hello {{ who }}!
";

/// Front matter that does not parse as a prompt's: a list where the title
/// goes, on line 2.
const BROKEN: &str = "---\ntitle: [a, list]\n---\nBody\n";

/// A project whose `prompts/` holds a foreign template, a README, a broken
/// prompt file and one good one.
fn foreign_prompts() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let prompts = dir.path().join("prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    write(&prompts.join("topic.md"), "Write a short essay about {{ topic }}.\n");
    write(&prompts.join("README.md"), "# Prompts\n\nTemplates for our blog generator.\n");
    write(&prompts.join("broken.md"), BROKEN);
    write(&prompts.join("greet.md"), GREET);
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

fn prompt_names(switchboard: &mut Switchboard) -> Vec<String> {
    let listed = switchboard.result("prompts/list", json!({}));
    listed["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap().to_owned()).collect()
}

/// The stderr line that mentions `file`, if any.
fn line_about<'a>(stderr: &'a str, file: &str) -> Option<&'a str> {
    stderr.lines().find(|l| l.contains(file))
}

#[test]
fn a_foreign_prompts_folder_is_served_with_a_note_for_each_file_left_out() {
    let dir = foreign_prompts();
    // `start` asserts that initialize succeeds.
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    assert_eq!(prompt_names(&mut switchboard), ["greet", "code_review", "explain_code", "write_tests"]);
    let got = switchboard.result("prompts/get", json!({"name": "greet", "arguments": {"who": "Ada"}}));
    assert_eq!(got["messages"][0]["content"]["text"], "Hello Ada!");
    assert_eq!(switchboard.result("ping", json!({})), json!({}), "still serving");

    let stderr = switchboard.stderr();
    let topic = line_about(&stderr, "topic.md").unwrap_or_else(|| panic!("no note on topic.md:\n{stderr}"));
    assert!(topic.contains("WARN"), "{topic}");
    assert!(
        topic.contains("prompts/topic.md:1:1: skipped, not a prompt file: it has no front matter"),
        "{topic}"
    );
    assert!(
        topic.contains("a prompt file starts with a `---` (YAML) or `+++` (TOML) line"),
        "how to: {topic}"
    );
    let readme =
        line_about(&stderr, "README.md").unwrap_or_else(|| panic!("no note on README.md:\n{stderr}"));
    assert!(readme.contains("skipped: a README describes the folder"), "{readme}");
    let broken =
        line_about(&stderr, "broken.md").unwrap_or_else(|| panic!("no note on broken.md:\n{stderr}"));
    assert!(broken.contains("prompts/broken.md:2:"), "placed: {broken}");
    assert!(broken.contains("this prompt is left out until that is fixed"), "{broken}");
    assert!(line_about(&stderr, "greet.md").is_none(), "nothing to say about a good prompt:\n{stderr}");
    switchboard.finish();
}

#[test]
fn list_and_check_with_no_configuration_start_on_the_same_folder() {
    let dir = foreign_prompts();
    let (ok, stdout, stderr) = run(&["list", "--json", "."], dir.path());
    assert!(ok, "{stderr}");
    let listing: Value = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> =
        listing["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["greet", "code_review", "explain_code", "write_tests"]);
    assert!(stderr.contains("topic.md:1:1: skipped"), "{stderr}");

    let (ok, stdout, stderr) = run(&["check", "."], dir.path());
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("ok"), "{stdout}");
    assert!(stderr.contains("broken.md:2:"), "{stderr}");

    // `check --json`: ok, with what was left out as placed notes.
    let (ok, stdout, stderr) = run(&["check", "--json", "."], dir.path());
    assert!(ok, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["ok"], true);
    let noted: Vec<String> = report["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| format!("{}:{}", n["file"].as_str().unwrap(), n["line"]))
        .collect();
    assert!(noted.iter().any(|n| n.ends_with("topic.md:1")), "{report:#}");
    assert!(noted.iter().any(|n| n.ends_with("broken.md:2")), "{report:#}");
}

#[test]
fn with_a_configuration_file_the_same_folder_is_refused_with_every_problem_placed() {
    let dir = foreign_prompts();
    write(&dir.path().join("switchboard.toml"), "[server]\nname = \"blog\"\n");
    let (ok, _, stderr) = run(&["check", "."], dir.path());
    assert!(!ok, "{stderr}");
    let topic = line_about(&stderr, "topic.md").unwrap_or_else(|| panic!("topic.md not reported:\n{stderr}"));
    assert!(topic.contains("prompts/topic.md:1:1: not a prompt file: it has no front matter"), "{topic}");
    assert!(topic.contains("add front matter to make it a prompt"), "says how to fix it: {topic}");
    let broken =
        line_about(&stderr, "broken.md").unwrap_or_else(|| panic!("broken.md not reported:\n{stderr}"));
    let place = broken.split(": ").next().unwrap();
    let mut parts = place.rsplitn(3, ':');
    let (column, line) = (parts.next().unwrap(), parts.next().unwrap());
    assert_eq!(line, "2", "{broken}");
    assert!(column.parse::<usize>().is_ok_and(|c| c >= 1), "{broken}");
    assert!(line_about(&stderr, "README.md").is_none(), "a README is never a problem:\n{stderr}");
    assert!(stderr.contains("2 problems"), "{stderr}");

    // serve refuses it the same way: all or nothing.
    let (ok, _, stderr) = run(&["serve", "."], dir.path());
    assert!(!ok);
    assert!(stderr.contains("topic.md:1:1:"), "{stderr}");
}

#[test]
fn hot_reload_with_no_configuration_notes_prompt_files_and_keeps_serving() {
    let dir = foreign_prompts();
    let prompts = dir.path().join("prompts");
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    switchboard.result("logging/setLevel", json!({"level": "warning"}));

    // A broken edit of a served prompt: noted, and its last good version stays.
    write(&prompts.join("greet.md"), "---\narguments:\n  - name: who\n---\n{% if %}\n");
    let stderr = switchboard.wait_stderr("greet.md:5:");
    let note = line_about(&stderr, "greet.md:5:").unwrap();
    assert!(note.contains("the last good version of prompt \"greet\" stays in force"), "{note}");
    let message = switchboard.notification("notifications/message", None);
    assert_eq!(message["params"]["level"], "warning", "{message}");
    let notes = message["params"]["data"]["notes"].as_array().unwrap();
    assert!(notes.iter().any(|n| n.as_str().unwrap().contains("greet.md:5:")), "{message}");
    let got = switchboard.result("prompts/get", json!({"name": "greet", "arguments": {"who": "Ada"}}));
    assert_eq!(got["messages"][0]["content"]["text"], "Hello Ada!");

    // A new file without front matter and a fix, together: the fix applies.
    write(&prompts.join("outline.md"), "Outline {{ topic }}.\n");
    write(&prompts.join("greet.md"), GREET.replace("Hello", "Hi").as_str());
    switchboard.wait_stderr("outline.md:1:1: skipped, not a prompt file");
    let deadline = std::time::Instant::now() + common::WAIT;
    loop {
        let got = switchboard.result("prompts/get", json!({"name": "greet", "arguments": {"who": "Ada"}}));
        if got["messages"][0]["content"]["text"] == "Hi Ada!" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the fix never applied: {got}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(prompt_names(&mut switchboard), ["greet", "code_review", "explain_code", "write_tests"]);
    switchboard.finish();
}

#[test]
fn hot_reload_with_a_configuration_file_refuses_a_broken_prompt_edit() {
    let dir = tempfile::tempdir().unwrap();
    let prompts = dir.path().join("prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    write(&prompts.join("greet.md"), GREET);
    write(&prompts.join("README.md"), "# Our prompts\n");
    write(&dir.path().join("switchboard.toml"), "[prompts]\nbuiltin = false\n");
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    assert_eq!(prompt_names(&mut switchboard), ["greet"], "a README is no problem here either");

    write(&prompts.join("outline.md"), "Outline {{ topic }}.\n");
    let stderr = switchboard.wait_stderr("last good configuration stays in force");
    assert!(stderr.contains("outline.md:1:1: not a prompt file"), "{stderr}");
    assert_eq!(prompt_names(&mut switchboard), ["greet"]);
    switchboard.finish();
}

#[test]
fn source_files_are_served_with_their_language_type() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("a.ts"), "export const a = 1;\n");
    write(&dir.path().join("B.java"), "class B {}\n");
    write(&dir.path().join("c.py"), "print('c')\n");
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    let listed = switchboard.result("resources/list", json!({}));
    let types: Vec<(&str, &str)> = listed["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["uri"].as_str().unwrap(), r["mimeType"].as_str().unwrap()))
        .collect();
    assert_eq!(
        types,
        [
            ("file:///B.java", "text/x-java"),
            ("file:///a.ts", "text/typescript"),
            ("file:///c.py", "text/x-python")
        ]
    );
    switchboard.finish();
}
