use switchboard_server::{ToolError, tool};

#[tool(name = "get weather")]
async fn weather(city: String) -> Result<String, ToolError> {
    Ok(city)
}

fn main() {}
