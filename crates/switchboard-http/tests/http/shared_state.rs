//! Several instances sharing one state store, as behind a round-robin load
//! balancer without sticky routing: each instance is a real HTTP server
//! with its own `Server`, all with the same `MemoryStore` (what processes
//! sharing Redis look like).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use reqwest::{Client, RequestBuilder, StatusCode};
use serde_json::{Value, json};
use switchboard_http::{AuthOptions, HttpOptions, StaticTokens};
use switchboard_server::state::{LogEntries, MemoryStore, StateError, StateStore};
use switchboard_server::{CallToolResult, NoArgs, Principal, RequestContext, Resource, Server, Tool};

use crate::support::{Serving, loopback, sse_events};

const WATCHED: &str = "test://watched";

fn server() -> Server {
    let mut builder = Server::builder("shared-test", "1")
        .tool(Tool::new("echo").description("echo").input_schema(json!({"type": "object"})).raw_handler(
            |args, _| async move { Ok(CallToolResult::text(args["text"].as_str().unwrap_or_default())) },
        ))
        .tool(Tool::new("steps").description("progress").handler(
            |_: NoArgs, ctx: RequestContext| async move {
                for i in 1..=3 {
                    ctx.progress(f64::from(i), Some(3.0), None).await;
                }
                Ok("done")
            },
        ))
        .resource(Resource::new(WATCHED, "watched").text("w"));
    for i in 0..SUBSCRIBABLE {
        builder = builder.resource(Resource::new(format!("test://r{i}"), format!("r{i}")).text("r"));
    }
    builder.build().unwrap()
}

/// Resources `test://r0`… to subscribe to at once.
const SUBSCRIBABLE: usize = 20;

/// One instance: its URL and its `Server` (to publish events on it).
struct Instance {
    url: String,
    server: Server,
    _serving: Serving,
}

struct Cluster {
    instances: Vec<Instance>,
    client: Client,
}

async fn cluster(n: usize, state: Arc<dyn StateStore>, tokens: Option<StaticTokens>) -> Cluster {
    cluster_with(n, state, tokens, HttpOptions::default().session_idle_timeout).await
}

async fn cluster_with(
    n: usize,
    state: Arc<dyn StateStore>,
    tokens: Option<StaticTokens>,
    idle: Duration,
) -> Cluster {
    let mut instances = Vec::new();
    for _ in 0..n {
        let listener = loopback().await;
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let mut options = HttpOptions::default();
        options.state = Some(Arc::clone(&state));
        options.session_idle_timeout = idle;
        if let Some(tokens) = &tokens {
            options.auth =
                Some(AuthOptions::new(url.clone(), "https://as.example", Arc::new(tokens.clone())));
        }
        let server = server();
        let serving = Serving::on(listener, server.clone(), options);
        instances.push(Instance { url, server, _serving: serving });
    }
    Cluster { instances, client: Client::new() }
}

impl Cluster {
    /// `GET /readyz` of instance `i`.
    async fn readyz(&self, i: usize) -> reqwest::Response {
        let url = format!("{}readyz", self.instances[i].url.trim_end_matches("mcp"));
        self.client.get(url).send().await.unwrap()
    }

    fn post(&self, i: usize, sid: Option<&str>, body: &Value) -> RequestBuilder {
        let mut r = self
            .client
            .post(&self.instances[i].url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(sid) = sid {
            r = r.header("mcp-session-id", sid);
        }
        r
    }

    async fn initialize(&self, i: usize, version: &str, token: Option<&str>) -> String {
        let mut r = self.post(
            i,
            None,
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        );
        if let Some(token) = token {
            r = r.bearer_auth(token);
        }
        let r = r.send().await.unwrap();
        assert_eq!(r.status(), 200);
        let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["result"]["protocolVersion"], version);
        sid
    }

    async fn initialized(&self, i: usize, sid: &str) {
        let r = self
            .post(i, Some(sid), &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202);
    }

    async fn ping(&self, i: usize, sid: &str) -> reqwest::Response {
        self.post(i, Some(sid), &json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})).send().await.unwrap()
    }
}

#[tokio::test]
async fn a_session_is_served_by_every_instance_and_deleted_everywhere() {
    let store = MemoryStore::new();
    let c = cluster(3, store.clone(), None).await;
    let sid = c.initialize(0, "2025-06-18", None).await;
    c.initialized(1, &sid).await;

    let r = c
        .post(2, Some(&sid), &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["result"]["tools"].as_array().unwrap().len(), 2);

    let r = c
        .post(
            2,
            Some(&sid),
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hi"}}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let events = sse_events(&r.text().await.unwrap());
    let reply: Value = serde_json::from_str(&events.last().unwrap().1).unwrap();
    assert_eq!(reply["result"]["content"][0]["text"], "hi");

    // Round robin: every instance serves it.
    for i in 0..3 {
        assert_eq!(c.ping(i, &sid).await.status(), 200, "instance {i}");
    }

    // A GET stream open on A ends when the session is deleted on C.
    let r_get = c
        .client
        .get(&c.instances[0].url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(r_get.status(), 200);
    assert!(!store.read_after(&format!("events:{sid}"), 0).await.unwrap().is_empty(), "streams listed");
    assert!(store.get(&format!("session:{sid}")).await.unwrap().is_some());

    let r = c.client.delete(&c.instances[2].url).header("mcp-session-id", &sid).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let rest = tokio::time::timeout(Duration::from_secs(5), r_get.text()).await;
    assert!(rest.is_ok(), "A's GET stream ended");
    for i in 0..3 {
        assert_eq!(c.ping(i, &sid).await.status(), 404, "instance {i} after DELETE elsewhere");
    }
    assert!(store.get(&format!("session:{sid}")).await.unwrap().is_none(), "record deleted");
    assert!(store.read_after(&format!("events:{sid}"), 0).await.unwrap().is_empty(), "events deleted");
    assert_eq!(c.ping(0, "never-issued").await.status(), 404);
}

#[tokio::test]
async fn a_session_stays_bound_to_its_principal_on_every_instance() {
    let tokens = StaticTokens::new().with("t-ada", Principal::new("ada")).with("t-bo", Principal::new("bo"));
    let c = cluster(2, MemoryStore::new(), Some(tokens)).await;
    let sid = c.initialize(0, "2025-06-18", Some("t-ada")).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    // Unknown on B: rebuilt from the record, but not for another principal.
    let r = c.post(1, Some(&sid), &ping).bearer_auth("t-bo").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = c.post(1, Some(&sid), &ping).bearer_auth("t-ada").send().await.unwrap();
    assert_eq!(r.status(), 200);
    // Known on B now: still refused to another principal.
    let r = c.post(1, Some(&sid), &ping).bearer_auth("t-bo").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_subscription_made_on_one_instance_reaches_the_get_stream_on_another() {
    let c = cluster(2, MemoryStore::new(), None).await;
    let sid = c.initialize(0, "2025-06-18", None).await;
    c.initialized(1, &sid).await;
    // The GET stream is on A.
    let r = c
        .client
        .get(&c.instances[0].url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let mut stream = r.bytes_stream();
    // The subscription is made on B.
    let r = c
        .post(
            1,
            Some(&sid),
            &json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
            "params": {"uri": WATCHED}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert!(body.get("result").is_some(), "{body}");

    // A learns it over the store's channel (asynchronously): publish until
    // the notification arrives, within a bounded time.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let mut seen = String::new();
    while !seen.contains("notifications/resources/updated") {
        assert!(tokio::time::Instant::now() < deadline, "no resources/updated on A's GET stream: {seen}");
        c.instances[0].server.notify_resource_updated(WATCHED);
        if let Ok(Some(chunk)) = tokio::time::timeout(Duration::from_millis(200), stream.next()).await {
            seen.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
        }
    }
    let updated = sse_events(&seen)
        .into_iter()
        .map(|(_, d)| serde_json::from_str::<Value>(&d).unwrap())
        .find(|m| m["method"] == "notifications/resources/updated")
        .unwrap();
    assert_eq!(updated["params"]["uri"], WATCHED);
}

#[tokio::test]
async fn a_stream_from_one_instance_resumes_on_another() {
    let c = cluster(2, MemoryStore::new(), None).await;
    let sid = c.initialize(0, "2025-11-25", None).await;
    c.initialized(0, &sid).await;
    let r = c
        .post(
            0,
            Some(&sid),
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "steps", "_meta": {"progressToken": "p"}}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let events = sse_events(&r.text().await.unwrap());
    assert_eq!(events.len(), 5, "priming, three progress notifications, the response: {events:?}");
    assert!(events[0].1.is_empty(), "priming event first");
    let first_progress = events[1].0.clone().unwrap();

    let r = c
        .client
        .get(&c.instances[1].url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("last-event-id", &first_progress)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let text = tokio::time::timeout(Duration::from_secs(5), r.text()).await.unwrap().unwrap();
    let replayed = sse_events(&text);
    assert_eq!(replayed, events[2..].to_vec(), "the later events, ids and all");
    let last: Value = serde_json::from_str(&replayed.last().unwrap().1).unwrap();
    assert_eq!(last["result"]["content"][0]["text"], "done");

    // An id this session never got is refused on any instance.
    let r = c
        .client
        .get(&c.instances[1].url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("last-event-id", "nope.99")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
}

/// A store that can be switched off, as a Redis outage looks.
#[derive(Debug)]
struct Flaky {
    inner: Arc<MemoryStore>,
    down: AtomicBool,
}

impl Flaky {
    fn check(&self) -> Result<(), StateError> {
        if self.down.load(Ordering::SeqCst) { Err(StateError("connection refused".into())) } else { Ok(()) }
    }
}

impl StateStore for Flaky {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StateError>> {
        Box::pin(async move {
            self.check()?;
            self.inner.get(key).await
        })
    }
    fn set<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StateError>> {
        Box::pin(async move {
            self.check()?;
            self.inner.set(key, value, ttl).await
        })
    }
    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StateError>> {
        Box::pin(async move {
            self.check()?;
            self.inner.set_if_absent(key, value, ttl).await
        })
    }
    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: Option<&'a [u8]>,
        value: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StateError>> {
        Box::pin(async move {
            self.check()?;
            self.inner.compare_and_set(key, expected, value, ttl).await
        })
    }
    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StateError>> {
        Box::pin(async move {
            self.check()?;
            self.inner.delete(key).await
        })
    }
    fn touch<'a>(&'a self, key: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, StateError>> {
        Box::pin(async move {
            self.check()?;
            self.inner.touch(key, ttl).await
        })
    }
    fn append<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        max_len: usize,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<u64, StateError>> {
        Box::pin(async move {
            self.check()?;
            self.inner.append(key, value, max_len, ttl).await
        })
    }
    fn read_after<'a>(&'a self, key: &'a str, after: u64) -> BoxFuture<'a, Result<LogEntries, StateError>> {
        Box::pin(async move {
            self.check()?;
            self.inner.read_after(key, after).await
        })
    }
    fn publish<'a>(&'a self, channel: &'a str, message: Vec<u8>) -> BoxFuture<'a, Result<(), StateError>> {
        Box::pin(async move {
            self.check()?;
            self.inner.publish(channel, message).await
        })
    }
    fn subscribe(&self, channel: &str) -> BoxStream<'static, Vec<u8>> {
        self.inner.subscribe(channel)
    }
}

#[tokio::test]
async fn a_store_outage_is_a_clear_503_and_recovery_needs_nothing() {
    let flaky = Arc::new(Flaky { inner: MemoryStore::new(), down: AtomicBool::new(false) });
    let c = cluster(2, flaky.clone(), None).await;
    let sid = c.initialize(0, "2025-06-18", None).await;
    c.initialized(0, &sid).await;

    flaky.down.store(true, Ordering::SeqCst);
    for i in 0..2 {
        // Known on A, unknown on B: both need the store.
        let r = c.ping(i, &sid).await;
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE, "instance {i}");
        assert_eq!(r.headers()["retry-after"], "1", "instance {i}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"]["data"]["stateStore"], "unavailable", "{body}");
        assert_eq!(body["jsonrpc"], "2.0");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("state store unavailable"), "{message}");
    }
    let r = c
        .post(
            1,
            None,
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE, "no session without its record");

    for i in 0..2 {
        let ready = c.readyz(i).await;
        assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE, "instance {i} is not ready");
        assert_eq!(ready.headers()["retry-after"], "1");
    }

    flaky.down.store(false, Ordering::SeqCst);
    for i in 0..2 {
        assert_eq!(c.ping(i, &sid).await.status(), 200, "instance {i} after recovery");
        let ready = c.readyz(i).await;
        assert_eq!(ready.status(), 200, "instance {i} is ready again");
    }
}

#[tokio::test]
async fn a_session_lives_while_any_instance_uses_it_and_expires_when_none_does() {
    let c = cluster_with(2, MemoryStore::new(), None, Duration::from_millis(300)).await;
    let sid = c.initialize(0, "2025-06-18", None).await;
    c.initialized(0, &sid).await;
    // Used on B only, for several of A's idle periods.
    for _ in 0..10 {
        assert_eq!(c.ping(1, &sid).await.status(), 200);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(c.ping(0, &sid).await.status(), 200, "A's idle sweep did not end it");
    tokio::time::sleep(Duration::from_millis(900)).await;
    for i in 0..2 {
        assert_eq!(c.ping(i, &sid).await.status(), 404, "instance {i}: expired everywhere");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_changes_to_one_session_on_two_instances_all_land_in_its_record() {
    let store = MemoryStore::new();
    let c = cluster(2, store.clone(), None).await;
    // Many sessions: the race is narrow, and writing the whole local copy
    // (instead of merging) loses a change in one of a few dozen rounds.
    for _ in 0..40 {
        let sid = c.initialize(0, "2025-06-18", None).await;
        c.initialized(0, &sid).await;
        let subscribes = (0..SUBSCRIBABLE).map(|i| {
            let body = json!({"jsonrpc": "2.0", "id": i, "method": "resources/subscribe",
                "params": {"uri": format!("test://r{i}")}});
            c.post(i % 2, Some(&sid), &body).send()
        });
        for response in futures::future::join_all(subscribes).await {
            assert_eq!(response.unwrap().status(), 200);
        }
        let record: Value =
            serde_json::from_slice(&store.get(&format!("session:{sid}")).await.unwrap().unwrap()).unwrap();
        let mut subscribed: Vec<&str> =
            record["subscriptions"].as_array().unwrap().iter().map(|u| u.as_str().unwrap()).collect();
        subscribed.sort_unstable();
        let mut expected: Vec<String> = (0..SUBSCRIBABLE).map(|i| format!("test://r{i}")).collect();
        expected.sort_unstable();
        assert_eq!(subscribed, expected, "every acknowledged subscription is in the shared record");
        assert_eq!(record["ready"], true, "the other fields are kept");
    }
}
