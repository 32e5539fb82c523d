//! `max_sessions` across instances: two real HTTP instances on one real
//! Redis count their sessions together, atomically, and a session whose
//! record expired (its instance crashed, its client left) stops counting.

use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use switchboard_http::HttpOptions;
use switchboard_server::Server;
use switchboard_server::state::StateStore;
use switchboard_state_redis::RedisStore;
use switchboard_testkit::redis::RedisServer;

struct Instance {
    url: String,
    _shutdown: tokio::sync::oneshot::Sender<()>,
}

async fn instance(redis: &RedisServer, max_sessions: usize, idle: Duration) -> Instance {
    let store = RedisStore::connect(&redis.url(), "max-sessions").await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let mut options = HttpOptions::default();
    options.state = Some(store as Arc<dyn StateStore>);
    options.max_sessions = max_sessions;
    options.session_idle_timeout = idle;
    let server = Server::builder("sessions", "1").build().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(switchboard_http::serve_listener(server, listener, options, async move {
        let _ = rx.await;
    }));
    Instance { url, _shutdown: tx }
}

/// Sends `initialize` to `instance`: the status, the session id if one was
/// opened, and the body.
async fn initialize(http: &reqwest::Client, instance: &Instance) -> (StatusCode, Option<String>, Value) {
    initialize_at(http, &instance.url).await
}

async fn initialize_at(http: &reqwest::Client, url: &str) -> (StatusCode, Option<String>, Value) {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let response = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(init.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status();
    let id = response.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
    (status, id, response.json().await.unwrap_or(Value::Null))
}

fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_sessions_holds_across_two_instances_on_one_redis() {
    let redis = RedisServer::start();
    let idle = HttpOptions::default().session_idle_timeout;
    let (a, b) = (instance(&redis, 3, idle).await, instance(&redis, 3, idle).await);
    let http = client();

    // Six clients at once, three per instance: exactly three get a session.
    let attempts: Vec<_> = (0..6)
        .map(|i| {
            let (http, url) = (http.clone(), if i % 2 == 0 { a.url.clone() } else { b.url.clone() });
            tokio::spawn(async move { initialize_at(&http, &url).await })
        })
        .collect();
    let mut opened = Vec::new();
    for attempt in attempts {
        let (status, id, body) = attempt.await.unwrap();
        match status {
            StatusCode::OK => opened.push(id.expect("an opened session has an id")),
            StatusCode::SERVICE_UNAVAILABLE => {
                assert!(id.is_none());
                assert!(
                    body["error"]["message"].as_str().unwrap().contains("too many open sessions"),
                    "{body}"
                );
            }
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert_eq!(opened.len(), 3, "the limit counts both instances' sessions");

    // Ending one on instance B makes room on instance A, for one.
    let ended = http.delete(&b.url).header("mcp-session-id", &opened[0]).send().await.unwrap();
    assert_eq!(ended.status(), StatusCode::OK);
    assert_eq!(initialize(&http, &a).await.0, StatusCode::OK);
    assert_eq!(initialize(&http, &b).await.0, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(initialize(&http, &a).await.0, StatusCode::SERVICE_UNAVAILABLE);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_that_expired_stop_counting_so_a_vanished_instance_leaks_nothing() {
    let redis = RedisServer::start();
    let idle = Duration::from_millis(700);
    let (a, b) = (instance(&redis, 2, idle).await, instance(&redis, 2, idle).await);
    let http = client();
    assert_eq!(initialize(&http, &a).await.0, StatusCode::OK);
    assert_eq!(initialize(&http, &b).await.0, StatusCode::OK);
    assert_eq!(initialize(&http, &a).await.0, StatusCode::SERVICE_UNAVAILABLE);
    // Nobody uses the two sessions: their records expire in Redis (as
    // when the instance holding them is gone), and they stop counting.
    drop(a);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(initialize(&http, &b).await.0, StatusCode::OK);
    assert_eq!(initialize(&http, &b).await.0, StatusCode::OK);
    assert_eq!(initialize(&http, &b).await.0, StatusCode::SERVICE_UNAVAILABLE);
}
