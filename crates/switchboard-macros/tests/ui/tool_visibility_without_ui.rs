use switchboard_server::{ToolError, tool};

#[tool(visibility = "app")]
async fn refresh() -> Result<String, ToolError> {
    Ok("done".into())
}

fn main() {}
