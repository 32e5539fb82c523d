//! 2026-07-28 `subscriptions/listen` over the in-memory stdio transport.

use serde_json::{Value, json};
use switchboard_server::types::ResourceContents;
use switchboard_server::{
    CallToolResult, ReadRequest, RequestContext, Resource, ResourceTemplate, Server, Tool,
};
use switchboard_testkit::TestClient;

const SUB: &str = "io.modelcontextprotocol/subscriptionId";

fn server() -> Server {
    Server::builder("listen", "1")
        .tool(Tool::new("t").raw_handler(|_, _| async { Ok(CallToolResult::text("")) }))
        .resource(Resource::new("test://watched-resource", "watched").text("w"))
        .resource_template(
            ResourceTemplate::new("test://items/{id}", "items").unwrap().handler(
                |req: ReadRequest, _c: RequestContext| async move {
                    Ok(ResourceContents::text(req.uri, None, "i"))
                },
            ),
        )
        .build()
        .unwrap()
}

async fn listen(c: &mut TestClient, id: Value, filter: Value) -> Value {
    let params = c.with_meta(json!({"notifications": filter}));
    c.send(&json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params}))
        .await
        .unwrap();
    c.recv().await.unwrap()
}

#[tokio::test]
async fn acknowledges_first_with_the_accepted_subset() {
    let server = server();
    let mut c = TestClient::connect_modern(&server);
    let ack = listen(
        &mut c,
        json!("sub-1"),
        json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": ["test://watched-resource"]
        }),
    )
    .await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert!(ack.get("id").is_none());
    // No prompts on this server: that part is left out.
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "resourcesListChanged": true, "resourceSubscriptions": ["test://watched-resource"]})
    );
    assert_eq!(ack["params"]["_meta"][SUB], "sub-1");
}

#[tokio::test]
async fn delivers_only_requested_notifications_tagged_with_the_subscription() {
    let server = server();
    let mut c = TestClient::connect_modern(&server);
    listen(
        &mut c,
        json!(7),
        json!({"toolsListChanged": true, "resourceSubscriptions": ["test://watched-resource"]}),
    )
    .await;
    server.notify_resource_updated("test://other");
    server.notify_list_changed(switchboard_server::ListKind::Resources);
    server.notify_resource_updated("test://watched-resource");
    let n = c.recv().await.unwrap();
    assert_eq!(n["method"], "notifications/resources/updated");
    assert_eq!(n["params"]["uri"], "test://watched-resource");
    assert_eq!(n["params"]["_meta"][SUB], 7, "the id keeps its JSON type");
    server.add_tool(Tool::new("t2").raw_handler(|_, _| async { Ok(CallToolResult::text("")) })).unwrap();
    let n = c.recv().await.unwrap();
    assert_eq!(n["method"], "notifications/tools/list_changed");
    assert_eq!(n["params"]["_meta"][SUB], 7);
    // Requests keep working next to the open stream.
    let r = c.request("tools/list", json!({})).await.unwrap();
    assert_eq!(r["tools"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn two_streams_each_get_their_own_notifications() {
    let server = server();
    let mut c = TestClient::connect_modern(&server);
    listen(&mut c, json!("a"), json!({"toolsListChanged": true})).await;
    listen(&mut c, json!("b"), json!({"resourceSubscriptions": ["test://items"]})).await;
    server.notify_resource_updated("test://items/3");
    let n = c.recv().await.unwrap();
    assert_eq!(
        (n["method"].as_str(), n["params"]["_meta"][SUB].as_str()),
        (Some("notifications/resources/updated"), Some("b"))
    );
    server.notify_list_changed(switchboard_server::ListKind::Tools);
    let n = c.recv().await.unwrap();
    assert_eq!(n["params"]["_meta"][SUB], "a");
}

#[tokio::test]
async fn cancelling_a_stream_stops_it_without_a_response() {
    let server = server();
    let mut c = TestClient::connect_modern(&server);
    listen(&mut c, json!("s"), json!({"toolsListChanged": true})).await;
    c.notify("notifications/cancelled", Some(json!({"requestId": "s"}))).await.unwrap();
    // Make sure the cancel was processed, then change the list.
    c.request("tools/list", json!({})).await.unwrap();
    server.notify_list_changed(switchboard_server::ListKind::Tools);
    let r = c.request("tools/list", json!({})).await.unwrap();
    assert!(r["tools"].is_array());
    let leftovers = c.notifications();
    assert!(leftovers.is_empty(), "nothing after cancel: {leftovers:?}");
}

#[tokio::test]
async fn closing_the_connection_ends_streams_with_their_result() {
    let server = server();
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (sr, sw) = tokio::io::split(server_end);
    let transport = switchboard_server::transport::LineTransport::new(sr, sw, 1 << 20);
    let task = tokio::spawn({
        let server = server.clone();
        async move { server.serve(transport).await }
    });
    let (cr, mut cw) = tokio::io::split(client_end);
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let params = json!({"notifications": {"toolsListChanged": true}, "_meta": TestClient::modern_meta()});
    let line =
        json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": params}).to_string();
    cw.write_all(format!("{line}\n").as_bytes()).await.unwrap();
    let mut lines = tokio::io::BufReader::new(cr).lines();
    let ack: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    cw.shutdown().await.unwrap();
    let result: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(result["id"], 1);
    assert_eq!(result["result"]["resultType"], "complete");
    assert_eq!(result["result"]["_meta"][SUB], 1);
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn legacy_clients_have_no_listen_and_modern_ones_get_no_unsolicited_notifications() {
    let server = server();
    let mut legacy = TestClient::connect_legacy(&server, "2025-11-25").await;
    let e = legacy.request("subscriptions/listen", json!({"notifications": {}})).await.unwrap_err();
    assert_eq!(e.code(), Some(-32601));
    let mut modern = TestClient::connect_modern(&server);
    modern.request("tools/list", json!({})).await.unwrap();
    server.notify_list_changed(switchboard_server::ListKind::Tools);
    modern.request("tools/list", json!({})).await.unwrap();
    assert!(modern.notifications().is_empty());
}

#[tokio::test]
async fn invalid_subscription_uris_are_refused() {
    let server = server();
    let mut c = TestClient::connect_modern(&server);
    let r = c
        .request("subscriptions/listen", json!({"notifications": {"resourceSubscriptions": ["not a uri"]}}))
        .await
        .unwrap_err();
    assert_eq!(r.code(), Some(-32602));
}
