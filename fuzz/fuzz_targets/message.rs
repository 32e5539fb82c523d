//! Any bytes as one incoming frame, to a server that has a tool, a
//! resource, a template and a prompt, on a legacy session (after
//! initialize) and on a fresh one: the dispatcher must answer or stay
//! silent, never panic, and every answer must be JSON-RPC.
#![no_main]

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use switchboard_server::types::ResourceContents;
use switchboard_server::{
    CallToolResult, Prompt, ReadRequest, RequestContext, Resource, ResourceTemplate, Server, Tool,
};
use serde_json::{Value, json};

struct World {
    runtime: tokio::runtime::Runtime,
    server: Server,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let server = Server::builder("fuzz", "1")
            .tool(
                Tool::new("echo")
                    .input_schema(json!({"type": "object", "properties": {"text": {"type": "string", "maxLength": 64}}}))
                    .raw_handler(|args: Value, _ctx| async move {
                        Ok(CallToolResult::text(args["text"].as_str().unwrap_or_default()))
                    }),
            )
            .resource(Resource::new("test://a", "a").text("a"))
            .resource_template(ResourceTemplate::new("test://items/{id}{?q*}", "items").unwrap().handler(
                |r: ReadRequest, _ctx: RequestContext| async move { Ok(ResourceContents::text(r.uri, None, "x")) },
            ))
            .prompt(
                Prompt::new("p")
                    .argument("a", "an argument", true)
                    .raw_handler(|_, _| async { Ok(switchboard_server::types::PromptMessage::user("hi")) }),
            )
            .build()
            .unwrap();
        World { runtime, server }
    })
}

fn check(answer: Option<Vec<u8>>) {
    if let Some(bytes) = answer {
        let value: Value = serde_json::from_slice(&bytes).expect("answers are JSON");
        let ok = |m: &Value| m["jsonrpc"] == "2.0" && (m.get("result").is_some() != m.get("error").is_some());
        match &value {
            Value::Array(items) => assert!(items.iter().all(ok), "{value}"),
            other => assert!(ok(other), "{other}"),
        }
    }
}

/// Some requests rightly never end on their own (a `subscriptions/listen`
/// stream lasts as long as its connection): each frame gets 200 ms, then
/// its future is dropped, which is what a closing connection does.
async fn frame(server: &Server, session: &Arc<switchboard_server::Session>, data: &[u8]) {
    if let Ok(answer) =
        tokio::time::timeout(Duration::from_millis(200), server.handle_frame(session, data)).await
    {
        check(answer);
    }
}

fuzz_target!(|data: &[u8]| {
    let w = world();
    w.runtime.block_on(async {
        let (tx, _rx) = tokio::sync::mpsc::channel(1024);
        let fresh = w.server.new_session(tx.clone(), None);
        frame(&w.server, &fresh, data).await;
        let ready = w.server.new_session(tx, None);
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "f", "version": "1"}}});
        w.server.handle_frame(&ready, init.to_string().as_bytes()).await;
        frame(&w.server, &ready, data).await;
    });
});
