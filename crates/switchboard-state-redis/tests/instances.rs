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
