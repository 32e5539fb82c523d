//! Bulk registration changes: one snapshot, one announcement, and none when
//! nothing a client can see changed.

use serde_json::{Value, json};
use switchboard_server::{CallToolResult, Error, Resource, Server, Tool, ToolError};
use switchboard_testkit::TestClient;

fn echo(name: &str, reply: &'static str) -> Tool {
    Tool::new(name)
        .description("replies")
        .raw_handler(move |_args: Value, _ctx| async move { Ok::<_, ToolError>(CallToolResult::text(reply)) })
}

const UPDATED: &str = "notifications/resources/updated";
const SENTINEL: &str = "test://sentinel";

async fn connect(server: &Server) -> TestClient {
    let mut client = TestClient::connect_legacy(server, "2025-06-18").await;
    client.request("resources/subscribe", json!({"uri": SENTINEL})).await.unwrap();
    client
}

/// The notifications of `method` the server sent so far: events reach
/// clients in order, so everything before a sentinel update has arrived
/// once the sentinel has.
async fn seen(client: &mut TestClient, server: &Server, method: &str) -> Vec<Value> {
    server.notify_resource_updated(SENTINEL);
    let mut found = Vec::new();
    loop {
        let note = client.next_notification(UPDATED).await.unwrap();
        if note["params"]["uri"] == SENTINEL {
            break;
        }
        found.push(note);
    }
    found.retain(|n| n["method"] == method);
    found.extend(client.notifications_named(method));
    found
}

async fn count(client: &mut TestClient, server: &Server, method: &str) -> usize {
    seen(client, server, method).await.len()
}

#[tokio::test]
async fn replace_tools_announces_only_visible_changes_and_swaps_handlers() {
    let server = Server::builder("bulk", "1")
        .tool(echo("a", "one"))
        .tool(echo("b", "b"))
        .resource(Resource::new(SENTINEL, "sentinel").text("s"))
        .build()
        .unwrap();
    let mut client = connect(&server).await;
    const CHANGED: &str = "notifications/tools/list_changed";

    // Same definitions, new handler: no announcement, new behaviour.
    assert!(!server.replace_tools(vec![echo("a", "two"), echo("b", "b")]).unwrap());
    assert_eq!(count(&mut client, &server, CHANGED).await, 0);
    let result = client.call_tool("a", json!({})).await.unwrap();
    assert_eq!(result["content"][0]["text"], "two");

    // A new tool, one removed: one announcement; old tools keep their place.
    assert!(server.replace_tools(vec![echo("c", "c"), echo("a", "three")]).unwrap());
    assert_eq!(count(&mut client, &server, CHANGED).await, 1);
    let names: Vec<Value> =
        client.list_all_tools().await.unwrap().iter().map(|t| t["name"].clone()).collect();
    assert_eq!(names, vec![json!("a"), json!("c")]);

    // A changed description is a visible change.
    assert!(server.replace_tools(vec![echo("a", "x").description("new"), echo("c", "c")]).unwrap());
    assert_eq!(count(&mut client, &server, CHANGED).await, 1);

    // An invalid set changes nothing.
    let err = server.replace_tools(vec![echo("z", "z"), echo("z", "z")]).unwrap_err();
    assert!(matches!(err, Error::DuplicateTool(ref n) if n == "z"), "{err}");
    assert_eq!(server.tools().len(), 2);
    assert_eq!(count(&mut client, &server, CHANGED).await, 0);
}

#[tokio::test]
async fn update_resources_is_one_change_with_updates_for_subscribers() {
    let server = Server::builder("bulk", "1")
        .resource(Resource::new("test://a", "a").text("a1"))
        .resource(Resource::new("test://b", "b").text("b1"))
        .resource(Resource::new(SENTINEL, "sentinel").text("s"))
        .build()
        .unwrap();
    let mut client = connect(&server).await;
    client.request("resources/subscribe", json!({"uri": "test://a"})).await.unwrap();
    const CHANGED: &str = "notifications/resources/list_changed";

    // Replacing a resource: updated for its subscriber, no list change.
    server.update_resources(vec![Resource::new("test://a", "a").text("a2")], &[]).unwrap();
    let updated = seen(&mut client, &server, UPDATED).await;
    assert_eq!(count(&mut client, &server, CHANGED).await, 0);
    assert_eq!(updated.len(), 1);
    assert_eq!(updated[0]["params"]["uri"], "test://a");
    assert_eq!(client.read_resource("test://a").await.unwrap()["contents"][0]["text"], "a2");

    // Three added and one removed at once: one list change.
    let added = (0..3).map(|i| Resource::new(format!("test://n{i}"), "n").text("n")).collect();
    server.update_resources(added, &["test://b".to_owned(), "test://absent".to_owned()]).unwrap();
    assert_eq!(count(&mut client, &server, CHANGED).await, 1);
    let uris: Vec<Value> = client
        .list_all("resources/list", "resources")
        .await
        .unwrap()
        .iter()
        .map(|r| r["uri"].clone())
        .collect();
    assert_eq!(
        uris,
        vec![json!("test://a"), json!(SENTINEL), json!("test://n0"), json!("test://n1"), json!("test://n2")]
    );

    // A repeated URI in one batch is refused and nothing changes.
    let twice = vec![Resource::new("test://d", "d").text("d"), Resource::new("test://d", "d").text("d")];
    assert!(matches!(server.update_resources(twice, &[]), Err(Error::DuplicateResource(_))));
    assert_eq!(server.resources().len(), 5);
}
