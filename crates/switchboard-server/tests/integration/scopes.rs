//! Scopes: what an authenticated caller sees and may use, per request
//! principal (as the HTTP transport passes it through `Via`).

use serde_json::{Value, json};
use switchboard_server::types::ResourceContents;
use switchboard_server::{
    CallToolResult, Principal, Prompt, ReadRequest, RequestContext, Resource, ResourceTemplate, Server, Tool,
    ToolError, Via,
};

fn server() -> Server {
    let who = |_: Value, ctx: RequestContext| async move {
        let subject = ctx.principal().map(|p| p.subject.clone()).unwrap_or_default();
        let header = ctx.header("x-request-source").unwrap_or("-").to_owned();
        Ok::<_, ToolError>(CallToolResult::text(format!("{subject} {header}")))
    };
    Server::builder("scopes", "1")
        .tool(Tool::new("read_notes").description("r").raw_handler(who))
        .tool(Tool::new("write_notes").description("w").requires_scopes(["notes:write"]).raw_handler(who))
        .tool(Tool::new("admin").description("a").requires_scopes(["notes:write", "admin"]).raw_handler(who))
        .prompt(
            Prompt::new("secret_prompt")
                .requires_scopes(["admin"])
                .raw_handler(|_, _| async { Ok(switchboard_server::types::PromptMessage::user("s")) }),
        )
        .resource(Resource::new("notes://public", "public").text("hello"))
        .resource(Resource::new("notes://private", "private").requires_scopes(["notes:read"]).text("secret"))
        .resource_template(
            ResourceTemplate::new("vault://{item}", "vault").unwrap().requires_scopes(["admin"]).handler(
                |r: ReadRequest, _ctx: RequestContext| async move { Ok(ResourceContents::text(r.uri, None, "v")) },
            ),
        )
        .build()
        .unwrap()
}

/// Sends one 2026-07-28 request as `principal` and returns the response.
async fn as_(server: &Server, principal: Option<Principal>, method: &str, params: Value) -> Value {
    let (tx, _rx) = tokio::sync::mpsc::channel(16);
    let session = server.new_session(tx, None);
    let mut params = params;
    params["_meta"] = switchboard_testkit::TestClient::modern_meta();
    let frame =
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})).unwrap();
    let headers = vec![("x-request-source".to_owned(), "test".to_owned())];
    let via = Via { principal, headers: Some(headers.into()), ..Via::default() };
    let bytes = server.accept_via(&session, &frame, &via).resolve().await.unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

fn names(response: &Value, key: &str, field: &str) -> Vec<String> {
    response["result"][key]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t[field].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn lists_show_a_principal_only_what_its_scopes_allow() {
    let server = server();
    let reader = Principal::new("alice").with_scopes(["notes:read"]);
    let writer = Principal::new("bob").with_scopes(["notes:read", "notes:write", "admin"]);
    let tools = as_(&server, Some(reader.clone()), "tools/list", json!({})).await;
    assert_eq!(names(&tools, "tools", "name"), ["read_notes"]);
    assert_eq!(tools["result"]["cacheScope"], "private");
    let tools = as_(&server, Some(writer.clone()), "tools/list", json!({})).await;
    assert_eq!(names(&tools, "tools", "name"), ["read_notes", "write_notes", "admin"]);
    let resources = as_(&server, Some(Principal::new("nobody")), "resources/list", json!({})).await;
    assert_eq!(names(&resources, "resources", "uri"), ["notes://public"]);
    let resources = as_(&server, Some(reader), "resources/list", json!({})).await;
    assert_eq!(names(&resources, "resources", "uri"), ["notes://public", "notes://private"]);
    let templates = as_(&server, Some(Principal::new("nobody")), "resources/templates/list", json!({})).await;
    assert_eq!(templates["result"]["resourceTemplates"], json!([]));
    let prompts = as_(&server, Some(writer), "prompts/list", json!({})).await;
    assert_eq!(names(&prompts, "prompts", "name"), ["secret_prompt"]);
    // No principal (stdio, HTTP without authorization): nothing is hidden, lists are public.
    let tools = as_(&server, None, "tools/list", json!({})).await;
    assert_eq!(names(&tools, "tools", "name").len(), 3);
    assert_eq!(tools["result"]["cacheScope"], "public");
}

#[tokio::test]
async fn hidden_things_cannot_be_used_and_handlers_see_principal_and_headers() {
    let server = server();
    let reader = Principal::new("alice").with_scopes(["notes:read"]);
    let call =
        as_(&server, Some(reader.clone()), "tools/call", json!({"name": "write_notes", "arguments": {}}))
            .await;
    assert_eq!(call["error"]["code"], -32602, "{call}");
    let call =
        as_(&server, Some(reader.clone()), "tools/call", json!({"name": "read_notes", "arguments": {}}))
            .await;
    assert_eq!(call["result"]["content"][0]["text"], "alice test");
    let read =
        as_(&server, Some(Principal::new("nobody")), "resources/read", json!({"uri": "notes://private"}))
            .await;
    assert!(read.get("error").is_some(), "{read}");
    let read = as_(&server, Some(reader.clone()), "resources/read", json!({"uri": "notes://private"})).await;
    assert_eq!(read["result"]["contents"][0]["text"], "secret");
    let vault = as_(&server, Some(reader.clone()), "resources/read", json!({"uri": "vault://x"})).await;
    assert!(vault.get("error").is_some(), "{vault}");
    let prompt = as_(&server, Some(reader), "prompts/get", json!({"name": "secret_prompt"})).await;
    assert_eq!(prompt["error"]["code"], -32602, "{prompt}");
}

#[test]
fn missing_scopes_names_what_to_ask_for() {
    let server = server();
    let reader = Principal::new("alice").with_scopes(["notes:read"]);
    let needs = |method: &str, params: Value| server.missing_scopes(&reader, method, Some(&params));
    assert_eq!(
        needs("tools/call", json!({"name": "admin"})),
        Some(vec!["notes:write".into(), "admin".into()])
    );
    assert_eq!(needs("tools/call", json!({"name": "read_notes"})), None);
    assert_eq!(needs("tools/call", json!({"name": "no_such_tool"})), None);
    assert_eq!(needs("prompts/get", json!({"name": "secret_prompt"})), Some(vec!["admin".into()]));
    assert_eq!(needs("resources/read", json!({"uri": "notes://private"})), None);
    assert_eq!(needs("resources/read", json!({"uri": "vault://k"})), Some(vec!["admin".into()]));
    assert_eq!(needs("tools/list", json!({})), None);
}
