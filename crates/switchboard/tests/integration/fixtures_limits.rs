//! `serve --fixtures … --config FILE` applies the file's `[limits]` (the
//! real binary over stdio): a rate limit and a message size limit set there
//! hold for the fixtures, which without a configuration keep the library's.

use serde_json::{Value, json};

use crate::common;
use common::Switchboard;

fn echo(switchboard: &mut Switchboard, message: &str) -> Value {
    switchboard.request("tools/call", json!({"name": "echo", "arguments": {"message": message}}))
}

#[test]
fn the_fixtures_honour_the_limits_of_a_given_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limits.toml");
    std::fs::write(
        &config,
        "[limits]\ntool_calls_per_minute = 1\ntool_calls_burst = 1\nmax_message_size = 2048\n",
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let mut limited = Switchboard::start(&["serve", "--fixtures", "bench", "--config", config], dir.path());
    assert_eq!(echo(&mut limited, "first")["result"]["content"][0]["text"], "first");
    let refused = echo(&mut limited, "second");
    assert_eq!(refused["error"]["code"], -32029, "the second call in the minute is refused: {refused}");
    // Too large to be read at all: refused with an error naming the limit
    // (its id unread, so null).
    limited.send(&json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": "x".repeat(4096)}}}));
    let too_large = limited.next_message();
    assert_eq!(too_large["id"], Value::Null, "{too_large}");
    assert!(too_large["error"]["message"].as_str().unwrap().contains("2048"), "{too_large}");
    limited.finish();

    // The same calls without the configuration all pass.
    let mut unlimited = Switchboard::start(&["serve", "--fixtures", "bench"], dir.path());
    for message in ["first", "second", "third"] {
        assert_eq!(echo(&mut unlimited, message)["result"]["content"][0]["text"], message);
    }
    unlimited.finish();
}
