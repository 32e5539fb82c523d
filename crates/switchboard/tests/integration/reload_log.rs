//! A configuration edit that does not load reaches the connected client as
//! a log message, not only stderr (which a desktop host's user never sees).

use crate::common;

use common::Switchboard;
use serde_json::json;

#[test]
fn a_bad_reload_is_logged_to_clients_that_asked_for_logs() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("switchboard.toml");
    std::fs::write(&config, "[server]\nname = \"demo\"\n").unwrap();
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    switchboard.result("logging/setLevel", json!({"level": "warning"}));
    std::fs::write(&config, "[server]\nname = \"demo\"\n\n[prompts]\nbuiltin = \n").unwrap();
    let message = switchboard.notification("notifications/message", None);
    let params = &message["params"];
    assert_eq!(params["level"], "error", "{message}");
    assert_eq!(params["logger"], "switchboard", "{message}");
    assert!(params["data"]["message"].as_str().unwrap().contains("last good configuration"), "{message}");
    let problem = params["data"]["problems"][0].as_str().unwrap();
    assert!(problem.contains("switchboard.toml:5:"), "placed at its line: {problem}");
    // The server keeps serving the last good configuration.
    assert_eq!(switchboard.result("ping", json!({})), json!({}));
    switchboard.finish();
}

#[test]
fn clients_that_asked_for_nothing_above_error_hear_nothing_lower() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("switchboard.toml");
    std::fs::write(&config, "[server]\nname = \"demo\"\n").unwrap();
    let mut switchboard = Switchboard::start(&["serve", "."], dir.path());
    switchboard.result("logging/setLevel", json!({"level": "emergency"}));
    std::fs::write(&config, "[server]\nname = \"demo\"\n\n[prompts]\nbuiltin = \n").unwrap();
    switchboard.wait_stderr("last good configuration stays in force");
    // Time for a wrongly delivered message to arrive before looking.
    std::thread::sleep(std::time::Duration::from_millis(300));
    switchboard.result("ping", json!({}));
    assert!(
        switchboard.received().iter().all(|m| m["method"] != "notifications/message"),
        "an error is below the emergency threshold"
    );
    switchboard.finish();
}
