//! Tool layers: [tower] middleware around one tool's handler
//! ([`Tool::layer`](crate::Tool::layer)), and the error type middleware
//! services share.
//!
//! [tower]: https://docs.rs/tower

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::Value;
use switchboard_types::ErrorObject;
use switchboard_types::tools::CallToolResult;
use tower::util::BoxCloneSyncService;
use tower::{Layer, Service, ServiceExt};

use crate::context::RequestContext;
use crate::tools::handler::{ToolError, ToolHandler};

/// The error type middleware services share (tower's convention).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

pub(crate) type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

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
