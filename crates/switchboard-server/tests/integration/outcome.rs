//! The outcome a reply carries (what HTTP picks its status from): set where
//! the reply is produced, for every kind of ending, without parsing the
//! bytes again.

use serde_json::{Value, json};
use switchboard_server::state::{StateError, store_unavailable};
use switchboard_server::types::ErrorCode;
use switchboard_server::{
    Accepted, CallToolResult, ErrorObject, Outcome, ProtocolVersion, Server, Tool, ToolError,
};

/// `ok` succeeds, `broken` reports a tool error, `refuses` answers the
/// JSON-RPC error `-32021`, `stateful` the state-store outage.
fn server() -> Server {
    let tool = |name: &str| Tool::new(name).description(name).input_schema(json!({"type": "object"}));
    Server::builder("outcome-test", "1")
        .tool(tool("ok").raw_handler(|_, _| async { Ok(CallToolResult::text("fine")) }))
        .tool(tool("broken").raw_handler(|_, _| async { Err(ToolError::new("it broke")) }))
        .tool(tool("refuses").raw_handler(|_, _| async {
            Err(ToolError::protocol(ErrorObject::new(
                ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                "needs sampling",
            )))
        }))
        .tool(tool("stateful").raw_handler(|_, _| async {
            Err(ToolError::protocol(store_unavailable(&StateError("down".into()), false)))
        }))
        .build()
        .unwrap()
}

fn call(tool: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": {},
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    }}})
    .to_string()
    .into_bytes()
}

/// The reply to `frame` on a fresh session (negotiated at 2025-03-26 when
/// `legacy`), and the code in its bytes, when they are an error.
async fn reply(frame: &[u8], legacy: bool) -> (Outcome, Option<i64>) {
    let server = server();
    let (tx, _rx) = tokio::sync::mpsc::channel(16);
    let session = server.new_session(tx, None);
    if legacy {
        session.assume_initialized(ProtocolVersion::V2025_03_26);
    }
    let reply = server.accept(&session, frame).reply().await.expect("a reply");
    let value: Value = serde_json::from_slice(&reply).unwrap();
    (reply.outcome(), value["error"]["code"].as_i64())
}

#[tokio::test]
async fn a_result_is_ok() {
    assert_eq!(reply(&call("ok"), false).await, (Outcome::Ok, None));
}

#[tokio::test]
async fn a_result_with_is_error_is_a_tool_error() {
    assert_eq!(reply(&call("broken"), false).await, (Outcome::ToolError, None));
}

#[tokio::test]
async fn a_handler_error_carries_its_json_rpc_code() {
    let (outcome, code) = reply(&call("refuses"), false).await;
    assert_eq!(
        outcome,
        Outcome::Error { code: ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY, store_unavailable: false }
    );
    assert_eq!(code, Some(-32021));
}

#[tokio::test]
async fn an_error_found_before_any_handler_carries_its_code() {
    let unknown = br#"{"jsonrpc":"2.0","id":2,"method":"nope/nope","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let server = server();
    let (tx, _rx) = tokio::sync::mpsc::channel(16);
    let accepted = server.accept(&server.new_session(tx, None), unknown);
    let Accepted::Done(Some(done)) = accepted else { panic!("answered at once: {accepted:?}") };
    assert_eq!(done.outcome().error_code(), Some(ErrorCode::METHOD_NOT_FOUND));
    assert_eq!(reply(b"{not json", false).await.0.error_code(), Some(ErrorCode::PARSE_ERROR));
}

#[tokio::test]
async fn a_store_outage_is_an_internal_error_marked_as_such() {
    let (outcome, code) = reply(&call("stateful"), false).await;
    assert_eq!(outcome, Outcome::Error { code: ErrorCode::INTERNAL_ERROR, store_unavailable: true });
    assert!(outcome.is_store_unavailable());
    assert_eq!(code, Some(-32603));
}

#[tokio::test]
async fn a_batch_is_one_reply_of_its_own_kind() {
    let legacy = |tool: &str, id: i64| {
        let mut v: Value = serde_json::from_slice(&call(tool)).unwrap();
        v["params"].as_object_mut().unwrap().remove("_meta");
        v["id"] = json!(id);
        v
    };
    let batch = Value::Array(vec![legacy("ok", 1), legacy("stateful", 2)]).to_string();
    let (outcome, _) = reply(batch.as_bytes(), true).await;
    assert_eq!(outcome, Outcome::Batch);
}
