use switchboard_server::{HandlerError, prompt};

#[prompt]
async unsafe extern "C" fn review(code: impl Into<String>, language: &mut String) -> Result<String, HandlerError> {
    Ok(format!("{}{language}", code.into()))
}

fn main() {}
