//! Middleware as [tower] layers: around one tool ([`Tool::layer`]) or
//! around every request the server answers ([`ServerBuilder::layer`]).
//!
//! Why tower: it is the middleware vocabulary of the Rust server ecosystem
//! (axum, tonic, hyper), so its ready-made layers (`TimeoutLayer`,
//! `ConcurrencyLimitLayer`, `RateLimitLayer`, `AsyncFilterLayer`, the
//! `tower-http`-style tracing layers) work here unchanged, and a layer of
//! your own is a `Service` wrapper of a few lines.
//!
//! - A **tool layer** wraps one tool's handler. Its service takes a
//!   [`ToolCall`] (name, arguments that already passed the input schema,
//!   context) and answers a [`CallToolResult`].
//!   An error it returns becomes the tool's error: a [`ToolError`] (boxed as
//!   [`ToolFailure`]) keeps its kind, an [`ErrorObject`] is a protocol
//!   error, a timeout an execution error saying so, anything else an
//!   execution error with its message.
//! - A **server layer** wraps every request that reaches a method (after
//!   lifecycle, version and rate checks, before the response is encoded):
//!   its service takes a [`Request`] and answers an opaque [`Response`]. An
//!   [`ErrorObject`] it returns is sent as that JSON-RPC error; any other
//!   error is `-32603` with its message.
//!
//! Layers added later wrap the ones added before (the last is outermost),
//! as in axum. A server with no layers pays nothing for this module.
//!
//! Where it sits: above the request context and the handler's shape
//! (`tool_handler.rs`), below the `Tool` builder that takes tool layers and
//! the server that takes server layers. The innermost server service is
//! handed the dispatcher as a `MethodRunner` closure, so this module
//! needs no server.
//!
//! [tower]: https://docs.rs/tower
//! [`Tool::layer`]: crate::Tool::layer
//! [`ServerBuilder::layer`]: crate::ServerBuilder::layer

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::Value;
use serde_json::value::RawValue;
use switchboard_types::ErrorObject;
use switchboard_types::methods::Target;
use switchboard_types::tools::CallToolResult;
use tower::util::BoxCloneSyncService;
use tower::{Layer, Service, ServiceExt};

use crate::context::RequestContext;
use crate::output::Output;
use crate::registry::Route;
use crate::session::Session;
use crate::tool_handler::{ToolError, ToolHandler};

/// The error type middleware services share (tower's convention).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// One call of a tool, as a tool layer sees it.
#[derive(Debug, Clone)]
pub struct ToolCall {
    /// The tool's name.
    pub name: Arc<str>,
    /// The arguments, already checked against the input schema.
    pub arguments: Value,
    /// The request's context (principal, headers, cancellation, progress).
    pub ctx: RequestContext,
}

/// A [`ToolError`] carried through middleware as a [`BoxError`].
#[derive(Debug)]
pub struct ToolFailure(pub ToolError);

impl fmt::Display for ToolFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            ToolError::Execution(message) => f.write_str(message),
            ToolError::Protocol(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for ToolFailure {}

/// The innermost service of a tool: its handler.
#[derive(Clone)]
pub struct ToolService {
    handler: Arc<dyn ToolHandler>,
}

impl fmt::Debug for ToolService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ToolService")
    }
}

impl Service<ToolCall> for ToolService {
    type Response = CallToolResult;
    type Error = BoxError;
    type Future = BoxFuture<Result<CallToolResult, BoxError>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: ToolCall) -> Self::Future {
        let fut = self.handler.call(call.arguments, call.ctx);
        Box::pin(async move { fut.await.map_err(|e| Box::new(ToolFailure(e)) as BoxError) })
    }
}

/// A tool's service with the layers applied so far, boxed.
pub type ToolStack = BoxCloneSyncService<ToolCall, CallToolResult, BoxError>;

/// A tool layer waiting for the tool's handler (applied when the tool is
/// registered, so `layer` and `handler` may come in either order).
pub(crate) type PendingToolLayer = Box<dyn FnOnce(ToolStack) -> ToolStack + Send + Sync>;

/// Boxes `layer` for [`wrap_tool`].
pub(crate) fn pending_tool_layer<L>(layer: L) -> PendingToolLayer
where
    L: Layer<ToolStack> + Send + Sync + 'static,
    L::Service: Service<ToolCall, Response = CallToolResult> + Clone + Send + Sync + 'static,
    <L::Service as Service<ToolCall>>::Error: Into<BoxError>,
    <L::Service as Service<ToolCall>>::Future: Send + 'static,
{
    Box::new(move |inner| BoxCloneSyncService::new(layer.layer(inner).map_err(Into::into)))
}

/// The tool's handler with its layers around it (the first added innermost).
pub(crate) fn wrap_tool(
    name: &str,
    handler: Arc<dyn ToolHandler>,
    layers: Vec<PendingToolLayer>,
) -> Arc<dyn ToolHandler> {
    if layers.is_empty() {
        return handler;
    }
    let mut stack: ToolStack = BoxCloneSyncService::new(ToolService { handler });
    for layer in layers {
        stack = layer(stack);
    }
    Arc::new(Layered { name: Arc::from(name), stack })
}

struct Layered {
    name: Arc<str>,
    stack: ToolStack,
}

impl ToolHandler for Layered {
    fn call(
        &self,
        arguments: Value,
        ctx: RequestContext,
    ) -> futures::future::BoxFuture<'static, Result<CallToolResult, ToolError>> {
        let call = ToolCall { name: Arc::clone(&self.name), arguments, ctx };
        let stack = self.stack.clone();
        Box::pin(async move { stack.oneshot(call).await.map_err(tool_error) })
    }
}

/// What a tool layer's error means to the client.
fn tool_error(error: BoxError) -> ToolError {
    let error = match error.downcast::<ToolFailure>() {
        Ok(failure) => return failure.0,
        Err(other) => other,
    };
    let error = match error.downcast::<ErrorObject>() {
        Ok(object) => return ToolError::Protocol(*object),
        Err(other) => other,
    };
    if error.is::<tower::timeout::error::Elapsed>() {
        return ToolError::new("the tool did not finish in time and was stopped (timeout)");
    }
    ToolError::new(error.to_string())
}

/// One request on its way to its method, as a server layer sees it.
pub struct Request {
    method: Arc<str>,
    params: Option<Box<RawValue>>,
    ctx: RequestContext,
    target: Option<Target>,
    pub(crate) route: Route,
    pub(crate) session: Arc<Session>,
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request").field("method", &self.method).field("params", &self.params).finish()
    }
}

impl Request {
    /// The JSON-RPC method, e.g. `tools/call`.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The raw `params` object, if any.
    pub fn params(&self) -> Option<&RawValue> {
        self.params.as_deref()
    }

    /// The param that names what requests of this method are about
    /// (`name` for a tool or prompt, `uri` for a resource, `taskId` for a
    /// task), as the method's facts say; none for a method without one.
    pub fn target_param(&self) -> Option<Target> {
        self.target
    }

    /// What the request names: the value of its method's
    /// [`target_param`](Self::target_param), when there is one.
    pub fn target(&self) -> Option<String> {
        crate::registry::target_in(self.params.as_deref(), self.target?)
    }

    /// The request's context (principal, headers, protocol version).
    pub fn ctx(&self) -> &RequestContext {
        &self.ctx
    }
}

/// A method's answer on its way back through server layers (opaque: it may
/// be a result already serialized).
pub struct Response(pub(crate) Output);

impl Response {
    /// True for a `tools/call` result that reports a tool error
    /// (`isError: true`): the request succeeded, the tool did not.
    pub fn is_tool_error(&self) -> bool {
        self.0.is_tool_error()
    }
}

impl fmt::Debug for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Response")
    }
}

/// The server's service with the layers applied so far, boxed.
pub type RequestStack = BoxCloneSyncService<Request, Response, BoxError>;

/// A server layer waiting for the server to exist.
pub(crate) struct PendingServerLayer(Box<dyn FnOnce(RequestStack) -> RequestStack + Send + Sync>);

impl fmt::Debug for PendingServerLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Layer")
    }
}

/// Boxes `layer` for [`server_stack`].
pub(crate) fn pending_server_layer<L>(layer: L) -> PendingServerLayer
where
    L: Layer<RequestStack> + Send + Sync + 'static,
    L::Service: Service<Request, Response = Response> + Clone + Send + Sync + 'static,
    <L::Service as Service<Request>>::Error: Into<BoxError>,
    <L::Service as Service<Request>>::Future: Send + 'static,
{
    PendingServerLayer(Box::new(move |inner| {
        BoxCloneSyncService::new(layer.layer(inner).map_err(Into::into))
    }))
}

/// Runs a request's method: the dispatcher, handed in by the server's
/// builder (it holds the server weakly: the server holds the stack), so
/// this module needs no server of its own.
pub(crate) type MethodRunner = Arc<
    dyn Fn(
            Route,
            Arc<Session>,
            RequestContext,
            Option<Box<RawValue>>,
        ) -> BoxFuture<Result<Output, ErrorObject>>
        + Send
        + Sync,
>;

/// The dispatcher with the server's layers around it; `None` without layers.
pub(crate) fn server_stack(run: MethodRunner, layers: Vec<PendingServerLayer>) -> Option<RequestStack> {
    if layers.is_empty() {
        return None;
    }
    let mut stack: RequestStack = BoxCloneSyncService::new(Methods { run });
    for layer in layers {
        stack = (layer.0)(stack);
    }
    Some(stack)
}

/// The innermost server service: runs the method.
#[derive(Clone)]
struct Methods {
    run: MethodRunner,
}

impl Service<Request> for Methods {
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture<Result<Response, BoxError>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let Request { params, ctx, route, session, .. } = request;
        let running = (self.run)(route, session, ctx, params);
        Box::pin(async move {
            match running.await {
                Ok(output) => Ok(Response(output)),
                Err(error) => Err(Box::new(error) as BoxError),
            }
        })
    }
}

/// A request bound for the server's layers: the stack, and what the layers
/// see of the method (its name, and its target param from its facts).
pub(crate) struct ThroughLayers {
    pub stack: RequestStack,
    pub method: Arc<str>,
    pub target: Option<Target>,
}

/// Runs one request through the server's layers.
pub(crate) async fn run_layered(
    ThroughLayers { stack, method, target }: ThroughLayers,
    route: Route,
    session: Arc<Session>,
    ctx: RequestContext,
    params: Option<Box<RawValue>>,
) -> Result<Output, ErrorObject> {
    let request = Request { method, params, ctx, target, route, session };
    match stack.oneshot(request).await {
        Ok(Response(output)) => Ok(output),
        Err(error) => Err(match error.downcast::<ErrorObject>() {
            Ok(object) => *object,
            Err(other) if other.is::<tower::timeout::error::Elapsed>() => {
                ErrorObject::internal("the request did not finish in time and was stopped (timeout)")
            }
            Err(other) => ErrorObject::internal(other.to_string()),
        }),
    }
}
