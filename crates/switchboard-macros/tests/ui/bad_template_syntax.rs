use switchboard_server::{HandlerError, resource};

#[resource("weather://{city/current")]
async fn current(city: String) -> Result<String, HandlerError> {
    Ok(city)
}

fn main() {}
