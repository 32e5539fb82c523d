//! Any JSON as the arguments of tools with demanding input schemas
//! (nested objects, arrays, patterns, formats, combinators): validation
//! answers with a result or an error, never a panic.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use switchboard_server::{CallToolResult, Server, Tool};
use serde_json::{Value, json};

struct World {
    runtime: tokio::runtime::Runtime,
    server: Server,
    session: std::sync::Arc<switchboard_server::Session>,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let schema = json!({
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,30}$"},
                "email": {"type": "string", "format": "email"},
                "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 5, "uniqueItems": true},
                "range": {"type": "object", "properties": {"from": {"type": "integer", "minimum": 0}, "to": {"type": "integer"}}},
                "mode": {"oneOf": [{"const": "fast"}, {"const": "safe"}, {"type": "number", "multipleOf": 0.5}]},
                "nested": {"$ref": "#/$defs/node"}
            },
            "additionalProperties": false,
            "$defs": {"node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}, "v": {"type": "boolean"}}}}
        });
        let server = Server::builder("fuzz", "1")
            .tool(Tool::new("strict").input_schema(schema).raw_handler(|_args: Value, _ctx| async move {
                Ok(CallToolResult::text("ok"))
            }))
            .build()
            .unwrap();
        let (tx, rx) = tokio::sync::mpsc::channel(1024);
        std::mem::forget(rx);
        let session = server.new_session(tx, None);
        World { runtime, server, session }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(arguments) = serde_json::from_slice::<Value>(data) else { return };
    let w = world();
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "strict", "arguments": arguments,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let answer = w.runtime.block_on(async {
        tokio::time::timeout(
            std::time::Duration::from_secs(5),
            w.server.handle_frame(&w.session, request.to_string().as_bytes()),
        )
        .await
        .expect("validation answers within 5 s")
    });
    let answer: Value = serde_json::from_slice(&answer.expect("a request is answered")).unwrap();
    assert!(answer.get("result").is_some() != answer.get("error").is_some(), "{answer}");
});
