use switchboard_server::{HandlerError, tools};

struct Weather;

#[tools]
impl Weather {
    #[resource("weather://{city}/current")]
    async fn current(&self, town: String) -> Result<String, HandlerError> {
        Ok(town)
    }
}

fn main() {}
