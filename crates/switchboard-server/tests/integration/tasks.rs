//! The Tasks extension (`io.modelcontextprotocol/tasks`): task creation
//! gated on the request's capabilities, `tasks/get|update|cancel`, input
//! through a parked task, handler-started tasks after multi round-trip
//! input, owners, and tasks shared by instances over one state store.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_server::state::{MemoryStore, StateStore};
use switchboard_server::types::{ErrorCode, ErrorObject};
use switchboard_server::{
    NoArgs, Principal, RequestContext, Server, ServerOptions, TASKS_EXTENSION, TaskSupport, Tool, ToolError,
    Via,
};
use switchboard_testkit::TestClient;

fn server_on(store: Arc<dyn StateStore>) -> Server {
    let mut options = ServerOptions::default();
    options.task_poll_interval = Duration::from_millis(20);
    Server::builder("tasks", "1")
        .options(options)
        .state(store)
        .tool(Tool::new("sync_only").handler(|_: NoArgs, _: RequestContext| async { Ok("in place") }))
        .tool(
            Tool::new("sleepy")
                .task_support(TaskSupport::Optional)
                .raw_handler(|args: Value, _| async move {
                    let ms = args["ms"].as_u64().unwrap_or(0);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    Ok(switchboard_server::CallToolResult::text(format!("slept {ms} ms")))
                })
                .input_schema(json!({"type": "object", "properties": {"ms": {"type": "integer"}}})),
        )
        .tool(Tool::new("only_task").task_support(TaskSupport::Required).handler(
            |_: NoArgs, _: RequestContext| async { Err::<String, _>(ToolError::new("tool-level failure")) },
        ))
        .tool(Tool::new("broken").task_support(TaskSupport::Optional).handler(
            |_: NoArgs, _: RequestContext| async {
                Err::<String, _>(ToolError::protocol(ErrorObject::internal("protocol-level failure")))
            },
        ))
        .tool(Tool::new("panicky").task_support(TaskSupport::Optional).handler(
            |_: NoArgs, _: RequestContext| async {
                if true {
                    panic!("boom");
                }
                Ok("never")
            },
        ))
        .tool(Tool::new("ask_twice").task_support(TaskSupport::Optional).handler(
            |_: NoArgs, ctx: RequestContext| async move {
                let schema = json!({"type": "object", "properties": {"v": {"type": "string"}}});
                let answers = ctx
                    .inputs([
                        ("a", switchboard_server::InputRequest::elicit("A?", schema.clone())),
                        ("b", switchboard_server::InputRequest::elicit("B?", schema)),
                    ])
                    .await?;
                Ok(format!("{} {}", answers["a"]["content"]["v"], answers["b"]["content"]["v"]))
            },
        ))
        .tool(Tool::new("ask_then_task").task_started_by_handler(TaskSupport::Required).handler(
            |_: NoArgs, ctx: RequestContext| async move {
                let schema = json!({"type": "object", "properties": {"v": {"type": "string"}}});
                let first = ctx.elicit("first", "First?", schema).await?;
                assert!(ctx.can_start_task());
                ctx.start_task().await.map_err(ToolError::protocol)?;
                Ok(format!("got {} then went async", first["content"]["v"]))
            },
        ))
        .build()
        .unwrap()
}

fn server() -> Server {
    server_on(MemoryStore::new())
}

fn caps(with_tasks: bool) -> Value {
    if with_tasks {
        json!({"elicitation": {}, "extensions": {TASKS_EXTENSION: {}}})
    } else {
        json!({"elicitation": {}})
    }
}

/// One 2026-07-28 request; the whole response.
async fn send(server: &Server, principal: Option<&str>, method: &str, params: Value, caps: Value) -> Value {
    let (tx, _rx) = tokio::sync::mpsc::channel(16);
    let session = server.new_session(tx, None);
    let mut params = params;
    let mut meta = TestClient::modern_meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = caps;
    params["_meta"] = meta;
    let frame =
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})).unwrap();
    let via = Via { principal: principal.map(Principal::new), ..Via::default() };
    let bytes = server.accept_via(&session, &frame, &via).resolve().await.unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

async fn call(server: &Server, name: &str, arguments: Value, with_tasks: bool) -> Value {
    send(server, None, "tools/call", json!({"name": name, "arguments": arguments}), caps(with_tasks)).await
}

async fn get(server: &Server, principal: Option<&str>, id: &str) -> Value {
    send(server, principal, "tasks/get", json!({"taskId": id}), caps(true)).await
}

/// Polls `tasks/get` until `done` holds (bounded: 10 s).
async fn until(server: &Server, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..500 {
        let task = get(server, None, id).await["result"].clone();
        if done(&task) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {id} never got there");
}

fn terminal(task: &Value) -> bool {
    matches!(task["status"].as_str(), Some("completed" | "failed" | "cancelled"))
}

fn task_id(created: &Value) -> String {
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    created["result"]["taskId"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_extension_is_offered_to_2026_clients_only() {
    let server = server();
    let discover = send(&server, None, "server/discover", json!({}), json!({})).await;
    assert!(discover["result"]["capabilities"]["extensions"][TASKS_EXTENSION].is_object(), "{discover}");
    let mut c = TestClient::connect(&server);
    let init = c.initialize("2025-11-25").await.unwrap();
    assert!(
        init["capabilities"].get("extensions").is_none_or(|e| e.get(TASKS_EXTENSION).is_none()),
        "{init}"
    );
    // A handshake client never gets a task; a required-task tool is refused.
    let result = c.call_tool("sleepy", json!({"ms": 0})).await.unwrap();
    assert_eq!(result["content"][0]["text"], "slept 0 ms");
    assert!(c.call_tool("only_task", json!({})).await.is_err());
    assert_eq!(
        c.request_raw("tasks/get", Some(json!({"taskId": "x"}))).await.unwrap()["error"]["code"],
        -32601
    );
}

#[tokio::test]
async fn a_task_is_created_only_for_requests_that_declare_the_extension() {
    let server = server();
    let sync = call(&server, "sleepy", json!({"ms": 0}), false).await;
    assert_eq!(sync["result"]["resultType"], "complete", "{sync}");
    assert_eq!(sync["result"]["content"][0]["text"], "slept 0 ms");
    let sync = call(&server, "sync_only", json!({}), true).await;
    assert_eq!(sync["result"]["resultType"], "complete", "{sync}");

    let required = call(&server, "only_task", json!({}), false).await;
    assert_eq!(required["error"]["code"], ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0, "{required}");
    assert_eq!(
        required["error"]["data"]["requiredCapabilities"],
        json!({"extensions": {TASKS_EXTENSION: {}}})
    );

    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let r = send(&server, None, method, json!({"taskId": "x", "inputResponses": {}}), caps(false)).await;
        assert_eq!(r["error"]["code"], ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0, "{method}: {r}");
    }
    for method in ["tasks/result", "tasks/list"] {
        let r = send(&server, None, method, json!({"taskId": "x"}), caps(true)).await;
        assert_eq!(r["error"]["code"], ErrorCode::METHOD_NOT_FOUND.0, "{method}: {r}");
    }
}

#[tokio::test]
async fn a_task_reports_working_then_its_result_and_tool_errors_complete() {
    let server = server();
    let created = call(&server, "sleepy", json!({"ms": 300}), true).await;
    let id = task_id(&created);
    let seed = &created["result"];
    for field in ["createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs", "status"] {
        assert!(seed.get(field).is_some(), "{field}: {seed}");
    }
    assert!(seed.get("requestState").is_none() && seed.get("task").is_none(), "{seed}");
    let now = get(&server, None, &id).await;
    assert_eq!(now["result"]["resultType"], "complete", "{now}");
    assert_eq!(now["result"]["status"], "working");
    assert!(now["result"].get("result").is_none());
    let done = until(&server, &id, terminal).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "slept 300 ms");

    let done = until(&server, &task_id(&call(&server, "only_task", json!({}), true).await), terminal).await;
    assert_eq!(done["status"], "completed", "a tool error completes: {done}");
    assert_eq!(done["result"]["isError"], true);

    for failing in ["broken", "panicky"] {
        let done = until(&server, &task_id(&call(&server, failing, json!({}), true).await), terminal).await;
        assert_eq!(done["status"], "failed", "{failing}: {done}");
        assert_eq!(done["error"]["code"], ErrorCode::INTERNAL_ERROR.0);
        assert!(done.get("result").is_none());
    }
}

#[tokio::test]
async fn cancel_stops_a_running_task_and_leaves_a_finished_one() {
    let server = server();
    let id = task_id(&call(&server, "sleepy", json!({"ms": 60_000}), true).await);
    let ack = send(&server, None, "tasks/cancel", json!({"taskId": id}), caps(true)).await;
    assert_eq!(ack["result"], json!({"resultType": "complete", "_meta": ack["result"]["_meta"]}), "{ack}");
    assert_eq!(until(&server, &id, terminal).await["status"], "cancelled");

    let id = task_id(&call(&server, "sleepy", json!({"ms": 0}), true).await);
    until(&server, &id, terminal).await;
    let ack = send(&server, None, "tasks/cancel", json!({"taskId": id}), caps(true)).await;
    assert_eq!(ack["result"]["resultType"], "complete", "idempotent on a terminal task: {ack}");
    assert_eq!(get(&server, None, &id).await["result"]["status"], "completed");

    let unknown = send(&server, None, "tasks/cancel", json!({"taskId": "nope"}), caps(true)).await;
    assert_eq!(unknown["error"]["code"], ErrorCode::INVALID_PARAMS.0);
    assert_eq!(get(&server, None, "nope").await["error"]["code"], ErrorCode::INVALID_PARAMS.0);
}

#[tokio::test]
async fn a_task_waits_in_input_required_until_every_answer_arrives() {
    let server = server();
    let id = task_id(&call(&server, "ask_twice", json!({}), true).await);
    let parked = until(&server, &id, |t| t["status"] == "input_required").await;
    let keys: Vec<&String> = parked["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["a", "b"], "{parked}");
    assert_eq!(parked["inputRequests"]["a"]["method"], "elicitation/create");

    let answer = |v: &str| json!({"action": "accept", "content": {"v": v}});
    let ack = send(
        &server,
        None,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"a": answer("x"), "never_asked": answer("z")}}),
        caps(true),
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("taskId").is_none());
    let partial = get(&server, None, &id).await["result"].clone();
    assert_eq!(partial["status"], "input_required");
    assert_eq!(partial["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["b"]);

    send(
        &server,
        None,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"b": answer("y")}}),
        caps(true),
    )
    .await;
    let done = until(&server, &id, terminal).await;
    assert_eq!(done["result"]["content"][0]["text"], "\"x\" \"y\"", "{done}");
}

#[tokio::test]
async fn a_handler_can_gather_input_in_rounds_then_become_a_task() {
    let server = server();
    let params = json!({"name": "ask_then_task", "arguments": {}});
    let r1 = send(&server, None, "tools/call", params.clone(), caps(true)).await;
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    assert!(r1["result"].get("taskId").is_none());
    let mut retry = params;
    retry["inputResponses"] = json!({"first": {"action": "accept", "content": {"v": "hi"}}});
    retry["requestState"] = r1["result"]["requestState"].clone();
    let r2 = send(&server, None, "tools/call", retry, caps(true)).await;
    let id = task_id(&r2);
    assert!(r2["result"].get("requestState").is_none(), "{r2}");
    let done = until(&server, &id, terminal).await;
    assert_eq!(done["result"]["content"][0]["text"], "got \"hi\" then went async", "{done}");
}

#[tokio::test]
async fn a_task_belongs_to_its_creator() {
    let server = server();
    let created = send(
        &server,
        Some("alice"),
        "tools/call",
        json!({"name": "sleepy", "arguments": {"ms": 0}}),
        caps(true),
    )
    .await;
    let id = task_id(&created);
    assert_eq!(get(&server, Some("alice"), &id).await["result"]["taskId"], id.as_str());
    for stranger in [Some("mallory"), None] {
        assert_eq!(get(&server, stranger, &id).await["error"]["code"], ErrorCode::INVALID_PARAMS.0);
        let cancel = send(&server, stranger, "tasks/cancel", json!({"taskId": id}), caps(true)).await;
        assert_eq!(cancel["error"]["code"], ErrorCode::INVALID_PARAMS.0);
    }
}

#[tokio::test]
async fn instances_sharing_a_store_serve_each_others_tasks() {
    let store: Arc<dyn StateStore> = MemoryStore::new();
    let (a, b) = (server_on(Arc::clone(&store)), server_on(store));
    // Created on a, answered and polled on b.
    let id = task_id(&call(&a, "ask_twice", json!({}), true).await);
    until(&b, &id, |t| t["status"] == "input_required").await;
    let answer = |v: &str| json!({"action": "accept", "content": {"v": v}});
    send(
        &b,
        None,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"a": answer("1"), "b": answer("2")}}),
        caps(true),
    )
    .await;
    assert_eq!(until(&b, &id, terminal).await["status"], "completed");
    // Created on a, cancelled on b: a stops the work.
    let id = task_id(&call(&a, "sleepy", json!({"ms": 60_000}), true).await);
    send(&b, None, "tasks/cancel", json!({"taskId": id}), caps(true)).await;
    assert_eq!(until(&a, &id, terminal).await["status"], "cancelled");
}

#[tokio::test]
async fn task_notifications_need_the_extension() {
    let server = server();
    let filter = json!({"notifications": {"taskIds": ["x"], "toolsListChanged": true}});
    let r = send(&server, None, "subscriptions/listen", filter, caps(false)).await;
    assert_eq!(r["error"]["code"], ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0, "{r}");
    assert_eq!(r["error"]["data"]["requiredCapabilities"], json!({"extensions": {TASKS_EXTENSION: {}}}));
}
