//! Builds and runs the example binary, then talks to it over stdio as a
//! client would: newline-delimited JSON-RPC on its stdin and stdout.

use std::process::Command;

use switchboard_testkit::process::StdioProcess;

use serde_json::{Value, json};

/// Starts the binary and completes the `initialize` handshake.
fn start(args: &[&str]) -> StdioProcess {
    let mut command = Command::new(env!("CARGO_BIN_EXE_example-prompts"));
    command.args(args);
    StdioProcess::initialized(command, "2025-06-18")
}

fn complete(c: &mut StdioProcess, prompt: &str, argument: &str, value: &str, context: Value) -> Value {
    let params = json!({
        "ref": {"type": "ref/prompt", "name": prompt},
        "argument": {"name": argument, "value": value},
        "context": {"arguments": context},
    });
    c.result("completion/complete", params)["completion"].clone()
}

#[test]
fn lists_the_prompts_with_their_arguments() {
    let mut c = start(&[]);
    let list = c.result("prompts/list", json!({}));
    let review = &list["prompts"][0];
    assert_eq!(review["name"], "review");
    assert_eq!(
        review["arguments"],
        json!([
            {"name": "code", "description": "The code to review.", "required": true},
            {"name": "language", "description": "Its programming language.", "required": false},
        ])
    );
    assert_eq!(list["prompts"][1]["name"], "translate");
    assert_eq!(list["prompts"][1]["arguments"].as_array().unwrap().len(), 3);
}

#[test]
fn renders_a_prompt() {
    let mut c = start(&[]);
    let r = c.result(
        "prompts/get",
        json!({"name": "review", "arguments": {"code": "fn main() {}", "language": "Rust"}}),
    );
    assert_eq!(
        r["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Review Rust code for bugs and unclear names:\n\nfn main() {}"}}])
    );
    // The optional argument may be left out.
    let r = c.result("prompts/get", json!({"name": "review", "arguments": {"code": "x"}}));
    assert!(r["messages"][0]["content"]["text"].as_str().unwrap().starts_with("Review this code"), "{r}");
    let r = c.result(
        "prompts/get",
        json!({"name": "translate", "arguments": {"text": "Olá", "from": "Portuguese", "to": "English"}}),
    );
    assert_eq!(r["messages"][0]["content"]["text"], "Translate from Portuguese to English:\n\nOlá");
}

#[test]
fn completes_from_a_list() {
    let mut c = start(&[]);
    let r = complete(&mut c, "review", "language", "ja", json!({}));
    assert_eq!(r, json!({"values": ["Java", "JavaScript"], "total": 2, "hasMore": false}));
    // Case-insensitive prefix match.
    assert_eq!(complete(&mut c, "review", "language", "RU", json!({}))["values"], json!(["Rust"]));
    assert_eq!(complete(&mut c, "review", "language", "", json!({}))["values"].as_array().unwrap().len(), 9);
    assert_eq!(complete(&mut c, "review", "language", "cobol", json!({}))["values"], json!([]));
    // An argument without a completer completes to nothing.
    assert_eq!(complete(&mut c, "review", "code", "f", json!({}))["values"], json!([]));
}

#[test]
fn completes_with_the_other_arguments_in_context() {
    let mut c = start(&[]);
    let all = complete(&mut c, "translate", "to", "", json!({}));
    assert_eq!(all["values"].as_array().unwrap().len(), 5);
    let r = complete(&mut c, "translate", "to", "", json!({"from": "French"}));
    assert_eq!(r["values"], json!(["English", "German", "Portuguese", "Spanish"]));
    let r = complete(&mut c, "translate", "to", "s", json!({"from": "English"}));
    assert_eq!(r["values"], json!(["Spanish"]));
}

#[test]
fn bad_requests_get_the_spec_errors() {
    let mut c = start(&[]);
    // A required argument missing: invalid params.
    let r = c.request("prompts/get", json!({"name": "review", "arguments": {}}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("code"), "{r}");
    // Refused by the prompt itself.
    let r = c.request(
        "prompts/get",
        json!({"name": "translate", "arguments": {"text": "a", "from": "French", "to": "French"}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("must differ"), "{r}");
    // Unknown prompt, for prompts/get and for completion.
    let r = c.request("prompts/get", json!({"name": "nope", "arguments": {}}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = c.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
}
