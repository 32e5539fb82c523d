//! Serialization of results and list pages per protocol revision (issue #6):
//! a `tools/list` page, a `resources/list` page and a `tools/call` result,
//! each answered to a session negotiated at a different revision, so the
//! per-revision shaping and the JSON encoding are both in the number.
//!
//! Run with: cargo bench -p switchboard-server --bench serialization

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use switchboard_server::{Json, RequestContext, Resource, Server, Session, Tool};
use tokio::runtime::Runtime;

/// Revisions negotiated through `initialize`.
const REVISIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

#[derive(Deserialize, JsonSchema)]
struct Query {
    text: String,
    limit: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
struct Hit {
    id: u32,
    title: String,
    score: f64,
}

#[derive(Serialize, JsonSchema)]
struct Hits {
    hits: Vec<Hit>,
}

fn server() -> Server {
    let mut b = Server::builder("bench", "1").tool(Tool::new("search").description("search").handler(
        |q: Query, _: RequestContext| async move {
            let n = q.limit.unwrap_or(20);
            Ok(Json(Hits {
                hits: (0..n).map(|id| Hit { id, title: format!("{} #{id}", q.text), score: 0.5 }).collect(),
            }))
        },
    ));
    for i in 0..50 {
        b = b.tool(
            Tool::new(format!("tool_{i}"))
                .description("a filler tool with a typed schema")
                .handler(|q: Query, _: RequestContext| async move { Ok(q.text) }),
        );
    }
    for i in 0..100 {
        b = b.resource(Resource::new(format!("bench://r/{i}"), format!("r{i}")).text("x"));
    }
    b.build().expect("bench server builds")
}

fn session(
    rt: &Runtime,
    server: &Server,
    revision: &str,
) -> (Arc<Session>, tokio::sync::mpsc::Receiver<Vec<u8>>) {
    let (tx, rx) = tokio::sync::mpsc::channel(1 << 16);
    let s = server.new_session(tx, None);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": revision, "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}});
    rt.block_on(server.handle_frame(&s, init.to_string().as_bytes()));
    rt.block_on(server.handle_frame(&s, br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#));
    (s, rx)
}

fn serialization(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let server = server();
    let frames = [
        ("tools_list_51", json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string()),
        ("resources_list_100", json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list"}).to_string()),
        (
            "tools_call_structured_20",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "search", "arguments": {"text": "q", "limit": 20}}})
            .to_string(),
        ),
    ];
    let mut group = c.benchmark_group("serialization");
    for revision in REVISIONS {
        let (s, _rx) = session(&rt, &server, revision);
        for (name, frame) in &frames {
            let out = rt.block_on(server.handle_frame(&s, frame.as_bytes())).expect("an answer");
            let out: serde_json::Value = serde_json::from_slice(&out).expect("JSON answer");
            assert!(out.get("result").is_some(), "{name}/{revision}: expected a result, got {out}");
            group.bench_function(format!("{name}/{revision}"), |b| {
                b.iter(|| rt.block_on(server.handle_frame(&s, frame.as_bytes())))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, serialization);
criterion_main!(benches);
