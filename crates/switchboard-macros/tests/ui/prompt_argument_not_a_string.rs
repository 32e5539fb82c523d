use switchboard_server::{HandlerError, prompt};

#[prompt]
async fn review(code: String, lines: u32) -> Result<String, HandlerError> {
    Ok(format!("{code} {lines}"))
}

fn main() {}
