//! The `weather` example written with the attribute macros: each tool,
//! resource template and prompt is a plain async function.
//!
//! Run with: cargo run -p switchboard-server --example weather_macros
use schemars::JsonSchema;
use serde::Serialize;
use switchboard_server::types::PromptMessage;
use switchboard_server::{HandlerError, Json, Server, ToolError, prompt, resource, tool};

#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    celsius: Vec<f64>,
}

/// Daily temperatures for a city.
#[tool(read_only)]
async fn forecast(
    #[arg(description = "City name, e.g. \"Lisbon\".")] city: String,
    #[arg(description = "Number of days, 1 to 7.")]
    #[schemars(range(min = 1, max = 7))]
    days: u8,
) -> Result<Json<Forecast>, ToolError> {
    if city.trim().is_empty() {
        return Err(ToolError::new("city must not be empty"));
    }
    Ok(Json(Forecast { city, celsius: vec![21.5; usize::from(days)] }))
}

/// Current conditions in a city.
#[resource("weather://{city}/current", mime_type = "text/plain")]
async fn current(city: String) -> Result<String, HandlerError> {
    Ok(format!("{city}: 21.5 °C, clear"))
}

/// Plan a trip around the weather.
#[prompt]
async fn plan_trip(#[arg(description = "Where to go.")] city: String) -> Result<PromptMessage, HandlerError> {
    Ok(PromptMessage::user(format!("Check the forecast for {city} and plan three days.")))
}

#[tokio::main]
async fn main() -> Result<(), switchboard_server::Error> {
    Server::builder("weather", "1.0.0")
        .tool(forecast_tool())
        .resource_template(current_resource())
        .prompt(plan_trip_prompt())
        .build()?
        .serve_stdio()
        .await
}
