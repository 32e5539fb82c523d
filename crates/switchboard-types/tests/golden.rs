//! Golden round trips for the wire types.
//!
//! Every file under `tests/fixtures/<revision>/` is a JSON document typed in
//! after an example of that revision of the MCP specification
//! (`docs/specification/<rev>/**`, `schema/<rev>/schema.ts`,
//! `schema/2026-07-28/examples/**`) and is named `<TypeName>-<case>.json`.
//! The table [`CASES`] says how each one is checked:
//!
//! * `typed!(file, T)`: the document is read into `T`, written back, and the
//!   two are compared as `serde_json::Value`s. The comparison is semantic
//!   (object member order is ignored, numbers compare by value, so the `50` of
//!   a spec example equals the `50.0` an `f64` field writes back) but nothing
//!   else is forgiven: a member the model drops or adds is a failure. What is
//!   written back must also read into an equal `T`.
//! * `envelope!(file, kind[, T])`: a whole JSON-RPC message, read with
//!   `IncomingMessage::parse` and classified with `.kind()`; the result is
//!   compared with `kind` (`request <id> <method>`, `notification <method>`
//!   or `response <id>`) and the payload (`params`, `result` or `error`) is
//!   round-tripped through `T` as above. A row without `T` asserts that the
//!   message has no payload.
//!
//! `every_fixture_is_in_the_table` fails for a fixture without a row (and for
//! a row without a fixture), so a new fixture cannot go unchecked.
//!
//! # What the fixtures leave out, and why
//!
//! The fixtures hold only what the Rust model keeps, so that each one
//! round-trips exactly. Parts of the specification's examples that the model
//! does not keep were left out of the fixtures on purpose:
//!
//! * 2026-07-28 results: the `resultType` member, the cache hints `ttlMs` and
//!   `cacheScope`, and the result-level `_meta` (its server-info and
//!   subscription-id keys). No result type models the first three, and of the
//!   results only `CallToolResult` models `_meta`. `switchboard-server` adds all of
//!   them to the serialized result map (`lifecycle/decorate.rs`, `lifecycle/listen.rs`). The
//!   2026-07-28 directory therefore has no result envelopes; a 2026-07-28
//!   server sends no requests, so it never reads a response anyway.
//! * 2026-07-28 request `_meta` (protocol version, client info, client
//!   capabilities) on the `completion/complete` and `subscriptions/listen`
//!   params: `CompleteParams` and `ListenParams` have no `_meta` member;
//!   `switchboard-server` reads those keys from the raw params. The same goes for the
//!   notification `_meta` of progress, cancellation, log and
//!   subscription-acknowledged params. The envelope fixtures that do carry a
//!   request `_meta` use params types that model it (`CallToolParams`,
//!   `UriParams`, `EmptyParams`).
//! * The embedded-resource example in `server/tools.mdx` (2025-06-18 and
//!   later) puts `annotations` inside the `resource` contents object, where no
//!   revision's `schema.ts` has it and where `TextResourceContents` has no
//!   such member, so it would be dropped. The fixtures follow the schema
//!   (and `schema/2026-07-28/examples/EmbeddedResource`): `annotations` sits
//!   on the embedded-resource object itself.
//! * A `ref/prompt` completion reference may carry a `title` since 2025-06-18
//!   (`PromptReference` extends `BaseMetadata`); `CompletionReference::Prompt`
//!   keeps only `name`. No spec example uses it.
//! * 2025-11-25 made `requestId` of cancellation params optional (for tasks);
//!   `CancelledParams` requires it, so a cancellation without one does not
//!   parse (the dispatcher ignores it, as it must ignore any notification it
//!   cannot use). No fixture has one.
//! * An error object with an explicit null `data` reads as one without
//!   `data` and is written back without it. No spec example has one.
//!
//! The fixtures directly under `tests/fixtures/` (and `messages/`) predate the
//! per-revision layout; they are still checked, by [`LEGACY`].

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use switchboard_types::completion::{CompleteParams, CompleteResult};
use switchboard_types::jsonrpc::{IncomingMessage, JSONRPC_VERSION, MessageKind};
use switchboard_types::logging::LoggingMessageParams;
use switchboard_types::notifications::{CancelledParams, EmptyParams, ProgressParams};
use switchboard_types::pagination::PaginatedParams;
use switchboard_types::prompts::GetPromptParams;
use switchboard_types::resources::{ListResourceTemplatesResult, ListResourcesResult, UriParams};
use switchboard_types::subscriptions::ListenParams;
use switchboard_types::{
    CallToolParams, CallToolResult, ClientCapabilities, DiscoverResult, ErrorObject, GetPromptResult,
    InitializeParams, InitializeResult, ListToolsResult, Prompt, ProtocolVersion, ReadResourceResult,
    Resource, ResourceTemplate, ServerCapabilities, Tool,
};

/// Reads a document into a type, writes it back and compares; the first
/// argument names the document in failure messages.
type RoundTrip = fn(&str, &Value) -> Result<(), String>;

/// How one fixture is checked.
enum Check {
    /// The whole document round-trips through the named type.
    Typed { type_name: &'static str, round_trip: RoundTrip },
    /// A JSON-RPC message: its kind, then its payload (if a type is named).
    Envelope { kind: &'static str, payload: Option<(&'static str, RoundTrip)> },
}

/// One row of the table: a path under `tests/fixtures` and its check.
struct Case {
    file: &'static str,
    check: Check,
}

macro_rules! typed {
    ($file:literal, $ty:ident) => {
        Case {
            file: $file,
            check: Check::Typed { type_name: stringify!($ty), round_trip: round_trip::<$ty> },
        }
    };
}

macro_rules! envelope {
    ($file:literal, $kind:literal) => {
        Case { file: $file, check: Check::Envelope { kind: $kind, payload: None } }
    };
    ($file:literal, $kind:literal, $ty:ident) => {
        Case {
            file: $file,
            check: Check::Envelope { kind: $kind, payload: Some((stringify!($ty), round_trip::<$ty>)) },
        }
    };
}

/// Every per-revision fixture and how it is checked.
const CASES: &[Case] = &[
    // 2024-11-05
    typed!("2024-11-05/InitializeParams-example-client.json", InitializeParams),
    typed!("2024-11-05/InitializeResult-example-server.json", InitializeResult),
    typed!("2024-11-05/ServerCapabilities-resources-neither-feature.json", ServerCapabilities),
    typed!("2024-11-05/ServerCapabilities-resources-subscribe-only.json", ServerCapabilities),
    typed!("2024-11-05/Tool-get_weather.json", Tool),
    typed!("2024-11-05/CallToolResult-text.json", CallToolResult),
    typed!("2024-11-05/CallToolResult-image-and-embedded-resource.json", CallToolResult),
    typed!("2024-11-05/CallToolResult-rate-limit-error.json", CallToolResult),
    typed!("2024-11-05/Resource-main-rs.json", Resource),
    typed!("2024-11-05/ResourceTemplate-project-files.json", ResourceTemplate),
    typed!("2024-11-05/ReadResourceResult-text.json", ReadResourceResult),
    typed!("2024-11-05/ReadResourceResult-blob.json", ReadResourceResult),
    typed!("2024-11-05/Prompt-code_review.json", Prompt),
    typed!("2024-11-05/GetPromptResult-code-review.json", GetPromptResult),
    typed!("2024-11-05/GetPromptResult-image-and-resource.json", GetPromptResult),
    typed!("2024-11-05/CompleteParams-prompt.json", CompleteParams),
    typed!("2024-11-05/CompleteParams-resource.json", CompleteParams),
    typed!("2024-11-05/CompleteResult-python.json", CompleteResult),
    typed!("2024-11-05/ProgressParams-integer-token.json", ProgressParams),
    typed!("2024-11-05/CancelledParams-string-id.json", CancelledParams),
    typed!("2024-11-05/LoggingMessageParams-database-error.json", LoggingMessageParams),
    typed!("2024-11-05/ErrorObject-resource-not-found.json", ErrorObject),
    typed!("2024-11-05/ErrorObject-unsupported-protocol-version.json", ErrorObject),
    envelope!("2024-11-05/JSONRPCRequest-initialize.json", "request 1 initialize", InitializeParams),
    envelope!("2024-11-05/JSONRPCNotification-initialized.json", "notification notifications/initialized"),
    envelope!("2024-11-05/JSONRPCResultResponse-initialize.json", "response 1", InitializeResult),
    envelope!("2024-11-05/JSONRPCErrorResponse-unsupported-protocol-version.json", "response 1", ErrorObject),
    // 2025-03-26
    typed!("2025-03-26/InitializeParams-example-client.json", InitializeParams),
    typed!("2025-03-26/InitializeResult-with-instructions.json", InitializeResult),
    typed!("2025-03-26/ServerCapabilities-completions-and-experimental.json", ServerCapabilities),
    typed!("2025-03-26/Tool-with-annotations.json", Tool),
    typed!("2025-03-26/CallToolResult-text-and-audio.json", CallToolResult),
    typed!("2025-03-26/CallToolResult-embedded-resource.json", CallToolResult),
    typed!("2025-03-26/ProgressParams-string-token-with-message.json", ProgressParams),
    typed!("2025-03-26/CancelledParams-user-requested.json", CancelledParams),
    envelope!(
        "2025-03-26/JSONRPCRequest-tools-call-with-progress-token.json",
        "request 2 tools/call",
        CallToolParams
    ),
    envelope!(
        "2025-03-26/JSONRPCNotification-progress.json",
        "notification notifications/progress",
        ProgressParams
    ),
    envelope!(
        "2025-03-26/JSONRPCNotification-cancelled.json",
        "notification notifications/cancelled",
        CancelledParams
    ),
    envelope!("2025-03-26/JSONRPCErrorResponse-unknown-tool.json", "response 3", ErrorObject),
    // 2025-06-18
    typed!("2025-06-18/InitializeParams-with-elicitation.json", InitializeParams),
    typed!("2025-06-18/InitializeResult-titled-server.json", InitializeResult),
    typed!("2025-06-18/Tool-with-output-schema.json", Tool),
    typed!("2025-06-18/CallToolResult-structured-content.json", CallToolResult),
    typed!("2025-06-18/CallToolResult-resource-link.json", CallToolResult),
    typed!("2025-06-18/CallToolResult-every-content-type.json", CallToolResult),
    typed!("2025-06-18/Resource-with-annotations.json", Resource),
    typed!("2025-06-18/Resource-titled-with-size.json", Resource),
    typed!("2025-06-18/ResourceTemplate-titled.json", ResourceTemplate),
    typed!("2025-06-18/Prompt-titled.json", Prompt),
    typed!("2025-06-18/GetPromptResult-every-content-type.json", GetPromptResult),
    typed!("2025-06-18/ReadResourceResult-text-and-blob.json", ReadResourceResult),
    typed!("2025-06-18/CompleteParams-prompt-with-context.json", CompleteParams),
    typed!("2025-06-18/CompleteParams-resource-with-context.json", CompleteParams),
    typed!("2025-06-18/CompleteResult-flask.json", CompleteResult),
    typed!("2025-06-18/CancelledParams-integer-id.json", CancelledParams),
    typed!("2025-06-18/LoggingMessageParams-string-data.json", LoggingMessageParams),
    envelope!("2025-06-18/JSONRPCRequest-prompts-get.json", "request 2 prompts/get", GetPromptParams),
    envelope!("2025-06-18/JSONRPCResultResponse-tools-call-structured.json", "response 5", CallToolResult),
    // 2025-11-25
    typed!("2025-11-25/InitializeParams-tasks-and-icons.json", InitializeParams),
    typed!("2025-11-25/InitializeResult-tasks-and-icons.json", InitializeResult),
    typed!("2025-11-25/ServerCapabilities-everything.json", ServerCapabilities),
    typed!("2025-11-25/Tool-get_weather-icon-and-execution.json", Tool),
    typed!("2025-11-25/Tool-every-field.json", Tool),
    typed!("2025-11-25/Tool-draft-07-input-schema.json", Tool),
    typed!("2025-11-25/Tool-no-parameters.json", Tool),
    typed!("2025-11-25/CallToolResult-input-validation-error.json", CallToolResult),
    typed!("2025-11-25/CallToolResult-resource-link-with-icon.json", CallToolResult),
    typed!("2025-11-25/Resource-with-icon.json", Resource),
    typed!("2025-11-25/ResourceTemplate-with-icon.json", ResourceTemplate),
    typed!("2025-11-25/Prompt-with-icon.json", Prompt),
    typed!("2025-11-25/ListToolsResult-with-cursor.json", ListToolsResult),
    typed!("2025-11-25/ListResourcesResult-with-cursor.json", ListResourcesResult),
    typed!("2025-11-25/ListResourceTemplatesResult-last-page.json", ListResourceTemplatesResult),
    typed!("2025-11-25/ErrorObject-url-elicitation-required.json", ErrorObject),
    envelope!("2025-11-25/JSONRPCRequest-tools-list.json", "request 1 tools/list", PaginatedParams),
    envelope!(
        "2025-11-25/JSONRPCRequest-resources-templates-list.json",
        "request 3 resources/templates/list"
    ),
    envelope!(
        "2025-11-25/JSONRPCNotification-tools-list-changed.json",
        "notification notifications/tools/list_changed"
    ),
    envelope!(
        "2025-11-25/JSONRPCNotification-resources-updated.json",
        "notification notifications/resources/updated",
        UriParams
    ),
    envelope!("2025-11-25/JSONRPCResultResponse-initialize.json", "response \"init-1\"", InitializeResult),
    envelope!("2025-11-25/JSONRPCErrorResponse-resource-not-found.json", "response 5", ErrorObject),
    // 2026-07-28
    typed!("2026-07-28/DiscoverResult-server-capabilities.json", DiscoverResult),
    typed!("2026-07-28/DiscoverResult-every-revision.json", DiscoverResult),
    typed!("2026-07-28/ServerCapabilities-extensions-tasks.json", ServerCapabilities),
    typed!("2026-07-28/ClientCapabilities-extensions-ui-mime-types.json", ClientCapabilities),
    typed!("2026-07-28/ServerCapabilities-tools-list-changed.json", ServerCapabilities),
    typed!("2026-07-28/ServerCapabilities-empty.json", ServerCapabilities),
    typed!("2026-07-28/Tool-array-output-schema.json", Tool),
    typed!("2026-07-28/Tool-composition-input-schema.json", Tool),
    typed!("2026-07-28/Tool-header-parameter.json", Tool),
    typed!("2026-07-28/CallToolResult-array-structured-content.json", CallToolResult),
    typed!("2026-07-28/CallToolResult-embedded-resource-with-annotations.json", CallToolResult),
    typed!("2026-07-28/CallToolResult-image-and-audio.json", CallToolResult),
    typed!("2026-07-28/Resource-with-annotations.json", Resource),
    typed!("2026-07-28/ResourceTemplate-minimal.json", ResourceTemplate),
    typed!("2026-07-28/ReadResourceResult-text.json", ReadResourceResult),
    typed!("2026-07-28/ReadResourceResult-blob.json", ReadResourceResult),
    typed!("2026-07-28/Prompt-with-icon.json", Prompt),
    typed!("2026-07-28/GetPromptResult-code-review.json", GetPromptResult),
    typed!("2026-07-28/CompleteParams-prompt.json", CompleteParams),
    typed!("2026-07-28/CompleteParams-resource-with-context.json", CompleteParams),
    typed!("2026-07-28/CompleteResult-python.json", CompleteResult),
    typed!("2026-07-28/CompleteResult-values-only.json", CompleteResult),
    typed!("2026-07-28/ProgressParams-string-token.json", ProgressParams),
    typed!("2026-07-28/ProgressParams-integer-token.json", ProgressParams),
    typed!("2026-07-28/CancelledParams-user-requested.json", CancelledParams),
    typed!("2026-07-28/ListenParams-list-changes.json", ListenParams),
    typed!("2026-07-28/ListenParams-every-filter.json", ListenParams),
    typed!("2026-07-28/ListenParams-nothing.json", ListenParams),
    typed!("2026-07-28/LoggingMessageParams-database-error.json", LoggingMessageParams),
    typed!("2026-07-28/ErrorObject-unsupported-protocol-version.json", ErrorObject),
    typed!("2026-07-28/ErrorObject-missing-required-client-capability.json", ErrorObject),
    typed!("2026-07-28/ErrorObject-header-mismatch.json", ErrorObject),
    typed!("2026-07-28/ErrorObject-resource-not-found.json", ErrorObject),
    typed!("2026-07-28/ErrorObject-method-not-found.json", ErrorObject),
    typed!("2026-07-28/ErrorObject-parse-error.json", ErrorObject),
    typed!("2026-07-28/ErrorObject-internal-error.json", ErrorObject),
    envelope!(
        "2026-07-28/JSONRPCRequest-server-discover.json",
        "request \"discover-1\" server/discover",
        EmptyParams
    ),
    envelope!(
        "2026-07-28/JSONRPCRequest-tools-call-with-progress-token.json",
        "request \"call-tool-example\" tools/call",
        CallToolParams
    ),
    envelope!(
        "2026-07-28/JSONRPCRequest-tools-call-input-responses.json",
        "request 3 tools/call",
        CallToolParams
    ),
    envelope!("2026-07-28/JSONRPCRequest-resources-read.json", "request 2 resources/read", UriParams),
    envelope!(
        "2026-07-28/JSONRPCNotification-resources-list-changed.json",
        "notification notifications/resources/list_changed"
    ),
    envelope!(
        "2026-07-28/JSONRPCNotification-resources-updated.json",
        "notification notifications/resources/updated",
        UriParams
    ),
    envelope!(
        "2026-07-28/JSONRPCNotification-cancelled.json",
        "notification notifications/cancelled",
        CancelledParams
    ),
    envelope!(
        "2026-07-28/JSONRPCNotification-message.json",
        "notification notifications/message",
        LoggingMessageParams
    ),
    envelope!("2026-07-28/JSONRPCErrorResponse-unsupported-protocol-version.json", "response 1", ErrorObject),
    envelope!(
        "2026-07-28/JSONRPCErrorResponse-missing-required-client-capability.json",
        "response \"call-tool-example\"",
        ErrorObject
    ),
];

/// The fixtures of the earlier flat layout (not sorted by revision, not held
/// to the naming rule). Delete this table together with those files.
const LEGACY: &[Case] = &[
    typed!("Tool-get_weather.json", Tool),
    typed!("Tool-minimal.json", Tool),
    typed!("CallToolResult-text.json", CallToolResult),
    typed!("CallToolResult-structured.json", CallToolResult),
    typed!("CallToolResult-all-content.json", CallToolResult),
    typed!("CallToolResult-error.json", CallToolResult),
    typed!("InitializeParams-2025-06-18.json", InitializeParams),
    typed!("InitializeParams-2024-11-05.json", InitializeParams),
    typed!("InitializeResult-2025-11-25.json", InitializeResult),
    typed!("DiscoverResult.json", DiscoverResult),
    typed!("Resource.json", Resource),
    typed!("ResourceTemplate.json", ResourceTemplate),
    typed!("ReadResourceResult-text.json", ReadResourceResult),
    typed!("ReadResourceResult-blob.json", ReadResourceResult),
    typed!("Prompt.json", Prompt),
    typed!("GetPromptResult.json", GetPromptResult),
    typed!("CompleteParams-prompt.json", CompleteParams),
    typed!("CompleteParams-resource-context.json", CompleteParams),
    typed!("CompleteResult.json", CompleteResult),
    typed!("ProgressParams-string.json", ProgressParams),
    typed!("ProgressParams-integer.json", ProgressParams),
    typed!("CancelledParams.json", CancelledParams),
    typed!("ListenParams.json", ListenParams),
    typed!("LoggingMessageParams.json", LoggingMessageParams),
    typed!("ErrorObject-unsupported-version.json", ErrorObject),
    typed!("ErrorObject-resource-not-found.json", ErrorObject),
    envelope!("messages/request.json", "request 1 tools/call", CallToolParams),
    envelope!("messages/request-string-id.json", "request \"req-1\" server/discover", EmptyParams),
    envelope!("messages/notification.json", "notification notifications/tools/list_changed"),
    // A sampling result: no type in this crate models it, so it is checked raw.
    envelope!("messages/response.json", "response \"srv-1\"", Value),
    envelope!("messages/error-response.json", "response 3", ErrorObject),
];

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn all_cases() -> impl Iterator<Item = &'static Case> {
    CASES.iter().chain(LEGACY)
}

fn read_fixture(file: &str) -> Result<Vec<u8>, String> {
    std::fs::read(fixtures_dir().join(file)).map_err(|e| format!("{file}: cannot be read: {e}"))
}

fn read_json(file: &str) -> Result<Value, String> {
    serde_json::from_slice(&read_fixture(file)?).map_err(|e| format!("{file}: is not JSON: {e}"))
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("a Value serializes")
}

/// Reads `original` into `T`, writes it back, compares the two, and checks
/// that what was written reads back into an equal `T`.
fn round_trip<T>(label: &str, original: &Value) -> Result<(), String>
where
    T: DeserializeOwned + Serialize + PartialEq + Debug,
{
    let ty = std::any::type_name::<T>();
    let typed: T = serde_json::from_value(original.clone()).map_err(|e| {
        format!("{label}: does not deserialize into {ty}: {e}\n--- fixture:\n{}", pretty(original))
    })?;
    let back = serde_json::to_value(&typed).map_err(|e| format!("{label}: {ty} does not serialize: {e}"))?;
    if let Some(difference) = first_difference(original, &back) {
        return Err(format!(
            "{label}: {ty} does not round-trip; first difference at {difference}\n\
             --- fixture:\n{}\n--- written back:\n{}",
            pretty(original),
            pretty(&back)
        ));
    }
    let again: T = serde_json::from_value(back.clone()).map_err(|e| {
        format!("{label}: {ty} cannot read its own output: {e}\n--- output:\n{}", pretty(&back))
    })?;
    if again != typed {
        return Err(format!(
            "{label}: {ty} reads its own output differently\n--- first read:\n{typed:#?}\n--- second read:\n{again:#?}"
        ));
    }
    Ok(())
}

/// Where `actual` first differs from `expected` (a JSON pointer and what
/// differs there), or `None` when they are the same JSON.
fn first_difference(expected: &Value, actual: &Value) -> Option<String> {
    fn at(pointer: &str) -> &str {
        if pointer.is_empty() { "the root" } else { pointer }
    }
    fn walk(expected: &Value, actual: &Value, pointer: &mut String) -> Option<String> {
        match (expected, actual) {
            (Value::Object(e), Value::Object(a)) => {
                let keys: BTreeSet<&String> = e.keys().chain(a.keys()).collect();
                for key in keys {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                    let found = match (e.get(key), a.get(key)) {
                        (Some(x), Some(y)) => walk(x, y, pointer),
                        (Some(_), None) => {
                            Some(format!("{pointer} (in the fixture, dropped when written back)"))
                        }
                        (None, Some(_)) => Some(format!("{pointer} (written back, not in the fixture)")),
                        (None, None) => None,
                    };
                    if found.is_some() {
                        return found;
                    }
                    pointer.truncate(len);
                }
                None
            }
            (Value::Array(e), Value::Array(a)) => {
                for (i, (x, y)) in e.iter().zip(a).enumerate() {
                    let len = pointer.len();
                    pointer.push_str(&format!("/{i}"));
                    if let found @ Some(_) = walk(x, y, pointer) {
                        return found;
                    }
                    pointer.truncate(len);
                }
                (e.len() != a.len()).then(|| {
                    format!("{} ({} items in the fixture, {} written back)", at(pointer), e.len(), a.len())
                })
            }
            (Value::Number(x), Value::Number(y)) => (!same_number(x, y))
                .then(|| format!("{} ({x} in the fixture, {y} written back)", at(pointer))),
            _ => (expected != actual)
                .then(|| format!("{} ({expected} in the fixture, {actual} written back)", at(pointer))),
        }
    }
    walk(expected, actual, &mut String::new())
}

/// JSON numbers compare by value: `50` and `50.0` are the same number.
/// Integers compare exactly (no rounding through `f64`).
fn same_number(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    if x.is_f64() || y.is_f64() { x.as_f64() == y.as_f64() } else { x == y }
}

/// Parses and classifies a message, then round-trips its payload.
fn envelope(file: &str, expected: &str, payload: Option<(&str, RoundTrip)>) -> Result<(), String> {
    let bytes = read_fixture(file)?;
    let message =
        IncomingMessage::parse(&bytes).map_err(|e| format!("{file}: IncomingMessage::parse failed: {e}"))?;
    if message.jsonrpc.as_deref() != Some(JSONRPC_VERSION) {
        return Err(format!("{file}: \"jsonrpc\" is not \"2.0\""));
    }
    let (kind, raw) = match message.kind().map_err(|e| format!("{file}: kind() failed: {e}"))? {
        MessageKind::Request { id, method, params } => (format!("request {id} {method}"), params),
        MessageKind::Notification { method, params } => (format!("notification {method}"), params),
        MessageKind::Response { id } => (format!("response {id}"), message.result.or(message.error)),
    };
    if kind != expected {
        return Err(format!("{file}: classified as `{kind}`, the table expects `{expected}`"));
    }
    match (payload, raw) {
        (None, None) => Ok(()),
        (Some((_, round_trip)), Some(raw)) => {
            let value: Value =
                serde_json::from_str(raw.get()).map_err(|e| format!("{file}: payload is not JSON: {e}"))?;
            round_trip(&format!("{file} (payload)"), &value)
        }
        (None, Some(_)) => Err(format!("{file}: has a payload, but its row names no type to check it with")),
        (Some((type_name, _)), None) => {
            Err(format!("{file}: its row expects a {type_name} payload; there is none"))
        }
    }
}

fn run(case: &Case) -> Result<(), String> {
    match case.check {
        Check::Typed { round_trip, .. } => round_trip(case.file, &read_json(case.file)?),
        Check::Envelope { kind, payload } => envelope(case.file, kind, payload),
    }
}

fn assert_all_pass(what: &str, cases: &[&Case]) {
    assert!(!cases.is_empty(), "no {what} in the table");
    let failures: Vec<String> = cases.iter().filter_map(|case| run(case).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} {what} failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn typed_fixtures_round_trip() {
    let cases: Vec<&Case> = all_cases().filter(|c| matches!(c.check, Check::Typed { .. })).collect();
    assert_all_pass("typed fixtures", &cases);
}

#[test]
fn envelopes_classify_and_their_payloads_round_trip() {
    let cases: Vec<&Case> = all_cases().filter(|c| matches!(c.check, Check::Envelope { .. })).collect();
    assert_all_pass("envelope fixtures", &cases);
}

/// Every `.json` file under `dir`, as `/`-separated paths relative to `root`.
fn json_files(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            json_files(root, &path, out);
        } else if path.extension().is_some_and(|x| x == "json") {
            let relative = path.strip_prefix(root).unwrap();
            let parts: Vec<String> =
                relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            out.insert(parts.join("/"));
        }
    }
}

#[test]
fn every_fixture_is_in_the_table() {
    let root = fixtures_dir();
    let mut on_disk = BTreeSet::new();
    json_files(&root, &root, &mut on_disk);

    let mut in_table = BTreeSet::new();
    for case in all_cases() {
        assert!(in_table.insert(case.file.to_owned()), "{} has two rows in the table", case.file);
    }
    let unchecked: Vec<&String> = on_disk.difference(&in_table).collect();
    let missing: Vec<&String> = in_table.difference(&on_disk).collect();
    assert!(unchecked.is_empty(), "fixtures with no row in CASES (add one): {unchecked:#?}");
    assert!(missing.is_empty(), "rows in the table whose fixture does not exist: {missing:#?}");
}

/// The JSON-RPC type a message is, by the members it has.
fn jsonrpc_type_name(message: &Value) -> &'static str {
    if message.get("error").is_some() {
        "JSONRPCErrorResponse"
    } else if message.get("result").is_some() {
        "JSONRPCResultResponse"
    } else if message.get("id").is_some() {
        "JSONRPCRequest"
    } else {
        "JSONRPCNotification"
    }
}

#[test]
fn fixtures_sit_under_a_revision_and_are_named_after_their_type() {
    for case in CASES {
        let (revision, name) =
            case.file.split_once('/').unwrap_or_else(|| panic!("{}: not under a revision", case.file));
        assert!(ProtocolVersion::parse(revision).is_some(), "{}: {revision} is not a revision", case.file);
        let type_name = match case.check {
            Check::Typed { type_name, .. } => type_name,
            Check::Envelope { .. } => jsonrpc_type_name(&read_json(case.file).unwrap()),
        };
        let case_name = name
            .strip_prefix(type_name)
            .and_then(|rest| rest.strip_prefix('-'))
            .and_then(|rest| rest.strip_suffix(".json"));
        assert!(
            case_name.is_some_and(|c| !c.is_empty() && !c.contains('/')),
            "{}: expected the name {type_name}-<case>.json",
            case.file
        );
    }
}

/// Collects the string values of the members named `key`, at any depth.
fn strings_named<'v>(value: &'v Value, key: &str, out: &mut Vec<&'v str>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match v {
                    Value::String(s) if k == key => out.push(s),
                    _ => strings_named(v, key, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| strings_named(v, key, out)),
        _ => {}
    }
}

#[test]
fn version_fields_name_the_fixture_directory() {
    for case in CASES {
        let revision = case.file.split_once('/').map(|(r, _)| r).unwrap();
        let json = read_json(case.file).unwrap();
        let mut versions = Vec::new();
        strings_named(&json, "protocolVersion", &mut versions);
        strings_named(&json, switchboard_types::meta::PROTOCOL_VERSION, &mut versions);
        for version in versions {
            assert_eq!(version, revision, "{}: a protocol version other than its directory's", case.file);
        }
        if let Some(Value::Array(supported)) = json.get("supportedVersions") {
            assert!(
                supported.iter().any(|v| v == revision),
                "{}: supportedVersions lacks {revision}",
                case.file
            );
        }
    }
}

#[test]
fn the_comparison_reports_what_the_model_drops() {
    let file = "2025-11-25/Tool-every-field.json";
    let mut json = read_json(file).unwrap();
    json.as_object_mut().unwrap().insert("x-not-modeled".to_owned(), Value::Bool(true));
    let error = round_trip::<Tool>(file, &json).unwrap_err();
    assert!(error.contains("first difference at /x-not-modeled (in the fixture, dropped"), "{error}");
    assert!(error.contains(file) && error.contains("--- written back:"), "{error}");

    let mut json = read_json(file).unwrap();
    json["icons"][1]["sizes"].as_array_mut().unwrap().push(Value::from(7));
    let error = round_trip::<Tool>(file, &json).unwrap_err();
    assert!(error.contains("does not deserialize into"), "{error}");
}

#[test]
fn numbers_compare_by_value() {
    let n = |v: Value| match v {
        Value::Number(n) => n,
        other => panic!("{other} is not a number"),
    };
    assert!(same_number(&n(Value::from(50)), &n(Value::from(50.0))));
    assert!(same_number(&n(Value::from(-3)), &n(Value::from(-3))));
    assert!(same_number(&n(Value::from(u64::MAX)), &n(Value::from(u64::MAX))));
    assert!(!same_number(&n(Value::from(50)), &n(Value::from(50.5))));
    assert!(!same_number(&n(Value::from(u64::MAX)), &n(Value::from(u64::MAX - 1))));
    assert!(first_difference(&Value::from(1), &Value::from("1")).is_some());
}
