//! Stateful tools through handles.

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use switchboard_server::{
    HandleStore, Json, NoArgs, Principal, RequestContext, RequestId, Server, Tool, ToolError,
};
use switchboard_testkit::TestClient;

fn ctx(principal: Option<&str>) -> RequestContext {
    RequestContext::detached_as(RequestId::Number(1), principal.map(Principal::new))
}

fn message(e: ToolError) -> String {
    match e {
        ToolError::Execution(m) => m,
        ToolError::Protocol(e) => panic!("expected an execution error, got {e}"),
    }
}

#[tokio::test]
async fn handles_are_unique_opaque_and_resolve() {
    let store: HandleStore<u32> = HandleStore::new("cart", Duration::from_secs(60));
    let c = ctx(None);
    let mut seen = std::collections::HashSet::new();
    for i in 0..1000 {
        let h = store.create(&c, i);
        let (prefix, random) = h.split_once('_').unwrap();
        assert_eq!(prefix, "cart");
        assert!(
            random.len() >= 22 && random.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        assert!(seen.insert(h));
    }
    let h = store.create(&c, 7);
    *store.get(&c, &h).unwrap().lock().await += 1;
    assert_eq!(*store.get(&c, &h).unwrap().lock().await, 8);
    assert_eq!(store.len(), 1001);
}

#[tokio::test]
async fn unknown_handles_are_tool_errors_with_a_way_out() {
    let store: HandleStore<()> = HandleStore::new("basket", Duration::from_secs(60))
        .recovery_hint("call create_basket to start a new basket");
    let m = message(store.get(&ctx(None), "basket_forged").unwrap_err());
    assert!(m.contains("basket_forged") && m.contains("create_basket"), "{m}");
}

#[tokio::test(start_paused = true)]
async fn handles_expire_and_sliding_ones_live_on_use() {
    let fixed: HandleStore<()> = HandleStore::new("f", Duration::from_secs(60));
    let sliding: HandleStore<()> = HandleStore::new("s", Duration::from_secs(60)).sliding();
    let c = ctx(None);
    let (hf, hs) = (fixed.create(&c, ()), sliding.create(&c, ()));
    tokio::time::advance(Duration::from_secs(40)).await;
    assert!(fixed.get(&c, &hf).is_ok());
    assert!(sliding.get(&c, &hs).is_ok());
    tokio::time::advance(Duration::from_secs(40)).await;
    let m = message(fixed.get(&c, &hf).unwrap_err());
    assert!(m.contains("expired"), "{m}");
    assert!(sliding.get(&c, &hs).is_ok(), "used 40 s ago, so still alive");
    assert!(fixed.is_empty());
    tokio::time::advance(Duration::from_secs(61)).await;
    assert!(sliding.get(&c, &hs).is_err());
}

#[tokio::test]
async fn handles_belong_to_their_principal() {
    let store: HandleStore<u8> = HandleStore::new("doc", Duration::from_secs(60));
    let alice = ctx(Some("alice"));
    let h = store.create(&alice, 1);
    let unknown = message(store.get(&ctx(None), "doc_nothing").unwrap_err());
    for other in [ctx(Some("bob")), ctx(None)] {
        let m = message(store.get(&other, &h).unwrap_err());
        assert_eq!(m.replace(&h, "H"), unknown.replace("doc_nothing", "H"), "indistinguishable from unknown");
        assert!(!store.remove(&other, &h));
    }
    assert!(store.get(&alice, &h).is_ok());
    assert!(store.remove(&alice, &h));
    assert!(store.get(&alice, &h).is_err());
}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    basket_id: String,
    item: String,
}

#[derive(Deserialize, JsonSchema)]
struct ViewArgs {
    basket_id: String,
}

#[derive(Serialize, JsonSchema)]
struct Created {
    basket_id: String,
}

#[derive(Serialize, JsonSchema)]
struct Items {
    items: Vec<String>,
}

fn basket_server() -> Server {
    let store: Arc<HandleStore<Vec<String>>> =
        Arc::new(HandleStore::new("basket", Duration::from_secs(600)).recovery_hint("call create_basket"));
    let (s1, s2, s3) = (Arc::clone(&store), Arc::clone(&store), store);
    Server::builder("baskets", "1")
        .tool(Tool::new("create_basket").handler(move |_: NoArgs, ctx: RequestContext| {
            let s = Arc::clone(&s1);
            async move { Ok(Json(Created { basket_id: s.create(&ctx, Vec::new()) })) }
        }))
        .tool(Tool::new("add_item").handler(move |a: AddArgs, ctx: RequestContext| {
            let s = Arc::clone(&s2);
            async move {
                let basket = s.get(&ctx, &a.basket_id)?;
                basket.lock().await.push(a.item);
                Ok("added")
            }
        }))
        .tool(Tool::new("view_basket").handler(move |a: ViewArgs, ctx: RequestContext| {
            let s = Arc::clone(&s3);
            async move { Ok(Json(Items { items: s.get(&ctx, &a.basket_id)?.lock().await.clone() })) }
        }))
        .build()
        .unwrap()
}

#[tokio::test]
async fn baskets_work_across_calls_and_connections() {
    let server = basket_server();
    let mut c = TestClient::connect_modern(&server);
    let created = c.call_tool("create_basket", json!({})).await.unwrap();
    let id = created["structuredContent"]["basket_id"].as_str().unwrap().to_owned();
    c.call_tool("add_item", json!({"basket_id": id, "item": "apple"})).await.unwrap();
    // Another connection (another conversation) uses the same handle.
    let mut other = TestClient::connect_legacy(&server, "2025-11-25").await;
    other.call_tool("add_item", json!({"basket_id": id, "item": "pear"})).await.unwrap();
    let view = c.call_tool("view_basket", json!({"basket_id": id})).await.unwrap();
    assert_eq!(view["structuredContent"]["items"], json!(["apple", "pear"]));
    let bad = c.call_tool("view_basket", json!({"basket_id": "basket_x"})).await.unwrap();
    assert_eq!(bad["isError"], true, "a tool error the model can recover from, not a JSON-RPC error");
    assert!(bad["content"][0]["text"].as_str().unwrap().contains("create_basket"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_updates_of_one_handle_lose_nothing_in_memory() {
    let store = Arc::new(HandleStore::<Vec<u32>>::new("tally", Duration::from_secs(60)));
    let handle = store.create(&ctx(None), Vec::new());
    let updates = (0..50u32).map(|i| {
        let (store, handle) = (Arc::clone(&store), handle.clone());
        tokio::spawn(async move {
            store
                .update(&ctx(None), &handle, |values| {
                    values.push(i);
                    values.len()
                })
                .await
                .unwrap()
        })
    });
    let mut lengths = Vec::new();
    for update in updates {
        lengths.push(update.await.unwrap());
    }
    lengths.sort_unstable();
    assert_eq!(lengths, (1..=50).collect::<Vec<usize>>(), "each update saw every earlier one");
    let values = store.update(&ctx(None), &handle, |values| values.clone()).await.unwrap();
    assert_eq!(values.len(), 50);
    assert!(store.update(&ctx(Some("mallory")), &handle, |_| ()).await.is_err(), "still bound to its owner");
}
