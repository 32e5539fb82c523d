use switchboard_server::{ToolError, tool};

#[tool]
async fn add(a: i64, b: i64) -> Result<i64, ToolError> {
    Ok(a + b)
}

#[tool]
async fn sub(a: i64, b: i64) -> Option<String> {
    Some((a - b).to_string())
}

fn main() {}
