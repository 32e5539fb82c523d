use switchboard_server::{ToolError, tools};

struct Calc;

#[tools]
impl Calc {
    #[tool]
    async fn add(self, a: i64) -> Result<String, ToolError> {
        Ok(a.to_string())
    }
}

fn main() {}
