//! Metrics through the in-memory client: every outcome counted under the
//! right labels, and resource URIs never used as label values.

use serde_json::{Value, json};
use switchboard_metrics::Metrics;
use switchboard_server::types::PromptMessage;
use switchboard_server::{CallToolResult, Prompt, RequestContext, Resource, Server, Tool, ToolError};
use switchboard_testkit::TestClient;

fn sample(text: &str, prefix: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

#[tokio::test]
async fn every_outcome_is_counted_under_its_method_and_name() {
    let metrics = Metrics::new();
    let server = Server::builder("metered", "1")
        .tool(
            Tool::new("ok")
                .raw_handler(|_: Value, _| async { Ok::<_, ToolError>(CallToolResult::text("fine")) }),
        )
        .tool(
            Tool::new("fails")
                .raw_handler(|_: Value, _| async { Err::<CallToolResult, _>(ToolError::new("broken")) }),
        )
        .prompt(
            Prompt::new("hello")
                .raw_handler(|_, _: RequestContext| async { Ok(vec![PromptMessage::user("hi")]) }),
        )
        .resource(Resource::new("test://secret/path/1234", "doc").text("x"))
        .layer(metrics.layer())
        .build()
        .unwrap();
    let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
    client.call_tool("ok", json!({})).await.unwrap();
    client.call_tool("ok", json!({})).await.unwrap();
    client.call_tool("fails", json!({})).await.unwrap();
    client.call_tool("missing", json!({})).await.unwrap_err();
    client.get_prompt("hello", json!({})).await.unwrap();
    client.read_resource("test://secret/path/1234").await.unwrap();
    client.read_resource("test://nothing").await.unwrap_err();

    let text = metrics.render();
    let count = |labels: &str| sample(&text, &format!("mcp_requests_total{{{labels}}}"));
    assert_eq!(count(r#"method="tools/call",name="ok",outcome="ok""#), Some(2.0), "{text}");
    assert_eq!(count(r#"method="tools/call",name="fails",outcome="tool_error""#), Some(1.0), "{text}");
    assert_eq!(count(r#"method="tools/call",name="missing",outcome="error""#), Some(1.0), "{text}");
    assert_eq!(count(r#"method="prompts/get",name="hello",outcome="ok""#), Some(1.0), "{text}");
    assert_eq!(count(r#"method="resources/read",name="",outcome="ok""#), Some(1.0), "{text}");
    assert_eq!(count(r#"method="resources/read",name="",outcome="error""#), Some(1.0), "{text}");
    assert!(!text.contains("secret/path"), "URIs are not label values: {text}");
    assert_eq!(
        sample(&text, r#"mcp_request_duration_seconds_count{method="tools/call",name="ok"}"#),
        Some(2.0),
        "{text}"
    );
    // initialize never reaches a method handler, so it is not counted.
    assert!(!text.contains("initialize"), "{text}");
}
