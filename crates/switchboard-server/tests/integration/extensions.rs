//! Extensions (SEP-2133): what the server offers goes out in
//! `capabilities.extensions` of `initialize` and `server/discover`, a bad
//! or repeated identifier fails the build, and what the client declared
//! reaches handlers in both eras.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::types::extensions::TASKS;
use switchboard_server::{Error, ProtocolVersion, RequestContext, Server, ServerBuilder, Tool};
use switchboard_testkit::TestClient;

use crate::common::{self, LEGACY_VERSIONS};

const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const WIDGETS: &str = "com.example/widgets";

fn widgets_settings() -> Value {
    json!({"themes": ["dark", "light"]})
}

/// The standard test server offering `com.example/widgets` to every
/// revision and Tasks to 2026-07-28 only.
fn offering() -> Server {
    common::builder()
        .extension(WIDGETS, widgets_settings())
        .extension_since(TASKS, json!({}), ProtocolVersion::V2026_07_28)
        .build()
        .unwrap()
}

async fn discover(server: &Server) -> Value {
    let mut c = TestClient::connect_modern(server);
    c.request("server/discover", json!({})).await.unwrap()
}

fn build_error(builder: ServerBuilder) -> Error {
    builder.build().expect_err("the build fails")
}

#[tokio::test]
async fn an_offered_extension_is_in_initialize_at_every_legacy_revision() {
    let server = offering();
    for v in LEGACY_VERSIONS {
        let mut c = TestClient::connect(&server);
        let result = c.initialize(v).await.unwrap();
        assert_eq!(
            result["capabilities"]["extensions"],
            json!({WIDGETS: widgets_settings()}),
            "{v}: the widgets offer, and not Tasks (offered from 2026-07-28 on): {result}"
        );
    }
}

#[tokio::test]
async fn offered_extensions_are_in_server_discover() {
    let result = discover(&offering()).await;
    assert_eq!(
        result["capabilities"]["extensions"],
        json!({WIDGETS: widgets_settings(), TASKS: {}}),
        "{result}"
    );
    assert_eq!(result["capabilities"]["tools"], json!({"listChanged": true}), "the rest is unchanged");
}

#[tokio::test]
async fn an_extension_offered_only_to_2026_07_28_leaves_legacy_capabilities_without_the_member() {
    let server =
        common::builder().extension_since(TASKS, json!({}), ProtocolVersion::V2026_07_28).build().unwrap();
    for v in LEGACY_VERSIONS {
        let result = TestClient::connect(&server).initialize(v).await.unwrap();
        assert!(result["capabilities"].get("extensions").is_none(), "{v}: {result}");
    }
    assert_eq!(discover(&server).await["capabilities"]["extensions"], json!({TASKS: {}}));
}

#[tokio::test]
async fn without_offers_no_extensions_member_is_sent() {
    let server = common::server();
    for v in LEGACY_VERSIONS {
        let result = TestClient::connect(&server).initialize(v).await.unwrap();
        assert!(result["capabilities"].get("extensions").is_none(), "{v}: {result}");
    }
    let result = discover(&server).await;
    assert!(result["capabilities"].get("extensions").is_none(), "{result}");
}

#[test]
fn bad_extension_identifiers_fail_the_build() {
    for id in
        ["", "widgets", "/widgets", "com.example/", "com..example/x", "1com.example/x", "com.example/x y"]
    {
        match build_error(Server::builder("s", "1").extension(id, json!({}))) {
            Error::InvalidExtension { id: got, reason } => {
                assert_eq!(got, id);
                assert!(!reason.is_empty());
            }
            other => panic!("{id:?}: {other}"),
        }
    }
}

#[test]
fn extension_settings_must_be_a_json_object() {
    for settings in [json!(null), json!(true), json!([]), json!("{}")] {
        let e = build_error(Server::builder("s", "1").extension(WIDGETS, settings.clone()));
        assert!(matches!(&e, Error::InvalidExtension { id, .. } if id == WIDGETS), "{settings}: {e}");
    }
}

#[test]
fn an_extension_offered_twice_fails_the_build() {
    let twice = Server::builder("s", "1").extension(WIDGETS, json!({})).extension_since(
        WIDGETS,
        json!({}),
        ProtocolVersion::V2026_07_28,
    );
    assert!(matches!(build_error(twice), Error::DuplicateExtension(id) if id == WIDGETS));
    let other = Server::builder("other", "1").extension(WIDGETS, json!({}));
    let mounted = Server::builder("s", "1").extension(WIDGETS, json!({})).mount("o", other);
    assert!(matches!(build_error(mounted), Error::DuplicateExtension(id) if id == WIDGETS));
}

#[tokio::test]
async fn a_mounted_servers_extensions_are_offered() {
    let other = Server::builder("other", "1").extension(WIDGETS, widgets_settings());
    let server = common::builder().mount("o", other).build().unwrap();
    assert_eq!(discover(&server).await["capabilities"]["extensions"], json!({WIDGETS: widgets_settings()}));
}

#[derive(Deserialize, JsonSchema)]
struct ExtensionArgs {
    id: String,
}

/// The standard server plus `declared`, which answers with the settings the
/// client declared for extension `id` (`null` when it declared none).
fn reporting() -> Server {
    common::builder()
        .extension(WIDGETS, json!({}))
        .tool(Tool::new("declared").handler(|args: ExtensionArgs, ctx: RequestContext| async move {
            Ok(ctx.client_capabilities().extension(&args.id).cloned().unwrap_or(Value::Null).to_string())
        }))
        .build()
        .unwrap()
}

/// What `declared` reports for `id`, parsed back.
async fn declared(c: &mut TestClient, id: &str, meta: Option<Value>) -> Value {
    let mut params = json!({"name": "declared", "arguments": {"id": id}});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    let result = c.request("tools/call", params).await.unwrap();
    serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn a_tool_handler_sees_the_extensions_a_legacy_client_declared_in_initialize() {
    let server = reporting();
    for v in LEGACY_VERSIONS {
        let mut c = TestClient::connect(&server);
        let init = c
            .request_raw(
                "initialize",
                Some(json!({
                    "protocolVersion": v,
                    "capabilities": {"extensions": {WIDGETS: {"themes": ["dark"]}}},
                    "clientInfo": {"name": "t", "version": "1"}
                })),
            )
            .await
            .unwrap();
        assert_eq!(init["result"]["protocolVersion"], v, "{init}");
        c.notify("notifications/initialized", None).await.unwrap();
        assert_eq!(declared(&mut c, WIDGETS, None).await, json!({"themes": ["dark"]}), "{v}");
        assert_eq!(declared(&mut c, TASKS, None).await, Value::Null, "{v}: not declared");
    }
}

#[tokio::test]
async fn a_tool_handler_sees_the_extensions_a_2026_client_declared_in_that_request() {
    let server = reporting();
    let mut c = TestClient::connect_modern(&server);
    let meta = json!({CLIENT_CAPABILITIES: {"extensions": {TASKS: {}}}});
    assert_eq!(declared(&mut c, TASKS, Some(meta)).await, json!({}));
    assert_eq!(
        declared(&mut c, TASKS, None).await,
        Value::Null,
        "declarations are per request: the next request declared nothing"
    );
}
