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
        .tool(Tool::new("ticking").task_support(TaskSupport::Optional).handler(
            |_: NoArgs, ctx: RequestContext| async move {
                for step in [1.0, 2.0] {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    ctx.progress(step, Some(2.0), None).await;
                }
                Ok("ticked")
            },
        ))
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

/// The capability rule comes before the params: a request that may not
/// use tasks is told so whatever its params say, and one that may gets
/// `-32602` for params that are not a task's.
#[tokio::test]
async fn tasks_methods_check_the_extension_before_their_params() {
    let server = server();
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let refused = send(&server, None, method, json!({"taskId": 5}), caps(false)).await;
        assert_eq!(
            refused["error"]["code"],
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0,
            "{method}: {refused}"
        );
        let invalid = send(&server, None, method, json!({"taskId": 5}), caps(true)).await;
        assert_eq!(invalid["error"]["code"], ErrorCode::INVALID_PARAMS.0, "{method}: {invalid}");
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

// ---- 2025-11-25 tasks (`basic/utilities/tasks.mdx`) over the same store ----

/// A 2025-11-25 client over the line transport; `tasks` declares the
/// client's `tasks` capability.
async fn legacy_client(server: &Server, tasks: bool) -> (TestClient, Value) {
    let mut c = TestClient::connect(server);
    let mut capabilities = json!({"elicitation": {}});
    if tasks {
        capabilities["tasks"] = json!({"list": {}, "cancel": {}});
    }
    let init = c
        .request_raw(
            "initialize",
            Some(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": {"name": "legacy", "version": "1"}
            })),
        )
        .await
        .unwrap();
    c.notify("notifications/initialized", None).await.unwrap();
    c.request_raw("ping", None).await.unwrap();
    (c, init["result"].clone())
}

async fn legacy_call(c: &mut TestClient, name: &str, arguments: Value, task: bool) -> Value {
    let mut params = json!({"name": name, "arguments": arguments});
    if task {
        params["task"] = json!({"ttl": 60_000});
    }
    c.request_raw("tools/call", Some(params)).await.unwrap()
}

fn legacy_task_id(created: &Value) -> String {
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    for field in ["createdAt", "lastUpdatedAt", "ttl", "pollInterval"] {
        assert!(task.get(field).is_some(), "{field}: {created}");
    }
    assert!(created["result"].get("resultType").is_none() && task.get("ttlMs").is_none(), "{created}");
    task["taskId"].as_str().unwrap().to_owned()
}

/// Waits for the `notifications/tasks/status` of task `id` with `status`.
async fn status_note(c: &mut TestClient, id: &str, status: &str) -> Value {
    for _ in 0..20 {
        let note = c.next_notification("notifications/tasks/status").await.unwrap();
        if note["params"]["taskId"] == id && note["params"]["status"] == status {
            return note;
        }
    }
    panic!("no {status} notification for {id}");
}

#[tokio::test]
async fn a_2025_11_25_client_that_declares_tasks_gets_them() {
    let server = server();
    let (mut c, init) = legacy_client(&server, true).await;
    assert_eq!(
        init["capabilities"]["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}),
        "{init}"
    );
    let tools = c.request_raw("tools/list", Some(json!({}))).await.unwrap();
    let support = |name: &str| {
        tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap()["execution"]
            ["taskSupport"]
            .clone()
    };
    assert_eq!(support("sleepy"), "optional");
    assert_eq!(support("only_task"), "required");
    assert_eq!(support("sync_only"), Value::Null);

    // Created, polled, its result awaited, its status announced.
    let id = legacy_task_id(&legacy_call(&mut c, "sleepy", json!({"ms": 200}), true).await);
    let now = c.request_raw("tasks/get", Some(json!({"taskId": id}))).await.unwrap();
    assert_eq!(now["result"]["taskId"], id.as_str(), "{now}");
    assert!(now["result"].get("ttl").is_some() && now["result"].get("result").is_none(), "{now}");
    let result = c.request_raw("tasks/result", Some(json!({"taskId": id}))).await.unwrap();
    assert_eq!(result["result"]["content"][0]["text"], "slept 200 ms", "{result}");
    assert_eq!(result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id.as_str());
    let note = status_note(&mut c, &id, "completed").await;
    assert!(note["params"].get("result").is_none() && note["params"].get("ttl").is_some(), "{note}");
    // Without `task` an optional tool answers in place.
    let sync = legacy_call(&mut c, "sleepy", json!({"ms": 0}), false).await;
    assert_eq!(sync["result"]["content"][0]["text"], "slept 0 ms", "{sync}");

    // A tool error is `failed` in this revision, and tasks/result gives the
    // tool's own result; a protocol error is that error.
    let id = legacy_task_id(&legacy_call(&mut c, "only_task", json!({}), true).await);
    let result = c.request_raw("tasks/result", Some(json!({"taskId": id}))).await.unwrap();
    assert_eq!(result["result"]["isError"], true, "{result}");
    let got = c.request_raw("tasks/get", Some(json!({"taskId": id}))).await.unwrap();
    assert_eq!(got["result"]["status"], "failed", "{got}");
    assert!(got["result"]["statusMessage"].as_str().unwrap().contains("tool-level failure"));
    let id = legacy_task_id(&legacy_call(&mut c, "broken", json!({}), true).await);
    let result = c.request_raw("tasks/result", Some(json!({"taskId": id}))).await.unwrap();
    assert_eq!(result["error"]["code"], ErrorCode::INTERNAL_ERROR.0, "{result}");
}

#[tokio::test]
async fn the_2025_11_25_errors_are_that_revisions() {
    let server = server();
    let (mut c, _) = legacy_client(&server, true).await;
    let required = legacy_call(&mut c, "only_task", json!({}), false).await;
    assert_eq!(required["error"]["code"], ErrorCode::METHOD_NOT_FOUND.0, "{required}");
    let forbidden = legacy_call(&mut c, "sync_only", json!({}), true).await;
    assert_eq!(forbidden["error"]["code"], ErrorCode::METHOD_NOT_FOUND.0, "{forbidden}");
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        let r = c.request_raw(method, Some(json!({"taskId": "nope"}))).await.unwrap();
        assert_eq!(r["error"]["code"], ErrorCode::INVALID_PARAMS.0, "{method}: {r}");
    }
    let r = c.request_raw("tasks/list", Some(json!({"cursor": "bogus"}))).await.unwrap();
    assert_eq!(r["error"]["code"], ErrorCode::INVALID_PARAMS.0, "{r}");
    assert_eq!(
        c.request_raw("tasks/update", Some(json!({"taskId": "x"}))).await.unwrap()["error"]["code"],
        ErrorCode::METHOD_NOT_FOUND.0
    );

    // Cancel: cancelled before the answer, announced, and final.
    let id = legacy_task_id(&legacy_call(&mut c, "sleepy", json!({"ms": 60_000}), true).await);
    let cancelled = c.request_raw("tasks/cancel", Some(json!({"taskId": id}))).await.unwrap();
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    assert_eq!(cancelled["result"]["taskId"], id.as_str());
    status_note(&mut c, &id, "cancelled").await;
    let again = c.request_raw("tasks/cancel", Some(json!({"taskId": id}))).await.unwrap();
    assert_eq!(again["error"]["code"], ErrorCode::INVALID_PARAMS.0, "{again}");
    assert!(again["error"]["message"].as_str().unwrap().contains("cancelled"));
    let result = c.request_raw("tasks/result", Some(json!({"taskId": id}))).await.unwrap();
    assert_eq!(result["error"]["code"], ErrorCode::INVALID_PARAMS.0, "{result}");

    // A client that did not declare `tasks` was offered none: the param is
    // ignored and the methods do not exist for it.
    let (mut plain, init) = legacy_client(&server, false).await;
    assert!(init["capabilities"].get("tasks").is_none(), "{init}");
    let sync = legacy_call(&mut plain, "sleepy", json!({"ms": 0}), true).await;
    assert_eq!(sync["result"]["content"][0]["text"], "slept 0 ms", "{sync}");
    let r = plain.request_raw("tasks/list", Some(json!({}))).await.unwrap();
    assert_eq!(r["error"]["code"], ErrorCode::METHOD_NOT_FOUND.0, "{r}");
}

#[tokio::test]
async fn tasks_list_shows_the_callers_own_tasks_a_page_at_a_time() {
    let mut options = ServerOptions::default();
    options.page_size = 2;
    options.task_poll_interval = Duration::from_millis(20);
    let sleepy = Tool::new("sleepy")
        .task_support(TaskSupport::Optional)
        .raw_handler(|_, _| async { Ok(switchboard_server::CallToolResult::text("done")) });
    let server = Server::builder("tasks", "1").options(options).tool(sleepy).build().unwrap();
    let (mut mine, _) = legacy_client(&server, true).await;
    let (mut theirs, _) = legacy_client(&server, true).await;
    let mut own = Vec::new();
    for _ in 0..3 {
        own.push(legacy_task_id(&legacy_call(&mut mine, "sleepy", json!({}), true).await));
    }
    let other = legacy_task_id(&legacy_call(&mut theirs, "sleepy", json!({}), true).await);
    let listed: Vec<String> = mine
        .list_all("tasks/list", "tasks")
        .await
        .unwrap()
        .iter()
        .map(|t| t["taskId"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(listed, own);
    let first = mine.request_raw("tasks/list", Some(json!({}))).await.unwrap();
    assert_eq!(first["result"]["tasks"].as_array().unwrap().len(), 2, "{first}");
    assert!(first["result"]["nextCursor"].is_string());
    let theirs_listed = theirs.list_all("tasks/list", "tasks").await.unwrap();
    assert_eq!(theirs_listed.len(), 1);
    assert_eq!(theirs_listed[0]["taskId"], other.as_str());
}

#[tokio::test]
async fn a_2025_11_25_task_asks_through_live_requests_tagged_with_the_task() {
    let server = server();
    let (mut c, _) = legacy_client(&server, true).await;
    let id = legacy_task_id(&legacy_call(&mut c, "ask_twice", json!({}), true).await);
    let mut answered = 0;
    while answered < 2 {
        let m = c.recv().await.unwrap();
        if m["method"] != "elicitation/create" {
            continue;
        }
        assert_eq!(
            m["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            id.as_str(),
            "{m}"
        );
        if answered == 0 {
            let got = c.request_raw("tasks/get", Some(json!({"taskId": id}))).await.unwrap();
            assert_eq!(got["result"]["status"], "input_required", "{got}");
        }
        let v = if m["params"]["message"] == "A?" { "x" } else { "y" };
        c.send(
            &json!({"jsonrpc": "2.0", "id": m["id"], "result": {"action": "accept", "content": {"v": v}}}),
        )
        .await
        .unwrap();
        answered += 1;
    }
    let result = c.request_raw("tasks/result", Some(json!({"taskId": id}))).await.unwrap();
    assert_eq!(result["result"]["content"][0]["text"], "\"x\" \"y\"", "{result}");
    status_note(&mut c, &id, "input_required").await;
    status_note(&mut c, &id, "completed").await;
}

// ---- `notifications/tasks` on 2026-07-28 listen streams ----

/// Opens a listen stream for `task_ids` on `server`; the client and the ack.
async fn listen_for(server: &Server, task_ids: Value) -> (TestClient, Value) {
    let mut c = TestClient::connect_modern(server);
    let mut params = json!({"notifications": {"taskIds": task_ids}, "_meta": {
        "io.modelcontextprotocol/clientCapabilities": caps(true)
    }});
    params = c.with_meta(params);
    c.send(&json!({"jsonrpc": "2.0", "id": "watch", "method": "subscriptions/listen", "params": params}))
        .await
        .unwrap();
    let ack = c.next_notification("notifications/subscriptions/acknowledged").await.unwrap();
    (c, ack)
}

async fn task_note(c: &mut TestClient, id: &str, status: &str) -> Value {
    for _ in 0..20 {
        let note = c.next_notification("notifications/tasks").await.unwrap();
        if note["params"]["taskId"] == id && note["params"]["status"] == status {
            return note;
        }
    }
    panic!("no {status} notification for {id}");
}

#[tokio::test]
async fn listen_streams_get_status_changes_of_the_callers_own_tasks() {
    let server = server();
    let id = task_id(&call(&server, "sleepy", json!({"ms": 300}), true).await);
    let theirs = task_id(
        &send(
            &server,
            Some("alice"),
            "tools/call",
            json!({"name": "sleepy", "arguments": {"ms": 0}}),
            caps(true),
        )
        .await,
    );
    let (mut c, ack) = listen_for(&server, json!([id, theirs, "unknown"])).await;
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([id]), "{ack}");
    let note = task_note(&mut c, &id, "completed").await;
    assert_eq!(note["params"]["result"]["content"][0]["text"], "slept 300 ms", "{note}");
    assert_eq!(note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "watch");
    assert!(note["params"].get("ttlMs").is_some());

    // A parked task answered elsewhere: back to working, then completed.
    let id = task_id(&call(&server, "ask_twice", json!({}), true).await);
    until(&server, &id, |t| t["status"] == "input_required").await;
    let (mut c, _) = listen_for(&server, json!([id])).await;
    let answer = |v: &str| json!({"action": "accept", "content": {"v": v}});
    let responses = json!({"taskId": id, "inputResponses": {"a": answer("1"), "b": answer("2")}});
    send(&server, None, "tasks/update", responses, caps(true)).await;
    let working = task_note(&mut c, &id, "working").await;
    assert!(working["params"].get("inputRequests").is_none(), "{working}");
    let done = task_note(&mut c, &id, "completed").await;
    assert_eq!(done["params"]["result"]["content"][0]["text"], "\"1\" \"2\"", "{done}");
}

#[tokio::test]
async fn task_notifications_cross_instances_sharing_a_store() {
    let store: Arc<dyn StateStore> = MemoryStore::new();
    let (a, b) = (server_on(Arc::clone(&store)), server_on(store));
    let id = task_id(&call(&a, "sleepy", json!({"ms": 60_000}), true).await);
    let (mut on_b, ack) = listen_for(&b, json!([id])).await;
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([id]), "{ack}");
    // Cancelled through b, stopped on a: a's change reaches b's stream.
    send(&b, None, "tasks/cancel", json!({"taskId": id}), caps(true)).await;
    let note = task_note(&mut on_b, &id, "cancelled").await;
    assert_eq!(note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "watch");
    // And a change made on a alone (a task finishing) reaches b.
    let id = task_id(&call(&a, "sleepy", json!({"ms": 200}), true).await);
    let (mut on_b, _) = listen_for(&b, json!([id])).await;
    task_note(&mut on_b, &id, "completed").await;
}

#[tokio::test]
async fn a_task_tool_added_to_a_server_without_the_extension_runs_in_place() {
    let server = Server::builder("plain", "1")
        .tool(Tool::new("first").handler(|_: NoArgs, _: RequestContext| async { Ok("in place") }))
        .build()
        .unwrap();
    server
        .add_tool(
            Tool::new("late")
                .task_support(TaskSupport::Required)
                .handler(|_: NoArgs, _: RequestContext| async { Ok("ran in place") }),
        )
        .unwrap();
    let r = call(&server, "late", json!({}), true).await;
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "ran in place");
    let get = send(&server, None, "tasks/get", json!({"taskId": "x"}), caps(true)).await;
    assert_eq!(get["error"]["code"], ErrorCode::METHOD_NOT_FOUND.0, "{get}");
}

#[tokio::test]
async fn a_2025_11_25_tasks_progress_token_stays_valid_until_the_task_ends() {
    let server = server();
    let (mut c, _) = legacy_client(&server, true).await;
    let params = json!({"name": "ticking", "arguments": {}, "task": {"ttl": 60_000},
                        "_meta": {"progressToken": "tick"}});
    let created = c.request_raw("tools/call", Some(params)).await.unwrap();
    let id = legacy_task_id(&created);
    // Both reports come after the CreateTaskResult answered the call.
    for step in [1.0, 2.0] {
        let note = c.next_notification("notifications/progress").await.unwrap();
        assert_eq!(note["params"]["progressToken"], "tick", "{note}");
        assert_eq!(note["params"]["progress"], step, "{note}");
    }
    let result = c.request_raw("tasks/result", Some(json!({"taskId": id}))).await.unwrap();
    assert_eq!(result["result"]["content"][0]["text"], "ticked", "{result}");
}
