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
    assert_eq!(report["summary"]["resources"], 1, "README.md (switchboard.toml is never served)");
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

/// The lines of `stderr` that are problems of `file`, as (line, column, message).
fn problems_in(stderr: &str, file: &str) -> Vec<(usize, usize, String)> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("{file}:")))
        .map(|rest| {
            let mut parts = rest.splitn(3, ':');
            let line = parts.next().unwrap().parse().unwrap();
            let column = parts.next().unwrap().parse().unwrap();
            (line, column, parts.next().unwrap().trim().to_owned())
        })
        .collect()
}

#[test]
fn check_reports_the_file_its_prompt_files_and_skills_together_with_every_problem_of_each() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("switchboard.toml"), "[server]\ntitel = \"Demo\"\n").unwrap();
    std::fs::create_dir_all(dir.path().join("prompts")).unwrap();
    // Three problems in one prompt file: an argument name, and two
    // variables no argument declares, on two lines.
    std::fs::write(
        dir.path().join("prompts/review.md"),
        "---\ndescription: Review\narguments:\n  - name: 2bad\n  - name: code\n---\nReview {{ code }} in {{ langauge }}.\n\nThen {{ stlye }}.\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("skills/pdf")).unwrap();
    // Two problems in one SKILL.md: the name is not the folder's, no description.
    std::fs::write(dir.path().join("skills/pdf/SKILL.md"), "---\nname: pdf-tools\n---\nUse it.\n").unwrap();
    let (status, _, stderr) = switchboard(&["check"], dir.path());
    assert_eq!(status, 3, "{stderr}");
    let toml = problems_in(&stderr, "switchboard.toml");
    assert_eq!(toml.len(), 1, "{stderr}");
    assert_eq!((toml[0].0, toml[0].1), (2, 1), "{stderr}");
    let prompt = problems_in(&stderr, "prompts/review.md");
    let places: Vec<(usize, usize)> = prompt.iter().map(|(l, c, _)| (*l, *c)).collect();
    assert_eq!(places, [(4, 11), (7, 25), (9, 9)], "{stderr}");
    assert!(prompt[0].2.contains("\"2bad\""), "{stderr}");
    assert!(prompt[1].2.contains("`langauge`") && prompt[2].2.contains("`stlye`"), "{stderr}");
    let skill = problems_in(&stderr, "skills/pdf/SKILL.md");
    assert_eq!(skill.len(), 2, "{stderr}");
    assert!(skill[0].2.contains("must equal the skill's folder name"), "{stderr}");
    assert!(skill[1].2.contains("needs a `description`"), "{stderr}");
    // A file that is not TOML at all names no folders: the default ones
    // are checked in the same run.
    std::fs::write(dir.path().join("switchboard.toml"), "[server\ntitle = \"Demo\"\n").unwrap();
    let (status, _, stderr) = switchboard(&["check"], dir.path());
    assert_eq!(status, 3, "{stderr}");
    assert_eq!(problems_in(&stderr, "switchboard.toml").len(), 1, "{stderr}");
    assert_eq!(problems_in(&stderr, "prompts/review.md").len(), 3, "{stderr}");
    assert_eq!(problems_in(&stderr, "skills/pdf/SKILL.md").len(), 2, "{stderr}");
}

#[test]
fn a_command_tools_schema_error_and_its_placeholder_typo_are_both_reported() {
    let dir = tempfile::tempdir().unwrap();
    let config = r#"[[tools.command]]
name = "grep"
description = "Searches."
command = ["grep", "--", "{patern}"]
input_schema = { type = "array", properties = { pattern = { type = "string" } } }
"#;
    std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
    let (status, _, stderr) = switchboard(&["check"], dir.path());
    assert_eq!(status, 3, "{stderr}");
    let problems = problems_in(&stderr, "switchboard.toml");
    assert_eq!(problems.len(), 2, "{stderr}");
    assert_eq!(problems[0].0, 4, "the placeholder typo, in the command: {stderr}");
    assert!(problems[0].2.contains("{patern}"), "{stderr}");
    assert_eq!(problems[1].0, 5, "the schema: {stderr}");
}

#[test]
fn http_auth_problems_are_placed_at_their_keys() {
    let dir = tempfile::tempdir().unwrap();
    let config = r#"[server]
name = "demo"

[http.auth]
resource = "ftp://mcp.example.com/mcp"
authorization_servers = ["https://auth.example.com"]

[[http.auth.tokens]]
subject = "ci"
env = "SWITCHBOARD_CHECK_SURELY_UNSET_TOKEN"
"#;
    std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
    let (status, _, stderr) = switchboard(&["check"], dir.path());
    assert_eq!(status, 3, "{stderr}");
    let problems = problems_in(&stderr, "switchboard.toml");
    let places: Vec<(usize, usize)> = problems.iter().map(|(l, c, _)| (*l, *c)).collect();
    assert_eq!(places, [(5, 12), (10, 7)], "{stderr}");
    assert!(problems[0].2.contains("resource must be this server's URL"), "{stderr}");
    assert!(problems[1].2.contains("SWITCHBOARD_CHECK_SURELY_UNSET_TOKEN"), "{stderr}");
}

#[test]
fn a_literal_credential_is_a_placed_problem_and_a_variable_is_fine() {
    let dir = tempfile::tempdir().unwrap();
    let tool = |auth: &str| {
        format!(
            "[[tools.http]]\nname = \"api\"\ndescription = \"Calls the API.\"\nurl = \"https://api.example.com/items\"\n\
             headers = {{ Authorization = \"{auth}\" }}\n\n[[upstreams]]\nname = \"remote\"\n\
             url = \"https://mcp.example.com/mcp?api_key=k3y-literal\"\n"
        )
    };
    let token = "sk-abcdefghijklmnopqrstuvwxyz012345";
    std::fs::write(dir.path().join("switchboard.toml"), tool(&format!("Bearer {token}"))).unwrap();
    let (status, _, stderr) = switchboard(&["check"], dir.path());
    assert_eq!(status, 3, "{stderr}");
    let problems = problems_in(&stderr, "switchboard.toml");
    let places: Vec<(usize, usize)> = problems.iter().map(|(l, c, _)| (*l, *c)).collect();
    assert_eq!(places, [(5, 29), (9, 7)], "{stderr}");
    assert!(problems[0].2.contains("${NAME}") && problems[0].2.contains("env_file"), "{stderr}");
    assert!(problems[1].2.contains("\"api_key\""), "{stderr}");
    assert!(
        !stderr.contains(token) && !stderr.contains("k3y-literal"),
        "the secret is never repeated: {stderr}"
    );

    // Written as a variable (set where switchboard starts), the file is fine.
    let fine = tool("Bearer ${SWITCHBOARD_CHECK_TOKEN}").replace("?api_key=k3y-literal", "");
    std::fs::write(dir.path().join("switchboard.toml"), fine).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("check")
        .current_dir(dir.path())
        .env("SWITCHBOARD_CHECK_TOKEN", "t")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}
