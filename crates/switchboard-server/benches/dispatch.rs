//! The dispatcher's hot paths, in process (no transport): ping, tools/list,
//! tools/call with argument validation (valid and invalid), a structured
//! result, and a resource-update fan-out to 10,000 subscribed sessions.
//!
//! Run with: cargo bench -p switchboard-server --bench dispatch

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use switchboard_server::{Json, RequestContext, Resource, Server, ServerEvent, Session, Tool};
use tokio::runtime::Runtime;

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    message: String,
}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    a: f64,
    b: f64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: f64,
}

fn server() -> Server {
    let mut b = Server::builder("bench", "1")
        .tool(
            Tool::new("echo")
                .description("echo")
                .handler(|a: EchoArgs, _: RequestContext| async move { Ok(a.message) }),
        )
        .tool(
            Tool::new("add")
                .description("add")
                .handler(|a: AddArgs, _: RequestContext| async move { Ok(Json(Sum { sum: a.a + a.b })) }),
        )
        .resource(Resource::new("bench://watched", "watched").text("w"));
    for i in 0..20 {
        b = b.tool(
            Tool::new(format!("tool_{i}"))
                .description("filler")
                .handler(|a: EchoArgs, _: RequestContext| async move { Ok(a.message) }),
        );
    }
    b.build().expect("bench server builds")
}

fn session(rt: &Runtime, server: &Server) -> (Arc<Session>, tokio::sync::mpsc::Receiver<Vec<u8>>) {
    let (tx, rx) = tokio::sync::mpsc::channel(1 << 16);
    let s = server.new_session(tx, None);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}});
    rt.block_on(server.handle_frame(&s, init.to_string().as_bytes()));
    rt.block_on(server.handle_frame(&s, br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#));
    (s, rx)
}

fn dispatch(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let server = server();
    let (s, _rx) = session(&rt, &server);
    let frames: [(&str, String); 5] = [
        ("ping", json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string()),
        ("tools_list_22", json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string()),
        (
            "tools_call_echo",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hello world"}}}).to_string(),
        ),
        (
            "tools_call_invalid_arguments",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": 5}}}).to_string(),
        ),
        (
            "tools_call_structured",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}).to_string(),
        ),
    ];
    for (name, frame) in &frames {
        c.bench_function(name, |b| b.iter(|| rt.block_on(server.handle_frame(&s, frame.as_bytes()))));
    }
    let modern = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"message": "hello world"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    c.bench_function("tools_call_echo_2026", |b| {
        b.iter(|| rt.block_on(server.handle_frame(&s, modern.as_bytes())))
    });

    // Fan-out: one resource update delivered to 10,000 subscribed sessions.
    let subscribe = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": "bench://watched"}});
    let mut sessions: Vec<_> = (0..10_000)
        .map(|_| {
            let (s, rx) = session(&rt, &server);
            rt.block_on(server.handle_frame(&s, subscribe.to_string().as_bytes()));
            (s, rx)
        })
        .collect();
    let event = ServerEvent::ResourceUpdated("bench://watched".into());
    let mut group = c.benchmark_group("fan_out");
    group.sample_size(20);
    group.bench_function("resource_updated_to_10000_sessions", |b| {
        b.iter(|| {
            rt.block_on(async {
                for (s, _) in &sessions {
                    server.deliver(s, &event).await;
                }
            });
            // Drain so the queues never fill (counted in the time: a
            // transport writes each message out too).
            for (_, rx) in sessions.iter_mut() {
                while rx.try_recv().is_ok() {}
            }
        })
    });
    group.finish();
    drop(sessions);
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
