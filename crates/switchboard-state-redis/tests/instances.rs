//! Two servers sharing one real Redis are two instances: a resource update
//! published on one reaches a subscriber of the other, and a cursor key
//! made by one is the other's.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use switchboard_server::state::{StateStore, shared_secret};
use switchboard_server::{Resource, Server};
use switchboard_state_redis::RedisStore;
use switchboard_testkit::TestClient;
use switchboard_testkit::redis::RedisServer;

async fn instance(url: &str) -> Server {
    let store = RedisStore::connect(url, "instances-test").await.unwrap();
    Server::builder("shared", "1")
        .resource(Resource::new("test://doc", "doc").text("v1"))
        .state(store as Arc<dyn StateStore>)
        .build()
        .unwrap()
}

#[tokio::test]
async fn an_update_on_one_instance_reaches_a_subscriber_on_another() {
    let redis = RedisServer::start();
    let (a, b) = (instance(&redis.url()).await, instance(&redis.url()).await);
    let mut client = TestClient::connect_legacy(&b, "2025-11-25").await;
    client.request("resources/subscribe", json!({"uri": "test://doc"})).await.unwrap();
    // B's subscription to the channel is confirmed asynchronously: publish
    // until the first update arrives (bounded), then check one more.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        a.notify_resource_updated("test://doc");
        match tokio::time::timeout(
            Duration::from_millis(200),
            client.next_notification("notifications/resources/updated"),
        )
        .await
        {
            Ok(note) => {
                assert_eq!(note.unwrap()["params"]["uri"], "test://doc");
                break;
            }
            Err(_) => assert!(tokio::time::Instant::now() < deadline, "no update crossed instances"),
        }
    }
    // Drain duplicates of the retries, then one more crosses promptly.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let _ = client.notifications();
    a.notify_resource_updated("test://doc");
    let note = tokio::time::timeout(
        Duration::from_secs(5),
        client.next_notification("notifications/resources/updated"),
    )
    .await
    .expect("a later update crosses too")
    .unwrap();
    assert_eq!(note["params"]["uri"], "test://doc");
}

#[tokio::test]
async fn instances_agree_on_the_cursor_key() {
    let redis = RedisServer::start();
    let one = RedisStore::connect(&redis.url(), "cursor-test").await.unwrap();
    let two = RedisStore::connect(&redis.url(), "cursor-test").await.unwrap();
    let (k1, k2) = (
        shared_secret(one.as_ref(), "cursor").await.unwrap(),
        shared_secret(two.as_ref(), "cursor").await.unwrap(),
    );
    assert_eq!(k1, k2);
}

/// A TCP relay in front of Redis that can cut every connection through it
/// and refuse new ones: one instance's link to Redis goes down while Redis
/// and the other instances stay up.
struct Relay {
    port: u16,
    cut: Arc<std::sync::atomic::AtomicBool>,
    links: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    accept: tokio::task::JoinHandle<()>,
}

impl Relay {
    async fn start(target: u16) -> Relay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let cut = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let links = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (is_cut, all) = (Arc::clone(&cut), Arc::clone(&links));
        let accept = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if is_cut.load(std::sync::atomic::Ordering::SeqCst) {
                    continue; // dropped: the connection is refused
                }
                let link = tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(("127.0.0.1", target)).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                all.lock().unwrap().push(link);
            }
        });
        Relay { port, cut, links, accept }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Drops every connection through the relay and refuses new ones.
    fn cut(&self) {
        self.cut.store(true, std::sync::atomic::Ordering::SeqCst);
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
    }

    fn restore(&self) {
        self.cut.store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.accept.abort();
        self.cut();
    }
}

async fn instance_on(store: Arc<RedisStore>) -> Server {
    Server::builder("shared", "1")
        .resource(Resource::new("test://doc", "doc").text("v1"))
        .state(store as Arc<dyn StateStore>)
        .build()
        .unwrap()
}

const UPDATED: &str = "notifications/resources/updated";
const LIST_CHANGED: &str = "notifications/resources/list_changed";

/// A client of `b` subscribed to `test://doc`, once an update published
/// through `a` demonstrably reaches it (B's bus reads), with the probes'
/// notifications drained.
async fn subscribed_across(a: &Server, b: &Server) -> TestClient {
    let mut client = TestClient::connect_legacy(b, "2025-11-25").await;
    client.request("resources/subscribe", json!({"uri": "test://doc"})).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        a.notify_resource_updated("test://doc");
        if tokio::time::timeout(Duration::from_millis(200), client.next_notification(UPDATED)).await.is_ok() {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no update crossed instances");
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    quiet(&mut client, UPDATED).await;
    client
}

/// Waits (bounded) for the notification `method` on `client`.
async fn told(client: &mut TestClient, method: &str, why: &str) -> serde_json::Value {
    tokio::time::timeout(Duration::from_secs(15), client.next_notification(method))
        .await
        .unwrap_or_else(|_| panic!("{why}: no {method}"))
        .unwrap()
}

/// Drains `method` notifications until none arrives for 500 ms; how many.
async fn quiet(client: &mut TestClient, method: &str) -> usize {
    let mut count = 0;
    while tokio::time::timeout(Duration::from_millis(500), client.next_notification(method)).await.is_ok() {
        count += 1;
    }
    count
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_published_while_an_instance_is_cut_off_reaches_its_client_after_the_reconnect() {
    let redis = RedisServer::start();
    let relay = Relay::start(redis.port()).await;
    let a = instance_on(RedisStore::connect(&redis.url(), "cut-off").await.unwrap()).await;
    let b = instance_on(RedisStore::connect(&relay.url(), "cut-off").await.unwrap()).await;
    let mut client = subscribed_across(&a, &b).await;

    relay.cut();
    tokio::time::sleep(Duration::from_millis(300)).await;
    a.notify_resource_updated("test://doc");
    tokio::time::sleep(Duration::from_secs(1)).await;
    relay.restore();

    let note = told(&mut client, UPDATED, "the update published during the cut").await;
    assert_eq!(note["params"]["uri"], "test://doc");
    // B read on from where it stopped: the very update, not a gap's
    // over-approximation (which would announce the lists too).
    assert_eq!(quiet(&mut client, LIST_CHANGED).await, 0, "no gap was reported");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_cut_off_past_what_the_stream_keeps_tells_its_client_what_may_have_changed() {
    let redis = RedisServer::start();
    let relay = Relay::start(redis.port()).await;
    let a_store = RedisStore::connect(&redis.url(), "trimmed").await.unwrap();
    a_store.set_stream_max_len(10);
    let a = instance_on(a_store).await;
    let b = instance_on(RedisStore::connect(&relay.url(), "trimmed").await.unwrap()).await;
    let mut client = subscribed_across(&a, &b).await;

    relay.cut();
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The update B's client wants, then enough others to trim it away.
    a.notify_resource_updated("test://doc");
    for i in 0..500 {
        a.notify_resource_updated(format!("test://other/{i}"));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    relay.restore();

    let note = told(&mut client, UPDATED, "a gap covering the trimmed update").await;
    assert_eq!(note["params"]["uri"], "test://doc");
    told(&mut client, LIST_CHANGED, "a gap announces the lists too").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_published_while_redis_restarts_empty_is_covered_for_the_other_instances_client() {
    let mut redis = RedisServer::start();
    let a = instance_on(RedisStore::connect(&redis.url(), "restart").await.unwrap()).await;
    let b = instance_on(RedisStore::connect(&redis.url(), "restart").await.unwrap()).await;
    let mut client = subscribed_across(&a, &b).await;

    // Redis goes away and comes back having lost everything (its
    // append-only file removed); A publishes while it is down.
    tokio::task::block_in_place(|| redis.stop());
    a.notify_resource_updated("test://doc");
    let aof = redis.dir().join("appendonlydir");
    if aof.exists() {
        std::fs::remove_dir_all(&aof).unwrap();
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    tokio::task::block_in_place(|| redis.restart());

    let note = told(&mut client, UPDATED, "the update lost with Redis").await;
    assert_eq!(note["params"]["uri"], "test://doc");
    told(&mut client, LIST_CHANGED, "a restart is a gap: the lists are announced too").await;

    // And the bus works on after the restart.
    tokio::time::sleep(Duration::from_millis(500)).await;
    quiet(&mut client, UPDATED).await;
    quiet(&mut client, LIST_CHANGED).await;
    a.notify_resource_updated("test://doc");
    told(&mut client, UPDATED, "an update after the restart").await;
}
