//! HTTP statuses chosen from the outcome the dispatcher hands over with a
//! reply (not from its bytes): at 2026-07-28 a handler's `-32601` is `404`
//! and its `-32020`/`-32021`/`-32022` are `400`; a state-store outage is
//! `503` with `Retry-After` in every era; results and tool errors are `200`.

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use switchboard_http::{HttpOptions, ResponseMode};
use switchboard_server::state::{StateError, store_unavailable};
use switchboard_server::types::ErrorCode;
use switchboard_server::{CallToolResult, ErrorObject, Server, Tool, ToolError};

use crate::support::Serving;

struct Running {
    url: String,
    client: Client,
    _serving: Serving,
}

/// `answer` ends as its arguments say: `{"code": n}` is that JSON-RPC
/// error, `{"store": "down"}` the store outage, `{"tool_error": true}` a
/// tool error, anything else a result.
fn server() -> Server {
    Server::builder("outcomes", "1")
        .tool(
            Tool::new("answer")
                .description("ends as asked")
                .input_schema(json!({"type": "object"}))
                .raw_handler(|args: Value, _| async move {
                    if let Some(code) = args["code"].as_i64() {
                        let code = ErrorCode(i32::try_from(code).unwrap());
                        return Err(ToolError::protocol(ErrorObject::new(code, "as asked")));
                    }
                    if args["store"] == "down" {
                        return Err(ToolError::protocol(store_unavailable(
                            &StateError("down".into()),
                            false,
                        )));
                    }
                    if args["tool_error"] == true {
                        return Err(ToolError::new("the tool failed"));
                    }
                    Ok(CallToolResult::text("fine"))
                }),
        )
        .build()
        .unwrap()
}

async fn start() -> Running {
    start_with(HttpOptions::default()).await
}

async fn start_with(options: HttpOptions) -> Running {
    let serving = Serving::start(server(), options).await;
    Running { url: serving.url.clone(), client: Client::new(), _serving: serving }
}

impl Running {
    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        self.client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string())
    }

    /// A 2026-07-28 `tools/call` of `answer`: its status, `Retry-After` and body.
    async fn modern(&self, arguments: Value) -> (StatusCode, Option<String>, Value) {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "answer", "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }}});
        let r = self
            .post(&body)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "answer")
            .send()
            .await
            .unwrap();
        read(r).await
    }

    /// A 2025-06-18 session, initialized.
    async fn session(&self) -> String {
        let r = self
            .post(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let r = self
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .header("mcp-session-id", &sid)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202);
        sid
    }

    /// A legacy `tools/call` of `answer` in session `sid` (answered with
    /// JSON when the server is in [`ResponseMode::Json`]).
    async fn legacy(&self, sid: &str, arguments: Value) -> (StatusCode, Option<String>, Value) {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "answer", "arguments": arguments}});
        let r = self
            .post(&body)
            .header("mcp-session-id", sid)
            .header("mcp-protocol-version", "2025-06-18")
            .send()
            .await
            .unwrap();
        read(r).await
    }
}

async fn read(r: reqwest::Response) -> (StatusCode, Option<String>, Value) {
    let status = r.status();
    let retry = r.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
    (status, retry, r.json().await.unwrap())
}

#[tokio::test]
async fn results_and_tool_errors_are_200() {
    let s = start().await;
    let (status, retry, body) = s.modern(json!({})).await;
    assert_eq!((status, retry), (StatusCode::OK, None));
    assert_eq!(body["result"]["content"][0]["text"], "fine", "{body}");
    let (status, _, body) = s.modern(json!({"tool_error": true})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["result"]["isError"], true, "{body}");
}

#[tokio::test]
async fn a_handlers_method_not_found_is_404_at_2026_07_28() {
    let s = start().await;
    let (status, _, body) = s.modern(json!({"code": -32601})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["error"]["code"], -32601);
}

#[tokio::test]
async fn a_handlers_header_capability_and_version_errors_are_400_at_2026_07_28() {
    let s = start().await;
    for code in [-32020, -32021, -32022] {
        let (status, _, body) = s.modern(json!({"code": code})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{code}: {body}");
        assert_eq!(body["error"]["code"], code);
    }
    let (status, _, body) = s.modern(json!({"code": -32000})).await;
    assert_eq!(status, StatusCode::OK, "other errors keep 200: {body}");
}

#[tokio::test]
async fn a_store_outage_is_503_with_retry_after_in_every_era() {
    let s = start().await;
    let (status, retry, body) = s.modern(json!({"store": "down"})).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(retry.as_deref(), Some("1"));
    assert_eq!(body["error"]["data"]["stateStore"], "unavailable");

    let mut json_only = HttpOptions::default();
    json_only.response_mode = ResponseMode::Json;
    let s = start_with(json_only).await;
    let sid = s.session().await;
    let (status, retry, body) = s.legacy(&sid, json!({"store": "down"})).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(retry.as_deref(), Some("1"));
    assert_eq!(body["error"]["data"]["stateStore"], "unavailable");
    let (status, retry, body) = s.legacy(&sid, json!({"code": -32601})).await;
    assert_eq!((status, retry), (StatusCode::OK, None), "legacy errors stay 200: {body}");
}
