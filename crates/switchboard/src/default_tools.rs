//! The embedded default tools: small, useful, and together they show every
//! part of the Tools primitive (plain text, structured output with an
//! output schema, progress and cancellation, stateful handles).

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchboard_server::state::{SharedHandleStore, StateStore};
use switchboard_server::{Json, NoArgs, RequestContext, Tool, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct AddArgs {
    /// First addend.
    a: f64,
    /// Second addend.
    b: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Sum {
    /// a + b.
    sum: f64,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct WordCountArgs {
    /// The text to measure.
    text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct WordCount {
    /// Whitespace-separated words.
    words: usize,
    /// Lines (a trailing newline does not start a new one).
    lines: usize,
    /// Unicode scalar values.
    characters: usize,
    /// UTF-8 bytes.
    bytes: usize,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct CountdownArgs {
    /// How many seconds to count down, 1 to 300.
    #[schemars(range(min = 1, max = 300))]
    seconds: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct AddItemArgs {
    /// The handle returned by create_basket.
    basket_id: String,
    /// What to add.
    #[schemars(length(min = 1, max = 200))]
    item: String,
    /// How many, 1 to 1000.
    #[schemars(range(min = 1, max = 1000))]
    quantity: u32,
    /// Any unique string naming this addition: a retry with the same
    /// request_id adds the item only once, so retrying after an error whose
    /// outcome is unknown is safe.
    #[schemars(length(min = 1, max = 100))]
    request_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct BasketArgs {
    /// The handle returned by create_basket.
    basket_id: String,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize, JsonSchema)]
struct Line {
    item: String,
    quantity: u32,
}

/// What a basket handle holds: its lines and the request ids of the
/// latest additions (so a retried addition applies once).
#[derive(Debug, Default, Clone, Serialize, serde::Deserialize)]
struct StoredBasket {
    lines: Vec<Line>,
    #[serde(default)]
    requests: std::collections::VecDeque<String>,
}

/// Request ids a basket remembers.
const REMEMBERED_REQUESTS: usize = 256;

impl StoredBasket {
    /// Adds `quantity` of `item` unless `request` was applied already.
    fn add(&mut self, item: &str, quantity: u32, request: Option<&str>) {
        if let Some(request) = request {
            if self.requests.iter().any(|r| r == request) {
                return;
            }
            if self.requests.len() == REMEMBERED_REQUESTS {
                self.requests.pop_front();
            }
            self.requests.push_back(request.to_owned());
        }
        match self.lines.iter_mut().find(|l| l.item == item) {
            Some(line) => line.quantity = line.quantity.saturating_add(quantity),
            None => self.lines.push(Line { item: item.to_owned(), quantity }),
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
struct Basket {
    basket_id: String,
    items: Vec<Line>,
    total_quantity: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
struct NewBasket {
    /// Pass this to add_item and view_basket.
    basket_id: String,
    /// Seconds the basket lives after its last use.
    expires_in_seconds: u64,
}

const BASKET_TTL: Duration = Duration::from_secs(30 * 60);

/// Every default tool, in listing order. Baskets live in `state` (memory,
/// or Redis shared by several instances).
pub(crate) fn all(state: Arc<dyn StateStore>) -> Vec<Tool> {
    let baskets: Arc<SharedHandleStore<StoredBasket>> = Arc::new(
        SharedHandleStore::new("basket", BASKET_TTL, state)
            .sliding()
            .recovery_hint("call create_basket to start a new basket"),
    );
    vec![
        Tool::new("echo")
            .title("Echo")
            .description("Returns the given text unchanged.")
            .read_only()
            .handler(|args: EchoArgs, _ctx: RequestContext| async move { Ok(args.text) }),
        Tool::new("add")
            .title("Add")
            .description("Adds two numbers and returns {\"sum\": a + b}.")
            .read_only()
            .handler(|args: AddArgs, _ctx: RequestContext| async move {
                let sum = args.a + args.b;
                if !sum.is_finite() {
                    return Err(ToolError::new("the sum is not a finite number"));
                }
                Ok(Json(Sum { sum }))
            }),
        Tool::new("word_count")
            .title("Word count")
            .description("Counts words, lines, characters and bytes of a text.")
            .read_only()
            .handler(|args: WordCountArgs, _ctx: RequestContext| async move {
                let t = &args.text;
                Ok(Json(WordCount {
                    words: t.split_whitespace().count(),
                    lines: t.lines().count(),
                    characters: t.chars().count(),
                    bytes: t.len(),
                }))
            }),
        Tool::new("countdown")
            .title("Countdown")
            .description(
                "Waits the given number of seconds, reporting progress each second when the request \
                 has a progress token. Cancel it with notifications/cancelled.",
            )
            .read_only()
            .handler(|args: CountdownArgs, ctx: RequestContext| async move {
                let total = f64::from(args.seconds);
                for done in 1..=args.seconds {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    let left = args.seconds - done;
                    ctx.progress(f64::from(done), Some(total), Some(&format!("{left} s left"))).await;
                }
                Ok(format!("Counted down {} seconds.", args.seconds))
            }),
        Tool::new("create_basket")
            .title("Create basket")
            .description(format!(
                "Creates an empty shopping basket and returns its basket_id handle. The basket expires \
                 {} minutes after its last use.",
                BASKET_TTL.as_secs() / 60
            ))
            .handler({
                let baskets = Arc::clone(&baskets);
                move |_: NoArgs, ctx: RequestContext| {
                    let baskets = Arc::clone(&baskets);
                    async move {
                        let basket_id = baskets.create(&ctx, StoredBasket::default()).await?;
                        Ok(Json(NewBasket { basket_id, expires_in_seconds: baskets.ttl().as_secs() }))
                    }
                }
            }),
        Tool::new("add_item")
            .title("Add item")
            .description(
                "Adds a quantity of an item to a basket created by create_basket. Concurrent additions \
                 are never lost; give a request_id to make a retry safe.",
            )
            .handler({
                let baskets = Arc::clone(&baskets);
                move |args: AddItemArgs, ctx: RequestContext| {
                    let baskets = Arc::clone(&baskets);
                    async move {
                        let lines = baskets
                            .update(&ctx, &args.basket_id, |basket| {
                                basket.add(&args.item, args.quantity, args.request_id.as_deref());
                                basket.lines.clone()
                            })
                            .await?;
                        Ok(Json(summary(args.basket_id, &lines)))
                    }
                }
            }),
        Tool::new("view_basket")
            .title("View basket")
            .description("Shows the items in a basket created by create_basket.")
            .read_only()
            .handler({
                let baskets = Arc::clone(&baskets);
                move |args: BasketArgs, ctx: RequestContext| {
                    let baskets = Arc::clone(&baskets);
                    async move {
                        let basket = baskets.get(&ctx, &args.basket_id).await?;
                        Ok(Json(summary(args.basket_id, &basket.lines)))
                    }
                }
            }),
    ]
}

fn summary(basket_id: String, lines: &[Line]) -> Basket {
    Basket {
        basket_id,
        items: lines.to_vec(),
        total_quantity: lines.iter().map(|l| u64::from(l.quantity)).sum(),
    }
}
