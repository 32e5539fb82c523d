use switchboard_server::{ToolError, tool};

#[tool(readonly)]
async fn echo(text: String) -> Result<String, ToolError> {
    Ok(text)
}

fn main() {}
