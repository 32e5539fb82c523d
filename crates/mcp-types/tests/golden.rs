//! Golden round trips: fixtures modeled on the specification's examples
//! (`docs/specification/<rev>/**` and `schema/<rev>/examples/**`) are read
//! into the Rust types, written back, and compared as JSON values.

use std::path::Path;

use mcp_types::completion::{CompleteParams, CompleteResult};
use mcp_types::jsonrpc::MessageKind;
use mcp_types::logging::LoggingMessageParams;
use mcp_types::notifications::{CancelledParams, ProgressParams};
use mcp_types::subscriptions::ListenParams;
use mcp_types::{
    CallToolResult, DiscoverResult, ErrorObject, GetPromptResult, IncomingMessage, InitializeParams,
    InitializeResult, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Reads `file` into `T`, writes it back, and compares.
fn round_trip<T: DeserializeOwned + Serialize>(file: &str) {
    let text = std::fs::read_to_string(fixtures().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let original: Value = serde_json::from_str(&text).unwrap();
    let typed: T = serde_json::from_value(original.clone()).unwrap_or_else(|e| panic!("{file}: {e}"));
    let back = serde_json::to_value(&typed).unwrap();
    assert_eq!(numbers_as_f64(back), numbers_as_f64(original), "{file} does not round-trip");
}

/// JSON compares numbers by value: `50` and `50.0` are the same number
/// (progress values are floats in Rust and integers in the spec's examples).
fn numbers_as_f64(v: Value) -> Value {
    match v {
        Value::Number(n) => n.as_f64().map_or(Value::Number(n), |f| serde_json::json!(f)),
        Value::Array(a) => Value::Array(a.into_iter().map(numbers_as_f64).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, numbers_as_f64(v))).collect()),
        other => other,
    }
}

/// Every fixture and the type it is checked against: a fixture missing here
/// fails `every_fixture_is_checked`.
type Check = (&'static str, fn(&str));

const TYPED: &[Check] = &[
    ("Tool-get_weather.json", round_trip::<Tool>),
    ("Tool-minimal.json", round_trip::<Tool>),
    ("CallToolResult-text.json", round_trip::<CallToolResult>),
    ("CallToolResult-structured.json", round_trip::<CallToolResult>),
    ("CallToolResult-all-content.json", round_trip::<CallToolResult>),
    ("CallToolResult-error.json", round_trip::<CallToolResult>),
    ("InitializeParams-2025-06-18.json", round_trip::<InitializeParams>),
    ("InitializeParams-2024-11-05.json", round_trip::<InitializeParams>),
    ("InitializeResult-2025-11-25.json", round_trip::<InitializeResult>),
    ("DiscoverResult.json", round_trip::<DiscoverResult>),
    ("Resource.json", round_trip::<Resource>),
    ("ResourceTemplate.json", round_trip::<ResourceTemplate>),
    ("ReadResourceResult-text.json", round_trip::<ReadResourceResult>),
    ("ReadResourceResult-blob.json", round_trip::<ReadResourceResult>),
    ("Prompt.json", round_trip::<Prompt>),
    ("GetPromptResult.json", round_trip::<GetPromptResult>),
    ("CompleteParams-prompt.json", round_trip::<CompleteParams>),
    ("CompleteParams-resource-context.json", round_trip::<CompleteParams>),
    ("CompleteResult.json", round_trip::<CompleteResult>),
    ("ProgressParams-string.json", round_trip::<ProgressParams>),
    ("ProgressParams-integer.json", round_trip::<ProgressParams>),
    ("CancelledParams.json", round_trip::<CancelledParams>),
    ("ListenParams.json", round_trip::<ListenParams>),
    ("LoggingMessageParams.json", round_trip::<LoggingMessageParams>),
    ("ErrorObject-unsupported-version.json", round_trip::<ErrorObject>),
    ("ErrorObject-resource-not-found.json", round_trip::<ErrorObject>),
];

#[test]
fn spec_examples_round_trip() {
    for (file, check) in TYPED {
        check(file);
    }
}

#[test]
fn envelopes_classify() {
    let kind = |file: &str| {
        let bytes = std::fs::read(fixtures().join("messages").join(file)).unwrap();
        let message = IncomingMessage::parse(&bytes).unwrap();
        match message.kind().unwrap() {
            MessageKind::Request { id, method, .. } => format!("request {id} {method}"),
            MessageKind::Notification { method, .. } => format!("notification {method}"),
            MessageKind::Response { id } => format!("response {id}"),
        }
    };
    assert_eq!(kind("request.json"), "request 1 tools/call");
    assert_eq!(kind("request-string-id.json"), "request \"req-1\" server/discover");
    assert_eq!(kind("notification.json"), "notification notifications/tools/list_changed");
    assert_eq!(kind("response.json"), "response \"srv-1\"");
    assert_eq!(kind("error-response.json"), "response 3");
}

#[test]
fn every_fixture_is_checked() {
    let mut files: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut checked: Vec<String> = TYPED.iter().map(|(f, _)| (*f).to_owned()).collect();
    checked.sort();
    assert_eq!(files, checked, "add new fixtures to TYPED");
}
