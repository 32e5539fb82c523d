//! tools/list, tools/call, validation, structured output, per-revision
//! shaping and registration rules.

use serde_json::{Value, json};
use switchboard_server::types::content::{Annotations, Icon};
use switchboard_server::types::tools::ToolAnnotations;
use switchboard_server::types::{CallToolResult, ContentBlock, ErrorCode, ErrorObject, Role};
use switchboard_server::{
    ArgumentErrorMode, Error, Json, NoArgs, RequestContext, Server, ServerOptions, Tool, ToolError,
};
use switchboard_testkit::TestClient;

use crate::common::{self, ALL_VERSIONS, LEGACY_VERSIONS};

async fn client_for(server: &Server, version: &str) -> TestClient {
    if version == "2026-07-28" {
        TestClient::connect_modern(server)
    } else {
        TestClient::connect_legacy(server, version).await
    }
}

fn rpc_code(e: switchboard_testkit::Error) -> i32 {
    e.code().unwrap_or_else(|| panic!("expected a JSON-RPC error, got {e}"))
}

#[tokio::test]
async fn calls_a_text_tool_in_every_revision() {
    let server = common::server();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let r = c.call_tool("echo", json!({"text": "hello"})).await.unwrap();
        assert_eq!(r["content"], json!([{"type": "text", "text": "hello"}]), "{v}");
        assert!(r.get("isError").is_none(), "{v}");
        assert_eq!(r.get("resultType").is_some(), v == "2026-07-28", "{v}");
    }
}

#[tokio::test]
async fn structured_results_carry_a_text_copy_and_are_hidden_from_old_revisions() {
    let server = common::server();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let r = c.call_tool("add", json!({"a": 2, "b": 40})).await.unwrap();
        let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, json!({"sum": 42}), "{v}");
        if v >= "2025-06-18" {
            assert_eq!(r["structuredContent"], json!({"sum": 42}), "{v}");
        } else {
            assert!(r.get("structuredContent").is_none(), "{v}");
        }
    }
}

#[tokio::test]
async fn invalid_arguments_are_tool_errors_the_model_can_act_on() {
    let server = common::server();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let r = c.call_tool("add", json!({"a": "two"})).await.unwrap();
        assert_eq!(r["isError"], true, "{v}");
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("\"add\""), "{text}");
        assert!(text.contains("/a"), "names the bad field: {text}");
        assert!(text.contains("\"b\" is a required property"), "{text}");
        // Missing arguments altogether are validated as {}.
        let r = c.request("tools/call", json!({"name": "add"})).await.unwrap();
        assert_eq!(r["isError"], true);
        // The server keeps serving.
        assert_eq!(c.call_tool("echo", json!({"text": "ok"})).await.unwrap()["content"][0]["text"], "ok");
    }
}

#[tokio::test]
async fn invalid_arguments_can_be_protocol_errors_when_configured() {
    let mut options = ServerOptions::default();
    options.argument_errors = ArgumentErrorMode::ProtocolError;
    let server = common::server_with(options);
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    let e = c.call_tool("add", json!({"a": 1})).await.unwrap_err();
    let switchboard_testkit::Error::Rpc(e) = e else { panic!("expected an RPC error") };
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    assert!(e.data.unwrap()["errors"].as_array().is_some_and(|a| !a.is_empty()));
}

#[tokio::test]
async fn unknown_tools_and_malformed_params_are_invalid_params() {
    let server = common::server();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let e = c.call_tool("nope", json!({})).await.unwrap_err();
        let switchboard_testkit::Error::Rpc(e) = e else { panic!() };
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{v}");
        assert!(e.message.contains("nope"), "{}", e.message);
        assert_eq!(e.data.unwrap()["name"], "nope");
        let code = rpc_code(c.request("tools/call", json!({"arguments": {}})).await.unwrap_err());
        assert_eq!(code, -32602, "missing name, {v}");
        let code =
            rpc_code(c.request("tools/call", json!({"name": "echo", "arguments": [1]})).await.unwrap_err());
        assert_eq!(code, -32602, "arguments not an object, {v}");
    }
}

#[tokio::test]
async fn execution_and_protocol_failures_of_handlers_are_reported_apart() {
    let server = common::builder()
        .tool(common::failing_tool("flaky"))
        .tool(Tool::new("strict").handler(|_: NoArgs, _: RequestContext| async move {
            Err::<String, _>(ToolError::protocol(ErrorObject::invalid_params("bad request shape")))
        }))
        .tool(Tool::new("io").handler(|_: NoArgs, _: RequestContext| async move {
            let e = std::io::Error::new(std::io::ErrorKind::NotFound, "config.toml missing");
            Err::<String, ToolError>(e.into())
        }))
        .build()
        .unwrap();
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    let r = c.call_tool("flaky", json!({})).await.unwrap();
    assert_eq!(
        r,
        json!({"content": [{"type": "text", "text": "the upstream API is down"}], "isError": true})
    );
    let r = c.call_tool("io", json!({})).await.unwrap();
    assert_eq!(r["content"][0]["text"], "config.toml missing");
    assert_eq!(rpc_code(c.call_tool("strict", json!({})).await.unwrap_err()), -32602);
}

#[tokio::test]
async fn structured_results_that_break_the_output_schema_never_leave_the_server() {
    let server = common::builder()
        .tool(
            Tool::new("liar")
                .output_schema(
                    json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
                )
                .raw_handler(
                    |_, _| async move { Ok(CallToolResult::structured(json!({"n": "not a number"}))) },
                ),
        )
        .tool(
            Tool::new("silent")
                .output_schema(json!({"type": "object"}))
                .raw_handler(|_, _| async move { Ok(CallToolResult::text("no structure")) }),
        )
        .tool(
            Tool::new("failing_structured")
                .output_schema(json!({"type": "object", "required": ["n"]}))
                .raw_handler(|_, _| async move { Ok(CallToolResult::error("could not compute")) }),
        )
        .build()
        .unwrap();
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    let e = c.call_tool("liar", json!({})).await.unwrap_err();
    let switchboard_testkit::Error::Rpc(e) = e else { panic!() };
    assert_eq!(e.code, ErrorCode::INTERNAL_ERROR);
    assert!(e.message.contains("outputSchema"), "{}", e.message);
    assert_eq!(rpc_code(c.call_tool("silent", json!({})).await.unwrap_err()), -32603);
    // An error result need not conform.
    let r = c.call_tool("failing_structured", json!({})).await.unwrap();
    assert_eq!(r["isError"], true);
}

fn rich_tool() -> Tool {
    Tool::new("rich")
        .title("Rich")
        .description("Returns every content type.")
        .annotations(ToolAnnotations { read_only_hint: Some(true), ..Default::default() })
        .icon(Icon {
            src: "data:image/png;base64,iVBORw0KGgo=".into(),
            mime_type: Some("image/png".into()),
            sizes: None,
            theme: None,
        })
        .raw_handler(|_, _| async move {
            let annotations = Annotations {
                audience: Some(vec![Role::User]),
                priority: Some(0.5),
                last_modified: Some("2025-01-12T15:00:58Z".into()),
            };
            Ok(CallToolResult::success(vec![
                ContentBlock::text("t").with_annotations(annotations.clone()),
                ContentBlock::image("iVBORw0KGgo=", "image/png"),
                ContentBlock::audio("UklGRg==", "audio/wav"),
                ContentBlock::resource_link("file:///project/README.md", "README.md"),
                ContentBlock::embedded_text("file:///project/a.txt", Some("text/plain".into()), "A")
                    .with_annotations(annotations),
            ]))
        })
}

#[tokio::test]
async fn content_blocks_are_shaped_for_each_revision() {
    let server = common::builder().tool(rich_tool()).build().unwrap();
    let types = |r: &Value| -> Vec<String> {
        r["content"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap().to_owned()).collect()
    };
    let mut c = client_for(&server, "2024-11-05").await;
    let r = c.call_tool("rich", json!({})).await.unwrap();
    assert_eq!(types(&r), ["text", "image", "text", "text", "resource"]);
    assert!(r["content"][2]["text"].as_str().unwrap().contains("audio/wav"));
    assert!(r["content"][3]["text"].as_str().unwrap().contains("file:///project/README.md"));
    assert!(r["content"][0]["annotations"].get("lastModified").is_none());
    assert_eq!(r["content"][0]["annotations"]["priority"], 0.5);

    let mut c = client_for(&server, "2025-03-26").await;
    let r = c.call_tool("rich", json!({})).await.unwrap();
    assert_eq!(types(&r), ["text", "image", "audio", "text", "resource"]);

    for v in ["2025-06-18", "2025-11-25", "2026-07-28"] {
        let mut c = client_for(&server, v).await;
        let r = c.call_tool("rich", json!({})).await.unwrap();
        assert_eq!(types(&r), ["text", "image", "audio", "resource_link", "resource"], "{v}");
        assert_eq!(r["content"][0]["annotations"]["lastModified"], "2025-01-12T15:00:58Z");
        // Annotations of an embedded resource sit on the block, not inside `resource`.
        assert_eq!(r["content"][4]["annotations"]["audience"], json!(["user"]));
        assert!(r["content"][4]["resource"].get("annotations").is_none());
        assert_eq!(r["content"][4]["resource"]["text"], "A");
    }
}

#[tokio::test]
async fn tool_definitions_are_shaped_for_each_revision() {
    let server = common::builder().tool(rich_tool()).build().unwrap();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let tools = c.list_all_tools().await.unwrap();
        let rich = tools.iter().find(|t| t["name"] == "rich").unwrap();
        let add = tools.iter().find(|t| t["name"] == "add").unwrap();
        assert_eq!(rich["description"], "Returns every content type.");
        assert_eq!(rich["inputSchema"], json!({"type": "object", "additionalProperties": false}));
        assert_eq!(rich.get("annotations").is_some(), v >= "2025-03-26", "{v}");
        assert_eq!(rich.get("title").is_some(), v >= "2025-06-18", "{v}");
        assert_eq!(add.get("outputSchema").is_some(), v >= "2025-06-18", "{v}");
        assert_eq!(rich.get("icons").is_some(), v >= "2025-11-25", "{v}");
    }
}

#[tokio::test]
async fn array_output_schemas_are_only_offered_to_2026_clients() {
    let server = common::builder()
        .tool(
            Tool::new("list_numbers")
                .output_schema(json!({"type": "array", "items": {"type": "integer"}}))
                .raw_handler(|_, _| async move { Ok(CallToolResult::structured(json!([1, 2, 3]))) }),
        )
        .build()
        .unwrap();
    for v in ["2025-06-18", "2025-11-25", "2026-07-28"] {
        let mut c = client_for(&server, v).await;
        let tools = c.list_all_tools().await.unwrap();
        let t = tools.iter().find(|t| t["name"] == "list_numbers").unwrap();
        let r = c.call_tool("list_numbers", json!({})).await.unwrap();
        assert_eq!(r["content"][0]["text"], "[1,2,3]", "{v}");
        if v == "2026-07-28" {
            assert_eq!(t["outputSchema"]["type"], "array");
            assert_eq!(r["structuredContent"], json!([1, 2, 3]));
        } else {
            assert!(t.get("outputSchema").is_none(), "{v}");
            assert!(r.get("structuredContent").is_none(), "{v}");
        }
    }
}

#[tokio::test]
async fn tools_list_pages_in_registration_order() {
    let mut options = ServerOptions::default();
    options.page_size = 2;
    let mut builder = common::builder().options(options);
    for i in 0..5 {
        builder = builder
            .tool(Tool::new(format!("t{i}")).raw_handler(|_, _| async move { Ok(CallToolResult::text("")) }));
    }
    let server = builder.build().unwrap();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let first = c.request("tools/list", json!({})).await.unwrap();
        assert_eq!(first["tools"].as_array().unwrap().len(), 2);
        assert!(first["nextCursor"].is_string());
        let names: Vec<String> = c
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["echo", "add", "t0", "t1", "t2", "t3", "t4"], "{v}");
        // The last page has no nextCursor (and never an empty one).
        let mut cursor = first["nextCursor"].as_str().unwrap().to_owned();
        loop {
            let page = c.request("tools/list", json!({"cursor": cursor})).await.unwrap();
            match page.get("nextCursor") {
                Some(Value::String(next)) => {
                    assert!(!next.is_empty());
                    cursor = next.clone();
                }
                None => break,
                Some(other) => panic!("bad nextCursor {other}"),
            }
        }
        for forged in ["garbage", "", "dG9vbHM6eA"] {
            let code = rpc_code(c.request("tools/list", json!({"cursor": forged})).await.unwrap_err());
            assert_eq!(code, -32602, "{forged:?} under {v}");
        }
    }
}

#[tokio::test]
async fn paging_survives_removals_between_pages() {
    let mut options = ServerOptions::default();
    options.page_size = 2;
    let server = common::builder()
        .options(options)
        .tool(common::failing_tool("c"))
        .tool(common::failing_tool("d"))
        .build()
        .unwrap();
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    let first = c.request("tools/list", json!({})).await.unwrap();
    assert!(server.remove_tool("add"));
    let second = c.request("tools/list", json!({"cursor": first["nextCursor"]})).await.unwrap();
    let names: Vec<&str> =
        second["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["c", "d"]);
}

#[tokio::test]
async fn registration_rejects_bad_tools() {
    let ok = |name: &str| common::failing_tool(name);
    let err = Server::builder("s", "1").tool(ok("bad name")).build().unwrap_err();
    assert!(matches!(err, Error::InvalidToolName { .. }), "{err}");
    let err = Server::builder("s", "1").tool(ok(&"x".repeat(129))).build().unwrap_err();
    assert!(matches!(err, Error::InvalidToolName { .. }), "{err}");
    let err = Server::builder("s", "1").tool(ok("dup")).tool(ok("dup")).build().unwrap_err();
    assert!(matches!(err, Error::DuplicateTool(ref n) if n == "dup"), "{err}");
    let err = Server::builder("s", "1").tool(Tool::new("nohandler")).build().unwrap_err();
    assert!(matches!(err, Error::MissingHandler(_)), "{err}");
    let err =
        Server::builder("s", "1").tool(ok("arr").input_schema(json!({"type": "array"}))).build().unwrap_err();
    assert!(matches!(err, Error::InvalidSchema { which: "input", .. }), "{err}");
    let err = Server::builder("s", "1")
        .tool(ok("broken").input_schema(json!({"type": "object", "properties": {"a": {"type": 5}}})))
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::InvalidSchema { .. }), "{err}");
    let err = Server::builder("s", "1")
        .tool(ok("badout").output_schema(json!({"type": "object", "minProperties": "x"})))
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::InvalidSchema { which: "output", .. }), "{err}");
    // Run-time registration follows the same rules.
    let server = common::server();
    assert!(matches!(server.add_tool(ok("echo")), Err(Error::DuplicateTool(_))));
    assert!(matches!(server.add_tool(ok("a,b")), Err(Error::InvalidToolName { .. })));
    assert!(!server.remove_tool("never-registered"));
}

#[tokio::test]
async fn draft_07_schemas_are_validated_as_draft_07() {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"tags": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}}
    });
    let server = common::builder().tool(common::failing_tool("d7").input_schema(schema)).build().unwrap();
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    let r = c.call_tool("d7", json!({"tags": ["a", "b"]})).await.unwrap();
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Invalid arguments"), "tuple items are draft-07 semantics: {text}");
    let r = c.call_tool("d7", json!({"tags": ["a", 1]})).await.unwrap();
    assert_eq!(r["content"][0]["text"], "the upstream API is down");
}

#[tokio::test]
async fn schemas_derive_from_rust_types() {
    let server = common::server();
    let tools = server.tools();
    let add = tools.iter().find(|t| t.name == "add").unwrap();
    assert_eq!(add.input_schema["type"], "object");
    assert_eq!(add.input_schema["required"], json!(["a", "b"]));
    assert!(add.input_schema.get("$schema").is_none());
    assert_eq!(add.output_schema.as_ref().unwrap()["properties"]["sum"]["type"], "integer");
    let t = Tool::new("no_args")
        .handler(|_: NoArgs, _: RequestContext| async move { Ok(Json(common::Sum { sum: 0 })) });
    assert_eq!(t.definition().input_schema, json!({"type": "object", "additionalProperties": false}));
    assert!(t.definition().output_schema.is_some());
}

#[tokio::test]
async fn unknown_argument_fields_follow_the_schema() {
    // `NoArgs` says additionalProperties: false, so extra arguments are refused.
    let server = common::builder().tool(common::failing_tool("strict_args")).build().unwrap();
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    let r = c.call_tool("strict_args", json!({"surprise": 1})).await.unwrap();
    assert!(r["content"][0]["text"].as_str().unwrap().starts_with("Invalid arguments"));
    // A derived schema without deny_unknown_fields accepts them.
    let r = c.call_tool("echo", json!({"text": "x", "extra": true})).await.unwrap();
    assert_eq!(r["content"][0]["text"], "x");
}

#[tokio::test]
async fn legacy_tool_calls_need_the_tools_capability() {
    let server = Server::builder("bare", "1").build().unwrap();
    for v in LEGACY_VERSIONS {
        let mut c = TestClient::connect_legacy(&server, v).await;
        let init_caps = c.request("ping", json!({})).await.unwrap();
        assert_eq!(init_caps, json!({}));
        assert_eq!(rpc_code(c.request("tools/list", json!({})).await.unwrap_err()), -32601);
    }
    let with_tools = Server::builder("empty", "1").enable_tools().build().unwrap();
    let mut c = TestClient::connect_legacy(&with_tools, "2025-11-25").await;
    assert_eq!(c.request("tools/list", json!({})).await.unwrap(), json!({"tools": []}));
}

#[tokio::test]
async fn a_hand_written_schema_wins_over_the_derived_one_in_either_order() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Args {
        #[allow(dead_code)]
        n: Option<i64>,
    }
    let schema =
        serde_json::json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}}});
    let before = switchboard_server::Tool::new("before")
        .input_schema(schema.clone())
        .handler(|_: Args, _ctx: switchboard_server::RequestContext| async { Ok("ok") });
    let after = switchboard_server::Tool::new("after")
        .handler(|_: Args, _ctx: switchboard_server::RequestContext| async { Ok("ok") })
        .input_schema(schema.clone());
    assert_eq!(before.definition().input_schema, schema);
    assert_eq!(after.definition().input_schema, schema);
}
