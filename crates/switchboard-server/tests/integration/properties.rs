//! Property tests: random bytes and random JSON never panic the dispatcher,
//! every request with a readable id gets exactly one answer with that id,
//! and notifications get none.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Value, json};
use switchboard_server::{Server, Session};
use tokio::runtime::Runtime;

use crate::common;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn session(server: &Server) -> Arc<Session> {
    // The receiver is dropped: notifications the handlers send are discarded.
    let (tx, _rx) = tokio::sync::mpsc::channel(1024);
    server.new_session(tx, None)
}

fn initialized(rt: &Runtime, server: &Server, version: &str) -> Arc<Session> {
    let s = session(server);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "p", "version": "1"}}});
    rt.block_on(server.handle_frame(&s, init.to_string().as_bytes())).unwrap();
    s
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arb_id() -> impl Strategy<Value = Value> {
    prop_oneof![any::<i32>().prop_map(Value::from), "[a-z0-9]{1,8}".prop_map(Value::String)]
}

const METHODS: [&str; 9] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "server/discover",
    "unknown/x",
    "notifications/cancelled",
    "notifications/initialized",
    "logging/setLevel",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let rt = runtime();
        let server = common::server();
        let s = session(&server);
        if let Some(reply) = rt.block_on(server.handle_frame(&s, &bytes)) {
            let v: Value = serde_json::from_slice(&reply).expect("replies are JSON");
            let first = if v.is_array() { v[0].clone() } else { v };
            prop_assert_eq!(&first["jsonrpc"], "2.0");
        }
    }

    #[test]
    fn every_request_is_answered_once_with_its_id(
        method in prop::sample::select(METHODS.to_vec()),
        id in prop::option::of(arb_id()),
        params in prop::option::of(arb_json()),
        modern in any::<bool>(),
    ) {
        let rt = runtime();
        let server = common::server();
        let s = if modern { session(&server) } else { initialized(&rt, &server, "2025-06-18") };
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if let Some(id) = &id {
            msg["id"] = id.clone();
        }
        if let Some(mut p) = params {
            if modern && p.is_object() {
                p["_meta"] = switchboard_testkit::TestClient::modern_meta();
            }
            msg["params"] = p;
        }
        let reply = rt.block_on(server.handle_frame(&s, msg.to_string().as_bytes()));
        match id {
            None => prop_assert!(reply.is_none(), "a notification was answered: {msg}"),
            Some(id) => {
                let reply: Value = serde_json::from_slice(&reply.expect("a request is answered")).unwrap();
                prop_assert_eq!(&reply["id"], &id);
                prop_assert!(reply.get("result").is_some() != reply.get("error").is_some());
            }
        }
    }

    #[test]
    fn random_tool_arguments_get_a_result_or_an_error(args in arb_json(), name in prop::sample::select(vec!["add", "echo", "missing"])) {
        let rt = runtime();
        let server = common::server();
        let s = initialized(&rt, &server, "2025-11-25");
        let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": args}});
        let reply: Value = serde_json::from_slice(&rt.block_on(server.handle_frame(&s, msg.to_string().as_bytes())).unwrap()).unwrap();
        prop_assert_eq!(&reply["id"], 1);
        if let Some(result) = reply.get("result") {
            prop_assert!(result["content"].is_array());
        } else {
            prop_assert!(reply["error"]["code"].is_i64());
        }
    }

    #[test]
    fn batches_answer_each_request(entries in prop::collection::vec((prop::option::of(any::<u16>()), prop::sample::select(vec!["ping", "tools/list", "nope", "notifications/x"])), 1..8)) {
        let rt = runtime();
        let server = common::server();
        let s = initialized(&rt, &server, "2025-03-26");
        let mut requests = 0;
        let batch: Vec<Value> = entries.iter().enumerate().map(|(i, (id, method))| {
            match id {
                Some(_) => { requests += 1; json!({"jsonrpc": "2.0", "id": i, "method": method}) }
                None => json!({"jsonrpc": "2.0", "method": method}),
            }
        }).collect();
        let reply = rt.block_on(server.handle_frame(&s, Value::Array(batch).to_string().as_bytes()));
        match reply {
            None => prop_assert_eq!(requests, 0),
            Some(bytes) => {
                let v: Value = serde_json::from_slice(&bytes).unwrap();
                prop_assert_eq!(v.as_array().unwrap().len(), requests);
            }
        }
    }
}
