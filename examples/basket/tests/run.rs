//! Builds and runs the example binary, then talks to it over stdio as a
//! client would: newline-delimited JSON-RPC on its stdin and stdout.

use std::process::Command;

use switchboard_testkit::process::StdioProcess;

use serde_json::{Value, json};

/// Starts the binary and completes the `initialize` handshake.
fn start(args: &[&str]) -> StdioProcess {
    let mut command = Command::new(env!("CARGO_BIN_EXE_example-basket"));
    command.args(args);
    StdioProcess::initialized(command, "2025-06-18")
}

fn call(c: &mut StdioProcess, name: &str, arguments: Value) -> Value {
    c.result("tools/call", json!({"name": name, "arguments": arguments}))
}

#[test]
fn lists_the_four_tools() {
    let mut c = start(&[]);
    let tools = c.result("tools/list", json!({}));
    let mut names: Vec<&str> =
        tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["basket_add", "basket_checkout", "basket_create", "basket_view"]);
    for tool in tools["tools"].as_array().unwrap() {
        assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
    }
}

#[test]
fn create_add_view_checkout() {
    let mut c = start(&[]);
    let created = call(&mut c, "basket_create", json!({}));
    let handle = created["structuredContent"]["handle"].as_str().unwrap().to_owned();
    assert!(handle.starts_with("basket_"), "{handle}");

    call(&mut c, "basket_add", json!({"handle": handle, "item": "apple", "qty": 3}));
    let added = call(&mut c, "basket_add", json!({"handle": handle, "item": "bread", "qty": 1}));
    assert_eq!(added["structuredContent"]["total_cents"], 3 * 40 + 250, "{added}");
    call(&mut c, "basket_add", json!({"handle": handle, "item": "apple", "qty": 2}));

    let view = call(&mut c, "basket_view", json!({"handle": handle}));
    assert_eq!(
        view["structuredContent"],
        json!({
            "lines": [
                {"item": "apple", "qty": 5, "cents": 200},
                {"item": "bread", "qty": 1, "cents": 250},
            ],
            "total_cents": 450,
        })
    );

    let receipt = call(&mut c, "basket_checkout", json!({"handle": handle}));
    assert_ne!(receipt["isError"], true, "{receipt}");
    assert_eq!(receipt["structuredContent"]["total_cents"], 450);

    // Checked out: the handle is gone.
    let gone = call(&mut c, "basket_view", json!({"handle": handle}));
    assert_eq!(gone["isError"], true, "{gone}");
}

#[test]
fn baskets_are_separate() {
    let mut c = start(&[]);
    let a = call(&mut c, "basket_create", json!({}))["structuredContent"]["handle"].clone();
    let b = call(&mut c, "basket_create", json!({}))["structuredContent"]["handle"].clone();
    assert_ne!(a, b);
    call(&mut c, "basket_add", json!({"handle": a, "item": "milk", "qty": 1}));
    let view = call(&mut c, "basket_view", json!({"handle": b}));
    assert_eq!(view["structuredContent"], json!({"lines": [], "total_cents": 0}));
}

#[test]
fn a_forged_handle_is_refused_with_a_recovery_hint() {
    let mut c = start(&[]);
    for tool in ["basket_view", "basket_checkout"] {
        let r = call(&mut c, tool, json!({"handle": "basket_AAAAAAAAAAAAAAAAAAAAAA"}));
        assert_eq!(r["isError"], true, "{r}");
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("unknown basket handle"), "{text}");
        assert!(text.contains("call basket_create"), "{text}");
    }
    let r = call(&mut c, "basket_add", json!({"handle": "forged", "item": "apple", "qty": 1}));
    assert_eq!(r["isError"], true, "{r}");
}

#[test]
fn invalid_arguments_are_tool_errors() {
    let mut c = start(&[]);
    let handle = call(&mut c, "basket_create", json!({}))["structuredContent"]["handle"].clone();
    // Outside the input schema: qty must be 1 to 99, and handle is required.
    for arguments in [
        json!({"handle": handle, "item": "apple", "qty": 0}),
        json!({"handle": handle, "item": "apple", "qty": "two"}),
        json!({"item": "apple", "qty": 1}),
    ] {
        let r = call(&mut c, "basket_add", arguments);
        assert_eq!(r["isError"], true, "{r}");
    }
    // Refused by the tool itself.
    let r = call(&mut c, "basket_add", json!({"handle": handle, "item": "caviar", "qty": 1}));
    assert_eq!(r["isError"], true, "{r}");
    assert!(r["content"][0]["text"].as_str().unwrap().contains("the shop sells apple"), "{r}");
    let r = call(&mut c, "basket_checkout", json!({"handle": handle}));
    assert_eq!(r["isError"], true, "{r}");
    assert!(r["content"][0]["text"].as_str().unwrap().contains("empty"), "{r}");
    // The failed checkout left the basket usable.
    let r = call(&mut c, "basket_view", json!({"handle": handle}));
    assert_ne!(r["isError"], true, "{r}");
}
