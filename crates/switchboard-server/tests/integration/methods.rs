//! Application methods defined as types (`Method::typed`): registered
//! through the same registry as the core's, answered in both eras, their
//! facts (target param, may ask for input) read by the layers and the
//! input rules as a core method's are.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use switchboard_server::middleware::Request as LayerRequest;
use switchboard_server::types::methods::{MethodFacts, Request, Target};
use switchboard_server::{ErrorObject, Method, RequestContext, Server};
use switchboard_testkit::TestClient;

#[derive(Debug, Serialize, Deserialize)]
struct LookupParams {
    name: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct LookupResult {
    found: String,
}

/// `com.example/lookup`: names its target by `name`, may ask for input.
struct Lookup;

impl Request for Lookup {
    const FACTS: MethodFacts = MethodFacts::about("com.example/lookup", Target::Name).asking_input();
    type Params = LookupParams;
    type Result = LookupResult;
}

/// `com.example/count`: answers a bare number, which a JSON-RPC result
/// object cannot be.
struct Count;

impl Request for Count {
    const FACTS: MethodFacts = MethodFacts::plain("com.example/count");
    type Params = Value;
    type Result = u32;
}

fn server(log: Arc<Mutex<Vec<String>>>) -> Server {
    Server::builder("typed", "1")
        .extension("com.example/lookup", json!({}))
        .method(Method::typed::<Lookup, _, _>(|params: LookupParams, ctx: RequestContext| async move {
            if params.name == "ask" {
                let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
                let answer = ctx
                    .elicit("who", "Whom to look up?", schema)
                    .await
                    .map_err(|e| ErrorObject::internal(format!("could not ask: {e}")))?;
                let name = answer["content"]["name"].as_str().unwrap_or("?").to_owned();
                return Ok(LookupResult { found: format!("asked: {name}") });
            }
            Ok(LookupResult { found: params.name })
        }))
        .method(Method::typed::<Count, _, _>(|_: Value, _ctx: RequestContext| async move { Ok(3) }))
        .layer(tower::util::MapRequestLayer::new(move |request: LayerRequest| {
            log.lock().unwrap().push(format!(
                "{} {:?} {:?}",
                request.method(),
                request.target_param(),
                request.target()
            ));
            request
        }))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_typed_method_is_answered_in_both_eras_and_its_target_reaches_the_layers() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let server = server(Arc::clone(&log));
    let mut legacy = TestClient::connect_legacy(&server, "2025-06-18").await;
    let result = legacy.request("com.example/lookup", json!({"name": "ada"})).await.unwrap();
    assert_eq!(result["found"], "ada", "{result}");
    let mut modern = TestClient::connect_modern(&server);
    let result = modern.request("com.example/lookup", json!({"name": "grace"})).await.unwrap();
    assert_eq!(result["found"], "grace", "{result}");
    assert_eq!(result["resultType"], "complete", "a 2026-07-28 result is decorated: {result}");
    assert_eq!(
        *log.lock().unwrap(),
        [r#"com.example/lookup Some(Name) Some("ada")"#, r#"com.example/lookup Some(Name) Some("grace")"#]
    );
}

#[tokio::test]
async fn params_that_do_not_fit_are_invalid_and_a_result_that_is_no_object_is_an_internal_error() {
    let server = server(Arc::default());
    let mut client = TestClient::connect_modern(&server);
    let error = client.request("com.example/lookup", json!({"name": 7})).await.unwrap_err();
    assert_eq!(error.code(), Some(-32602), "{error:?}");
    let error = client.request("com.example/count", json!({})).await.unwrap_err();
    assert_eq!(error.code(), Some(-32603), "{error:?}");
    assert!(error.to_string().contains("not a JSON object"), "{error:?}");
}

#[tokio::test]
async fn a_typed_method_whose_facts_allow_it_asks_for_input_in_rounds() {
    let server = server(Arc::default());
    let mut client = TestClient::connect_modern(&server);
    let mut params = json!({"name": "ask", "_meta": TestClient::modern_meta()});
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let first = client.request_raw("com.example/lookup", Some(params.clone())).await.unwrap();
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert_eq!(result["inputRequests"]["who"]["method"], "elicitation/create", "{first}");
    params["inputResponses"] = json!({"who": {"action": "accept", "content": {"name": "Lovelace"}}});
    if !result["requestState"].is_null() {
        params["requestState"] = result["requestState"].clone();
    }
    let second = client.request_raw("com.example/lookup", Some(params)).await.unwrap();
    assert_eq!(second["result"]["found"], "asked: Lovelace", "{second}");
}

#[test]
fn a_typed_method_cannot_take_a_name_registered_before() {
    let twice = Server::builder("typed", "1")
        .method(Method::typed::<Count, _, _>(|_: Value, _ctx: RequestContext| async move { Ok(1) }))
        .method(Method::typed::<Count, _, _>(|_: Value, _ctx: RequestContext| async move { Ok(2) }))
        .build();
    let error = twice.expect_err("a name is registered once").to_string();
    assert!(error.contains("com.example/count") && error.contains("twice"), "{error}");
}
