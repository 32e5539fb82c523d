use switchboard_server::{ToolError, tool};

#[tool(ui = "ui://demo/view", visibility = ["model", "user"])]
async fn show() -> Result<String, ToolError> {
    Ok("done".into())
}

fn main() {}
