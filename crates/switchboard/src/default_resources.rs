//! The embedded default resources, resource template and prompt.
//!
//! - `switchboard://server/info` (JSON): who this server is and what it serves.
//! - `switchboard://server/guide` (Markdown): how to use the default tools.
//! - `switchboard://tools/{name}` (template, JSON): one tool's definition; the
//!   `name` variable completes to the registered tool names.
//! - `code_review` prompt: the example from the spec's prompts page, with
//!   `language` completion.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use switchboard_server::types::{PromptMessage, ResourceContents};
use switchboard_server::{
    HandlerError, Prompt, ProtocolVersion, ReadRequest, RequestContext, Resource, ResourceTemplate,
    complete_from,
};

const GUIDE: &str = "# switchboard default tools\n\n\
- `echo`: returns its text.\n\
- `add`: adds two numbers (structured result).\n\
- `word_count`: words, lines, characters and bytes of a text.\n\
- `countdown`: waits, reporting progress; cancel it any time.\n\
- `create_basket`, `add_item`, `view_basket`: a shopping basket kept under an opaque handle \
that expires after 30 minutes without use.\n";

/// The fixed resources.
pub(crate) fn resources(tool_names: &[String]) -> Vec<Resource> {
    let info = json!({
        "name": "switchboard",
        "version": env!("CARGO_PKG_VERSION"),
        "protocolVersions": ProtocolVersion::SUPPORTED,
        "tools": tool_names,
    });
    vec![
        Resource::new("switchboard://server/info", "server-info")
            .title("Server information")
            .description("Name, version, protocol revisions and tools of this server.")
            .mime_type("application/json")
            .text(serde_json::to_string_pretty(&info).expect("JSON serializes")),
        Resource::new("switchboard://server/guide", "guide")
            .title("Guide")
            .description("How to use the default tools.")
            .mime_type("text/markdown")
            .text(GUIDE),
    ]
}

/// The `switchboard://tools/{name}` template over the given tool definitions.
pub(crate) fn tool_template(tools: Vec<switchboard_server::types::Tool>) -> ResourceTemplate {
    let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
    let tools = std::sync::Arc::new(tools);
    ResourceTemplate::new("switchboard://tools/{name}", "tool-definition")
        .expect("the template is valid RFC 6570")
        .title("Tool definition")
        .description("The JSON definition of one tool of this server.")
        .mime_type("application/json")
        .handler(move |req: ReadRequest, _ctx: RequestContext| {
            let tools = std::sync::Arc::clone(&tools);
            async move {
                let name = req.var("name").unwrap_or_default();
                let tool = tools.iter().find(|t| t.name == name).ok_or(HandlerError::NotFound)?;
                let text = serde_json::to_string_pretty(tool)?;
                Ok(ResourceContents::text(req.uri, Some("application/json".into()), text))
            }
        })
        .complete("name", complete_from(names))
}

#[derive(Debug, Deserialize, JsonSchema)]
struct CodeReview {
    /// The code to review.
    code: String,
    /// The programming language, if known.
    language: Option<String>,
}

/// The `code_review` prompt.
pub(crate) fn code_review() -> Prompt {
    Prompt::new("code_review")
        .title("Request Code Review")
        .description("Asks the model to analyze code quality and suggest improvements.")
        .handler(|args: CodeReview, _ctx: RequestContext| async move {
            let language = args.language.map(|l| format!(" ({l})")).unwrap_or_default();
            Ok(vec![PromptMessage::user(format!(
                "Please review this code{language} and suggest improvements:\n\n{}",
                args.code
            ))])
        })
        .expect("the argument struct has only string fields")
        .complete(
            "language",
            complete_from([
                "c",
                "cpp",
                "csharp",
                "go",
                "java",
                "javascript",
                "kotlin",
                "python",
                "ruby",
                "rust",
                "swift",
                "typescript",
            ]),
        )
}
