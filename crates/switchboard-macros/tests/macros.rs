//! Servers built from macro-generated tools, resource templates and prompts,
//! driven through the in-memory test client.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use serde_json::{Value, json};
use switchboard_server::types::{ContentBlock, PromptMessage, ResourceContents};
use switchboard_server::{
    CallToolResult, HandlerError, Json, ReadRequest, RequestContext, Server, ToolError, prompt, resource,
    tool, tools,
};
use switchboard_testkit::TestClient;

/// Adds two integers.
///
/// Fails on overflow.
#[tool(read_only, idempotent)]
async fn add(
    #[arg(description = "The first addend")] a: i64,
    #[arg(description = "The second addend")] b: i64,
) -> Result<String, ToolError> {
    let sum = a.checked_add(b).ok_or_else(|| ToolError::new("overflow"))?;
    Ok(sum.to_string())
}

/// Greets someone.
#[tool(name = "say_hello", title = "Say hello")]
pub async fn greet(
    name: String,
    greeting: Option<String>,
    ctx: RequestContext,
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 3))]
    times: u8,
) -> Result<String, ToolError> {
    let name = vec![name; usize::from(times)].join(" ");
    let _ = ctx;
    Ok(format!("{}, {name}!", greeting.as_deref().unwrap_or("Hello")))
}

fn one() -> u8 {
    1
}

/// A structured result.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Stats {
    count: usize,
    longest: Option<String>,
}

/// Counts words.
#[tool(destructive = false)]
async fn word_stats(text: String) -> Result<Json<Stats>, ToolError> {
    let longest = text.split_whitespace().max_by_key(|w| w.len()).map(str::to_owned);
    Ok(Json(Stats { count: text.split_whitespace().count(), longest }))
}

#[tool]
async fn no_args() -> Result<CallToolResult, ToolError> {
    Ok(CallToolResult::success(vec![ContentBlock::text("nothing needed")]))
}

/// Parses a number (errors convert with `?`).
#[tool]
async fn parse(r#type: String) -> Result<String, ToolError> {
    let n: i64 = r#type.parse()?;
    Ok(format!("{n}"))
}

// Compiled out together with its builder (`#[cfg]` after the macro's
// attribute is seen by the macro and copied to `hidden_tool`).
#[tool]
#[cfg(any())]
async fn hidden() -> Result<String, ToolError> {
    Ok(String::new())
}

/// Today's weather in a city.
#[resource("weather://{city}/current", mime_type = "text/plain", title = "Current weather")]
async fn current(city: String) -> Result<String, HandlerError> {
    if city == "atlantis" {
        return Err(HandlerError::NotFound);
    }
    Ok(format!("Sunny in {city}"))
}

/// The cities we know: a URI without variables is a fixed resource.
#[resource("weather://cities", mime_type = "text/plain")]
async fn cities(req: ReadRequest) -> Result<String, HandlerError> {
    Ok(format!("Lisbon\nOslo (read as {})", req.uri))
}

/// A forecast for some days.
#[resource("weather://{city}/forecast/{days}{?units}", name = "forecast")]
async fn forecast_days(
    days: u32,
    req: &ReadRequest,
    city: String,
    units: Option<String>,
) -> Result<Vec<ResourceContents>, HandlerError> {
    let text = format!("{days} days in {city} ({})", units.as_deref().unwrap_or("metric"));
    Ok(vec![ResourceContents::text(req.uri.clone(), Some("text/plain".into()), text)])
}

/// Asks for a code review.
#[prompt(title = "Code review")]
async fn review(
    #[arg(description = "The code to review")] code: String,
    language: Option<String>,
) -> Result<Vec<PromptMessage>, HandlerError> {
    let language = language.unwrap_or_else(|| "some".into());
    Ok(vec![PromptMessage::user(format!("Review this {language} code:\n{code}"))])
}

#[prompt(name = "hello")]
async fn hello_prompt_fn(ctx: &RequestContext) -> Result<String, HandlerError> {
    // The context may be borrowed.
    let _ = ctx;
    Ok("Say hello.".into())
}

/// A structured total.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Total {
    total: i64,
}

/// A counter whose tools share state.
struct Counter {
    total: AtomicI64,
}

#[tools]
impl Counter {
    /// Adds to the running total.
    #[tool(name = "counter_add")]
    async fn increment(&self, #[arg(description = "How much")] by: i64) -> Result<String, ToolError> {
        Ok((self.total.fetch_add(by, Ordering::SeqCst) + by).to_string())
    }

    /// The running total.
    #[switchboard_server::tool(read_only)]
    async fn total(&self) -> Result<Json<Total>, ToolError> {
        Ok(Json(Total { total: self.total.load(Ordering::SeqCst) }))
    }

    /// The running total as a resource.
    #[resource("counter://{name}/total", mime_type = "text/plain")]
    async fn total_resource(&self, name: String) -> Result<String, HandlerError> {
        Ok(format!("{name}: {}", self.total.load(Ordering::SeqCst)))
    }

    /// The total of everyone.
    #[resource("counter://total")]
    async fn grand_total(&self) -> Result<Vec<u8>, HandlerError> {
        Ok(self.total.load(Ordering::SeqCst).to_be_bytes().to_vec())
    }

    /// A prompt about the total.
    #[prompt(name = "explain_total")]
    async fn explain(
        &self,
        #[arg(description = "Whose total")] name: String,
    ) -> Result<String, HandlerError> {
        Ok(format!("Explain why {name}'s total is {}.", self.total.load(Ordering::SeqCst)))
    }

    /// Compiled out: not among the tools.
    #[tool]
    #[cfg(any())]
    async fn hidden(&self) -> Result<String, ToolError> {
        Ok(String::new())
    }

    /// Not a tool: left alone.
    fn helper(&self) -> i64 {
        self.total.load(Ordering::SeqCst)
    }
}

fn server() -> (Server, Arc<Counter>) {
    let counter = Arc::new(Counter { total: AtomicI64::new(0) });
    let mut builder = Server::builder("macros", "1.0.0")
        .tool(add_tool())
        .tool(greet_tool())
        .tool(word_stats_tool())
        .tool(no_args_tool())
        .tool(parse_tool())
        .resource_template(current_resource())
        .resource_template(forecast_days_resource())
        .resource(cities_resource())
        .prompt(review_prompt())
        .prompt(hello_prompt_fn_prompt());
    for tool in Arc::clone(&counter).tools() {
        builder = builder.tool(tool);
    }
    for template in Arc::clone(&counter).resource_templates() {
        builder = builder.resource_template(template);
    }
    for resource in Arc::clone(&counter).resources() {
        builder = builder.resource(resource);
    }
    for prompt in Arc::clone(&counter).prompts() {
        builder = builder.prompt(prompt);
    }
    (builder.build().expect("server builds"), counter)
}

async fn client() -> TestClient {
    TestClient::connect_legacy(&server().0, "2025-11-25").await
}

fn tool_named<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no tool {name}: {tools:?}"))
}

#[tokio::test]
async fn the_functions_stay_callable() {
    assert_eq!(add(2, 3).await.unwrap(), "5");
    assert_eq!(current("Paris".into()).await.unwrap(), "Sunny in Paris");
    let counter = Counter { total: AtomicI64::new(4) };
    assert_eq!(counter.increment(1).await.unwrap(), "5");
    assert_eq!(counter.helper(), 5);
}

#[tokio::test]
async fn tools_are_listed_with_schemas_descriptions_and_hints() {
    let mut c = client().await;
    let tools = c.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 7, "{tools:?}");

    let add = tool_named(&tools, "add");
    assert_eq!(add["description"], "Adds two integers.\n\nFails on overflow.");
    assert_eq!(
        add["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "format": "int64", "description": "The first addend"},
                "b": {"type": "integer", "format": "int64", "description": "The second addend"},
            },
            "required": ["a", "b"],
            "additionalProperties": false,
        })
    );
    assert_eq!(add["annotations"], json!({"readOnlyHint": true, "idempotentHint": true}));
    assert!(add.get("outputSchema").is_none());

    let greet = tool_named(&tools, "say_hello");
    assert_eq!(greet["title"], "Say hello");
    assert_eq!(greet["description"], "Greets someone.");
    // The context is not an argument; the Option is not required.
    assert_eq!(greet["inputSchema"]["required"], json!(["name"]));
    let properties = greet["inputSchema"]["properties"].as_object().unwrap();
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["name", "greeting", "times"]);
    // `#[serde]` and `#[schemars]` on a parameter go to its field.
    assert_eq!(properties["times"]["minimum"], 1);
    assert_eq!(properties["times"]["maximum"], 3);
    assert_eq!(properties["times"]["default"], 1);

    let stats = tool_named(&tools, "word_stats");
    assert_eq!(stats["annotations"], json!({"destructiveHint": false}));
    assert_eq!(stats["outputSchema"]["properties"]["count"]["type"], "integer");

    let no_args = tool_named(&tools, "no_args");
    assert!(no_args.get("description").is_none());
    assert_eq!(no_args["inputSchema"]["additionalProperties"], false);
    assert!(no_args["inputSchema"].get("required").is_none());

    // A raw identifier is named without its `r#`.
    assert_eq!(tool_named(&tools, "parse")["inputSchema"]["required"], json!(["type"]));

    let counter_add = tool_named(&tools, "counter_add");
    assert_eq!(counter_add["description"], "Adds to the running total.");
    assert_eq!(counter_add["inputSchema"]["properties"]["by"]["description"], "How much");
    assert_eq!(tool_named(&tools, "total")["annotations"], json!({"readOnlyHint": true}));
}

#[tokio::test]
async fn tools_are_called_with_their_arguments() {
    let mut c = client().await;
    let r = c.call_tool("add", json!({"a": 2, "b": 40})).await.unwrap();
    assert_eq!(r["content"], json!([{"type": "text", "text": "42"}]));
    assert!(r.get("isError").is_none());

    let r = c.call_tool("say_hello", json!({"name": "Ada"})).await.unwrap();
    assert_eq!(r["content"][0]["text"], "Hello, Ada!");
    let r = c.call_tool("say_hello", json!({"name": "Ada", "greeting": "Hi"})).await.unwrap();
    assert_eq!(r["content"][0]["text"], "Hi, Ada!");
    let r = c.call_tool("say_hello", json!({"name": "Ada", "times": 2})).await.unwrap();
    assert_eq!(r["content"][0]["text"], "Hello, Ada Ada!");
    let r = c.call_tool("say_hello", json!({"name": "Ada", "times": 4})).await.unwrap();
    assert_eq!(r["isError"], true, "the schema's maximum is enforced");

    let r = c.call_tool("word_stats", json!({"text": "a bbb cc"})).await.unwrap();
    assert_eq!(r["structuredContent"], json!({"count": 3, "longest": "bbb"}));

    let r = c.call_tool("no_args", json!({})).await.unwrap();
    assert_eq!(r["content"][0]["text"], "nothing needed");

    let r = c.call_tool("parse", json!({"type": "17"})).await.unwrap();
    assert_eq!(r["content"][0]["text"], "17");
}

#[tokio::test]
async fn handler_errors_are_tool_execution_errors() {
    let mut c = client().await;
    let r = c.call_tool("add", json!({"a": i64::MAX, "b": 1})).await.unwrap();
    assert_eq!(r["isError"], true);
    assert_eq!(r["content"][0]["text"], "overflow");
    // A std error converted by `?`.
    let r = c.call_tool("parse", json!({"type": "x"})).await.unwrap();
    assert_eq!(r["isError"], true);
    assert_eq!(r["content"][0]["text"], "invalid digit found in string");
}

#[tokio::test]
async fn invalid_arguments_get_the_spec_error() {
    let mut c = client().await;
    // Tool input validation errors are execution errors (isError: true)
    // that the model can read, naming the problem.
    let r = c.call_tool("add", json!({"a": "two"})).await.unwrap();
    assert_eq!(r["isError"], true);
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("/a"), "{text}");
    assert!(text.contains("\"b\" is a required property"), "{text}");
    // Unknown arguments are refused: the schema says additionalProperties: false.
    let r = c.call_tool("say_hello", json!({"name": "Ada", "mood": "happy"})).await.unwrap();
    assert_eq!(r["isError"], true);
    // The server keeps serving.
    assert_eq!(c.call_tool("add", json!({"a": 1, "b": 1})).await.unwrap()["content"][0]["text"], "2");
}

#[tokio::test]
async fn method_tools_resources_and_prompts_share_their_value() {
    let (server, counter) = server();
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    let r = c.call_tool("counter_add", json!({"by": 5})).await.unwrap();
    assert_eq!(r["content"][0]["text"], "5");
    let r = c.call_tool("counter_add", json!({"by": 2})).await.unwrap();
    assert_eq!(r["content"][0]["text"], "7");
    let r = c.call_tool("total", json!({})).await.unwrap();
    assert_eq!(r["structuredContent"], json!({"total": 7}));
    assert_eq!(counter.total.load(Ordering::SeqCst), 7);
    // Resource and prompt methods see the same value.
    let r = c.read_resource("counter://total").await.unwrap();
    assert_eq!(r["contents"], json!([{"uri": "counter://total", "blob": "AAAAAAAAAAc="}]));
    let r = c.read_resource("counter://mine/total").await.unwrap();
    assert_eq!(
        r["contents"],
        json!([{"uri": "counter://mine/total", "mimeType": "text/plain", "text": "mine: 7"}])
    );
    let prompts = c.list_all("prompts/list", "prompts").await.unwrap();
    let explain = prompts.iter().find(|p| p["name"] == "explain_total").unwrap();
    assert_eq!(explain["description"], "A prompt about the total.");
    assert_eq!(
        explain["arguments"],
        json!([{"name": "name", "description": "Whose total", "required": true}])
    );
    let r = c.get_prompt("explain_total", json!({"name": "Ada"})).await.unwrap();
    assert_eq!(r["messages"][0]["content"]["text"], "Explain why Ada's total is 7.");
}

#[tokio::test]
async fn resource_templates_are_listed_and_read() {
    let mut c = client().await;
    let templates = c.list_all("resources/templates/list", "resourceTemplates").await.unwrap();
    let current = templates.iter().find(|t| t["name"] == "current").unwrap();
    assert_eq!(current["uriTemplate"], "weather://{city}/current");
    assert_eq!(current["description"], "Today's weather in a city.");
    assert_eq!(current["title"], "Current weather");
    assert_eq!(current["mimeType"], "text/plain");
    assert!(templates.iter().any(|t| t["name"] == "forecast"), "{templates:?}");

    let r = c.read_resource("weather://Paris/current").await.unwrap();
    assert_eq!(
        r["contents"],
        json!([{"uri": "weather://Paris/current", "mimeType": "text/plain", "text": "Sunny in Paris"}])
    );
    let r = c.read_resource("weather://Oslo/forecast/3?units=imperial").await.unwrap();
    assert_eq!(r["contents"][0]["text"], "3 days in Oslo (imperial)");
    let r = c.read_resource("weather://Oslo/forecast/3").await.unwrap();
    assert_eq!(r["contents"][0]["text"], "3 days in Oslo (metric)");

    // Fixed resources are listed as resources, not templates.
    assert!(!templates.iter().any(|t| t["uriTemplate"] == "weather://cities"));
    let resources = c.list_all("resources/list", "resources").await.unwrap();
    let cities = resources.iter().find(|r| r["uri"] == "weather://cities").unwrap();
    assert_eq!(cities["name"], "cities");
    assert_eq!(cities["description"], "The cities we know: a URI without variables is a fixed resource.");
    let r = c.read_resource("weather://cities").await.unwrap();
    assert_eq!(
        r["contents"],
        json!([{"uri": "weather://cities", "mimeType": "text/plain", "text": "Lisbon\nOslo (read as weather://cities)"}])
    );
}

#[tokio::test]
async fn resource_read_errors_are_protocol_errors() {
    let mut c = client().await;
    // The handler's NotFound: the spec's resource-not-found error.
    let e = c.read_resource("weather://atlantis/current").await.unwrap_err();
    assert_eq!(e.code(), Some(-32002), "{e}");
    // A variable that does not parse as the parameter's type: invalid params.
    let e = c.read_resource("weather://Oslo/forecast/many").await.unwrap_err();
    assert_eq!(e.code(), Some(-32602), "{e}");
    assert!(e.to_string().contains("\"days\""), "{e}");
}

#[tokio::test]
async fn prompts_are_listed_and_rendered() {
    let mut c = client().await;
    let prompts = c.list_all("prompts/list", "prompts").await.unwrap();
    let review = prompts.iter().find(|p| p["name"] == "review").unwrap();
    assert_eq!(review["description"], "Asks for a code review.");
    assert_eq!(review["title"], "Code review");
    assert_eq!(
        review["arguments"],
        json!([
            {"name": "code", "description": "The code to review", "required": true},
            {"name": "language", "required": false},
        ])
    );
    let hello = prompts.iter().find(|p| p["name"] == "hello").unwrap();
    assert!(hello.get("arguments").is_none() || hello["arguments"] == json!([]), "{hello}");

    let r = c.get_prompt("review", json!({"code": "fn main() {}", "language": "Rust"})).await.unwrap();
    assert_eq!(r["messages"][0]["role"], "user");
    assert_eq!(r["messages"][0]["content"]["text"], "Review this Rust code:\nfn main() {}");
    let r = c.get_prompt("hello", json!({})).await.unwrap();
    assert_eq!(r["messages"][0]["content"]["text"], "Say hello.");
}

#[tokio::test]
async fn invalid_prompt_arguments_are_invalid_params() {
    let mut c = client().await;
    let e = c.get_prompt("review", json!({"language": "Rust"})).await.unwrap_err();
    assert_eq!(e.code(), Some(-32602), "{e}");
    let e = c.get_prompt("review", json!({"code": "x", "extra": "y"})).await.unwrap_err();
    assert_eq!(e.code(), Some(-32602), "{e}");
}
