//! Attribute macros that write `switchboard-server` builders from plain async
//! functions. Use them through `switchboard_server` (its default `macros` feature
//! re-exports them): `use switchboard_server::{tool, tools, resource, prompt};`.
//!
//! # Why this crate exists
//!
//! The builder API of `switchboard-server` (`Tool::new(..).handler(..)`) asks for an
//! argument struct deriving `Deserialize` and `JsonSchema`, a closure taking
//! it and a `RequestContext`, and the description repeated by hand. For
//! the common case, "this async function is a tool", that is boilerplate
//! the function's own signature already says. These macros read the
//! signature and doc comment and generate exactly that builder code, so:
//!
//! - the function stays as written and callable (and testable) on its own;
//! - the macro adds one function next to it that returns the builder
//!   (`add` gets `add_tool()`, `current` gets `current_resource()`,
//!   `review` gets `review_prompt()`), which you register as usual and can
//!   still adjust with every builder method;
//! - mistakes the builder would only find at run time are compile errors
//!   pointing at your code: a URI template that does not parse, a template
//!   variable without a parameter (or the reverse), a non-`async` function,
//!   a parameter pattern that cannot be named.
//!
//! Generated code names only `::switchboard_server::...` paths, so a crate using the
//! macros needs `switchboard-server` and nothing else (not `serde`, not `schemars`).
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//!
//! use switchboard_server::{HandlerError, RequestContext, Server, ToolError, prompt, resource, tool, tools};
//!
//! /// Adds two integers.
//! #[tool(read_only)]
//! async fn add(#[arg(description = "The first addend")] a: i64, b: i64) -> Result<String, ToolError> {
//!     Ok(a.checked_add(b).ok_or_else(|| ToolError::new("overflow"))?.to_string())
//! }
//!
//! /// Today's weather in a city.
//! #[resource("weather://{city}/current", mime_type = "text/plain")]
//! async fn current(city: String, _ctx: RequestContext) -> Result<String, HandlerError> {
//!     Ok(format!("Sunny in {city}"))
//! }
//!
//! /// Asks for a code review.
//! #[prompt]
//! async fn review(code: String, language: Option<String>) -> Result<String, HandlerError> {
//!     Ok(format!("Review this {} code:\n{code}", language.as_deref().unwrap_or("")))
//! }
//!
//! struct Counter { step: i64 }
//!
//! #[tools]
//! impl Counter {
//!     /// Adds the step to a number.
//!     #[tool]
//!     async fn step(&self, n: i64) -> Result<String, ToolError> {
//!         Ok((n + self.step).to_string())
//!     }
//! }
//!
//! let mut builder = Server::builder("demo", "1.0.0")
//!     .tool(add_tool())
//!     .resource_template(current_resource())
//!     .prompt(review_prompt());
//! for tool in Arc::new(Counter { step: 2 }).tools() {
//!     builder = builder.tool(tool);
//! }
//! let server = builder.build().unwrap();
//! assert_eq!(server.tools().len(), 2);
//! ```
//!
//! # Parameters
//!
//! A parameter must be a plain name with an owned type (`city: String`, not
//! `(a, b): (i64, i64)` or `&str`). One whose type is named
//! `RequestContext` (or `&RequestContext`) receives the request's context
//! instead of a value from the client; in `#[resource]` functions one whose
//! type is named `ReadRequest` (or `&ReadRequest`) receives the whole read
//! request (URI and variables). Types are recognised by name, as a macro
//! cannot resolve paths.
//! `#[arg(description = "...")]` on a tool or prompt parameter documents it
//! (parameters cannot carry doc comments in Rust). On tool parameters,
//! `#[serde(...)]` and `#[schemars(...)]` attributes are moved to the field
//! of the generated argument struct: `#[serde(default)]`,
//! `#[schemars(range(min = 1, max = 7))]` and the like shape the input
//! schema as they would on a hand-written struct (serde and schemars are
//! reached through `switchboard_server`, so they need no dependency of their own).
//!
//! # Return types
//!
//! Always a `Result`. Its error type is anything that converts into the
//! builder's error type (`ToolError` for tools, `HandlerError` for
//! resources and prompts; any `std::error::Error` does). Its success type:
//!
//! - `#[tool]`: anything the tool builder accepts (`String`, `Json<T>`,
//!   `CallToolResult`, content blocks);
//! - `#[resource]`: `String` (one text item at the URI read, with the
//!   declared `mime_type`), `Vec<u8>` (one base64 blob), `ResourceContents`
//!   or a `Vec` of them;
//! - `#[prompt]`: anything the prompt builder accepts (`String` for one user
//!   message, `Vec<PromptMessage>`, `GetPromptResult`).

mod common;
mod methods;
mod prompt;
mod resource;
mod tool;

use proc_macro::TokenStream;
use syn::parse_macro_input;

/// Makes an async function an MCP tool: adds `fn {name}_tool() -> Tool`
/// (same visibility) whose input schema has one property per parameter.
///
/// Options: `name = "..."` (default: the function's name), `title = "..."`,
/// `description = "..."` (default: the doc comment), and the behaviour
/// hints `read_only`, `destructive`, `idempotent`, `open_world` (bare for
/// `true`, or `= false`). MCP Apps: `ui = "ui://server/view"` names the
/// view that renders the results (`Tool::ui`), and `visibility = "app"` or
/// `visibility = ["model", "app"]` says who may call it (`Tool::visibility`;
/// needs `ui`). `Option<T>` parameters are optional arguments;
/// the schema has `additionalProperties: false`, so unknown arguments are
/// refused like any other invalid input.
/// Inside an impl block marked [`macro@tools`], `#[tool]` marks a method.
/// See the [crate docs](crate) for an example.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = parse_macro_input!(attr as common::Options);
    let item = parse_macro_input!(item as syn::ItemFn);
    let mut item = item;
    let added = tool::expand_fn(options, &mut item);
    common::finish_fn(item, added).into()
}

/// On an `impl Type` block: its methods marked `#[tool]`,
/// `#[resource("...")]` or `#[prompt]` (taking `&self`) become builders,
/// and the block gains, for the kinds it has,
/// `pub fn tools(self: Arc<Self>) -> Vec<Tool>`,
/// `pub fn resource_templates(self: Arc<Self>) -> Vec<ResourceTemplate>`,
/// `pub fn resources(self: Arc<Self>) -> Vec<Resource>` (fixed URIs)
/// and `pub fn prompts(self: Arc<Self>) -> Vec<Prompt>`, each builder
/// calling its method on the shared value. The methods stay as written;
/// the options and rules are those of the free-function macros. `Type` must
/// be `Send + Sync + 'static`; one `#[tools]` block per type.
#[proc_macro_attribute]
pub fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = parse_macro_input!(item as syn::ItemImpl);
    let mut item = item;
    let added = methods::expand(attr.into(), &mut item);
    if added.is_err() {
        for impl_item in &mut item.items {
            if let syn::ImplItem::Fn(method) = impl_item {
                method.attrs.retain(|a| !methods::is_marker(a));
                common::strip_arg_attrs(&mut method.sig);
            }
        }
    }
    let added = added.unwrap_or_else(syn::Error::into_compile_error);
    quote::quote!(#item #added).into()
}

/// Makes an async function the read handler of an RFC 6570 resource
/// template: `#[resource("weather://{city}/current")]` adds
/// `fn {name}_resource() -> ResourceTemplate`. Each template variable is
/// passed as the parameter of the same name (`String`, `Option<String>`,
/// `Vec<String>`, or a number or `bool` parsed from the text); a variable
/// without a parameter, a parameter that is not a variable, or a template
/// that does not parse is a compile error.
///
/// A URI without any `{...}` expression is a fixed resource instead:
/// `fn {name}_resource() -> Resource`, listed by `resources/list`.
///
/// Options after the template: `name = "..."` (default: the function's
/// name), `title`, `description` (default: the doc comment), `mime_type`.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = parse_macro_input!(attr as common::Options);
    let item = parse_macro_input!(item as syn::ItemFn);
    let mut item = item;
    let added = resource::expand(options, &mut item);
    common::finish_fn(item, added).into()
}

/// Makes an async function an MCP prompt: adds `fn {name}_prompt() ->
/// Prompt` with one argument per parameter (`String` required,
/// `Option<String>` optional; `#[arg(description = "...")]` describes one).
///
/// Options: `name = "..."` (default: the function's name), `title`,
/// `description` (default: the doc comment).
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = parse_macro_input!(attr as common::Options);
    let item = parse_macro_input!(item as syn::ItemFn);
    let mut item = item;
    let added = prompt::expand(options, &mut item);
    common::finish_fn(item, added).into()
}
