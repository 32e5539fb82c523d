//! A shopping basket: state kept between tool calls behind opaque handles.
//!
//! MCP tools are stateless calls, so `basket_create` stores an empty basket
//! in a [`HandleStore`] and returns its handle; the model passes that handle
//! back to `basket_add`, `basket_view` and `basket_checkout`. The store mints
//! unguessable handles, expires them, binds them to the caller when the
//! transport knows one, and answers a forged or expired handle with a tool
//! error that tells the model to start a new basket.
//!
//! The tools are methods of one `Shop` (`#[tools] impl`), which owns the
//! store. Run it over stdio with:
//!
//! ```text
//! cargo run -p example-basket
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use switchboard_server::{HandleStore, Json, RequestContext, Server, ToolError, tools};

/// What the shop sells, with unit prices in cents.
const PRICES: &[(&str, u64)] = &[("apple", 40), ("bread", 250), ("cheese", 480), ("milk", 120)];

/// Item name to quantity.
type Basket = BTreeMap<String, u32>;

/// The tools and the baskets they share.
#[derive(Debug)]
struct Shop {
    baskets: HandleStore<Basket>,
}

/// A basket's handle.
#[derive(Serialize, JsonSchema)]
struct Created {
    /// Pass this to the other basket tools.
    handle: String,
}

/// A basket's contents and what they cost.
#[derive(Serialize, JsonSchema)]
struct Contents {
    /// One line per item.
    lines: Vec<Line>,
    /// The sum of the lines, in cents.
    total_cents: u64,
}

/// One item in a basket.
#[derive(Serialize, JsonSchema)]
struct Line {
    item: String,
    qty: u32,
    /// `qty` times the unit price, in cents.
    cents: u64,
}

#[tools]
impl Shop {
    /// Starts an empty basket and returns its handle (valid for 30 minutes after its last use).
    #[tool]
    async fn basket_create(&self, ctx: RequestContext) -> Result<Json<Created>, ToolError> {
        Ok(Json(Created { handle: self.baskets.create(&ctx, Basket::new()) }))
    }

    /// Adds an item to a basket. Items: apple, bread, cheese, milk.
    #[tool]
    async fn basket_add(
        &self,
        ctx: RequestContext,
        #[arg(description = "The handle from basket_create.")] handle: String,
        #[arg(description = "What to add, e.g. \"apple\".")] item: String,
        #[arg(description = "How many, 1 to 99.")]
        #[schemars(range(min = 1, max = 99))]
        qty: u32,
    ) -> Result<Json<Contents>, ToolError> {
        if price(&item).is_none() {
            return Err(ToolError::new(format!("no such item {item:?}; the shop sells {}", item_names())));
        }
        // One atomic update: concurrent additions to one basket are never lost.
        let updated = self
            .baskets
            .update(&ctx, &handle, |basket| {
                *basket.entry(item).or_default() += qty;
                contents(basket)
            })
            .await?;
        Ok(Json(updated))
    }

    /// Shows what is in a basket.
    #[tool(read_only)]
    async fn basket_view(
        &self,
        ctx: RequestContext,
        #[arg(description = "The handle from basket_create.")] handle: String,
    ) -> Result<Json<Contents>, ToolError> {
        let basket = self.baskets.get(&ctx, &handle)?;
        let basket = basket.lock().await;
        Ok(Json(contents(&basket)))
    }

    /// Pays for a basket; the handle is no longer valid afterwards.
    #[tool(destructive)]
    async fn basket_checkout(
        &self,
        ctx: RequestContext,
        #[arg(description = "The handle from basket_create.")] handle: String,
    ) -> Result<Json<Contents>, ToolError> {
        let basket = self.baskets.get(&ctx, &handle)?;
        let receipt = contents(&*basket.lock().await);
        if receipt.lines.is_empty() {
            return Err(ToolError::new("the basket is empty; add items with basket_add first"));
        }
        self.baskets.remove(&ctx, &handle);
        Ok(Json(receipt))
    }
}

fn price(item: &str) -> Option<u64> {
    PRICES.iter().find(|(name, _)| *name == item).map(|(_, cents)| *cents)
}

fn item_names() -> String {
    PRICES.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", ")
}

fn contents(basket: &Basket) -> Contents {
    let lines: Vec<Line> = basket
        .iter()
        .map(|(item, &qty)| Line {
            item: item.clone(),
            qty,
            cents: u64::from(qty) * price(item).unwrap_or_default(),
        })
        .collect();
    let total_cents = lines.iter().map(|l| l.cents).sum();
    Contents { lines, total_cents }
}

#[tokio::main]
async fn main() -> Result<(), switchboard_server::Error> {
    let baskets = HandleStore::new("basket", Duration::from_secs(30 * 60))
        .sliding()
        .recovery_hint("call basket_create to start a new basket");
    let shop = Arc::new(Shop { baskets });
    let mut builder = Server::builder("basket", "1.0.0");
    for tool in shop.tools() {
        builder = builder.tool(tool);
    }
    builder.build()?.serve_stdio().await
}
