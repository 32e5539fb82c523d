//! Server layers: [tower] middleware around every request the server
//! answers ([`ServerBuilder::layer`](crate::ServerBuilder::layer)), with the
//! server's core as the innermost service.
//!
//! [tower]: https://docs.rs/tower

use std::fmt;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::value::RawValue;
use switchboard_types::ErrorObject;
use switchboard_types::methods::Target;
use tower::util::BoxCloneSyncService;
use tower::{Layer, Service, ServiceExt};

use crate::context::RequestContext;
use crate::core::Core;
use crate::output::Output;
use crate::registry::Route;
use crate::session::Session;
use crate::tools::layer::{BoxError, BoxFuture};

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

/// The dispatcher with the server's layers around it; `None` without layers.
pub(crate) fn server_stack(core: Arc<Core>, layers: Vec<PendingServerLayer>) -> Option<RequestStack> {
    if layers.is_empty() {
        return None;
    }
    let mut stack: RequestStack = BoxCloneSyncService::new(Methods { core });
    for layer in layers {
        stack = (layer.0)(stack);
    }
    Some(stack)
}

/// The innermost server service: runs the method on the server's core.
#[derive(Clone)]
struct Methods {
    core: Arc<Core>,
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
        let core = Arc::clone(&self.core);
        Box::pin(async move {
            match core.run(route, &session, &ctx, params.as_deref()).await {
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
