//! A transport's [`AdmissionCheck`] is called at its place in the
//! dispatcher's order (the 2026-07-28 Streamable HTTP page (`basic/transports/streamable-http`)): required `_meta` → the transport's
//! metadata → version → method → `Mcp-Param-*` → handling. Each case
//! breaks two rules at once and checks that the earlier one answers, and
//! what the check was shown.

use std::cell::RefCell;
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Value, json};
use switchboard_server::types::ErrorCode;
use switchboard_server::types::head::ParamsHead;
use switchboard_server::types::jsonrpc::IncomingMessage;
use switchboard_server::{
    AdmissionCheck, CallToolResult, ErrorObject, Outcome, Resource, Server, Session, Tool,
};

/// A check that records what it is shown, and refuses the stages it is
/// told to refuse (with `-32020`, as HTTP's headers do).
#[derive(Default)]
struct Recorder {
    refuse_metadata: bool,
    refuse_arguments: bool,
    seen: RefCell<Vec<String>>,
}

impl Recorder {
    fn refusing(metadata: bool, arguments: bool) -> Self {
        Self { refuse_metadata: metadata, refuse_arguments: arguments, ..Self::default() }
    }

    fn seen(&self) -> Vec<String> {
        self.seen.borrow().clone()
    }
}

fn mismatch(what: &str) -> ErrorObject {
    ErrorObject::new(ErrorCode::HEADER_MISMATCH, format!("{what} refused by the test"))
}

impl AdmissionCheck for Recorder {
    fn check_metadata(&self, method: &str, target: Option<&str>, version: &str) -> Result<(), ErrorObject> {
        self.seen.borrow_mut().push(format!("metadata {method} {target:?} {version}"));
        if self.refuse_metadata { Err(mismatch("metadata")) } else { Ok(()) }
    }

    fn check_arguments(&self, input_schema: &Value, arguments: Option<&RawValue>) -> Result<(), ErrorObject> {
        let mirrored = input_schema["properties"]["region"]["x-mcp-header"].as_str().unwrap_or_default();
        let arguments = arguments.map_or("none", RawValue::get);
        self.seen.borrow_mut().push(format!("arguments {mirrored} {arguments}"));
        if self.refuse_arguments { Err(mismatch("arguments")) } else { Ok(()) }
    }
}

/// `regional` mirrors its `region` argument into a header; `plain` does not.
fn server() -> Server {
    let regional = Tool::new("regional").description("regional").input_schema(json!({
        "type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}
    }));
    let plain = Tool::new("plain").description("plain").input_schema(json!({"type": "object"}));
    Server::builder("admission-test", "1")
        .tool(regional.raw_handler(|_, _| async { Ok(CallToolResult::text("regional")) }))
        .tool(plain.raw_handler(|_, _| async { Ok(CallToolResult::text("plain")) }))
        .resource(Resource::new("test://a", "a").text("a1"))
        .build()
        .unwrap()
}

fn meta(version: &str) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {}})
}

fn request(method: &str, params: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string().into_bytes()
}

/// The answer to `frame` admitted with `check` on `session`: its outcome
/// and its JSON.
async fn admit(server: &Server, session: &Arc<Session>, frame: &[u8], check: &Recorder) -> (Outcome, Value) {
    let message = IncomingMessage::parse(frame).unwrap();
    let head = ParamsHead::read(message.params).unwrap_or_default();
    let accepted = server.accept_message_checked(session, &message, Some(&head), &Default::default(), check);
    let reply = accepted.reply().await.expect("a reply");
    (reply.outcome(), serde_json::from_slice(&reply).unwrap())
}

/// The code of the answer to `frame` admitted on the shared stateless
/// session with `check`.
async fn code_of(frame: &[u8], check: &Recorder) -> Option<i64> {
    let server = server();
    let (_, answer) = admit(&server, &server.stateless_session(), frame, check).await;
    answer["error"]["code"].as_i64()
}

#[tokio::test]
async fn the_required_meta_comes_before_the_transports_check() {
    let refusing = Recorder::refusing(true, true);
    for params in [
        json!({"name": "plain"}),
        json!({"name": "plain", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        json!({"name": "plain", "_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
        json!({"name": "plain", "_meta": "not an object"}),
    ] {
        assert_eq!(
            code_of(&request("tools/call", params.clone()), &refusing).await,
            Some(-32602),
            "{params}"
        );
    }
    assert!(refusing.seen().is_empty(), "never shown a request without its _meta: {:?}", refusing.seen());
}

#[tokio::test]
async fn the_transports_metadata_comes_before_the_version_and_the_method() {
    for (method, version) in
        [("tools/call", "v999"), ("initialize", "2026-07-28"), ("nope/nope", "2026-07-28")]
    {
        let frame = request(method, json!({"name": "plain", "_meta": meta(version)}));
        let refusing = Recorder::refusing(true, false);
        assert_eq!(code_of(&frame, &refusing).await, Some(-32020), "{method} {version}");
        let passing = Recorder::default();
        let expected = if version == "v999" { -32022 } else { -32601 };
        assert_eq!(code_of(&frame, &passing).await, Some(expected), "{method} {version}");
        assert_eq!(passing.seen().len(), 1, "{:?}", passing.seen());
        assert!(passing.seen()[0].ends_with(version), "shown the version as sent: {:?}", passing.seen());
    }
}

#[tokio::test]
async fn the_method_comes_before_the_arguments_and_the_arguments_before_handling() {
    // An unknown method is never shown to the arguments check.
    let refusing = Recorder::refusing(false, true);
    let unknown = request("nope/call", json!({"name": "regional", "_meta": meta("2026-07-28")}));
    assert_eq!(code_of(&unknown, &refusing).await, Some(-32601));
    assert_eq!(refusing.seen().len(), 1, "{:?}", refusing.seen());

    // Mirrored arguments are checked before the log level (handling).
    let mut bad_level = meta("2026-07-28");
    bad_level["io.modelcontextprotocol/logLevel"] = json!("loud");
    let call =
        request("tools/call", json!({"name": "regional", "arguments": {"region": "eu"}, "_meta": bad_level}));
    let refusing = Recorder::refusing(false, true);
    assert_eq!(code_of(&call, &refusing).await, Some(-32020));
    assert_eq!(refusing.seen()[1], r#"arguments Region {"region":"eu"}"#);
    assert_eq!(code_of(&call, &Recorder::default()).await, Some(-32602), "then the log level");
}

#[tokio::test]
async fn only_a_tool_that_mirrors_arguments_is_shown_to_the_arguments_check() {
    let server = server();
    let session = server.stateless_session();
    let plain = request(
        "tools/call",
        json!({"name": "plain", "arguments": {"region": "eu"}, "_meta": meta("2026-07-28")}),
    );
    let check = Recorder::refusing(false, true);
    let (outcome, answer) = admit(&server, &session, &plain, &check).await;
    assert_eq!(outcome, Outcome::Ok, "{answer}");
    assert_eq!(check.seen(), [r#"metadata tools/call Some("plain") 2026-07-28"#]);

    let regional = request("tools/call", json!({"name": "regional", "_meta": meta("2026-07-28")}));
    let check = Recorder::default();
    let (outcome, answer) = admit(&server, &session, &regional, &check).await;
    assert_eq!(outcome, Outcome::Ok, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "regional");
    assert_eq!(check.seen()[1], "arguments Region none");
}

#[tokio::test]
async fn the_check_is_shown_what_the_request_names() {
    let server = server();
    let session = server.stateless_session();
    let meta = meta("2026-07-28");
    for (method, params, target) in [
        // An escape in the body reaches the check decoded.
        ("tools/call", r#""name":"pl\u0061in""#, r#"Some("plain")"#),
        ("resources/read", r#""uri":"test://a","name":"x""#, r#"Some("test://a")"#),
        ("tools/list", r#""name":"x""#, "None"),
    ] {
        let frame =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{params},"_meta":{meta}}}}}"#);
        let check = Recorder::default();
        admit(&server, &session, frame.as_bytes(), &check).await;
        assert_eq!(check.seen()[0], format!("metadata {method} {target} 2026-07-28"));
    }
}

#[tokio::test]
async fn a_checked_request_on_a_session_of_its_own_is_held_to_the_per_request_rules() {
    // A listen stream's session is not the stateless one; without a
    // version in its `_meta` it is still a 2026-07-28 request (`-32602`),
    // not one waiting for `initialize`.
    let server = server();
    let (tx, _rx) = tokio::sync::mpsc::channel(16);
    let session = server.new_session(tx, None);
    let frame = request("subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
    let check = Recorder::default();
    let (outcome, answer) = admit(&server, &session, &frame, &check).await;
    assert_eq!(outcome.error_code(), Some(ErrorCode::INVALID_PARAMS), "{answer}");
    // Without the check the same frame is a handshake-era request.
    let unchecked = server.accept(&session, &frame).reply().await.unwrap();
    assert_eq!(unchecked.outcome().error_code(), Some(ErrorCode::INVALID_REQUEST));
}
