//! The official MCP conformance suite (`@modelcontextprotocol/conformance`)
//! against the real `switchboard` binary over Streamable HTTP on loopback,
//! in the two releases `conformance/package.json` pins: 0.1.16, the current
//! release, and 0.2.0-alpha.12, the pre-release line that tests 2026-07-28
//! (its `--suite all` and the scenarios each revision requires, as the SDK
//! tiers are judged). `conformance/run.sh` installs both and the Node 22
//! they need from the npm registry into `conformance/node_modules` on first
//! use; these tests fail (never skip) when that is impossible.
//!
//! A run passes when exactly the scenarios its expected-failures file lists
//! fail: 0.1.16 lists none; 0.2.0-alpha.12 lists only what needs multi
//! round-trip requests or the tasks extension, not built yet. A listed
//! scenario that passes fails the run, so the lists shrink as those land.
//! The runs share one build directory's worth of cores and the first one
//! installs the suites, so they take turns. A fifth run, alpha-skills,
//! serves a skills folder on disk for the suite's `sep-2640-skills-*`
//! scenarios, where a skipped check fails too.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// One run at a time: the first installs the suites, and parallel runs
/// would compete for two cores against the suite's own timeouts.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance")
}

/// Runs `conformance/run.sh` for one run and asserts that it passed.
fn passes(run: &str) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let output = Command::new("bash")
        .arg(conformance_dir().join("run.sh"))
        .arg(env!("CARGO_BIN_EXE_switchboard"))
        .arg(run)
        .output()
        .expect("bash runs conformance/run.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "conformance run {run} failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("Total:"), "the suite ran no scenario:\n{stdout}");
    assert!(stdout.contains(&format!("== run {run}: exit status 0")), "{stdout}");
}

/// The scenario names an expected-failures file lists.
fn listed(file: &str) -> Vec<String> {
    let text = std::fs::read_to_string(conformance_dir().join(file)).expect("the file exists");
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(|name| name.trim().to_owned())
        .collect()
}

#[test]
fn conformance_0_1_16_passes_every_scenario() {
    passes("stable");
}

#[test]
fn conformance_0_2_alpha_passes_all_but_mrtr_and_tasks() {
    passes("alpha-all");
}

#[test]
fn conformance_0_2_alpha_passes_what_2025_11_25_requires() {
    passes("alpha-2025-11-25");
}

#[test]
fn conformance_0_2_alpha_passes_what_2026_07_28_requires_but_mrtr_and_tasks() {
    passes("alpha-2026-07-28");
}

/// The suite's skills scenarios against a skills folder on disk
/// (`conformance/skills-folder`): each passes with no check skipped.
#[test]
fn conformance_0_2_alpha_skills_scenarios_pass_with_nothing_skipped() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let output = Command::new("bash")
        .arg(conformance_dir().join("run.sh"))
        .arg(env!("CARGO_BIN_EXE_switchboard"))
        .arg("alpha-skills")
        .output()
        .expect("bash runs conformance/run.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "conformance run alpha-skills failed:\n{stdout}\n{stderr}");
    for scenario in ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"] {
        assert!(
            stdout.contains(&format!("Running client scenario '{scenario}'")),
            "{scenario} did not run:\n{stdout}"
        );
    }
    assert!(stdout.contains("scenarios: 3 of 3 pass"), "{stdout}");
    assert!(!stdout.contains("SKIPPED"), "{stdout}");
    assert!(stdout.contains("== run alpha-skills: exit status 0"), "{stdout}");
}

#[test]
fn expected_failures_name_only_mrtr_and_tasks_scenarios() {
    assert_eq!(listed("expected-failures.yml"), Vec::<String>::new());
    for name in listed("expected-failures-alpha.yml") {
        assert!(
            name.starts_with("input-required-result-") || name.starts_with("tasks-"),
            "{name} is neither an MRTR nor a tasks scenario"
        );
    }
}
