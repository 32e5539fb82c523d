//! prompts/list, prompts/get and completion/complete.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use switchboard_server::types::{ContentBlock, GetPromptResult, PromptMessage, ResourceContents, Role};
use switchboard_server::{
    CompletionRequest, Error, HandlerError, Prompt, ReadRequest, RequestContext, ResourceTemplate, Server,
    complete_from, completer_fn,
};
use switchboard_testkit::TestClient;

use crate::common::ALL_VERSIONS;

fn code(e: switchboard_testkit::Error) -> (i32, String, Value) {
    match e {
        switchboard_testkit::Error::Rpc(e) => {
            (e.code.0, e.message.into_owned(), e.data.unwrap_or(Value::Null))
        }
        other => panic!("expected a JSON-RPC error, got {other}"),
    }
}

async fn client_for(server: &Server, version: &str) -> TestClient {
    if version == "2026-07-28" {
        TestClient::connect_modern(server)
    } else {
        TestClient::connect_legacy(server, version).await
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
struct ReviewArgs {
    /// The code to review.
    code: String,
    /// Its language.
    language: Option<String>,
}

fn server() -> Server {
    Server::builder("prompts", "1")
        .prompt(
            Prompt::new("test_simple_prompt").title("Simple").description("A simple prompt.").raw_handler(
                |_args: BTreeMap<String, String>, _ctx: RequestContext| async move {
                    Ok(PromptMessage::user("This is a simple prompt for testing."))
                },
            ),
        )
        .prompt(
            Prompt::new("code_review")
                .description("Review code.")
                .handler(|args: ReviewArgs, _ctx: RequestContext| async move {
                    let lang = args.language.unwrap_or_else(|| "unknown".into());
                    Ok(vec![
                        PromptMessage::user(format!("Review this {lang} code:\n{}", args.code)),
                        PromptMessage::assistant("Sure, let me look."),
                    ])
                })
                .unwrap()
                .complete("language", complete_from(["python", "perl", "php", "rust"])),
        )
        .prompt(Prompt::new("rich").argument("kind", "what to fail with", false).raw_handler(
            |args: BTreeMap<String, String>, _ctx: RequestContext| async move {
                match args.get("kind").map(String::as_str) {
                    Some("invalid") => return Err(HandlerError::invalid_params("kind must be sensible")),
                    Some("internal") => return Err(HandlerError::internal("template engine failed")),
                    _ => {}
                }
                Ok(GetPromptResult {
                    description: Some("rich".into()),
                    messages: vec![
                        PromptMessage {
                            role: Role::User,
                            content: ContentBlock::image("iVBORw0KGgo=", "image/png"),
                        },
                        PromptMessage {
                            role: Role::User,
                            content: ContentBlock::embedded_text(
                                "test://doc",
                                Some("text/plain".into()),
                                "doc",
                            ),
                        },
                        PromptMessage {
                            role: Role::Assistant,
                            content: ContentBlock::resource_link("test://doc", "doc"),
                        },
                    ],
                })
            },
        ))
        .prompt(
            Prompt::new("many")
                .argument("n", "anything", false)
                .argument("prefix", "filter", false)
                .raw_handler(|_a: BTreeMap<String, String>, _ctx: RequestContext| async move {
                    Ok("x".to_owned())
                })
                .complete(
                    "n",
                    completer_fn(|req: CompletionRequest, _ctx: RequestContext| async move {
                        let prefix = req.context.get("prefix").cloned().unwrap_or_default();
                        Ok((0..250)
                            .map(|i| format!("{prefix}{i}"))
                            .filter(|v| v.starts_with(&req.value))
                            .collect())
                    }),
                ),
        )
        .resource_template(
            ResourceTemplate::new("test://users/{user}/files/{file}", "user files")
                .unwrap()
                .handler(|req: ReadRequest, _ctx: RequestContext| async move {
                    Ok(ResourceContents::text(req.uri, None, "f"))
                })
                .complete("user", complete_from(["alice", "albert", "bob"]))
                .complete(
                    "file",
                    completer_fn(|req: CompletionRequest, _ctx: RequestContext| async move {
                        let user = req.context.get("user").cloned().unwrap_or_default();
                        Ok(vec![format!("{user}-notes.txt"), format!("{user}-todo.txt")])
                    }),
                ),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn lists_prompts_with_declared_arguments() {
    let server = server();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let prompts = c.list_all("prompts/list", "prompts").await.unwrap();
        let names: Vec<&str> = prompts.iter().map(|p| p["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["test_simple_prompt", "code_review", "rich", "many"]);
        assert_eq!(prompts[0].get("title").is_some(), v >= "2025-06-18", "{v}");
        assert_eq!(
            prompts[1]["arguments"],
            json!([
                {"name": "code", "description": "The code to review.", "required": true},
                {"name": "language", "description": "Its language.", "required": false}
            ]),
            "{v}"
        );
    }
}

#[tokio::test]
async fn renders_prompts_with_arguments() {
    let server = server();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let r =
            c.get_prompt("code_review", json!({"code": "fn main() {}", "language": "rust"})).await.unwrap();
        assert_eq!(
            r["messages"][0],
            json!({"role": "user", "content": {"type": "text", "text": "Review this rust code:\nfn main() {}"}})
        );
        assert_eq!(r["messages"][1]["role"], "assistant");
        assert_eq!(r["description"], "Review code.");
        let r = c.get_prompt("test_simple_prompt", json!({})).await.unwrap();
        assert_eq!(r["messages"][0]["content"]["text"], "This is a simple prompt for testing.");
        let r = c.request("prompts/get", json!({"name": "test_simple_prompt"})).await.unwrap();
        assert_eq!(r["messages"].as_array().unwrap().len(), 1, "arguments may be omitted");
    }
}

#[tokio::test]
async fn prompt_messages_carry_any_content_shaped_per_revision() {
    let server = server();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let r = c.get_prompt("rich", json!({})).await.unwrap();
        assert_eq!(r["messages"][0]["content"]["type"], "image");
        assert_eq!(r["messages"][1]["content"]["resource"]["text"], "doc");
        let link_type = r["messages"][2]["content"]["type"].as_str().unwrap().to_owned();
        assert_eq!(link_type, if v >= "2025-06-18" { "resource_link" } else { "text" }, "{v}");
    }
}

#[tokio::test]
async fn bad_prompt_requests_are_invalid_params_naming_the_problem() {
    let server = server();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let (got, message, data) = code(c.get_prompt("nope", json!({})).await.unwrap_err());
        assert_eq!(got, -32602);
        assert!(message.contains("nope"), "{message}");
        assert_eq!(data["name"], "nope");
        let (got, message, data) =
            code(c.get_prompt("code_review", json!({"language": "go"})).await.unwrap_err());
        assert_eq!(got, -32602);
        assert!(message.contains("\"code\""), "{message}");
        assert_eq!(data["missing"], json!(["code"]));
        let (got, message, _) =
            code(c.get_prompt("code_review", json!({"code": "x", "lang": "go"})).await.unwrap_err());
        assert_eq!(got, -32602);
        assert!(message.contains("\"lang\""), "{message}");
        let (got, _, _) = code(c.get_prompt("code_review", json!({"code": 5})).await.unwrap_err());
        assert_eq!(got, -32602, "arguments are strings");
        let (got, message, _) = code(c.get_prompt("rich", json!({"kind": "invalid"})).await.unwrap_err());
        assert_eq!((got, message.contains("sensible")), (-32602, true));
        let (got, _, _) = code(c.get_prompt("rich", json!({"kind": "internal"})).await.unwrap_err());
        assert_eq!(got, -32603);
        assert!(c.get_prompt("test_simple_prompt", json!({})).await.is_ok(), "still serving");
    }
}

#[tokio::test]
async fn completes_prompt_arguments_and_template_variables() {
    let server = server();
    for v in ALL_VERSIONS {
        let mut c = client_for(&server, v).await;
        let r =
            c.complete(json!({"type": "ref/prompt", "name": "code_review"}), "language", "p").await.unwrap();
        assert_eq!(
            r["completion"],
            json!({"values": ["python", "perl", "php"], "total": 3, "hasMore": false}),
            "{v}"
        );
        let r = c.complete(json!({"type": "ref/prompt", "name": "code_review"}), "code", "").await.unwrap();
        assert_eq!(r["completion"]["values"], json!([]), "no completer: no values");
        let r = c
            .complete(
                json!({"type": "ref/resource", "uri": "test://users/{user}/files/{file}"}),
                "user",
                "al",
            )
            .await
            .unwrap();
        assert_eq!(r["completion"]["values"], json!(["alice", "albert"]));
        let r = c.complete(json!({"type": "ref/prompt", "name": "many"}), "n", "").await.unwrap();
        assert_eq!(r["completion"]["values"].as_array().unwrap().len(), 100);
        assert_eq!(r["completion"]["total"], 250);
        assert_eq!(r["completion"]["hasMore"], true);
    }
}

#[tokio::test]
async fn completion_receives_the_context_arguments() {
    let server = server();
    let mut c = TestClient::connect_legacy(&server, "2025-06-18").await;
    let r = c
        .request(
            "completion/complete",
            json!({
                "ref": {"type": "ref/resource", "uri": "test://users/{user}/files/{file}"},
                "argument": {"name": "file", "value": ""},
                "context": {"arguments": {"user": "bob"}}
            }),
        )
        .await
        .unwrap();
    assert_eq!(r["completion"]["values"], json!(["bob-notes.txt", "bob-todo.txt"]));
    let r = c
        .request(
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "many"},
                "argument": {"name": "n", "value": "x1"},
                "context": {"arguments": {"prefix": "x"}}
            }),
        )
        .await
        .unwrap();
    assert_eq!(r["completion"]["values"][0], "x1");
}

#[tokio::test]
async fn bad_completion_requests_are_invalid_params() {
    let server = server();
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    for (reference, argument) in [
        (json!({"type": "ref/prompt", "name": "nope"}), "x"),
        (json!({"type": "ref/prompt", "name": "code_review"}), "nope"),
        (json!({"type": "ref/resource", "uri": "test://unknown/{x}"}), "x"),
        (json!({"type": "ref/resource", "uri": "test://users/{user}/files/{file}"}), "nope"),
        (json!({"type": "ref/other", "name": "x"}), "x"),
    ] {
        let (got, _, _) = code(c.complete(reference.clone(), argument, "").await.unwrap_err());
        assert_eq!(got, -32602, "{reference} {argument}");
    }
}

#[tokio::test]
async fn completions_capability_is_advertised_when_a_completer_exists() {
    let server = server();
    for v in ["2024-11-05", "2025-03-26", "2025-11-25"] {
        let mut c = TestClient::connect(&server);
        let init = c.initialize(v).await.unwrap();
        assert_eq!(init["capabilities"].get("completions").is_some(), v != "2024-11-05", "{v}");
        assert_eq!(init["capabilities"]["prompts"], json!({"listChanged": true}));
    }
    let plain = Server::builder("p", "1")
        .prompt(Prompt::new("p").raw_handler(|_a: BTreeMap<String, String>, _c: RequestContext| async move {
            Ok("x".to_owned())
        }))
        .build()
        .unwrap();
    let mut c = TestClient::connect(&plain);
    let init = c.initialize("2025-11-25").await.unwrap();
    assert!(init["capabilities"].get("completions").is_none());
    let (got, _, _) =
        code(c.complete(json!({"type": "ref/prompt", "name": "p"}), "x", "").await.unwrap_err());
    assert_eq!(got, -32601);
}

#[tokio::test]
async fn typed_prompts_accept_only_string_fields() {
    #[derive(Deserialize, JsonSchema)]
    struct Bad {
        #[allow(dead_code)]
        count: u32,
    }
    let err = Prompt::new("bad")
        .handler(|_a: Bad, _c: RequestContext| async move { Ok("x".to_owned()) })
        .unwrap_err();
    assert!(matches!(err, Error::InvalidPrompt { .. }), "{err}");
    let err = Server::builder("s", "1").prompt(Prompt::new("p")).build().unwrap_err();
    assert!(matches!(err, Error::MissingHandler(_)), "{err}");
    let dup = || {
        Prompt::new("d")
            .raw_handler(|_a: BTreeMap<String, String>, _c: RequestContext| async move { Ok("x".to_owned()) })
    };
    let err = Server::builder("s", "1").prompt(dup()).prompt(dup()).build().unwrap_err();
    assert!(matches!(err, Error::DuplicatePrompt(_)), "{err}");
}

#[tokio::test]
async fn prompt_list_changes_are_announced() {
    let server = server();
    let mut c = TestClient::connect_legacy(&server, "2025-11-25").await;
    server
        .add_prompt(Prompt::new("late").raw_handler(
            |_a: BTreeMap<String, String>, _c: RequestContext| async move { Ok("x".to_owned()) },
        ))
        .unwrap();
    c.next_notification("notifications/prompts/list_changed").await.unwrap();
    assert!(c.get_prompt("late", json!({})).await.is_ok());
    assert!(server.remove_prompt("late"));
    c.next_notification("notifications/prompts/list_changed").await.unwrap();
}
