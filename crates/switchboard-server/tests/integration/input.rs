//! Input from the client in the middle of a request (`switchboard_server::input`):
//! one handler, live requests in the handshake era, multi round-trip
//! requests (`InputRequiredResult`, `inputResponses`, `requestState`) in
//! 2026-07-28, on every method that allows them.

use std::sync::Arc;

use serde_json::{Value, json};
use switchboard_server::types::{ErrorCode, PromptMessage, ResourceContents};
use switchboard_server::{
    InputRequest, NoArgs, Principal, Prompt, ReadRequest, RequestContext, ResourceTemplate, Server,
    ServerOptions, Tool, Via,
};
use switchboard_testkit::TestClient;

fn name_schema() -> Value {
    json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
}

fn server_with_key(key: [u8; 32]) -> Server {
    let mut options = ServerOptions::default();
    options.cursor_key = Some(key);
    Server::builder("input", "1")
        .options(options)
        .tool(Tool::new("greet").handler(|_: NoArgs, ctx: RequestContext| async move {
            let answer = ctx.elicit("who", "Who are you?", name_schema()).await?;
            Ok(format!("Hello, {}", answer["content"]["name"].as_str().unwrap_or("?")))
        }))
        .tool(
            Tool::new("two_steps")
                .input_schema(json!({"type": "object", "properties": {"x": {"type": "integer"}}}))
                .raw_handler(|args, ctx: RequestContext| async move {
                    ctx.remember("seen_arguments", args.clone());
                    let first = ctx.elicit("first", "First?", name_schema()).await?;
                    let second = ctx.sample("second", "Second?", 10).await?;
                    let count =
                        ctx.recall("seen_arguments").map_or(0, |a| a.as_object().map_or(0, |o| o.len()));
                    Ok(switchboard_server::CallToolResult::text(format!(
                        "{} then {} ({count} argument)",
                        first["content"]["name"].as_str().unwrap_or("?"),
                        second["content"]["text"].as_str().unwrap_or("?")
                    )))
                }),
        )
        .tool(Tool::new("polite").handler(|_: NoArgs, ctx: RequestContext| async move {
            let question = InputRequest::elicit("Who are you?", name_schema());
            if !ctx.can_ask(&question) {
                return Ok("Hello, whoever you are".to_owned());
            }
            let answer = ctx.input("who", question).await?;
            Ok(format!("Hello, {}", answer["content"]["name"].as_str().unwrap_or("?")))
        }))
        .prompt(Prompt::new("briefing").raw_handler(|_, ctx: RequestContext| async move {
            let roots = ctx.list_roots("roots").await?;
            Ok(PromptMessage::user(format!("Work in {}", roots["roots"][0]["uri"].as_str().unwrap_or("?"))))
        }))
        .resource_template(ResourceTemplate::new("vault://{item}", "vault").unwrap().handler(
            |r: ReadRequest, ctx: RequestContext| async move {
                let answer = ctx
                    .elicit(
                        "password",
                        "Password?",
                        json!({"type": "object", "properties": {"pw": {"type": "string"}}}),
                    )
                    .await?;
                let ok = answer["content"]["pw"] == "open sesame";
                Ok(ResourceContents::text(r.uri, None, if ok { "the treasure" } else { "wrong password" }))
            },
        ))
        .build()
        .unwrap()
}

fn server() -> Server {
    server_with_key([5; 32])
}

const ALL_CAPS: &str = r#"{"elicitation": {}, "sampling": {}, "roots": {}}"#;

/// Sends one 2026-07-28 request with these client capabilities and returns
/// the whole response.
async fn modern(
    server: &Server,
    principal: Option<Principal>,
    method: &str,
    params: Value,
    caps: &str,
) -> Value {
    let (tx, _rx) = tokio::sync::mpsc::channel(16);
    let session = server.new_session(tx, None);
    let mut params = params;
    let mut meta = TestClient::modern_meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = serde_json::from_str(caps).unwrap();
    params["_meta"] = meta;
    let frame =
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})).unwrap();
    let via = Via { principal, ..Via::default() };
    let bytes = server.accept_via(&session, &frame, &via).resolve().await.unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

fn with_round(mut params: Value, responses: Value, state: &Value) -> Value {
    params["inputResponses"] = responses;
    if !state.is_null() {
        params["requestState"] = state.clone();
    }
    params
}

fn accept(name: &str) -> Value {
    json!({"action": "accept", "content": {"name": name}})
}

#[tokio::test]
async fn one_handler_asks_live_in_the_handshake_era() {
    let server = server();
    let mut c = TestClient::connect(&server);
    let init = c
        .request_raw(
            "initialize",
            Some(json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "t", "version": "1"}})),
        )
        .await
        .unwrap();
    assert!(init.get("result").is_some(), "{init}");
    c.notify("notifications/initialized", None).await.unwrap();
    c.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call("greet", json!({}))}))
        .await
        .unwrap();
    let question = c.recv().await.unwrap();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    assert_eq!(question["params"]["message"], "Who are you?");
    c.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": accept("Ada")})).await.unwrap();
    let response = c.response_to(&json!(7)).await.unwrap();
    assert_eq!(response["result"]["content"][0]["text"], "Hello, Ada", "{response}");
    assert!(response["result"].get("resultType").is_none(), "no 2026-07-28 fields in the handshake era");
}

#[tokio::test]
async fn a_handshake_client_without_the_capability_gets_a_tool_error_or_the_fallback() {
    let server = server();
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    let result = c.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(result["isError"], true, "{result}");
    assert!(result["content"][0]["text"].as_str().unwrap().contains("elicitation"), "{result}");
    let result = c.call_tool("polite", json!({})).await.unwrap();
    assert_eq!(result["content"][0]["text"], "Hello, whoever you are");
}

#[tokio::test]
async fn a_2026_request_takes_rounds_and_carries_earlier_answers() {
    let server = server();
    let params = call("two_steps", json!({"x": 1}));
    let r1 = modern(&server, None, "tools/call", params.clone(), ALL_CAPS).await;
    let r1 = &r1["result"];
    assert_eq!(r1["resultType"], "input_required", "{r1}");
    assert_eq!(r1["inputRequests"]["first"]["method"], "elicitation/create");
    assert!(r1.get("ttlMs").is_none() && r1.get("cacheScope").is_none(), "no cache hints: {r1}");
    assert!(r1["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());

    let r2 = modern(
        &server,
        None,
        "tools/call",
        with_round(params.clone(), json!({"first": accept("Ada")}), &r1["requestState"]),
        ALL_CAPS,
    )
    .await;
    let r2 = &r2["result"];
    assert_eq!(r2["resultType"], "input_required", "{r2}");
    assert_eq!(r2["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["second"]);
    assert_eq!(r2["inputRequests"]["second"]["method"], "sampling/createMessage");
    assert_ne!(r2["requestState"], r1["requestState"]);

    // Only the second answer is sent again: the first comes from the state,
    // the remembered arguments too; an unknown key is ignored.
    let answer = json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"});
    let r3 = modern(
        &server,
        None,
        "tools/call",
        with_round(params, json!({"second": answer, "unasked": {"x": 1}}), &r2["requestState"]),
        ALL_CAPS,
    )
    .await;
    assert_eq!(r3["result"]["resultType"], "complete", "{r3}");
    assert_eq!(r3["result"]["content"][0]["text"], "Ada then Paris (1 argument)");
}

#[tokio::test]
async fn a_missing_answer_is_asked_again_not_an_error() {
    let server = server();
    let params = call("greet", json!({}));
    let r = modern(
        &server,
        None,
        "tools/call",
        with_round(params, json!({"other": accept("x")}), &Value::Null),
        ALL_CAPS,
    )
    .await;
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    assert!(r["result"]["inputRequests"]["who"].is_object());
}

#[tokio::test]
async fn prompts_get_and_resources_read_take_rounds_too() {
    let server = server();
    let r1 = modern(&server, None, "prompts/get", json!({"name": "briefing"}), ALL_CAPS).await;
    assert_eq!(r1["result"]["inputRequests"]["roots"]["method"], "roots/list", "{r1}");
    let roots = json!({"roots": [{"uri": "file:///work", "name": "work"}]});
    let r2 = modern(
        &server,
        None,
        "prompts/get",
        with_round(json!({"name": "briefing"}), json!({"roots": roots}), &r1["result"]["requestState"]),
        ALL_CAPS,
    )
    .await;
    assert_eq!(r2["result"]["messages"][0]["content"]["text"], "Work in file:///work", "{r2}");

    let read = json!({"uri": "vault://gold"});
    let r1 = modern(&server, None, "resources/read", read.clone(), ALL_CAPS).await;
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    let pw = json!({"password": {"action": "accept", "content": {"pw": "open sesame"}}});
    let r2 = modern(
        &server,
        None,
        "resources/read",
        with_round(read, pw, &r1["result"]["requestState"]),
        ALL_CAPS,
    )
    .await;
    assert_eq!(r2["result"]["contents"][0]["text"], "the treasure", "{r2}");
    assert_eq!(r2["result"]["resultType"], "complete");
}

#[tokio::test]
async fn a_state_works_only_for_its_request_its_caller_and_its_key() {
    let server = server();
    let alice = Principal::new("alice");
    let params = call("two_steps", json!({"x": 1}));
    let r1 = modern(&server, Some(alice.clone()), "tools/call", params.clone(), ALL_CAPS).await;
    let state = r1["result"]["requestState"].clone();
    let answers = json!({"first": accept("Ada")});
    let invalid = |r: &Value| r["error"]["code"] == ErrorCode::INVALID_PARAMS.0;

    let ok = modern(
        &server,
        Some(alice.clone()),
        "tools/call",
        with_round(params.clone(), answers.clone(), &state),
        ALL_CAPS,
    )
    .await;
    assert_eq!(ok["result"]["resultType"], "input_required", "the rightful retry goes on: {ok}");

    let other_args = with_round(call("two_steps", json!({"x": 2})), answers.clone(), &state);
    assert!(invalid(&modern(&server, Some(alice.clone()), "tools/call", other_args, ALL_CAPS).await));
    let other_tool = with_round(call("greet", json!({"x": 1})), answers.clone(), &state);
    assert!(invalid(&modern(&server, Some(alice.clone()), "tools/call", other_tool, ALL_CAPS).await));
    let bob = Some(Principal::new("bob"));
    assert!(invalid(
        &modern(&server, bob, "tools/call", with_round(params.clone(), answers.clone(), &state), ALL_CAPS)
            .await
    ));
    let mut tampered = state.as_str().unwrap().to_owned();
    tampered.push_str("-TAMPERED");
    let r = modern(
        &server,
        Some(alice.clone()),
        "tools/call",
        with_round(params.clone(), answers.clone(), &json!(tampered)),
        ALL_CAPS,
    )
    .await;
    assert!(invalid(&r), "{r}");

    // Another instance with the same server key accepts it; one with another key does not.
    let twin = server_with_key([5; 32]);
    let r = modern(
        &twin,
        Some(alice.clone()),
        "tools/call",
        with_round(params.clone(), answers.clone(), &state),
        ALL_CAPS,
    )
    .await;
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    let stranger = server_with_key([6; 32]);
    assert!(invalid(
        &modern(&stranger, Some(alice), "tools/call", with_round(params, answers, &state), ALL_CAPS).await
    ));
}

#[tokio::test]
async fn an_undeclared_capability_is_never_asked_for() {
    let server = server();
    let r = modern(&server, None, "tools/call", call("greet", json!({})), r#"{"sampling": {}}"#).await;
    assert_eq!(r["error"]["code"], ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0, "{r}");
    assert_eq!(r["error"]["data"]["requiredCapabilities"], json!({"elicitation": {}}));
    let r = modern(&server, None, "tools/call", call("polite", json!({})), r#"{"sampling": {}}"#).await;
    assert_eq!(
        r["result"]["content"][0]["text"], "Hello, whoever you are",
        "the handler may do without: {r}"
    );
}

#[tokio::test]
async fn malformed_responses_are_protocol_errors() {
    let server = server();
    for responses in [json!(5), json!({"who": "Ada"}), json!({"who": {"content": {"name": "no action"}}})] {
        let params = with_round(call("greet", json!({})), responses.clone(), &Value::Null);
        let r = modern(&server, None, "tools/call", params, ALL_CAPS).await;
        assert_eq!(r["error"]["code"], ErrorCode::INVALID_PARAMS.0, "{responses}: {r}");
    }
    let r = modern(
        &server,
        None,
        "tools/call",
        with_round(call("greet", json!({})), json!({}), &json!(42)),
        ALL_CAPS,
    )
    .await;
    assert_eq!(r["error"]["code"], ErrorCode::INVALID_PARAMS.0, "{r}");
}

#[tokio::test]
async fn the_same_rounds_run_over_a_connection() {
    let server = Arc::new(server());
    let mut c = TestClient::connect_modern(&server);
    let mut params = call("greet", json!({}));
    params["_meta"] = TestClient::modern_meta();
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let r1 = c.request_raw("tools/call", Some(params.clone())).await.unwrap();
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    let r2 = c
        .request_raw(
            "tools/call",
            Some(with_round(params, json!({"who": accept("Grace")}), &r1["result"]["requestState"])),
        )
        .await
        .unwrap();
    assert_eq!(r2["result"]["content"][0]["text"], "Hello, Grace", "{r2}");
}

#[tokio::test]
async fn other_methods_cannot_ask_and_never_answer_input_required() {
    // An application method's handler asks: it gets a failure to report,
    // and the request is answered as that method's own result.
    let asker = Server::builder("asker", "1")
        .method(switchboard_server::Method::new(
            "com.example/ask",
            |_: Value, ctx: RequestContext| async move {
                let outcome = ctx.elicit("who", "Who?", name_schema()).await;
                let mut result = serde_json::Map::new();
                result.insert(
                    "failed".into(),
                    json!(matches!(outcome, Err(switchboard_server::InputError::Failed(_)))),
                );
                Ok::<_, switchboard_server::ErrorObject>(result)
            },
        ))
        .build()
        .unwrap();
    let r = modern(&asker, None, "com.example/ask", json!({}), ALL_CAPS).await;
    assert_eq!(r["result"]["failed"], true, "{r}");
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    for method in ["tools/list", "prompts/list", "resources/list"] {
        let r = modern(&server(), None, method, json!({}), ALL_CAPS).await;
        assert_eq!(r["result"]["resultType"], "complete", "{method}: {r}");
    }
}
