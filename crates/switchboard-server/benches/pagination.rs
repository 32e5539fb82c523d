//! Paging cost against list length: a page of a 1,000,000-resource list
//! should cost about what a page of a 100-resource list costs, at the start
//! and at the end of the list, for registered resources and for resources
//! computed by a `ResourceSource` (through `list`, owned items, and through
//! `list_into`, one reused item).
//!
//! Run with: cargo bench -p switchboard-server --bench pagination

use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use switchboard_server::types::resources::Resource as ResourceDef;
use switchboard_server::{
    RequestContext, Resource, ResourcePage, ResourceSource, Server, Session, SourceRead,
};
use tokio::runtime::Runtime;

fn server_with(n: usize) -> Server {
    let mut builder = Server::builder("bench", "1");
    for i in 0..n {
        builder = builder.resource(Resource::new(format!("bench://r/{i}"), format!("r{i}")).text("x"));
    }
    builder.build().expect("bench server builds")
}

/// `bench://s/{i}` for i in 0..len, `text/plain`, listed through `list`
/// (owned items) and the trait's default `list_into`.
struct Owned {
    len: usize,
}

/// The same items, listed through a `list_into` that reuses one
/// `Resource` for the whole page.
struct Reused(Owned);

fn fill(def: &mut ResourceDef, i: usize) {
    use std::fmt::Write;
    def.uri.clear();
    write!(def.uri, "bench://s/{i}").expect("writing to a String");
    def.name.clear();
    write!(def.name, "s{i}").expect("writing to a String");
}

fn blank() -> ResourceDef {
    let mut def = ResourceDef::new(String::new(), String::new());
    def.mime_type = Some("text/plain".into());
    def
}

impl ResourceSource for Owned {
    fn len(&self) -> usize {
        self.len
    }

    fn list(&self, range: std::ops::Range<usize>) -> Vec<ResourceDef> {
        range
            .map(|i| {
                let mut def = blank();
                fill(&mut def, i);
                def
            })
            .collect()
    }

    fn read(&self, _uri: &str, _ctx: RequestContext) -> Option<SourceRead> {
        None
    }
}

impl ResourceSource for Reused {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn list(&self, range: std::ops::Range<usize>) -> Vec<ResourceDef> {
        self.0.list(range)
    }

    fn list_into(&self, range: std::ops::Range<usize>, page: &mut ResourcePage<'_>) {
        let mut def = blank();
        for i in range {
            fill(&mut def, i);
            page.push(&def);
        }
    }

    fn read(&self, uri: &str, ctx: RequestContext) -> Option<SourceRead> {
        self.0.read(uri, ctx)
    }
}

fn modern_list(cursor: Option<&str>) -> Vec<u8> {
    let mut params = json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    }});
    if let Some(c) = cursor {
        params["cursor"] = json!(c);
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list", "params": params}).to_string().into_bytes()
}

fn call(rt: &Runtime, server: &Server, session: &Arc<Session>, frame: &[u8]) -> Value {
    let bytes = rt.block_on(server.handle_frame(session, frame)).expect("a response");
    serde_json::from_slice(&bytes).expect("JSON")
}

/// The cursor of the last page, found by walking the list once.
fn last_cursor(rt: &Runtime, server: &Server, session: &Arc<Session>) -> Option<String> {
    let mut cursor: Option<String> = None;
    let mut last = None;
    loop {
        let page = call(rt, server, session, &modern_list(cursor.as_deref()));
        match page["result"]["nextCursor"].as_str() {
            Some(next) => {
                last = cursor.clone();
                cursor = Some(next.to_owned());
            }
            None => return cursor.or(last),
        }
    }
}

fn pagination(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let mut group = c.benchmark_group("resources_list_page_of_100");
    for n in [100usize, 10_000, 1_000_000] {
        let server = server_with(n);
        let (tx, _rx) = tokio::sync::mpsc::channel(16);
        let session = server.new_session(tx, None);
        let first = modern_list(None);
        group.bench_with_input(BenchmarkId::new("first", n), &n, |b, _| {
            b.iter(|| rt.block_on(server.handle_frame(&session, &first)))
        });
        let last = modern_list(last_cursor(&rt, &server, &session).as_deref());
        group.bench_with_input(BenchmarkId::new("last", n), &n, |b, _| {
            b.iter(|| rt.block_on(server.handle_frame(&session, &last)))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("resources_list_computed_page_of_100");
    for n in [100usize, 1_000_000] {
        let sources: [(&str, Arc<dyn ResourceSource>); 2] =
            [("list", Arc::new(Owned { len: n })), ("list_into", Arc::new(Reused(Owned { len: n })))];
        for (name, source) in sources {
            let server =
                Server::builder("bench", "1").resource_source(source).build().expect("bench server builds");
            let (tx, _rx) = tokio::sync::mpsc::channel(16);
            let session = server.new_session(tx, None);
            let first = modern_list(None);
            group.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                b.iter(|| rt.block_on(server.handle_frame(&session, &first)))
            });
        }
    }
    group.finish();

    // Walking 10,000 resources in pages of 100.
    let server = server_with(10_000);
    let (tx, _rx) = tokio::sync::mpsc::channel(16);
    let session = server.new_session(tx, None);
    c.bench_function("resources_list_walk_10000", |b| b.iter(|| last_cursor(&rt, &server, &session)));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = pagination
}
criterion_main!(benches);
