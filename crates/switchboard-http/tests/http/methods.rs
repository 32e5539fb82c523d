//! An application's methods over Streamable HTTP: the facts of a method
//! registered as a type (`Method::typed`) reach the transport as a core
//! method's do. At 2026-07-28 its target is mirrored in `Mcp-Name` (checked
//! against the body); in the handshake era a method whose facts say it
//! streams is answered as SSE in `auto` mode, a plain one as JSON.

use reqwest::{Client, StatusCode};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use switchboard_http::HttpOptions;
use switchboard_server::types::methods::{MethodFacts, Request, Target};
use switchboard_server::{ErrorObject, Method, RequestContext, Server};

use crate::support::Serving;

#[derive(Serialize, Deserialize)]
struct LookupParams {
    name: String,
}

#[derive(Serialize, Deserialize)]
struct LookupResult {
    found: String,
}

/// Names its target by `name` and may send messages before its result.
struct Lookup;

impl Request for Lookup {
    const FACTS: MethodFacts =
        MethodFacts { streams: true, ..MethodFacts::about("com.example/lookup", Target::Name) };
    type Params = LookupParams;
    type Result = LookupResult;
}

fn server() -> Server {
    Server::builder("methods", "1")
        .method(Method::typed::<Lookup, _, _>(|params: LookupParams, _ctx: RequestContext| async move {
            Ok(LookupResult { found: params.name })
        }))
        .method(Method::new("com.example/plain", |_: Value, _ctx: RequestContext| async move {
            Ok::<_, ErrorObject>(serde_json::Map::new())
        }))
        .build()
        .unwrap()
}

struct Running {
    url: String,
    client: Client,
    _serving: Serving,
}

async fn start() -> Running {
    let serving = Serving::start(server(), HttpOptions::default()).await;
    Running { url: serving.url.clone(), client: Client::new(), _serving: serving }
}

impl Running {
    /// A 2026-07-28 POST of `method` with these `Mcp-Name` header and params.
    async fn modern(&self, method: &str, name: Option<&str>, mut params: Value) -> (StatusCode, Value) {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
        });
        let mut post = self
            .client
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method)
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}));
        if let Some(name) = name {
            post = post.header("Mcp-Name", name);
        }
        let response = post.send().await.unwrap();
        let status = response.status();
        (status, response.json().await.unwrap())
    }

    /// A handshake-era POST in `session`; its status, content type and body.
    async fn legacy(
        &self,
        session: Option<&str>,
        message: Value,
    ) -> (StatusCode, String, String, Option<String>) {
        let mut post = self
            .client
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-06-18")
            .json(&message);
        if let Some(session) = session {
            post = post.header("Mcp-Session-Id", session);
        }
        let response = post.send().await.unwrap();
        let header =
            |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let (kind, session) = (header("content-type").unwrap_or_default(), header("mcp-session-id"));
        (response.status(), kind, response.text().await.unwrap(), session)
    }
}

#[tokio::test]
async fn at_2026_07_28_a_typed_methods_target_is_mirrored_in_mcp_name() {
    let running = start().await;
    let params = json!({"name": "ada"});
    let (status, body) = running.modern("com.example/lookup", Some("ada"), params.clone()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["found"], "ada", "{body}");
    for name in [None, Some("grace")] {
        let (status, body) = running.modern("com.example/lookup", name, params.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "Mcp-Name {name:?}: {body}");
        assert_eq!(body["error"]["code"], -32020, "{body}");
    }
    // A method registered without facts names nothing: no Mcp-Name needed.
    let (status, body) = running.modern("com.example/plain", None, json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn in_the_handshake_era_a_method_whose_facts_say_it_streams_is_answered_as_sse() {
    let running = start().await;
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (status, _, body, session) = running.legacy(None, initialize).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let session = session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    running.legacy(Some(&session), initialized).await;

    let lookup =
        json!({"jsonrpc": "2.0", "id": 1, "method": "com.example/lookup", "params": {"name": "ada"}});
    let (status, kind, body, _) = running.legacy(Some(&session), lookup).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(kind.starts_with("text/event-stream"), "{kind}: {body}");
    assert!(body.contains(r#""found":"ada""#), "{body}");

    let plain = json!({"jsonrpc": "2.0", "id": 2, "method": "com.example/plain", "params": {}});
    let (status, kind, body, _) = running.legacy(Some(&session), plain).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(kind.starts_with("application/json"), "{kind}: {body}");
}
