//! Composition and middleware: registrations switched off and on at run
//! time, servers mounted under a prefix, tower layers on one tool and on
//! the whole server.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_server::middleware::{Request, ToolCall, ToolFailure};
use switchboard_server::types::{PromptMessage, ResourceContents};
use switchboard_server::{
    CallToolResult, ErrorObject, ListKind, NoArgs, Prompt, RequestContext, Resource, ResourceTemplate,
    Server, ServerBuilder, Tool, ToolError,
};
use switchboard_testkit::TestClient;

fn reply(name: &str, text: &'static str) -> Tool {
    Tool::new(name)
        .description("replies")
        .raw_handler(move |_args: Value, _ctx| async move { Ok::<_, ToolError>(CallToolResult::text(text)) })
}

fn greet(name: &str) -> Prompt {
    Prompt::new(name)
        .raw_handler(|_args, _ctx: RequestContext| async move { Ok(vec![PromptMessage::user("hello")]) })
}

fn names(items: &[Value]) -> Vec<String> {
    items.iter().map(|t| t["name"].as_str().unwrap_or_default().to_owned()).collect()
}

async fn connect(server: &Server) -> TestClient {
    TestClient::connect_legacy(server, "2025-11-25").await
}

#[tokio::test]
async fn switched_off_registrations_vanish_from_lists_and_calls_and_come_back_in_place() {
    let server = Server::builder("switches", "1")
        .tool(reply("a", "a"))
        .tool(reply("b", "b"))
        .tool(reply("c", "c"))
        .prompt(greet("hello"))
        .resource(Resource::new("test://doc", "doc").text("text"))
        .resource_template(ResourceTemplate::new("test://item/{id}", "item").unwrap().handler(
            |read, _ctx| async move {
                let text = format!("item {}", read.var("id").unwrap_or(""));
                Ok(ResourceContents::text(read.uri, None, text))
            },
        ))
        .build()
        .unwrap();
    let mut client = connect(&server).await;

    assert!(server.set_enabled(ListKind::Tools, "b", false));
    client.next_notification("notifications/tools/list_changed").await.unwrap();
    assert_eq!(names(&client.list_all_tools().await.unwrap()), ["a", "c"]);
    let err = client.call_tool("b", json!({})).await.unwrap_err();
    assert_eq!(err.code(), Some(-32602), "a disabled tool is unknown: {err:?}");
    assert!(!server.is_enabled(ListKind::Tools, "b"));

    server.set_enabled(ListKind::Tools, "b", true);
    client.next_notification("notifications/tools/list_changed").await.unwrap();
    assert_eq!(names(&client.list_all_tools().await.unwrap()), ["a", "b", "c"], "back in its place");
    assert_eq!(client.call_tool("b", json!({})).await.unwrap()["content"][0]["text"], "b");

    assert!(server.set_enabled(ListKind::Prompts, "hello", false));
    client.next_notification("notifications/prompts/list_changed").await.unwrap();
    assert!(client.list_all("prompts/list", "prompts").await.unwrap().is_empty());
    let err = client.get_prompt("hello", json!({})).await.unwrap_err();
    assert_eq!(err.code(), Some(-32602), "{err:?}");

    assert!(server.set_enabled(ListKind::Resources, "test://doc", false));
    assert!(server.set_enabled(ListKind::ResourceTemplates, "test://item/{id}", false));
    assert!(client.list_all("resources/list", "resources").await.unwrap().is_empty());
    assert!(client.list_all("resources/templates/list", "resourceTemplates").await.unwrap().is_empty());
    for uri in ["test://doc", "test://item/7"] {
        let err = client.read_resource(uri).await.unwrap_err();
        assert_eq!(err.code(), Some(-32002), "{uri}: {err:?}");
    }
    server.set_enabled(ListKind::ResourceTemplates, "test://item/{id}", true);
    let read = client.read_resource("test://item/7").await.unwrap();
    assert_eq!(read["contents"][0]["text"], "item 7");

    // Unknown keys: nothing to announce, and the answer says so.
    assert!(!server.set_enabled(ListKind::Tools, "nope", false));
    // The switch holds across re-registration under the same name.
    assert!(!server.remove_tool("nope"));
    server.add_tool(reply("nope", "n")).unwrap();
    assert!(client.call_tool("nope", json!({})).await.is_err());
}

#[tokio::test]
async fn a_mounted_server_serves_under_its_prefix() {
    let weather = Server::builder("weather", "1")
        .tool(reply("forecast", "sunny"))
        .prompt(greet("brief"))
        .resource(Resource::new("weather://stations", "stations").text("Oslo"));
    let server = Server::builder("hub", "1")
        .tool(reply("forecast", "local"))
        .mount("weather", weather)
        .build()
        .unwrap();
    let mut client = connect(&server).await;
    assert_eq!(names(&client.list_all_tools().await.unwrap()), ["forecast", "weather_forecast"]);
    assert_eq!(client.call_tool("weather_forecast", json!({})).await.unwrap()["content"][0]["text"], "sunny");
    assert_eq!(client.call_tool("forecast", json!({})).await.unwrap()["content"][0]["text"], "local");
    assert_eq!(names(&client.list_all("prompts/list", "prompts").await.unwrap()), ["weather_brief"]);
    client.get_prompt("weather_brief", json!({})).await.unwrap();
    assert_eq!(client.read_resource("weather://stations").await.unwrap()["contents"][0]["text"], "Oslo");

    // A URI both servers register is refused when the server is built.
    let clash = Server::builder("a", "1").resource(Resource::new("x://same", "one").text("1"));
    let err = Server::builder("b", "1")
        .resource(Resource::new("x://same", "two").text("2"))
        .mount("a", clash)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("x://same"), "{err}");
}

fn slow(name: &str) -> Tool {
    Tool::new(name).handler(|_: NoArgs, _: RequestContext| async {
        tokio::time::sleep(Duration::from_secs(30)).await;
        Ok("late")
    })
}

#[tokio::test]
async fn tool_layers_time_out_filter_and_nest_in_order() {
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let (inner_log, outer_log) = (Arc::clone(&log), Arc::clone(&log));
    let server = Server::builder("layers", "1")
        .tool(slow("slow").layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(50))))
        .tool(
            reply("guarded", "secret")
                .input_schema(json!({"type": "object", "properties": {"please": {}}}))
                // An authorization check in a few lines: refuse unless the
                // caller's arguments say please.
                .layer(tower::filter::AsyncFilterLayer::new(|call: ToolCall| async move {
                    if call.arguments.get("please").is_some() {
                        Ok(call)
                    } else {
                        Err(ToolFailure(ToolError::new("say please")))
                    }
                }))
                .layer(tower::util::MapRequestLayer::new(move |call: ToolCall| {
                    inner_log.lock().unwrap().push(format!("inner {}", call.name));
                    call
                }))
                .layer(tower::util::MapRequestLayer::new(move |call: ToolCall| {
                    outer_log.lock().unwrap().push(format!("outer {}", call.name));
                    call
                })),
        )
        .tool(reply("protocol", "x").layer(tower::filter::FilterLayer::new(|_call: ToolCall| {
            Err::<ToolCall, _>(ErrorObject::invalid_params("refused by a layer"))
        })))
        .build()
        .unwrap();
    let mut client = connect(&server).await;

    let result = client.call_tool("slow", json!({})).await.unwrap();
    assert_eq!(result["isError"], true);
    assert!(result["content"][0]["text"].as_str().unwrap().contains("timeout"), "{result}");

    let refused = client.call_tool("guarded", json!({})).await.unwrap();
    assert_eq!(refused["isError"], true);
    assert_eq!(refused["content"][0]["text"], "say please");
    let allowed = client.call_tool("guarded", json!({"please": true})).await.unwrap();
    assert_eq!(allowed["content"][0]["text"], "secret");
    assert_eq!(
        *log.lock().unwrap(),
        ["outer guarded", "inner guarded", "outer guarded", "inner guarded"],
        "the last layer added runs first"
    );

    let err = client.call_tool("protocol", json!({})).await.unwrap_err();
    assert_eq!(err.code(), Some(-32602), "an ErrorObject from a layer is a protocol error: {err:?}");
    // The server keeps serving.
    assert_eq!(
        client.call_tool("guarded", json!({"please": 1})).await.unwrap()["content"][0]["text"],
        "secret"
    );
}

fn logged(builder: ServerBuilder, log: Arc<Mutex<Vec<String>>>) -> ServerBuilder {
    builder.layer(tower::util::MapRequestLayer::new(move |request: Request| {
        let principal = request.ctx().principal().map(|p| p.subject.clone());
        log.lock().unwrap().push(format!(
            "{} {} {:?}",
            request.method(),
            request.target().unwrap_or_default(),
            principal
        ));
        request
    }))
}

#[tokio::test]
async fn server_layers_see_every_method_and_can_refuse_or_time_out() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let builder = Server::builder("server-layers", "1")
        .tool(reply("open", "open"))
        .tool(reply("closed", "closed"))
        .tool(slow("slow"))
        .resource(Resource::new("test://doc", "doc").text("text"))
        .layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(100)))
        .layer(tower::filter::FilterLayer::new(|request: Request| {
            if request.method() == "tools/call" && request.target().as_deref() == Some("closed") {
                Err(ErrorObject::invalid_params("tool \"closed\" is switched off by policy"))
            } else {
                Ok(request)
            }
        }));
    let server = logged(builder, Arc::clone(&log)).build().unwrap();
    let mut client = connect(&server).await;

    assert_eq!(client.call_tool("open", json!({})).await.unwrap()["content"][0]["text"], "open");
    let err = client.call_tool("closed", json!({})).await.unwrap_err();
    assert_eq!(err.code(), Some(-32602), "{err:?}");
    assert!(err.to_string().contains("policy"), "{err:?}");
    let err = client.call_tool("slow", json!({})).await.unwrap_err();
    assert_eq!(err.code(), Some(-32603), "{err:?}");
    assert!(err.to_string().contains("timeout"), "{err:?}");
    client.read_resource("test://doc").await.unwrap();
    client.list_all_tools().await.unwrap();
    client.request("ping", json!({})).await.unwrap();

    assert_eq!(
        *log.lock().unwrap(),
        [
            "tools/call open None",
            "tools/call closed None",
            "tools/call slow None",
            "resources/read test://doc None",
            "tools/list  None",
        ],
        "ping and initialize bypass layers"
    );
}

#[tokio::test]
async fn a_concurrency_limit_layer_queues_calls_beyond_its_limit() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (r, m) = (Arc::clone(&running), Arc::clone(&most));
    let tool = Tool::new("one_at_a_time")
        .handler(move |_: NoArgs, _: RequestContext| {
            let (running, most) = (Arc::clone(&r), Arc::clone(&m));
            async move {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                running.fetch_sub(1, Ordering::SeqCst);
                Ok("done")
            }
        })
        .layer(tower::limit::ConcurrencyLimitLayer::new(1));
    let server = Server::builder("limited", "1").tool(tool).build().unwrap();
    let mut client = connect(&server).await;
    let ids: Vec<Value> = (0..4).map(|_| json!(client.next_id())).collect();
    for id in &ids {
        client
            .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "one_at_a_time", "arguments": {}}}))
            .await
            .unwrap();
    }
    for id in &ids {
        let answer = client.response_to(id).await.unwrap();
        assert_eq!(answer["result"]["content"][0]["text"], "done", "{answer}");
    }
    assert_eq!(most.load(Ordering::SeqCst), 1, "never more than one call inside the layer");
}
