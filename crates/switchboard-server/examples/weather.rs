//! A custom server with a tool, a resource and a prompt (the README's example).
//!
//! Run with: cargo run -p switchboard-server --example weather
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchboard_server::types::PromptMessage;
use switchboard_server::{Json, Prompt, RequestContext, Resource, Server, Tool, ToolError};

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// City name, e.g. "Lisbon".
    city: String,
    /// Number of days, 1 to 7.
    #[schemars(range(min = 1, max = 7))]
    days: u8,
}

#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    celsius: Vec<f64>,
}

#[derive(Deserialize, JsonSchema)]
struct TripArgs {
    /// Where to go.
    city: String,
}

#[tokio::main]
async fn main() -> Result<(), switchboard_server::Error> {
    let forecast = Tool::new("forecast").description("Daily temperatures for a city.").handler(
        |args: Args, _ctx: RequestContext| async move {
            if args.city.trim().is_empty() {
                return Err(ToolError::new("city must not be empty"));
            }
            Ok(Json(Forecast { city: args.city, celsius: vec![21.5; usize::from(args.days)] }))
        },
    );
    let cities =
        Resource::new("weather://cities", "cities").mime_type("text/plain").text("Lisbon\nOslo\nNairobi");
    let plan = Prompt::new("plan_trip").description("Plan a trip around the weather.").handler(
        |args: TripArgs, _ctx: RequestContext| async move {
            Ok(PromptMessage::user(format!("Check the forecast for {} and plan three days.", args.city)))
        },
    )?;
    Server::builder("weather", "1.0.0")
        .tool(forecast)
        .resource(cities)
        .prompt(plan)
        .build()?
        .serve_stdio()
        .await
}
