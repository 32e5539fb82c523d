use switchboard_server::{ToolError, tool};

#[tool]
async fn add((a, b): (i64, i64)) -> Result<String, ToolError> {
    Ok((a + b).to_string())
}

fn main() {}
