//! resources/list, resources/templates/list, resources/read, subscriptions
//! (legacy subscribe and 2026-07-28 listen) and change notifications.

use serde_json::{Value, json};
use switchboard_server::types::ResourceContents;
use switchboard_server::types::content::Annotations;
use switchboard_server::{
    Error, HandlerError, ListKind, ReadRequest, RequestContext, Resource, ResourceTemplate, Server,
    ServerOptions,
};
use switchboard_testkit::TestClient;

use crate::common::{ALL_VERSIONS, LEGACY_VERSIONS};

fn code(e: switchboard_testkit::Error) -> (i32, Value) {
    match e {
        switchboard_testkit::Error::Rpc(e) => (e.code.0, e.data.unwrap_or(Value::Null)),
        other => panic!("expected a JSON-RPC error, got {other}"),
    }
}

async fn client_for(server: &Server, version: &str) -> TestClient {
    if version == "2026-07-28" {
        TestClient::connect_modern(server)
    } else {
        TestClient::connect_legacy(server, version).await
    }
}

fn server() -> Server {
    Server::builder("res", "1")
        .resource(
            Resource::new("test://static-text", "static-text")
                .title("Static text")
                .mime_type("text/plain")
                .annotations(Annotations {
                    audience: None,
                    priority: Some(1.0),
                    last_modified: Some("2025-01-01T00:00:00Z".into()),
                })
                .text("This is the content of the static text resource."),
        )
        .resource(
            Resource::new("test://static-binary", "static-binary")
                .mime_type("image/png")
                .blob(&[0x89, b'P', b'N', b'G']),
        )
        .resource(Resource::new("test://empty", "empty").handler(
            |_req: ReadRequest, _ctx: RequestContext| async move { Ok(Vec::<ResourceContents>::new()) },
        ))
        .resource(Resource::new("test://gone", "gone").handler(
            |_req: ReadRequest, _ctx: RequestContext| async move {
                Err::<ResourceContents, _>(HandlerError::NotFound)
            },
        ))
        .resource(Resource::new("test://broken", "broken").handler(
            |_req: ReadRequest, _ctx: RequestContext| async move {
                Err::<ResourceContents, _>(std::io::Error::other("disk on fire").into())
            },
        ))
        .resource_template(
            ResourceTemplate::new("test://template/{id}/data", "template")
                .unwrap()
                .mime_type("application/json")
                .handler(|req: ReadRequest, _ctx: RequestContext| async move {
                    let id = req.var("id").unwrap_or_default().to_owned();
                    Ok(ResourceContents::text(
                        req.uri,
                        Some("application/json".into()),
                        json!({"id": id}).to_string(),
                    ))
                }),
        )
        .resource_template(ResourceTemplate::new("file:///{+path}", "files").unwrap().handler(
            |req: ReadRequest, _ctx: RequestContext| async move {
                let path = req.var("path").unwrap_or_default().to_owned();
                if path.starts_with("missing") {
                    return Err(HandlerError::NotFound);
                }
                Ok(ResourceContents::text(req.uri, None, format!("path={path}")))
            },
        ))
        .build()
        .unwrap()
}

#[tokio::test]
async fn lists_resources_and_templates_shaped_per_revision() {
    let server = server();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let resources = c.list_all("resources/list", "resources").await.unwrap();
        let uris: Vec<&str> = resources.iter().map(|r| r["uri"].as_str().unwrap()).collect();
        assert_eq!(
            uris,
            ["test://static-text", "test://static-binary", "test://empty", "test://gone", "test://broken"]
        );
        let text = &resources[0];
        assert_eq!(text["mimeType"], "text/plain");
        assert_eq!(text["size"], 48);
        assert_eq!(resources[1]["size"], 4, "size is the raw byte count");
        assert_eq!(text.get("title").is_some(), v >= "2025-06-18", "{v}");
        assert_eq!(text["annotations"].get("lastModified").is_some(), v >= "2025-06-18", "{v}");
        let templates = c.list_all("resources/templates/list", "resourceTemplates").await.unwrap();
        assert_eq!(templates[0]["uriTemplate"], "test://template/{id}/data");
        assert_eq!(templates[1]["uriTemplate"], "file:///{+path}");
    }
}

#[tokio::test]
async fn reads_text_blob_and_templated_resources() {
    let server = server();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let r = c.read_resource("test://static-text").await.unwrap();
        assert_eq!(
            r["contents"],
            json!([{"uri": "test://static-text", "mimeType": "text/plain", "text": "This is the content of the static text resource."}])
        );
        let r = c.read_resource("test://static-binary").await.unwrap();
        assert_eq!(r["contents"][0]["blob"], "iVBORw==");
        let r = c.read_resource("test://template/42/data").await.unwrap();
        assert_eq!(r["contents"][0]["text"], "{\"id\":\"42\"}");
        assert_eq!(r["contents"][0]["uri"], "test://template/42/data");
        let r = c.read_resource("file:///src/main.rs").await.unwrap();
        assert_eq!(r["contents"][0]["text"], "path=src/main.rs");
        if v == "2026-07-28" {
            assert_eq!(r["resultType"], "complete");
            assert!(r["ttlMs"].is_u64());
            assert_eq!(r["cacheScope"], "public");
        } else {
            assert!(r.get("ttlMs").is_none());
        }
    }
}

#[tokio::test]
async fn missing_resources_get_the_revisions_error_with_the_uri() {
    let server = server();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let expected = if v == "2026-07-28" { -32602 } else { -32002 };
        for uri in ["test://nothing-here", "test://empty", "test://gone", "file:///missing/file.txt"] {
            let (got, data) = code(c.read_resource(uri).await.unwrap_err());
            assert_eq!(got, expected, "{uri} under {v}");
            assert_eq!(data["uri"], uri, "{uri} under {v}");
        }
        let (got, _) = code(c.read_resource("test://broken").await.unwrap_err());
        assert_eq!(got, -32603);
        for bad in ["not a uri", "", "no-scheme", "x:%zz"] {
            let (got, _) = code(c.read_resource(bad).await.unwrap_err());
            assert_eq!(got, -32602, "{bad:?} under {v}");
        }
        let (got, _) = code(c.request("resources/read", json!({})).await.unwrap_err());
        assert_eq!(got, -32602, "missing uri");
        // Still serving.
        assert!(c.read_resource("test://static-text").await.is_ok());
    }
}

#[tokio::test]
async fn resource_lists_page_with_cursors_that_cannot_be_forged_or_reused_elsewhere() {
    let mut options = ServerOptions::default();
    options.page_size = 2;
    let mut builder = Server::builder("pages", "1").options(options);
    for i in 0..5 {
        builder = builder.resource(Resource::new(format!("test://r/{i}"), format!("r{i}")).text("x"));
    }
    let server = builder
        .tool(
            switchboard_server::Tool::new("t1")
                .raw_handler(|_, _| async { Ok(switchboard_server::CallToolResult::text("")) }),
        )
        .tool(
            switchboard_server::Tool::new("t2")
                .raw_handler(|_, _| async { Ok(switchboard_server::CallToolResult::text("")) }),
        )
        .tool(
            switchboard_server::Tool::new("t3")
                .raw_handler(|_, _| async { Ok(switchboard_server::CallToolResult::text("")) }),
        )
        .build()
        .unwrap();
    let mut c = TestClient::connect_modern(&server);
    let all = c.list_all("resources/list", "resources").await.unwrap();
    assert_eq!(all.len(), 5);
    let first = c.request("resources/list", json!({})).await.unwrap();
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    assert_eq!(first["cacheScope"], "public");
    let tools_page = c.request("tools/list", json!({})).await.unwrap();
    let tools_cursor = tools_page["nextCursor"].as_str().unwrap().to_owned();
    let (got, _) = code(c.request("resources/list", json!({"cursor": tools_cursor})).await.unwrap_err());
    assert_eq!(got, -32602, "a tools/list cursor is foreign to resources/list");
    let mut tampered = cursor.clone();
    tampered.replace_range(2..3, if &cursor[2..3] == "A" { "B" } else { "A" });
    let (got, _) = code(c.request("resources/list", json!({"cursor": tampered})).await.unwrap_err());
    assert_eq!(got, -32602);
    // A cursor from another server instance (another key) is refused too.
    let other =
        Server::builder("pages", "1").resource(Resource::new("test://r/0", "r0").text("x")).build().unwrap();
    let mut c2 = TestClient::connect_modern(&other);
    let (got, _) = code(c2.request("resources/list", json!({"cursor": cursor})).await.unwrap_err());
    assert_eq!(got, -32602);
}

#[tokio::test]
async fn legacy_subscriptions_deliver_updates_for_subscribed_uris_only() {
    let server = server();
    for v in LEGACY_VERSIONS {
        let mut c = TestClient::connect_legacy(&server, v).await;
        let init = c.request("ping", json!({})).await.unwrap();
        assert_eq!(init, json!({}));
        assert_eq!(
            c.request("resources/subscribe", json!({"uri": "test://static-text"})).await.unwrap(),
            json!({})
        );
        server.notify_resource_updated("test://static-binary");
        server.notify_resource_updated("test://static-text");
        let n = c.next_notification("notifications/resources/updated").await.unwrap();
        assert_eq!(n["params"], json!({"uri": "test://static-text"}), "{v}");
        // A sub-resource of a subscribed URI is announced too.
        c.request("resources/subscribe", json!({"uri": "file:///src"})).await.unwrap();
        server.notify_resource_updated("file:///src/lib.rs");
        let n = c.next_notification("notifications/resources/updated").await.unwrap();
        assert_eq!(n["params"]["uri"], "file:///src/lib.rs");
        assert_eq!(
            c.request("resources/unsubscribe", json!({"uri": "test://static-text"})).await.unwrap(),
            json!({})
        );
        server.notify_resource_updated("test://static-text");
        c.request("ping", json!({})).await.unwrap();
        assert!(c.notifications().iter().all(|n| n["method"] != "notifications/resources/updated"), "{v}");
        let (got, data) =
            code(c.request("resources/subscribe", json!({"uri": "test://nothing"})).await.unwrap_err());
        assert_eq!((got, data["uri"].as_str()), (-32002, Some("test://nothing")));
    }
}

#[tokio::test]
async fn list_changes_reach_legacy_clients_with_the_capability() {
    let server = server();
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    let caps = c.initialize("2025-06-18").await;
    assert!(caps.is_err(), "a second initialize is refused");
    server.add_resource(Resource::new("test://new", "new").text("n")).unwrap();
    c.next_notification("notifications/resources/list_changed").await.unwrap();
    assert!(server.remove_resource("test://new"));
    c.next_notification("notifications/resources/list_changed").await.unwrap();
    server.notify_list_changed(ListKind::ResourceTemplates);
    c.next_notification("notifications/resources/list_changed").await.unwrap();
    // No tools on this server: a tools change is not announced.
    server.notify_list_changed(ListKind::Tools);
    c.request("ping", json!({})).await.unwrap();
    assert!(c.notifications().is_empty());
}

#[tokio::test]
async fn upserting_a_resource_keeps_its_place_and_announces_the_update() {
    let server = server();
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    c.request("resources/subscribe", json!({"uri": "test://static-text"})).await.unwrap();
    server.upsert_resource(Resource::new("test://static-text", "static-text").text("v2")).unwrap();
    c.next_notification("notifications/resources/updated").await.unwrap();
    assert_eq!(c.read_resource("test://static-text").await.unwrap()["contents"][0]["text"], "v2");
    let all = c.list_all("resources/list", "resources").await.unwrap();
    assert_eq!(all[0]["uri"], "test://static-text");
}

#[tokio::test]
async fn capabilities_follow_what_is_registered() {
    let server = server();
    let mut c = TestClient::connect(&server);
    let init = c.initialize("2025-11-25").await.unwrap();
    assert_eq!(init["capabilities"]["resources"], json!({"subscribe": true, "listChanged": true}));
    assert!(init["capabilities"].get("tools").is_none());
    assert!(init["capabilities"].get("prompts").is_none());
    let (got, _) = code(c.request("tools/list", json!({})).await.unwrap_err());
    assert_eq!(got, -32601);
    let (got, _) = code(c.request("prompts/list", json!({})).await.unwrap_err());
    assert_eq!(got, -32601);
    let bare = Server::builder("bare", "1").build().unwrap();
    let mut c = TestClient::connect_legacy(&bare, "2025-11-25").await;
    let (got, _) = code(c.request("resources/list", json!({})).await.unwrap_err());
    assert_eq!(got, -32601);
}

#[tokio::test]
async fn modern_clients_cannot_use_legacy_subscribe() {
    let server = server();
    let mut c = TestClient::connect_modern(&server);
    for method in ["resources/subscribe", "resources/unsubscribe"] {
        let (got, _) = code(c.request(method, json!({"uri": "test://static-text"})).await.unwrap_err());
        assert_eq!(got, -32601, "{method}");
    }
}

#[tokio::test]
async fn registration_rejects_bad_resources() {
    let err =
        Server::builder("s", "1").resource(Resource::new("not a uri", "x").text("")).build().unwrap_err();
    assert!(matches!(err, Error::InvalidUri { .. }), "{err}");
    let err = Server::builder("s", "1").resource(Resource::new("test://a", "a")).build().unwrap_err();
    assert!(matches!(err, Error::MissingHandler(_)), "{err}");
    let err = Server::builder("s", "1")
        .resource(Resource::new("test://a", "a").text(""))
        .resource(Resource::new("test://a", "b").text(""))
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::DuplicateResource(_)), "{err}");
    assert!(ResourceTemplate::new("test://{unclosed", "x").is_err());
    let t = ResourceTemplate::new("test://{id}", "t")
        .unwrap()
        .handler(|req: ReadRequest, _ctx: RequestContext| async move {
            Ok(ResourceContents::text(req.uri, None, ""))
        })
        .complete("nope", switchboard_server::complete_from(["a"]));
    let err = Server::builder("s", "1").resource_template(t).build().unwrap_err();
    assert!(matches!(err, Error::InvalidUri { .. }), "{err}");
}
