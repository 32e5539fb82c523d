use switchboard_server::{ToolError, tool};

#[tool(ui = "https://example.com/view.html")]
async fn show() -> Result<String, ToolError> {
    Ok("done".into())
}

fn main() {}
