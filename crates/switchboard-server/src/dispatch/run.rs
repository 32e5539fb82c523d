//! Run and reply: the future of one admitted request.
//!
//! The future runs the handler (through the server middleware when there
//! is any, within the handler timeout when there is one), drops it when
//! the request is cancelled (and then answers nothing, as the cancellation
//! utility asks), catches its panic (`-32603`), unregisters the request,
//! and serializes its reply once, inside the request's `mcp.request` span.
//! Every answer is a [`Reply`]: the bytes and the [`Outcome`](crate::Outcome)
//! they carry.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use serde_json::value::RawValue;
use switchboard_types::methods::Target;
use switchboard_types::{ErrorObject, RequestId};
use tokio_util::sync::CancellationToken;

use super::Accepted;
use crate::context::RequestContext;
use crate::core::{Core, Handler};
use crate::dispatch::layers::RequestStack;
use crate::dispatch::reply::Reply;
use crate::output::Output;
use crate::params::parse_params;
use crate::registry::{CacheClass, Route, target_in};
use crate::session::Session;

/// One admitted request, as its run needs it: what admission found.
pub(crate) struct Admitted<'a> {
    pub session: &'a Arc<Session>,
    pub id: RequestId,
    pub method: &'a str,
    pub params: Option<&'a RawValue>,
    pub route: Route,
    /// Served in the 2026-07-28 model: its result is decorated.
    pub per_request: bool,
}

/// Run and reply: the future that runs the handler of `request`, drops it
/// when `token` is cancelled, catches its panic, unregisters the request
/// and serializes its reply once, inside the request's span. `layered` is
/// the server's middleware stack, when it has one.
pub(crate) fn run_and_reply(
    core: &Arc<Core>,
    layered: Option<&Arc<RequestStack>>,
    request: Admitted<'_>,
    ctx: RequestContext,
    token: CancellationToken,
) -> Accepted {
    let Admitted { session, id, method, params, route, per_request } = request;
    let params: Option<Box<RawValue>> = params.map(ToOwned::to_owned);
    let core = Arc::clone(core);
    let session = Arc::clone(session);
    // Server middleware, when there is any, sees the method by name.
    let target = core.methods.entry(route).target();
    let layered = layered.map(|stack| crate::dispatch::layers::ThroughLayers {
        stack: RequestStack::clone(stack),
        method: Arc::from(method),
        target,
    });
    let span = request_span(method, &id, target, &ctx, params.as_deref());
    Accepted::Pending(Box::pin(tracing::Instrument::instrument(
        async move {
            let work = core.run_within_timeout(route, &session, &ctx, params, layered);
            let outcome = tokio::select! {
                biased;
                _ = token.cancelled() => None,
                r = AssertUnwindSafe(work).catch_unwind() => Some(r),
            };
            ctx.finish();
            if !session.is_stateless() {
                session.unregister(&id);
            }
            let outcome = outcome
                .map(|r| r.map(|result| crate::input::settle(ctx.input_round().map(Arc::as_ref), result)));
            record_outcome(outcome.as_ref());
            Some(core.reply_to(&id, route, per_request, &ctx, outcome?))
        },
        span,
    )))
}

impl Core {
    /// The handler's work: through the server middleware when there is
    /// any, stopped at the handler timeout when there is one.
    async fn run_within_timeout(
        &self,
        route: Route,
        session: &Arc<Session>,
        ctx: &RequestContext,
        params: Option<Box<RawValue>>,
        layered: Option<crate::dispatch::layers::ThroughLayers>,
    ) -> Result<Output, ErrorObject> {
        let run = async {
            match layered {
                None => self.run(route, session, ctx, params.as_deref()).await,
                Some(layered) => {
                    crate::dispatch::layers::run_layered(
                        layered,
                        route,
                        Arc::clone(session),
                        ctx.clone(),
                        params,
                    )
                    .await
                }
            }
        };
        match self.shared.options.handler_timeout {
            None => run.await,
            Some(limit) => tokio::time::timeout(limit, run).await.unwrap_or_else(|_| {
                Err(ErrorObject::internal(format!(
                    "the request did not finish within {} s and was stopped (handler timeout)",
                    limit.as_secs_f64()
                )))
            }),
        }
    }

    /// The reply to how the handler ended: its result (decorated and given
    /// its cache hints in 2026-07-28), its error, or `-32603` for a panic;
    /// written within the response size cap.
    fn reply_to(
        &self,
        id: &RequestId,
        route: Route,
        per_request: bool,
        ctx: &RequestContext,
        ended: std::thread::Result<Result<Output, ErrorObject>>,
    ) -> Reply {
        let cap = self.shared.options.max_response_size;
        match ended {
            Ok(Ok(output)) => {
                let cache = per_request.then(|| route_cache(self, route, ctx.principal().is_some()));
                self.encode_output(id, output, cache)
            }
            Ok(Err(error)) => Reply::error_within(id, &error, cap),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                tracing::error!(%id, panic = %what, "handler panicked");
                Reply::error(Some(id), &ErrorObject::internal("the handler panicked"))
            }
        }
    }

    /// The reply to a handler's result. `per_request_cache` is set for
    /// 2026-07-28 requests only (their results are decorated): what the
    /// route's results may be cached for.
    fn encode_output(&self, id: &RequestId, output: Output, per_request_cache: Option<RouteCache>) -> Reply {
        let tool_error = output.is_tool_error();
        let cap = self.shared.options.max_response_size;
        match (output, per_request_cache) {
            (Output::Map(mut result), Some(cache)) => {
                self.decorate_per_request(&mut result, cache);
                Reply::result_within(id, &result, tool_error, cap)
            }
            (Output::Map(result), None) => Reply::result_within(id, &result, tool_error, cap),
            (Output::Raw(result), Some(cache)) => {
                Reply::raw_result_within(id, &self.decorate_per_request_raw(result, cache), cap)
            }
            (Output::Raw(result), None) => Reply::raw_result_within(id, &result, cap),
            (Output::InputRequired(mut result), _) => {
                self.decorate_as(&mut result, "input_required", None);
                Reply::result_within(id, &result, false, cap)
            }
            (Output::Task(mut result), _) => {
                self.decorate_as(&mut result, "task", None);
                Reply::result_within(id, &result, false, cap)
            }
        }
    }

    /// Runs the handler of `route`.
    pub(crate) async fn run(
        &self,
        route: Route,
        session: &Arc<Session>,
        ctx: &RequestContext,
        params: Option<&RawValue>,
    ) -> Result<Output, ErrorObject> {
        match &self.methods.entry(route).handler {
            Handler::Core(handler) => handler(self, session, ctx, params).await,
            Handler::App(handler) => {
                let handler = Arc::clone(handler);
                handler.call(parse_params(params)?, ctx.clone()).await.map(Output::Map)
            }
        }
    }
}

/// The `mcp.request` span of one request (OpenTelemetry-style names): its
/// method and id, what it names (tool, prompt, resource URI), the caller's
/// principal, and (recorded when it ends) its outcome. With the `otel`
/// feature, the trace context of the request's `_meta` becomes its parent.
/// Disabled spans (the usual case without a subscriber at INFO) cost a check
/// and nothing else.
fn request_span(
    method: &str,
    id: &RequestId,
    target: Option<Target>,
    ctx: &RequestContext,
    params: Option<&RawValue>,
) -> tracing::Span {
    let span = tracing::info_span!(
        "mcp.request",
        mcp.method = method,
        mcp.id = %id,
        mcp.target = tracing::field::Empty,
        mcp.principal = tracing::field::Empty,
        mcp.outcome = tracing::field::Empty,
        mcp.error_code = tracing::field::Empty,
    );
    if span.is_disabled() {
        return span;
    }
    if let Some(principal) = ctx.principal() {
        span.record("mcp.principal", principal.subject.as_str());
    }
    if let Some(target) = target.and_then(|target| target_in(params, target)) {
        span.record("mcp.target", target.as_str());
    }
    #[cfg(feature = "otel")]
    if let Some(trace) = ctx.trace_context() {
        crate::trace_context::continue_trace(&span, trace);
    }
    span
}

/// Records how the current request ended on its span, and logs it at DEBUG.
fn record_outcome(outcome: Option<&std::thread::Result<Result<Output, ErrorObject>>>) {
    let span = tracing::Span::current();
    let (what, code) = match outcome {
        None => ("cancelled", None),
        Some(Err(_)) => ("panic", None),
        Some(Ok(Err(error))) => ("error", Some(error.code.0)),
        Some(Ok(Ok(output))) if output.is_tool_error() => ("tool_error", None),
        Some(Ok(Ok(_))) => ("ok", None),
    };
    if !span.is_disabled() {
        span.record("mcp.outcome", what);
        if let Some(code) = code {
            span.record("mcp.error_code", code);
        }
    }
    tracing::debug!(outcome = what, code, "request finished");
}

/// How long, and for whom, a route's results may be cached (when at all).
type RouteCache = Option<(std::time::Duration, switchboard_types::lifecycle::CacheScope)>;

fn route_cache(core: &Core, route: Route, authenticated: bool) -> RouteCache {
    use switchboard_types::lifecycle::CacheScope;
    let o = &core.shared.options;
    // The registry row says which results are cacheable (2026-07-28
    // `server/utilities/caching.mdx`).
    // For an authenticated caller lists and reads depend on its scopes, so
    // they may be cached for that caller only; discovery never does.
    let scope = if authenticated { CacheScope::Private } else { CacheScope::Public };
    match core.methods.entry(route).cache? {
        CacheClass::Discovery => Some((o.discover_ttl, CacheScope::Public)),
        CacheClass::List => Some((o.list_ttl, scope)),
        CacheClass::Read => Some((o.read_ttl, scope)),
    }
}
