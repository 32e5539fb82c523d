use switchboard_server::{ToolError, tool};

/// Not async.
#[tool]
fn add(a: i64, b: i64) -> Result<String, ToolError> {
    Ok((a + b).to_string())
}

fn main() {}
