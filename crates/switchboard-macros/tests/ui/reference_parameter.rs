use switchboard_server::{ToolError, tool};

#[tool]
async fn echo(text: &str) -> Result<String, ToolError> {
    Ok(text.to_owned())
}

fn main() {}
