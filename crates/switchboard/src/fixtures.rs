//! `--fixtures conformance`: exactly the tools, resources and prompts the
//! official MCP conformance suite calls (its fixture contract), so the suite
//! can be run against this server. Those only the 2026-07-28 scenarios of
//! the 0.2 suite call are in [`stateless`].

mod mrtr;
mod stateless;
mod tasks;

pub(crate) use stateless::attach;

use std::collections::BTreeMap;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::types::logging::LoggingLevel;
use switchboard_server::types::resources::Resource as ResourceDef;
use switchboard_server::types::{ContentBlock, GetPromptResult, PromptMessage, ResourceContents, Role};
use switchboard_server::{
    CallToolResult, NoArgs, Prompt, ReadRequest, RequestContext, Resource, ResourceTemplate, ServerBuilder,
    Tool, ToolError, complete_from,
};

/// A 1×1 PNG.
const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/// A minimal WAV file (44-byte header, no samples).
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

fn text(s: &str) -> CallToolResult {
    CallToolResult::text(s)
}

#[derive(Deserialize, JsonSchema)]
struct SamplingArgs {
    /// The prompt to send to the client's model.
    prompt: String,
}

#[derive(Deserialize, JsonSchema)]
struct ElicitArgs {
    /// The message to show the user.
    message: String,
}

async fn elicit(ctx: &RequestContext, params: Value) -> Result<CallToolResult, ToolError> {
    let answer = ctx
        .request_client("elicitation/create", params)
        .await
        .map_err(|e| ToolError::new(format!("elicitation failed: {}", e.message)))?;
    Ok(text(&format!(
        "Elicitation completed: action={}, content={}",
        answer["action"].as_str().unwrap_or("?"),
        answer.get("content").cloned().unwrap_or(Value::Null)
    )))
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new("test_simple_text").description("Returns a simple text response.").raw_handler(|_, _| async {
            Ok(text("This is a simple text response for testing."))
        }),
        Tool::new("test_image_content").description("Returns an image.").raw_handler(|_, _| async {
            Ok(CallToolResult::success(vec![ContentBlock::image(PNG, "image/png")]))
        }),
        Tool::new("test_audio_content").description("Returns audio.").raw_handler(|_, _| async {
            Ok(CallToolResult::success(vec![ContentBlock::audio(WAV, "audio/wav")]))
        }),
        Tool::new("test_embedded_resource").description("Returns an embedded resource.").raw_handler(|_, _| async {
            Ok(CallToolResult::success(vec![ContentBlock::embedded_text(
                "test://embedded-resource",
                Some("text/plain".into()),
                "This is an embedded resource content.",
            )]))
        }),
        Tool::new("test_multiple_content_types").description("Returns text, an image and a resource.").raw_handler(
            |_, _| async {
                Ok(CallToolResult::success(vec![
                    ContentBlock::text("Multiple content types test:"),
                    ContentBlock::image(PNG, "image/png"),
                    ContentBlock::embedded_text(
                        "test://mixed-content-resource",
                        Some("application/json".into()),
                        r#"{"test":"data","value":123}"#,
                    ),
                ]))
            },
        ),
        Tool::new("test_tool_with_logging").description("Logs three messages while it runs.").handler(
            |_: NoArgs, ctx: RequestContext| async move {
                for (i, message) in ["Tool execution started", "Tool processing data", "Tool execution completed"]
                    .iter()
                    .enumerate()
                {
                    if i > 0 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    ctx.log(LoggingLevel::Info, Some("conformance"), json!(message)).await;
                }
                Ok("Logging test completed")
            },
        ),
        Tool::new("test_error_handling").description("Always fails with a tool error.").raw_handler(|_, _| async {
            Ok(CallToolResult::error("This tool intentionally returns an error for testing"))
        }),
        Tool::new("test_tool_with_progress").description("Reports progress 0, 50, 100.").handler(
            |_: NoArgs, ctx: RequestContext| async move {
                for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    ctx.progress(p, Some(100.0), None).await;
                }
                Ok("Progress test completed")
            },
        ),
        Tool::new("test_sampling").description("Asks the client's model a question.").handler(
            |args: SamplingArgs, ctx: RequestContext| async move {
                let answer = ctx
                    .request_client(
                        "sampling/createMessage",
                        json!({"messages": [{"role": "user", "content": {"type": "text", "text": args.prompt}}], "maxTokens": 100}),
                    )
                    .await
                    .map_err(|e| ToolError::new(format!("sampling failed: {}", e.message)))?;
                Ok(format!("LLM response: {}", answer["content"]["text"].as_str().unwrap_or_default()))
            },
        ),
        Tool::new("test_elicitation").description("Asks the user for a username and an email.").handler(
            |args: ElicitArgs, ctx: RequestContext| async move {
                elicit(
                    &ctx,
                    json!({"message": args.message, "requestedSchema": {
                        "type": "object",
                        "properties": {"username": {"type": "string"}, "email": {"type": "string"}},
                        "required": ["username", "email"]
                    }}),
                )
                .await
            },
        ),
        Tool::new("test_elicitation_sep1034_defaults").description("Elicitation with default values.").handler(
            |_: NoArgs, ctx: RequestContext| async move {
                elicit(
                    &ctx,
                    json!({"message": "Please review your information", "requestedSchema": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "default": "John Doe"},
                            "age": {"type": "integer", "default": 30},
                            "score": {"type": "number", "default": 95.5},
                            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                            "verified": {"type": "boolean", "default": true}
                        },
                        "required": []
                    }}),
                )
                .await
            },
        ),
        Tool::new("test_elicitation_sep1330_enums").description("Elicitation with every enum shape.").handler(
            |_: NoArgs, ctx: RequestContext| async move {
                elicit(
                    &ctx,
                    json!({"message": "Pick options", "requestedSchema": {
                        "type": "object",
                        "properties": {
                            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                            "titledSingle": {"type": "string", "oneOf": [
                                {"const": "value1", "title": "First"},
                                {"const": "value2", "title": "Second"},
                                {"const": "value3", "title": "Third"}
                            ]},
                            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["One", "Two", "Three"]},
                            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}, "minItems": 1, "maxItems": 3},
                            "titledMulti": {"type": "array", "items": {"anyOf": [
                                {"const": "value1", "title": "First"},
                                {"const": "value2", "title": "Second"},
                                {"const": "value3", "title": "Third"}
                            ]}, "minItems": 1, "maxItems": 3}
                        },
                        "required": []
                    }}),
                )
                .await
            },
        ),
        json_schema_2020_12_tool(),
        Tool::new("test_reconnection").description("Takes a moment, for SSE resumption tests.").handler(
            |_: NoArgs, _ctx: RequestContext| async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                Ok("Reconnection test completed")
            },
        ),
    ]
}

/// A tool whose input schema uses JSON Schema 2020-12 beyond the
/// `properties` the framework derives: `$schema`, `$defs` with an `$anchor`,
/// `$ref`, `allOf`/`anyOf`, `if`/`then`/`else` (SEP-1613, SEP-2106). The
/// suite checks that every keyword reaches `tools/list` as written.
fn json_schema_2020_12_tool() -> Tool {
    Tool::new("json_schema_2020_12_tool")
        .description("Has a JSON Schema 2020-12 input schema: $defs, $anchor, allOf, if/then/else.")
        .input_schema(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }},
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        }))
        .raw_handler(|args, _| async move { Ok(text(&format!("Received: {args}"))) })
}

fn prompts() -> Vec<Prompt> {
    let simple = |_: BTreeMap<String, String>, _: RequestContext| async {
        Ok(PromptMessage::user("This is a simple prompt for testing."))
    };
    vec![
        Prompt::new("test_simple_prompt")
            .description("A simple prompt without arguments.")
            .raw_handler(simple),
        Prompt::new("test_prompt_with_arguments")
            .description("A prompt with two required arguments.")
            .argument("arg1", "First test argument", true)
            .argument("arg2", "Second test argument", true)
            .raw_handler(|args: BTreeMap<String, String>, _: RequestContext| async move {
                Ok(PromptMessage::user(format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    args["arg1"], args["arg2"]
                )))
            })
            .complete("arg1", complete_from(["testValue1", "test-value"])),
        Prompt::new("test_prompt_with_embedded_resource")
            .description("A prompt that embeds a resource.")
            .argument("resourceUri", "URI of the resource to embed", true)
            .raw_handler(|args: BTreeMap<String, String>, _: RequestContext| async move {
                Ok(GetPromptResult {
                    description: None,
                    messages: vec![
                        PromptMessage {
                            role: Role::User,
                            content: ContentBlock::embedded_text(
                                args["resourceUri"].clone(),
                                Some("text/plain".into()),
                                "Embedded resource content for testing.",
                            ),
                        },
                        PromptMessage::user("Please process the embedded resource above."),
                    ],
                })
            }),
        Prompt::new("test_prompt_with_image").description("A prompt with an image.").raw_handler(
            |_: BTreeMap<String, String>, _: RequestContext| async {
                Ok(GetPromptResult {
                    description: None,
                    messages: vec![
                        PromptMessage { role: Role::User, content: ContentBlock::image(PNG, "image/png") },
                        PromptMessage::user("Please analyze the image above."),
                    ],
                })
            },
        ),
    ]
}

/// Adds the conformance fixtures to a builder.
pub(crate) fn conformance(mut builder: ServerBuilder) -> ServerBuilder {
    for tool in tools().into_iter().chain(stateless::tools()).chain(mrtr::tools()).chain(tasks::tools()) {
        builder = builder.tool(tool);
    }
    for prompt in prompts().into_iter().chain(mrtr::prompts()) {
        builder = builder.prompt(prompt);
    }
    let png = base64_decode(PNG);
    builder
        .resource(
            Resource::new("test://static-text", "static-text")
                .description("A static text resource.")
                .mime_type("text/plain")
                .text("This is the content of the static text resource."),
        )
        .resource(
            Resource::new("test://static-binary", "static-binary")
                .description("A static binary resource (a PNG).")
                .mime_type("image/png")
                .blob(&png),
        )
        .resource(
            Resource::new("test://watched-resource", "watched-resource")
                .description("A resource to subscribe to.")
                .mime_type("text/plain")
                .text("Watched resource content."),
        )
        .resource_template(
            ResourceTemplate::new("test://template/{id}/data", "template")
                .expect("valid template")
                .description("Data for an id.")
                .mime_type("application/json")
                .handler(|req: ReadRequest, _: RequestContext| async move {
                    let id = req.var("id").unwrap_or_default().to_owned();
                    let body = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                    Ok(ResourceContents::text(req.uri, Some("application/json".into()), body.to_string()))
                }),
        )
        .enable_logging()
}

fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(s).expect("the fixture is valid base64")
}

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// Text to send back.
    message: String,
}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// First addend.
    a: f64,
    /// Second addend.
    b: f64,
}

#[derive(serde::Serialize, JsonSchema)]
struct Sum {
    sum: f64,
}

#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

/// `--fixtures bench`: the fixtures every peer of the shared performance
/// harness serves (echo, add, 10,000 `mem://item/{i}` resources, greet), so
/// switchboard can be measured side by side with them.
pub(crate) fn bench(mut builder: ServerBuilder) -> ServerBuilder {
    builder = builder
        .tool(
            Tool::new("echo")
                .description("Echoes the message.")
                .handler(|args: EchoArgs, _: RequestContext| async move { Ok(args.message) }),
        )
        .tool(Tool::new("add").description("Adds two numbers.").handler(
            |args: AddArgs, _: RequestContext| async move {
                Ok(switchboard_server::Json(Sum { sum: args.a + args.b }))
            },
        ))
        .prompt(
            Prompt::new("greet")
                .description("Greets someone.")
                .handler(|args: GreetArgs, _: RequestContext| async move {
                    Ok(PromptMessage::user(format!("Hello, {}!", args.name)))
                })
                .expect("string arguments"),
        );
    builder.resource_source(std::sync::Arc::new(BenchItems))
}

/// The bench fixtures' 10,000 resources `mem://item/{i}`, computed per page
/// and per read instead of registered one by one (what a server backed by
/// a table or a store does; it keeps memory and start-up flat).
struct BenchItems;

const BENCH_ITEMS: usize = 10_000;

impl BenchItems {
    fn text(i: usize) -> String {
        format!("content of item {i}")
    }

    /// An item to [`fill`](Self::fill), with the fields of the peers'
    /// fixture (no `size`), so every server sends the same page.
    fn blank() -> ResourceDef {
        let mut def = ResourceDef::new(String::with_capacity(16), String::with_capacity(16));
        def.mime_type = Some("text/plain".into());
        def
    }

    /// Makes `def` (from [`blank`](Self::blank)) item `i`, reusing its
    /// strings: built by hand rather than with `format!`, since this runs
    /// for every item of every page.
    fn fill(def: &mut ResourceDef, i: usize) {
        let mut buffer = itoa::Buffer::new();
        let digits = buffer.format(i);
        def.uri.clear();
        def.uri.push_str("mem://item/");
        def.uri.push_str(digits);
        def.name.clear();
        def.name.push_str("item-");
        def.name.push_str(digits);
    }
}

impl switchboard_server::ResourceSource for BenchItems {
    fn len(&self) -> usize {
        BENCH_ITEMS
    }

    fn list(&self, range: std::ops::Range<usize>) -> Vec<ResourceDef> {
        range
            .map(|i| {
                let mut def = Self::blank();
                Self::fill(&mut def, i);
                def
            })
            .collect()
    }

    /// One `ResourceDef` for the whole page: no allocation per item.
    fn list_into(&self, range: std::ops::Range<usize>, page: &mut switchboard_server::ResourcePage<'_>) {
        let mut def = Self::blank();
        for i in range {
            Self::fill(&mut def, i);
            page.push(&def);
        }
    }

    fn read(&self, uri: &str, _ctx: RequestContext) -> Option<switchboard_server::SourceRead> {
        let rest = uri.strip_prefix("mem://item/")?;
        let i: usize = rest.parse().ok().filter(|i: &usize| *i < BENCH_ITEMS && i.to_string() == rest)?;
        let uri = uri.to_owned();
        Some(Box::pin(async move {
            Ok(vec![ResourceContents::text(uri, Some("text/plain".into()), Self::text(i))])
        }))
    }
}

#[cfg(test)]
mod tests {
    use switchboard_server::ResourceSource;

    use super::*;

    #[test]
    fn bench_items_list_as_the_peers_do() {
        let items = BenchItems.list(9_998..10_000);
        let json = serde_json::to_value(&items).unwrap();
        assert_eq!(
            json,
            json!([
                {"uri": "mem://item/9998", "name": "item-9998", "mimeType": "text/plain"},
                {"uri": "mem://item/9999", "name": "item-9999", "mimeType": "text/plain"},
            ])
        );
    }
}
