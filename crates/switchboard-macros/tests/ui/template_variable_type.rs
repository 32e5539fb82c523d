use switchboard_server::{HandlerError, resource};

struct City(String);

#[resource("weather://{city}/current")]
async fn current(city: City) -> Result<String, HandlerError> {
    Ok(city.0)
}

fn main() {}
