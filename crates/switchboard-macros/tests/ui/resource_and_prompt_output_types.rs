use switchboard_server::{HandlerError, prompt, resource};

#[resource("a://{x}")]
async fn read(x: String) -> Result<u64, HandlerError> {
    Ok(x.len() as u64)
}

#[prompt]
async fn ask(x: String) -> Result<Vec<String>, HandlerError> {
    Ok(vec![x])
}

fn main() {}
