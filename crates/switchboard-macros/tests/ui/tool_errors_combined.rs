use switchboard_server::{ToolError, tool};

// Every problem of a signature is reported at once.
#[tool]
fn add<T>(_: i64, #[arg(summary = "no")] b: i64, c: &str) -> Result<String, ToolError> {
    Ok(format!("{b}{c}"))
}

fn main() {}
