use switchboard_server::{HandlerError, resource};

#[resource("weather://{city}/current")]
async fn current(city: String, country: String) -> Result<String, HandlerError> {
    Ok(format!("{city}, {country}"))
}

fn main() {}
