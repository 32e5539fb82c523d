//! Three real `switchboard serve --http` processes sharing one real Redis, driven
//! round-robin with no sticky routing: sessions, handles, cursors, change
//! notifications, SSE resumption, multi round-trip requests and tasks work
//! whichever instance a request lands on, and a Redis restart in the middle
//! is survived.

use std::time::Duration;

use serde_json::{Value, json};
use switchboard_testkit::redis::RedisServer;

use crate::common;

struct Instance {
    _child: tokio::process::Child,
    url: String,
}

async fn start(redis: &str, args: &[&str]) -> Instance {
    let args: Vec<&str> = ["serve", "--http", "127.0.0.1:0", "--state", redis]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    let (child, url) = common::start_http(&args, None, &[]).await;
    Instance { _child: child, url }
}

/// `n` instances serving the demo fixtures over one Redis.
async fn demo_instances(redis: &RedisServer, n: usize) -> Vec<Instance> {
    let mut instances = Vec::with_capacity(n);
    for _ in 0..n {
        instances.push(start(&redis.url(), &["--fixtures", "demo"]).await);
    }
    instances
}

/// A legacy client that sends each request to the next instance in turn.
struct RoundRobin<'a> {
    instances: &'a [Instance],
    next: usize,
    session: Option<String>,
    http: reqwest::Client,
    id: u64,
}

impl<'a> RoundRobin<'a> {
    fn new(instances: &'a [Instance]) -> Self {
        RoundRobin { instances, next: 0, session: None, http: reqwest::Client::new(), id: 0 }
    }

    async fn post(&mut self, body: Value) -> (reqwest::StatusCode, Value) {
        let url = &self.instances[self.next % self.instances.len()].url;
        self.next += 1;
        let mut request = self
            .http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let response = request.body(body.to_string()).send().await.unwrap();
        let status = response.status();
        if let Some(id) = response.headers().get("mcp-session-id") {
            self.session = Some(id.to_str().unwrap().to_owned());
        }
        let text = response.text().await.unwrap();
        // JSON, or SSE whose last data line is the response.
        let json =
            text.lines().filter_map(|l| l.strip_prefix("data:")).rfind(|d| !d.trim().is_empty()).map_or_else(
                || serde_json::from_str(&text).unwrap_or(Value::Null),
                |d| serde_json::from_str(d.trim()).unwrap(),
            );
        (status, json)
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let (status, answer) =
            self.post(json!({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})).await;
        assert_eq!(status, 200, "{method}: {answer}");
        answer
    }

    async fn initialize(&mut self) {
        let answer = self
            .request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "rr", "version": "1"}}),
            )
            .await;
        assert!(answer.get("result").is_some(), "{answer}");
        let (status, _) = self.post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        assert_eq!(status, 202);
    }
}

#[tokio::test]
async fn three_instances_share_sessions_handles_and_cursors() {
    let redis = RedisServer::start();
    let instances = vec![
        start(&redis.url(), &["--fixtures", "demo", "--page-size", "2"]).await,
        start(&redis.url(), &["--fixtures", "demo", "--page-size", "2"]).await,
        start(&redis.url(), &["--fixtures", "demo", "--page-size", "2"]).await,
    ];
    let mut client = RoundRobin::new(&instances);
    client.initialize().await; // initialize on A, initialized on B

    // A basket made on C, filled on A, viewed on B.
    let created = client.request("tools/call", json!({"name": "create_basket", "arguments": {}})).await;
    let basket = created["result"]["structuredContent"]["basket_id"].as_str().unwrap().to_owned();
    let added = client
        .request(
            "tools/call",
            json!({"name": "add_item", "arguments": {"basket_id": basket, "item": "pear", "quantity": 2}}),
        )
        .await;
    assert_eq!(added["result"]["structuredContent"]["total_quantity"], 2, "{added}");
    let viewed = client
        .request("tools/call", json!({"name": "view_basket", "arguments": {"basket_id": basket}}))
        .await;
    assert_eq!(viewed["result"]["structuredContent"]["items"][0]["item"], "pear", "{viewed}");

    // A list walked across instances: each page's cursor from another one.
    let mut uris = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..20 {
        let params = cursor.as_ref().map_or_else(|| json!({}), |c| json!({"cursor": c}));
        let page = client.request("resources/list", params).await;
        let result = &page["result"];
        uris.extend(result["resources"].as_array().unwrap().iter().map(|r| r["uri"].clone()));
        cursor = result["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    assert!(cursor.is_none() && uris.len() >= 2, "walked {uris:?}");

    // A DELETE on one instance ends the session on all.
    let session = client.session.clone().unwrap();
    let url = &instances[client.next % 3].url;
    let deleted = client
        .http
        .delete(url)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.status());
    for _ in 0..3 {
        let (status, _) = client.post(json!({"jsonrpc": "2.0", "id": 99, "method": "tools/list"})).await;
        assert_eq!(status, 404, "an ended session is unknown everywhere");
    }
}

#[tokio::test]
async fn a_redis_restart_is_survived_without_losing_acknowledged_sessions() {
    let mut redis = RedisServer::start();
    let instances = demo_instances(&redis, 2).await;
    let mut client = RoundRobin::new(&instances);
    client.initialize().await;
    let created = client.request("tools/call", json!({"name": "create_basket", "arguments": {}})).await;
    let basket = created["result"]["structuredContent"]["basket_id"].as_str().unwrap().to_owned();

    redis.stop();
    // While Redis is away: a clear error, not a hang or a crash.
    client.id += 1;
    let (status, answer) =
        client.post(json!({"jsonrpc": "2.0", "id": client.id, "method": "tools/list"})).await;
    assert_eq!(status, 503, "{answer}");
    assert!(answer.to_string().contains("state store unavailable"), "{answer}");

    redis.restart();
    // Back: the session and the basket acknowledged before the outage are there.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        client.id += 1;
        let (status, answer) = client
            .post(json!({"jsonrpc": "2.0", "id": client.id, "method": "tools/call",
                "params": {"name": "add_item", "arguments": {"basket_id": basket, "item": "fig", "quantity": 1}}}))
            .await;
        if status == 200 && answer["result"]["structuredContent"]["total_quantity"] == 1 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no recovery: {status} {answer}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A 2026-07-28 `tools/call` (no session) to `url`: (HTTP status, reply).
async fn stateless_call(
    http: &reqwest::Client,
    url: &str,
    id: u64,
    tool: &str,
    arguments: Value,
) -> (u16, Value) {
    let (status, _, reply) = stateless_call_with_headers(http, url, id, tool, arguments).await;
    (status, reply)
}

/// [`stateless_call`] with the response headers.
async fn stateless_call_with_headers(
    http: &reqwest::Client,
    url: &str,
    id: u64,
    tool: &str,
    arguments: Value,
) -> (u16, reqwest::header::HeaderMap, Value) {
    let params = json!({"name": tool, "arguments": arguments, "_meta": common::meta_2026(json!({}))});
    common::post_tools_call_2026(http, url, id, params).await
}

#[tokio::test]
async fn concurrent_updates_of_one_handle_over_two_instances_lose_nothing() {
    let redis = RedisServer::start();
    let instances = [
        start(&redis.url(), &["--fixtures", "demo"]).await,
        start(&redis.url(), &["--fixtures", "demo"]).await,
    ];
    let http = reqwest::Client::new();
    let (_, created) = stateless_call(&http, &instances[0].url, 1, "create_basket", json!({})).await;
    let basket = created["result"]["structuredContent"]["basket_id"].as_str().unwrap().to_owned();
    // 50 additions at once, alternating between the instances.
    let additions = (0..50u64).map(|i| {
        let (http, url, basket) = (http.clone(), instances[(i % 2) as usize].url.clone(), basket.clone());
        async move {
            stateless_call(
                &http,
                &url,
                100 + i,
                "add_item",
                json!({"basket_id": basket, "item": format!("item-{i}"), "quantity": 1}),
            )
            .await
        }
    });
    for (status, answer) in futures::future::join_all(additions).await {
        assert_eq!(status, 200, "{answer}");
        assert!(
            answer["result"]["structuredContent"].is_object(),
            "every addition is acknowledged: {answer}"
        );
    }
    let (_, viewed) =
        stateless_call(&http, &instances[1].url, 2, "view_basket", json!({"basket_id": basket})).await;
    let content = &viewed["result"]["structuredContent"];
    assert_eq!(
        content["items"].as_array().unwrap().len(),
        50,
        "every acknowledged addition is there: {viewed}"
    );
    assert_eq!(content["total_quantity"], 50);

    // A retried addition with the same request_id applies once.
    for _ in 0..2 {
        let args = json!({"basket_id": basket, "item": "retried", "quantity": 3, "request_id": "r-1"});
        let (status, _) = stateless_call(&http, &instances[0].url, 3, "add_item", args).await;
        assert_eq!(status, 200);
    }
    let (_, viewed) =
        stateless_call(&http, &instances[0].url, 4, "view_basket", json!({"basket_id": basket})).await;
    assert_eq!(viewed["result"]["structuredContent"]["total_quantity"], 53, "{viewed}");
}

#[tokio::test]
async fn the_first_request_after_redis_returns_succeeds_on_every_instance() {
    let mut redis = RedisServer::start();
    let instances = demo_instances(&redis, 2).await;
    let mut client = RoundRobin::new(&instances);
    client.initialize().await;
    // Idle instances: nothing is asked while Redis restarts.
    redis.stop();
    redis.restart();
    let ready = switchboard_state_redis::RedisStore::connect(&redis.url(), "probe").await;
    assert!(ready.is_ok(), "redis answers again");
    for _ in 0..instances.len() {
        client.id += 1;
        let (status, answer) =
            client.post(json!({"jsonrpc": "2.0", "id": client.id, "method": "tools/list"})).await;
        assert_eq!(status, 200, "the first request after the restart: {answer}");
    }
}

#[tokio::test]
async fn every_path_answers_a_store_outage_with_503_and_retry_after() {
    let mut redis = RedisServer::start();
    let instances = vec![start(&redis.url(), &["--fixtures", "demo"]).await];
    let http = reqwest::Client::new();
    let (_, created) = stateless_call(&http, &instances[0].url, 1, "create_basket", json!({})).await;
    let basket = created["result"]["structuredContent"]["basket_id"].as_str().unwrap().to_owned();
    let mut client = RoundRobin { instances: &instances, next: 0, session: None, http: http.clone(), id: 0 };
    client.initialize().await;
    redis.stop();

    // 2026-07-28: a request whose tool needs the store.
    let args = json!({"basket_id": basket, "item": "fig", "quantity": 1});
    let (status, headers, reply) =
        stateless_call_with_headers(&http, &instances[0].url, 2, "add_item", args).await;
    assert_eq!(status, 503, "{reply}");
    assert_eq!(headers["retry-after"], "1");
    assert_eq!(reply["error"]["data"]["stateStore"], "unavailable", "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("state store unavailable"), "{reply}");

    // Legacy: a session request, and a new session.
    for body in [
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    ] {
        let mut request = http
            .post(&instances[0].url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25");
        if body["method"] != "initialize" {
            request = request.header("mcp-session-id", client.session.clone().unwrap());
        }
        let response = request.body(body.to_string()).send().await.unwrap();
        assert_eq!(response.status(), 503, "{body}");
        assert_eq!(response.headers()["retry-after"], "1", "{body}");
        let reply: Value = response.json().await.unwrap();
        assert_eq!(reply["error"]["data"]["stateStore"], "unavailable", "{reply}");
    }
}

#[tokio::test]
async fn an_instance_started_while_redis_is_down_serves_once_it_is_up() {
    let mut redis = RedisServer::start();
    redis.stop();
    let instance = start(&redis.url(), &["--fixtures", "demo", "--page-size", "2"]).await;
    let http = reqwest::Client::new();
    let base = instance.url.trim_end_matches("/mcp").to_owned();
    assert_eq!(http.get(format!("{base}/healthz")).send().await.unwrap().status(), 200, "alive");
    let ready = http.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 503, "not ready without the store");
    assert_eq!(ready.headers()["retry-after"], "1");
    // What needs no shared state is served; what does gets the outage answer.
    let (status, echoed) = stateless_call(&http, &instance.url, 1, "echo", json!({"text": "hi"})).await;
    assert_eq!((status, echoed["result"]["content"][0]["text"].as_str()), (200, Some("hi")), "{echoed}");
    let (status, refused) = stateless_call(&http, &instance.url, 2, "create_basket", json!({})).await;
    assert_eq!(status, 503, "{refused}");

    redis.restart();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while http.get(format!("{base}/readyz")).send().await.unwrap().status() != 200 {
        assert!(tokio::time::Instant::now() < deadline, "never became ready");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Sessions, handles and cursors work now.
    let instances = [instance];
    let mut client = RoundRobin { instances: &instances, next: 0, session: None, http: http.clone(), id: 0 };
    client.initialize().await;
    let created = client.request("tools/call", json!({"name": "create_basket", "arguments": {}})).await;
    assert!(created["result"]["structuredContent"]["basket_id"].is_string(), "{created}");
    let first = client.request("tools/list", json!({})).await;
    let cursor = first["result"]["nextCursor"].as_str().expect("a second page").to_owned();
    let second = client.request("tools/list", json!({"cursor": cursor})).await;
    assert!(second.get("result").is_some(), "{second}");
}

/// A 2026-07-28 request to `url` with these client capabilities and the
/// routing headers it needs: (HTTP status, reply).
async fn stateless_request(
    http: &reqwest::Client,
    url: &str,
    id: u64,
    method: &str,
    mut params: Value,
    capabilities: Value,
) -> (u16, Value) {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities": capabilities});
    let name = params.get("name").or(params.get("taskId")).and_then(Value::as_str).map(str::to_owned);
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    let response = request.body(body.to_string()).send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let json =
        text.lines().filter_map(|l| l.strip_prefix("data:")).rfind(|d| !d.trim().is_empty()).map_or_else(
            || serde_json::from_str(&text).unwrap_or(Value::Null),
            |d| serde_json::from_str(d.trim()).unwrap(),
        );
    (status, json)
}

#[tokio::test]
async fn input_rounds_and_tasks_move_between_instances() {
    let redis = RedisServer::start();
    let a = start(&redis.url(), &["--fixtures", "conformance"]).await;
    let b = start(&redis.url(), &["--fixtures", "conformance"]).await;
    let http = reqwest::Client::new();
    let elicit = json!({"elicitation": {}});
    let tasks = json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});

    // A multi round-trip request whose three rounds land on a, b, a: the
    // requestState one instance signed is accepted by the other.
    let call = json!({"name": "test_input_required_result_multi_round", "arguments": {}});
    let (_, r1) = stateless_request(&http, &a.url, 1, "tools/call", call.clone(), elicit.clone()).await;
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    let mut retry = call.clone();
    retry["inputResponses"] = json!({"step1": {"action": "accept", "content": {"name": "Ada"}}});
    retry["requestState"] = r1["result"]["requestState"].clone();
    let (_, r2) = stateless_request(&http, &b.url, 2, "tools/call", retry, elicit.clone()).await;
    assert_eq!(r2["result"]["inputRequests"]["step2"]["method"], "elicitation/create", "{r2}");
    let mut last = call;
    last["inputResponses"] = json!({"step2": {"action": "accept", "content": {"city": "Paris"}}});
    last["requestState"] = r2["result"]["requestState"].clone();
    let (_, r3) = stateless_request(&http, &a.url, 3, "tools/call", last, elicit).await;
    assert_eq!(
        r3["result"]["content"][0]["text"], "step1={\"name\":\"Ada\"} step2={\"city\":\"Paris\"}",
        "{r3}"
    );

    // A task created on a, seen waiting and answered on b, finished on a.
    let confirm = json!({"name": "confirm_delete", "arguments": {"filename": "x.txt"}});
    let (_, created) = stateless_request(&http, &a.url, 4, "tools/call", confirm, tasks.clone()).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let waiting = task_reaching(&http, &b.url, &id, "input_required", &tasks).await;
    assert!(waiting["result"]["inputRequests"]["confirm"].is_object(), "{waiting}");
    let update = json!({"taskId": id, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});
    let (_, ack) = stateless_request(&http, &b.url, 5, "tasks/update", update, tasks.clone()).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = task_reaching(&http, &a.url, &id, "completed", &tasks).await;
    assert_eq!(done["result"]["result"]["content"][0]["text"], "Deleted x.txt", "{done}");

    // A task created on b and cancelled on a stops on b.
    let slow = json!({"name": "slow_compute", "arguments": {"seconds": 120}});
    let (_, created) = stateless_request(&http, &b.url, 6, "tools/call", slow, tasks.clone()).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let (_, ack) =
        stateless_request(&http, &a.url, 7, "tasks/cancel", json!({"taskId": id}), tasks.clone()).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    task_reaching(&http, &b.url, &id, "cancelled", &tasks).await;
}

/// Polls `tasks/get` on `url` until the task has `status` (20 s at most,
/// 200 polls); the last answer.
async fn task_reaching(http: &reqwest::Client, url: &str, id: &str, status: &str, caps: &Value) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    for n in 0..200 {
        let (_, task) =
            stateless_request(http, url, 100 + n, "tasks/get", json!({"taskId": id}), caps.clone()).await;
        if task["result"]["status"] == status {
            return task;
        }
        assert!(tokio::time::Instant::now() < deadline, "never {status}: {task}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("task {id} never reached {status}");
}
