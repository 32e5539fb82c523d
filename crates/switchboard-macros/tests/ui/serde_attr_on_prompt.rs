use switchboard_server::{HandlerError, prompt};

#[prompt]
async fn review(#[serde(default)] code: String) -> Result<String, HandlerError> {
    Ok(code)
}

fn main() {}
