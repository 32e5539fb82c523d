//! MCP Apps in the framework: a tool whose results a host renders in an
//! HTML view, and a tool only that view may call.
//!
//! - `ui://tally/counter` is the view ([`Resource::ui`]): one inline HTML
//!   page that loads nothing from the network, so its `_meta.ui` declares
//!   no CSP origin and asks for no permission; it prefers a border.
//! - `tally_show` (`#[tool(ui = …)]`) shows the count. For a host that
//!   renders views ([`RequestContext::ui_support`]) it answers with
//!   `structuredContent` for the view; any other client gets a sentence.
//! - `tally_add` (`visibility = "app"`) adds to the count. Hosts keep it
//!   from the model: the view's "Add one" button calls it through the
//!   host's bridge.
//!
//! Registering the view makes the server offer the extension
//! `io.modelcontextprotocol/ui`. Run it over stdio with:
//!
//! ```text
//! cargo run -p example-apps
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use schemars::JsonSchema;
use serde::Serialize;
use switchboard_server::apps::UiResourceMeta;
use switchboard_server::{CallToolResult, RequestContext, Resource, Server, ToolError, tools};

/// The view's URI.
const VIEW: &str = "ui://tally/counter";

/// The view's HTML, served as it is.
const VIEW_HTML: &str = include_str!("tally.html");

/// The count the tools share.
#[derive(Debug, Default)]
struct Tally {
    count: AtomicI64,
}

/// What the view shows.
#[derive(Serialize, JsonSchema)]
struct Shown {
    /// The heading above the number.
    label: String,
    /// The count.
    count: i64,
}

#[tools]
impl Tally {
    /// Shows the tally (rendered as a counter by hosts that show views).
    #[tool(ui = "ui://tally/counter", read_only)]
    async fn tally_show(&self, ctx: RequestContext) -> Result<CallToolResult, ToolError> {
        let count = self.count.load(Ordering::Relaxed);
        if ctx.ui_support().is_some_and(|ui| ui.renders_html()) {
            return structured(count);
        }
        Ok(CallToolResult::text(format!("The tally is {count}.")))
    }

    /// Adds `by` to the tally. Only the view calls it.
    #[tool(ui = "ui://tally/counter", visibility = "app")]
    async fn tally_add(
        &self,
        #[arg(description = "How much to add (1 to 100).")] by: i64,
    ) -> Result<CallToolResult, ToolError> {
        if !(1..=100).contains(&by) {
            return Err(ToolError::new("`by` is from 1 to 100"));
        }
        let count = self.count.fetch_add(by, Ordering::Relaxed) + by;
        structured(count)
    }
}

/// The result the view renders: `structuredContent` plus a sentence for
/// the model.
fn structured(count: i64) -> Result<CallToolResult, ToolError> {
    let shown = Shown { label: "Tally".into(), count };
    let value = serde_json::to_value(&shown).map_err(|e| ToolError::new(e.to_string()))?;
    let mut result = CallToolResult::structured(value);
    result.content = vec![switchboard_server::ContentBlock::text(format!("The tally is {count}."))];
    Ok(result)
}

/// The server: the view and both tools.
fn server() -> Result<Server, switchboard_server::Error> {
    let view = Resource::ui(VIEW, "tally-view")
        .title("Tally")
        .description("A counter with an \"Add one\" button.")
        .text(VIEW_HTML)
        .ui_meta(UiResourceMeta { prefers_border: Some(true), ..UiResourceMeta::default() });
    let mut builder = Server::builder("tally", "1.0.0").resource(view);
    for tool in Arc::new(Tally::default()).tools() {
        builder = builder.tool(tool);
    }
    builder.build()
}

#[tokio::main]
async fn main() -> Result<(), switchboard_server::Error> {
    server()?.serve_stdio().await
}
