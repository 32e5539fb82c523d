//! Shared state in one process: two servers sharing a `MemoryStore` are two
//! instances; what one publishes or stores, the other's clients see.

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use switchboard_server::state::{MemoryStore, SharedHandleStore, StateStore, shared_secret};
use switchboard_server::{ListKind, Principal, RequestContext, RequestId, Resource, Server, Tool, ToolError};
use switchboard_testkit::TestClient;

fn instance(store: &Arc<MemoryStore>) -> Server {
    Server::builder("shared", "1")
        .resource(Resource::new("test://a", "a").text("a"))
        .state(Arc::clone(store) as Arc<dyn StateStore>)
        .build()
        .unwrap()
}

#[tokio::test]
async fn updates_published_on_one_instance_reach_subscribers_of_another_in_order() {
    let store = MemoryStore::new();
    let (a, b) = (instance(&store), instance(&store));
    let mut client = TestClient::connect_legacy(&b, "2025-11-25").await;
    client.request("resources/subscribe", json!({"uri": "test://a"})).await.unwrap();
    // The bridge subscribes when the instance first serves; let it settle.
    tokio::time::sleep(Duration::from_millis(20)).await;
    for i in 0..50 {
        a.notify_resource_updated(format!("test://a?{i}"));
    }
    a.notify_resource_updated("test://a");
    let note = client.next_notification("notifications/resources/updated").await.unwrap();
    assert_eq!(note["params"]["uri"], "test://a", "only the subscribed URI is delivered");
    a.notify_list_changed(ListKind::Resources);
    client.next_notification("notifications/resources/list_changed").await.unwrap();
    // An instance never receives its own events twice.
    b.notify_resource_updated("test://a");
    client.next_notification("notifications/resources/updated").await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let again = client.notifications_named("notifications/resources/updated");
    assert!(again.is_empty(), "no echo of B's own event: {again:?}");
    // A new instance's own start-up registrations are not news to others.
    let _c = instance(&store);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let announced = client.notifications_named("notifications/resources/list_changed");
    assert!(announced.is_empty(), "{announced:?}");
}

#[tokio::test]
async fn events_cross_instances_in_publication_order() {
    let store = MemoryStore::new();
    let (a, b) = (instance(&store), instance(&store));
    let mut client = TestClient::connect_modern(&b);
    let id = json!(client.next_id());
    let uris: Vec<String> = (0..40).map(|i| format!("test://ordered/{i}")).collect();
    client
        .send(&json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": client.with_meta(json!({"notifications": {"resourceSubscriptions": uris}}))}))
        .await
        .unwrap();
    // The acknowledgement comes first; then events flow.
    let ack = client.recv().await.unwrap();
    assert!(ack.get("method").is_some() || ack.get("result").is_some(), "{ack}");
    tokio::time::sleep(Duration::from_millis(20)).await;
    for uri in &uris {
        a.notify_resource_updated(uri.clone());
    }
    let mut seen = Vec::new();
    while seen.len() < uris.len() {
        let note = client.next_notification("notifications/resources/updated").await.unwrap();
        seen.push(note["params"]["uri"].as_str().unwrap().to_owned());
    }
    assert_eq!(seen, uris, "in the order A published them");
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Put {
    basket: String,
    item: String,
}

fn basket_tools(store: Arc<dyn StateStore>) -> Vec<Tool> {
    let baskets = Arc::new(
        SharedHandleStore::<Vec<String>>::new("basket", Duration::from_secs(60), store)
            .recovery_hint("call create_basket"),
    );
    let (create, put) = (Arc::clone(&baskets), baskets);
    vec![
        Tool::new("create_basket").handler(move |_: switchboard_server::NoArgs, ctx: RequestContext| {
            let baskets = Arc::clone(&create);
            async move { baskets.create(&ctx, Vec::new()).await }
        }),
        Tool::new("put").handler(move |args: Put, ctx: RequestContext| {
            let baskets = Arc::clone(&put);
            async move {
                let count = baskets
                    .update(&ctx, &args.basket, |items| {
                        items.push(args.item.clone());
                        items.len()
                    })
                    .await?;
                Ok::<_, ToolError>(format!("{count} items"))
            }
        }),
    ]
}

/// One instance of the shop: the basket tools over `store`.
fn shop(store: &Arc<MemoryStore>) -> Server {
    let mut builder = Server::builder("shop", "1");
    for tool in basket_tools(Arc::clone(store) as Arc<dyn StateStore>) {
        builder = builder.tool(tool);
    }
    builder.build().unwrap()
}

#[tokio::test]
async fn a_handle_made_on_one_instance_works_on_another() {
    let store = MemoryStore::new();
    let (a, b) = (shop(&store), shop(&store));
    let mut on_a = TestClient::connect_legacy(&a, "2025-11-25").await;
    let mut on_b = TestClient::connect_modern(&b);
    let created = on_a.call_tool("create_basket", json!({})).await.unwrap();
    let handle = created["content"][0]["text"].as_str().unwrap().to_owned();
    let put = on_b.call_tool("put", json!({"basket": handle, "item": "apple"})).await.unwrap();
    assert_eq!(put["content"][0]["text"], "1 items");
    let put = on_a.call_tool("put", json!({"basket": handle, "item": "pear"})).await.unwrap();
    assert_eq!(put["content"][0]["text"], "2 items", "B's change is visible on A");
    let forged = on_b.call_tool("put", json!({"basket": "basket_forged", "item": "x"})).await.unwrap();
    assert_eq!(forged["isError"], true);
    assert!(forged["content"][0]["text"].as_str().unwrap().contains("call create_basket"), "{forged}");
}

#[tokio::test(start_paused = true)]
async fn shared_handles_expire_and_stay_with_their_owner() {
    let store = MemoryStore::new();
    let handles =
        SharedHandleStore::<u32>::new("h", Duration::from_secs(10), store as Arc<dyn StateStore>).sliding();
    let alice = RequestContext::detached_as(RequestId::Number(1), Some(Principal::new("alice")));
    let bob = RequestContext::detached_as(RequestId::Number(2), Some(Principal::new("bob")));
    let id = handles.create(&alice, 7).await.unwrap();
    assert_eq!(handles.get(&alice, &id).await.unwrap(), 7);
    let err = handles.get(&bob, &id).await.unwrap_err();
    assert!(format!("{err:?}").contains("unknown"), "a foreign handle reads as unknown: {err:?}");
    tokio::time::advance(Duration::from_secs(8)).await;
    assert_eq!(handles.get(&alice, &id).await.unwrap(), 7, "sliding: this use renews it");
    tokio::time::advance(Duration::from_secs(8)).await;
    assert!(handles.get(&alice, &id).await.is_ok(), "16 s after creation, 8 s after the last use");
    tokio::time::advance(Duration::from_secs(11)).await;
    assert!(handles.get(&alice, &id).await.is_err(), "expired");
    assert!(!handles.remove(&alice, &id).await.unwrap());
}

#[tokio::test]
async fn instances_share_one_cursor_secret() {
    let store = MemoryStore::new();
    let first = shared_secret(store.as_ref(), "cursor").await.unwrap();
    let second = shared_secret(store.as_ref(), "cursor").await.unwrap();
    assert_eq!(first, second);
    assert_ne!(first, shared_secret(store.as_ref(), "other").await.unwrap());
    // A cursor minted by one instance pages on another that shares the key.
    let build = || {
        let mut options = switchboard_server::ServerOptions::default();
        options.page_size = 2;
        options.cursor_key = Some(first);
        let mut builder = Server::builder("paged", "1").options(options);
        for i in 0..5 {
            builder = builder.resource(Resource::new(format!("test://{i}"), format!("r{i}")).text("x"));
        }
        builder.build().unwrap()
    };
    let (a, b) = (build(), build());
    let mut on_a = TestClient::connect_legacy(&a, "2025-11-25").await;
    let mut on_b = TestClient::connect_legacy(&b, "2025-11-25").await;
    let page = on_a.request("resources/list", json!({})).await.unwrap();
    let cursor = page["nextCursor"].as_str().unwrap();
    let next = on_b.request("resources/list", json!({"cursor": cursor})).await.unwrap();
    assert_eq!(next["resources"][0]["uri"], "test://2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_updates_of_one_shared_handle_lose_nothing() {
    // Two instances on one store, 50 updates at once split between them.
    let store = MemoryStore::new();
    let (a, b) = (shop(&store), shop(&store));
    let mut first = TestClient::connect_modern(&a);
    let created = first.call_tool("create_basket", json!({})).await.unwrap();
    let handle = created["content"][0]["text"].as_str().unwrap().to_owned();
    let calls = (0..50).map(|i| {
        let server = if i % 2 == 0 { a.clone() } else { b.clone() };
        let handle = handle.clone();
        tokio::spawn(async move {
            let mut client = TestClient::connect_modern(&server);
            client.call_tool("put", json!({"basket": handle, "item": format!("item-{i}")})).await.unwrap()
        })
    });
    for call in calls {
        let answer = call.await.unwrap();
        assert_ne!(answer["isError"], true, "{answer}");
    }
    let last = first.call_tool("put", json!({"basket": handle, "item": "last"})).await.unwrap();
    assert_eq!(last["content"][0]["text"], "51 items", "every acknowledged update is there");
}

/// A memory store whose compare-and-set can fail the ways a network does:
/// the write applied but its reply lost, or not applied at all, and reads
/// that fail afterwards.
#[derive(Debug, Default)]
struct Faults {
    inner: Arc<MemoryStore>,
    /// The next compare-and-set applies, then reports an error.
    lose_reply: std::sync::atomic::AtomicBool,
    /// The next compare-and-set fails without applying.
    refuse: std::sync::atomic::AtomicBool,
    /// Reads fail after a failed compare-and-set.
    reads_fail: std::sync::atomic::AtomicBool,
    failed: std::sync::atomic::AtomicBool,
}

impl Faults {
    fn take(flag: &std::sync::atomic::AtomicBool) -> bool {
        flag.swap(false, std::sync::atomic::Ordering::SeqCst)
    }
}

type Fut<'a, T> = futures::future::BoxFuture<'a, Result<T, switchboard_server::state::StateError>>;

impl StateStore for Faults {
    fn get<'a>(&'a self, key: &'a str) -> Fut<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            let failed = self.failed.load(std::sync::atomic::Ordering::SeqCst);
            if failed && self.reads_fail.load(std::sync::atomic::Ordering::SeqCst) {
                return Err(switchboard_server::state::StateError("read timed out".into()));
            }
            self.inner.get(key).await
        })
    }
    fn set<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Duration) -> Fut<'a, ()> {
        self.inner.set(key, value, ttl)
    }
    fn set_if_absent<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Duration) -> Fut<'a, bool> {
        self.inner.set_if_absent(key, value, ttl)
    }
    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: Option<&'a [u8]>,
        value: Vec<u8>,
        ttl: Duration,
    ) -> Fut<'a, bool> {
        Box::pin(async move {
            let error = || switchboard_server::state::StateError("connection reset".into());
            if Self::take(&self.refuse) {
                self.failed.store(true, std::sync::atomic::Ordering::SeqCst);
                return Err(error());
            }
            let applied = self.inner.compare_and_set(key, expected, value, ttl).await?;
            if Self::take(&self.lose_reply) {
                self.failed.store(true, std::sync::atomic::Ordering::SeqCst);
                return Err(error());
            }
            Ok(applied)
        })
    }
    fn delete<'a>(&'a self, key: &'a str) -> Fut<'a, bool> {
        self.inner.delete(key)
    }
    fn touch<'a>(&'a self, key: &'a str, ttl: Duration) -> Fut<'a, bool> {
        self.inner.touch(key, ttl)
    }
    fn append<'a>(&'a self, key: &'a str, value: Vec<u8>, max_len: usize, ttl: Duration) -> Fut<'a, u64> {
        self.inner.append(key, value, max_len, ttl)
    }
    fn read_after<'a>(&'a self, key: &'a str, after: u64) -> Fut<'a, switchboard_server::state::LogEntries> {
        self.inner.read_after(key, after)
    }
    fn publish<'a>(&'a self, channel: &'a str, message: Vec<u8>) -> Fut<'a, ()> {
        self.inner.publish(channel, message)
    }
    fn subscribe(&self, channel: &str) -> futures::stream::BoxStream<'static, Vec<u8>> {
        self.inner.subscribe(channel)
    }
}

#[tokio::test]
async fn an_update_tells_applied_from_not_applied_from_unknown() {
    use std::sync::atomic::Ordering::SeqCst;
    let faults = Arc::new(Faults { inner: MemoryStore::new(), ..Faults::default() });
    let store = SharedHandleStore::<u32>::new("counter", Duration::from_secs(60), faults.clone());
    let ctx = RequestContext::detached(switchboard_server::RequestId::Number(1));
    let handle = store.create(&ctx, 0).await.unwrap();

    // Applied, reply lost: recognised as this write, counted once.
    faults.lose_reply.store(true, SeqCst);
    assert_eq!(
        store
            .update(&ctx, &handle, |n| {
                *n += 1;
                *n
            })
            .await
            .unwrap(),
        1
    );
    assert_eq!(store.get(&ctx, &handle).await.unwrap(), 1, "applied exactly once");

    // Not applied, store answering again: tried again, applied once.
    faults.refuse.store(true, SeqCst);
    assert_eq!(
        store
            .update(&ctx, &handle, |n| {
                *n += 1;
                *n
            })
            .await
            .unwrap(),
        2
    );

    // Not applied and the store stops answering: the outcome is unknown,
    // and the error says so in its data, as a store outage.
    faults.failed.store(false, SeqCst);
    faults.refuse.store(true, SeqCst);
    faults.reads_fail.store(true, SeqCst);
    let error = match store.update(&ctx, &handle, |n| *n += 1).await.unwrap_err() {
        switchboard_server::ToolError::Protocol(e) => e,
        other => panic!("expected the store-outage error, got {other:?}"),
    };
    assert!(switchboard_server::state::is_store_unavailable(&error), "{error:?}");
    assert_eq!(error.data.as_ref().unwrap()["outcome"], "unknown", "{error:?}");
    assert!(error.message.contains("outcome unknown"), "{}", error.message);
    faults.reads_fail.store(false, SeqCst);
    assert_eq!(store.get(&ctx, &handle).await.unwrap(), 2, "it was in fact not applied");
}
