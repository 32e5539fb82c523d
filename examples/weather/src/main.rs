//! A weather server: one tool with structured output and one resource
//! template, both written as plain async functions with the attribute macros.
//!
//! - `forecast(city, days)` returns a [`Json<Forecast>`](switchboard_server::Json):
//!   the result carries `structuredContent`, and `tools/list` shows the
//!   output schema derived from `Forecast`.
//! - `weather://{city}/current` is a resource template read as plain text.
//!
//! The data is made up (a hash of the city name), so the server needs no
//! network and always answers the same. Run it over stdio, or over
//! Streamable HTTP at `http://ADDR/mcp` (with `switchboard-http`):
//!
//! ```text
//! cargo run -p example-weather
//! cargo run -p example-weather -- --http 127.0.0.1:8080
//! ```

use schemars::JsonSchema;
use serde::Serialize;
use switchboard_http::HttpOptions;
use switchboard_server::{HandlerError, Json, Server, ToolError, resource, tool};

/// The `forecast` tool's result; its JSON Schema is the tool's output schema.
#[derive(Debug, Serialize, JsonSchema)]
struct Forecast {
    /// The city, as asked for.
    city: String,
    /// One entry per day, starting today.
    days: Vec<Day>,
}

/// One day of a forecast.
#[derive(Debug, Serialize, JsonSchema)]
struct Day {
    /// Days from today (0 is today).
    offset: u8,
    /// The highest temperature, in degrees Celsius.
    high_celsius: f64,
    /// The lowest temperature, in degrees Celsius.
    low_celsius: f64,
    /// A one-word summary.
    sky: String,
}

/// Daily temperatures for a city (made-up, deterministic data).
#[tool(read_only, idempotent)]
async fn forecast(
    #[arg(description = "City name, e.g. \"Lisbon\".")] city: String,
    #[arg(description = "Number of days, 1 to 7.")]
    #[schemars(range(min = 1, max = 7))]
    days: u8,
) -> Result<Json<Forecast>, ToolError> {
    let city = city.trim().to_owned();
    if city.is_empty() {
        // A tool error is a result with `isError: true`, which the model sees.
        return Err(ToolError::new("city must not be empty"));
    }
    let days = (0..days).map(|offset| fake_day(&city, offset)).collect();
    Ok(Json(Forecast { city, days }))
}

/// Current conditions in a city.
#[resource("weather://{city}/current", mime_type = "text/plain")]
async fn current(city: String) -> Result<String, HandlerError> {
    let today = fake_day(&city, 0);
    Ok(format!("{city}: {} °C, {}", today.high_celsius, today.sky))
}

/// The same city and day always give the same weather.
fn fake_day(city: &str, offset: u8) -> Day {
    let seed = city
        .to_lowercase()
        .bytes()
        .fold(u32::from(offset).wrapping_mul(7919), |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    let high = f64::from(seed % 25) + 8.0;
    let sky = ["clear", "cloudy", "rain", "windy"][(seed / 25 % 4) as usize];
    Day { offset, high_celsius: high, low_celsius: high - 7.0, sky: sky.to_owned() }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("weather", "1.0.0")
        .tool(forecast_tool())
        .resource_template(current_resource())
        .build()?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => server.serve_stdio().await?,
        [flag, addr] if flag == "--http" => {
            let shutdown = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            eprintln!("weather: serving http://{addr}/mcp");
            switchboard_http::serve(server, addr.parse()?, HttpOptions::default(), shutdown).await?;
        }
        _ => return Err("usage: example-weather [--http ADDR]".into()),
    }
    Ok(())
}
