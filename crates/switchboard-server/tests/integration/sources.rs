//! Resources computed on demand (`ResourceSource`): listed after the
//! registered ones across pages with signed cursors, read before templates.

use std::ops::Range;
use std::sync::Arc;

use serde_json::{Value, json};
use switchboard_server::types::ResourceContents;
use switchboard_server::types::resources::Resource as ResourceDef;
use switchboard_server::{
    HandlerError, ReadRequest, RequestContext, Resource, ResourcePage, ResourceSource, ResourceTemplate,
    Server, ServerBuilder, ServerOptions, SourceRead,
};
use switchboard_testkit::TestClient;

/// `prefix://{i}` for i in 0..len; `prefix://missing` is claimed but fails.
struct Numbers {
    prefix: &'static str,
    len: usize,
}

impl ResourceSource for Numbers {
    fn len(&self) -> usize {
        self.len
    }

    fn list(&self, range: Range<usize>) -> Vec<ResourceDef> {
        assert!(range.end <= self.len, "asked past the end: {range:?}");
        range.map(|i| ResourceDef::new(format!("{}://{i}", self.prefix), format!("n{i}"))).collect()
    }

    fn read(&self, uri: &str, _ctx: RequestContext) -> Option<SourceRead> {
        let rest = uri.strip_prefix(self.prefix)?.strip_prefix("://")?;
        if rest == "missing" {
            return Some(Box::pin(async { Err(HandlerError::NotFound) }));
        }
        let i: usize = rest.parse().ok().filter(|i| *i < self.len)?;
        let uri = uri.to_owned();
        Some(Box::pin(async move { Ok(vec![ResourceContents::text(uri, None, format!("number {i}"))]) }))
    }
}

/// A builder whose lists page by `page_size`.
fn builder(page_size: usize) -> ServerBuilder {
    let mut options = ServerOptions::default();
    options.page_size = page_size;
    Server::builder("sources", "1").options(options)
}

fn server(page_size: usize) -> Server {
    builder(page_size)
        .resource(Resource::new("fixed://a", "a").text("a"))
        .resource(Resource::new("fixed://b", "b").text("b"))
        .resource_source(Arc::new(Numbers { prefix: "empty", len: 0 }))
        .resource_source(Arc::new(Numbers { prefix: "x", len: 5 }))
        .resource_source(Arc::new(Numbers { prefix: "y", len: 3 }))
        .resource_template(ResourceTemplate::new("x://{n}", "x-template").unwrap().handler(
            |r: ReadRequest, _ctx: RequestContext| async move {
                Ok(ResourceContents::text(r.uri, None, "from the template"))
            },
        ))
        .build()
        .unwrap()
}

async fn walk(client: &mut TestClient) -> (Vec<String>, usize) {
    let mut uris = Vec::new();
    let mut pages = 0;
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = client.request("resources/list", params).await.unwrap();
        pages += 1;
        let items = page["resources"].as_array().unwrap();
        assert!(!items.is_empty(), "no empty pages: {page}");
        uris.extend(items.iter().map(|r| r["uri"].as_str().unwrap().to_owned()));
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_owned()),
            None => return (uris, pages),
        }
    }
}

#[tokio::test]
async fn lists_registered_then_each_source_across_pages() {
    let expected: Vec<String> = ["fixed://a", "fixed://b"]
        .into_iter()
        .map(str::to_owned)
        .chain((0..5).map(|i| format!("x://{i}")))
        .chain((0..3).map(|i| format!("y://{i}")))
        .collect();
    for (page_size, pages) in [(1, 10), (2, 5), (3, 4), (9, 2), (10, 1), (100, 1)] {
        let server = server(page_size);
        let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
        let (uris, n) = walk(&mut client).await;
        assert_eq!(uris, expected, "page size {page_size}");
        assert_eq!(n, pages, "page size {page_size}");
    }
    // Only sources: the first page starts in the first non-empty source.
    let only =
        Server::builder("s", "1").resource_source(Arc::new(Numbers { prefix: "x", len: 2 })).build().unwrap();
    let mut client = TestClient::connect_modern(&only);
    let (uris, _) = walk(&mut client).await;
    assert_eq!(uris, ["x://0", "x://1"]);
}

#[tokio::test]
async fn reads_go_to_registered_then_sources_then_templates() {
    let server = server(100);
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    let read = client.read_resource("x://3").await.unwrap();
    assert_eq!(read["contents"][0]["text"], "number 3");
    let read = client.read_resource("fixed://a").await.unwrap();
    assert_eq!(read["contents"][0]["text"], "a");
    // The source does not claim x://99: the template answers.
    let read = client.read_resource("x://99").await.unwrap();
    assert_eq!(read["contents"][0]["text"], "from the template");
    // Claimed but missing: the spec's not-found error with the URI.
    let err = client.read_resource("y://missing").await.unwrap_err();
    let switchboard_testkit::Error::Rpc(e) = err else { panic!("expected an RPC error") };
    assert_eq!(e.code.0, -32002);
    assert_eq!(e.data.unwrap()["uri"], "y://missing");
    let err = client.read_resource("z://1").await.unwrap_err();
    let switchboard_testkit::Error::Rpc(e) = err else { panic!("expected an RPC error") };
    assert_eq!(e.code.0, -32002);
}

#[tokio::test]
async fn forged_and_foreign_cursors_are_refused() {
    let server = server(2);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    let first = client.request("resources/list", json!({})).await.unwrap();
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    let mut forged = cursor.clone().into_bytes();
    let last = forged.len() - 1;
    forged[last] = if forged[last] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).unwrap();
    for bad in [forged.as_str(), "not-a-cursor", ""] {
        let err = client.request("resources/list", json!({"cursor": bad})).await.unwrap_err();
        let switchboard_testkit::Error::Rpc(e) = err else { panic!("expected an RPC error") };
        assert_eq!(e.code.0, -32602, "{bad}");
    }
    // A cursor from another server (another key) is refused too.
    let other = crate::sources::server(2);
    let mut other_client = TestClient::connect_legacy(&other, "2025-06-18").await;
    let err = other_client.request("resources/list", json!({"cursor": cursor})).await.unwrap_err();
    assert!(matches!(err, switchboard_testkit::Error::Rpc(ref e) if e.code.0 == -32602), "{err}");
}

/// `prefix://{i}` written through `list_into` with one reused `Resource`;
/// pushes `extra` items past every range it is asked for.
struct Streamed {
    len: usize,
    extra: usize,
}

impl ResourceSource for Streamed {
    fn len(&self) -> usize {
        self.len
    }

    fn list(&self, _range: Range<usize>) -> Vec<ResourceDef> {
        unreachable!("the server lists through list_into")
    }

    fn list_into(&self, range: Range<usize>, page: &mut ResourcePage<'_>) {
        assert_eq!(page.remaining(), range.len());
        let mut def = ResourceDef::new(String::new(), String::new());
        def.title = Some("a title".into());
        for i in range.start..range.end + self.extra {
            def.uri.clear();
            def.uri.push_str(&format!("s://{i}"));
            def.name = format!("n{i}");
            page.push(&def);
        }
        assert_eq!(page.remaining(), 0);
    }

    fn read(&self, _uri: &str, _ctx: RequestContext) -> Option<SourceRead> {
        None
    }
}

#[tokio::test]
async fn list_into_fills_pages_with_one_reused_resource() {
    let server = builder(3)
        .resource(Resource::new("fixed://a", "a").text("a"))
        .resource_source(Arc::new(Streamed { len: 7, extra: 0 }))
        .build()
        .unwrap();
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    let (uris, pages) = walk(&mut client).await;
    let expected: Vec<String> =
        std::iter::once("fixed://a".to_owned()).chain((0..7).map(|i| format!("s://{i}"))).collect();
    assert_eq!(uris, expected);
    assert_eq!(pages, 3);
    // Each pushed item is shaped for the client's revision: a 2025-03-26
    // client gets no `title` (added in 2025-06-18), a 2025-11-25 one does.
    let page = client.request("resources/list", json!({})).await.unwrap();
    assert_eq!(page["resources"][1], json!({"uri": "s://0", "name": "n0", "title": "a title"}));
    let mut old = TestClient::connect_legacy(&server, "2025-03-26").await;
    let page = old.request("resources/list", json!({})).await.unwrap();
    assert_eq!(page["resources"][1], json!({"uri": "s://0", "name": "n0"}));
}

#[tokio::test]
async fn items_pushed_past_the_range_are_dropped_and_the_walk_stays_whole() {
    let server = builder(4).resource_source(Arc::new(Streamed { len: 10, extra: 2 })).build().unwrap();
    let mut client = TestClient::connect_modern(&server);
    let (uris, pages) = walk(&mut client).await;
    assert_eq!(uris, (0..10).map(|i| format!("s://{i}")).collect::<Vec<_>>());
    assert_eq!(pages, 3);
}
