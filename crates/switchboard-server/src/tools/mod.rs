//! Tools: a definition plus an async handler.
//!
//! The usual way is a typed handler: the argument type derives the input
//! schema (schemars) and is deserialized after the arguments passed JSON
//! Schema validation; the return type decides the output schema
//! ([`Json<T>`] gives a structured result with `outputSchema`).
//!
//! ```
//! use switchboard_server::{Json, RequestContext, Tool, ToolError};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct AddArgs { a: i64, b: i64 }
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Sum { sum: i64 }
//!
//! let tool = Tool::new("add")
//!     .description("Adds two integers.")
//!     .handler(|args: AddArgs, _ctx: RequestContext| async move {
//!         let sum = args.a.checked_add(args.b).ok_or_else(|| ToolError::new("overflow"))?;
//!         Ok(Json(Sum { sum }))
//!     });
//! assert_eq!(tool.name(), "add");
//! ```
//!
//! Spec: `docs/specification/<rev>/server/tools.mdx`.

pub(crate) mod area;
pub(crate) mod entry;
pub(crate) mod handler;
pub(crate) mod handles;
pub(crate) mod layer;
pub(crate) mod methods;
pub(crate) mod schema;
pub(crate) mod shared_handles;
pub(crate) mod view_links;

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use switchboard_types::apps::{ToolUi, Visibility};
use switchboard_types::tools::ToolAnnotations;
use switchboard_types::{CallToolResult, ContentBlock, ErrorObject};

use crate::context::RequestContext;
use crate::tools::handler::{ToolError, ToolHandler};

/// Converts a handler's success value into a `CallToolResult` and says which
/// output schema (if any) that implies.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool result",
    label = "a tool returns `String`, `Json<T>` (structured), `CallToolResult` or content blocks"
)]
pub trait IntoToolResult {
    /// The `outputSchema` this return type declares, if any.
    fn output_schema() -> Option<Value> {
        None
    }
    /// The result.
    fn into_tool_result(self) -> Result<CallToolResult, ToolError>;
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::success(vec![self]))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::success(self))
    }
}

/// A structured result: serialized into `structuredContent` (with a JSON text
/// copy in `content`), and `T`'s schema becomes the tool's `outputSchema`.
#[derive(Debug, Clone, PartialEq)]
pub struct Json<T>(pub T);

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn output_schema() -> Option<Value> {
        Some(schema_of::<T>())
    }
    fn into_tool_result(self) -> Result<CallToolResult, ToolError> {
        let value = serde_json::to_value(&self.0).map_err(|e| {
            ToolError::protocol(ErrorObject::internal(format!("result does not serialize: {e}")))
        })?;
        Ok(CallToolResult::structured(value))
    }
}

/// Arguments of a tool that takes none: schema
/// `{"type":"object","additionalProperties":false}` (the form the spec
/// recommends for parameterless tools).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoArgs;

impl<'de> serde::Deserialize<'de> for NoArgs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| NoArgs)
    }
}

impl JsonSchema for NoArgs {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NoArgs".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object", "additionalProperties": false})
    }
}

/// The JSON Schema of `T` as a tool schema: 2020-12 (schemars' default), with
/// the root `$schema` and `title` removed because 2020-12 is MCP's default
/// dialect and the title only repeats the Rust type name.
pub fn schema_of<T: JsonSchema>() -> Value {
    let mut value = schemars::schema_for!(T).to_value();
    if let Value::Object(map) = &mut value {
        if map.get("$schema").and_then(Value::as_str).is_some_and(|s| s.contains("2020-12")) {
            map.remove("$schema");
        }
        map.remove("title");
    }
    value
}

struct TypedHandler<F, A> {
    f: F,
    _args: std::marker::PhantomData<fn(A)>,
}

impl<F, A, Fut, O> ToolHandler for TypedHandler<F, A>
where
    F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
    A: DeserializeOwned + Send + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    O: IntoToolResult + 'static,
{
    fn call(
        &self,
        arguments: Value,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<CallToolResult, ToolError>> {
        match serde_json::from_value::<A>(arguments) {
            Ok(args) => {
                let fut = (self.f)(args, ctx);
                Box::pin(async move { fut.await?.into_tool_result() })
            }
            // The schema accepted what the Rust type does not: still the
            // caller's input, so an execution error the model can read.
            Err(e) => Box::pin(async move { Err(ToolError::new(format!("Invalid arguments: {e}"))) }),
        }
    }
}

struct RawHandler<F>(F);

impl<F, Fut> ToolHandler for RawHandler<F>
where
    F: Fn(Value, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
{
    fn call(
        &self,
        arguments: Value,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<CallToolResult, ToolError>> {
        Box::pin((self.0)(arguments, ctx))
    }
}

/// A tool: its wire definition and its handler. Register it with
/// [`ServerBuilder::tool`](crate::ServerBuilder::tool) or at run time with
/// [`Server::add_tool`](crate::Server::add_tool).
pub struct Tool {
    pub(crate) def: switchboard_types::Tool,
    pub(crate) handler: Option<Arc<dyn ToolHandler>>,
    pub(crate) scopes: Vec<String>,
    /// Tower layers around the handler, applied at registration.
    pub(crate) layers: Vec<crate::tools::layer::PendingToolLayer>,
    /// Whether calls may run as tasks (Tasks extension).
    pub(crate) task_support: crate::tasks::TaskSupport,
    /// The handler starts the task itself ([`RequestContext::start_task`]).
    pub(crate) task_started_by_handler: bool,
    /// Schemas set by hand, which a typed handler must not overwrite (and
    /// which are compiled at registration; derived ones on first use).
    pub(crate) explicit_input: bool,
    pub(crate) explicit_output: bool,
    /// MCP Apps: the view linkage set with [`Tool::ui`] and
    /// [`Tool::visibility`] (an empty URI until `ui` is called), written
    /// into `_meta` again at registration so a later [`Tool::meta`] keeps it.
    pub(crate) ui: Option<ToolUi>,
    /// Made by [`Tool::from_definition`]: a definition written elsewhere is
    /// passed on as given, and the MCP Apps rules (`tools/entry.rs`) check only
    /// what this server declares ([`Tool::ui`]).
    pub(crate) as_given: bool,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool").field("def", &self.def).finish_non_exhaustive()
    }
}

impl Tool {
    /// A tool with this name, no arguments and no handler yet.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            def: switchboard_types::Tool {
                name: name.into(),
                title: None,
                description: None,
                input_schema: json!({"type": "object", "additionalProperties": false}),
                output_schema: None,
                annotations: None,
                icons: None,
                execution: None,
                meta: None,
            },
            handler: None,
            scopes: Vec::new(),
            layers: Vec::new(),
            task_support: crate::tasks::TaskSupport::Forbidden,
            task_started_by_handler: false,
            explicit_input: false,
            explicit_output: false,
            ui: None,
            as_given: false,
        }
    }

    /// A tool with this wire definition (schemas, annotations, …) and no
    /// handler yet: for tools described elsewhere, e.g. by a proxied
    /// server. Its schemas are kept even if a typed handler is set later.
    pub fn from_definition(def: switchboard_types::Tool) -> Self {
        let explicit_output = def.output_schema.is_some();
        Self { def, explicit_input: true, explicit_output, as_given: true, ..Self::new("") }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// The wire definition as it stands.
    pub fn definition(&self) -> &switchboard_types::Tool {
        &self.def
    }

    crate::setters::metadata_setters!();

    /// Behaviour hints (sent to 2025-03-26 and later clients).
    #[must_use]
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.def.annotations = Some(annotations);
        self
    }

    /// Marks the tool read-only (`readOnlyHint: true`).
    #[must_use]
    pub fn read_only(mut self) -> Self {
        self.def.annotations.get_or_insert_with(Default::default).read_only_hint = Some(true);
        self
    }

    /// Replaces the input schema (its root must be `type: "object"`). It
    /// wins over the schema a typed [`Tool::handler`] derives, whichever is
    /// called first.
    #[must_use]
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.def.input_schema = schema;
        self.explicit_input = true;
        self
    }

    /// Wraps this tool's handler in a [tower] layer: a timeout, a
    /// concurrency limit, an authorization check, logging, or one of your
    /// own (see [`middleware`](crate::middleware)). The layer's service
    /// takes a [`ToolCall`](crate::middleware::ToolCall) whose arguments
    /// already passed the input schema. Layers added later wrap earlier
    /// ones; `layer` and `handler` may come in either order.
    ///
    /// ```
    /// use std::time::Duration;
    /// use switchboard_server::{RequestContext, Tool};
    ///
    /// let slow = Tool::new("slow")
    ///     .handler(|_: switchboard_server::NoArgs, _: RequestContext| async { Ok("done") })
    ///     .layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(5)))
    ///     .layer(tower::limit::ConcurrencyLimitLayer::new(2));
    /// ```
    ///
    /// [tower]: https://docs.rs/tower
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: tower::Layer<crate::tools::layer::ToolStack> + Send + Sync + 'static,
        L::Service: tower::Service<crate::tools::layer::ToolCall, Response = CallToolResult>
            + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as tower::Service<crate::tools::layer::ToolCall>>::Error:
            Into<crate::tools::layer::BoxError>,
        <L::Service as tower::Service<crate::tools::layer::ToolCall>>::Future: Send + 'static,
    {
        self.layers.push(crate::tools::layer::pending_tool_layer(layer));
        self
    }

    /// Lets calls run as tasks of the Tasks extension
    /// (`io.modelcontextprotocol/tasks`, see [`crate::tasks`]): with
    /// [`TaskSupport::Optional`](crate::TaskSupport::Optional) or
    /// [`Required`](crate::TaskSupport::Required), a 2026-07-28 request that
    /// declares the extension gets a `CreateTaskResult` at once and the
    /// handler runs in the background; its questions park the task in
    /// `input_required`. Registering such a tool on the builder makes the
    /// server offer the extension; one added at run time to a server built
    /// without it runs in place.
    #[must_use]
    pub fn task_support(mut self, support: crate::tasks::TaskSupport) -> Self {
        self.task_support = support;
        self
    }

    /// Like [`Tool::task_support`], but the task starts only when the
    /// handler calls [`RequestContext::start_task`]: before that it runs
    /// in place and may gather input through multi round-trip requests,
    /// after it the request is answered with the task and the handler goes
    /// on in the background.
    #[must_use]
    pub fn task_started_by_handler(mut self, support: crate::tasks::TaskSupport) -> Self {
        self.task_support = support;
        self.task_started_by_handler = true;
        self
    }

    /// Replaces the output schema (wins over a derived one, like
    /// [`Tool::input_schema`]).
    #[must_use]
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.def.output_schema = Some(schema);
        self.explicit_output = true;
        self
    }

    /// MCP Apps: the view that renders this tool's results, a `ui://`
    /// resource of this server ([`Resource::ui`](crate::Resource::ui)).
    /// Sets `_meta.ui.resourceUri` and the deprecated flat
    /// `_meta["ui/resourceUri"]` that current hosts still read. A URI
    /// outside `ui://` fails registration; one that no resource or template
    /// of the server serves fails [`ServerBuilder::build`](crate::ServerBuilder::build).
    /// Registering such a tool makes the server offer the extension
    /// `io.modelcontextprotocol/ui`.
    #[must_use]
    pub fn ui(mut self, resource_uri: impl Into<String>) -> Self {
        let visibility = self.ui.take().and_then(|ui| ui.visibility);
        self.ui = Some(ToolUi { resource_uri: resource_uri.into(), visibility });
        self.as_given = false;
        self.write_ui();
        self
    }

    /// MCP Apps: who may call this tool, `_meta.ui.visibility`:
    /// `&[Visibility::App]` for a tool only its view calls (the host keeps
    /// it from the model), `&[Visibility::Model]` for one the view never
    /// calls. Unset means both. Needs [`Tool::ui`].
    #[must_use]
    pub fn visibility(mut self, visibility: &[Visibility]) -> Self {
        let ui = self.ui.get_or_insert_with(|| ToolUi::new(""));
        ui.visibility = Some(visibility.to_vec());
        self.as_given = false;
        self.write_ui();
        self
    }

    /// Writes the view linkage into `_meta` once it names a view.
    pub(crate) fn write_ui(&mut self) {
        if let Some(ui) = self.ui.as_ref().filter(|ui| !ui.resource_uri.is_empty()) {
            ui.write_into(self.def.meta.get_or_insert_with(Default::default));
        }
    }

    /// Sets a typed handler. `A`'s schema becomes the input schema and `O`'s
    /// (if it has one, as [`Json<T>`] does) the output schema, unless they
    /// were set by hand.
    #[must_use]
    pub fn handler<F, A, Fut, O>(mut self, f: F) -> Self
    where
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        A: DeserializeOwned + JsonSchema + Send + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
        O: IntoToolResult + 'static,
    {
        if !self.explicit_input {
            self.def.input_schema = schema_of::<A>();
        }
        if !self.explicit_output
            && let Some(schema) = O::output_schema()
        {
            self.def.output_schema = Some(schema);
        }
        self.handler = Some(Arc::new(TypedHandler { f, _args: std::marker::PhantomData }));
        self
    }

    /// Sets an untyped handler that receives the validated arguments as a
    /// JSON object; the schemas are whatever [`Tool::input_schema`] and
    /// [`Tool::output_schema`] set.
    #[must_use]
    pub fn raw_handler<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Value, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
    {
        self.handler = Some(Arc::new(RawHandler(f)));
        self
    }
}
