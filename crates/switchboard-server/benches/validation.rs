//! JSON Schema argument validation on `tools/call` (issue #6): valid and
//! invalid arguments against a small and a large input schema, measured
//! through the public dispatcher so the numbers include what a client sees.
//!
//! Run with: cargo bench -p switchboard-server --bench validation

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use switchboard_server::{RequestContext, Server, Session, Tool};
use tokio::runtime::Runtime;

/// Number of properties in the large schema.
const LARGE: usize = 50;

fn large_schema() -> Value {
    let mut props = Map::new();
    for i in 0..LARGE {
        let p = match i % 4 {
            0 => json!({"type": "string", "minLength": 1, "maxLength": 64}),
            1 => json!({"type": "integer", "minimum": 0, "maximum": 1000}),
            2 => json!({"type": "array", "items": {"type": "string"}, "maxItems": 8}),
            _ => json!({"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}),
        };
        props.insert(format!("f{i}"), p);
    }
    let required: Vec<String> = (0..LARGE).map(|i| format!("f{i}")).collect();
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

fn large_args(valid: bool) -> Value {
    let mut args = Map::new();
    for i in 0..LARGE {
        let v = match i % 4 {
            0 => json!("some text"),
            1 => json!(42),
            2 => json!(["a", "b", "c"]),
            _ => json!({"x": 1.5}),
        };
        args.insert(format!("f{i}"), v);
    }
    if !valid {
        // One wrong type deep in the object and one out-of-range number.
        args.insert(format!("f{}", LARGE - 1), json!({"x": "not a number"}));
        args.insert("f1".into(), json!(5000));
    }
    Value::Object(args)
}

fn server() -> Server {
    Server::builder("bench", "1")
        .tool(
            Tool::new("small")
                .handler(|_: Value, _: RequestContext| async move { Ok("ok".to_string()) })
                .input_schema(json!({"type": "object", "properties": {"message": {"type": "string"}},
                    "required": ["message"]})),
        )
        .tool(
            Tool::new("large")
                .handler(|_: Value, _: RequestContext| async move { Ok("ok".to_string()) })
                .input_schema(large_schema()),
        )
        .build()
        .expect("bench server builds")
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

fn call(tool: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args}})
        .to_string()
}

fn validation(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let server = server();
    let (s, _rx) = session(&rt, &server);
    let frames = [
        ("small_valid", call("small", json!({"message": "hello"}))),
        ("small_invalid", call("small", json!({"message": 5}))),
        ("large_valid", call("large", large_args(true))),
        ("large_invalid", call("large", large_args(false))),
    ];
    let mut group = c.benchmark_group("validation");
    for (name, frame) in &frames {
        // Check once that the bench measures the intended path: valid
        // arguments succeed, invalid ones come back as an error.
        let out = rt.block_on(server.handle_frame(&s, frame.as_bytes())).expect("an answer");
        let out: Value = serde_json::from_slice(&out).expect("JSON answer");
        let failed = out.get("error").is_some() || out["result"]["isError"] == json!(true);
        assert_eq!(failed, name.ends_with("invalid"), "{name}: unexpected answer {out}");
        group.bench_function(*name, |b| b.iter(|| rt.block_on(server.handle_frame(&s, frame.as_bytes()))));
    }
    group.finish();
}

criterion_group!(benches, validation);
criterion_main!(benches);
