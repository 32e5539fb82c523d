//! Prometheus metrics for a [`switchboard_server::Server`]: how many requests each
//! method and each tool served, how many failed and how, and how long they
//! took, in the OpenMetrics text format that Prometheus scrapes.
//!
//! Why a layer: [`Metrics::layer`] is an ordinary server layer
//! ([`ServerBuilder::layer`](switchboard_server::ServerBuilder::layer)), so servers
//! without metrics pay nothing, and the same numbers are kept whatever the
//! transport. `switchboard-http` serves [`Metrics::render`] at `/metrics`
//! (`HttpOptions::metrics`); anything else can call it.
//!
//! | metric | labels | what |
//! |---|---|---|
//! | `mcp_requests_total` | `method`, `name`, `outcome` | requests answered: `ok`, `error` (a JSON-RPC error) or `tool_error` (a `tools/call` result with `isError`) |
//! | `mcp_request_duration_seconds` | `method`, `name` | histogram of the time from dispatch to answer |
//!
//! `name` is the tool of a `tools/call` and the prompt of a `prompts/get`
//! (bounded sets the server registered); it is empty for other methods, so
//! resource URIs never become label values.
//!
//! ```
//! use switchboard_server::Server;
//! let metrics = switchboard_metrics::Metrics::new();
//! let server = Server::builder("s", "1").layer(metrics.layer()).build().unwrap();
//! // Nothing counted yet: an empty exposition, ready for Prometheus.
//! assert!(metrics.render().ends_with("# EOF\n"));
//! # drop(server);
//! ```

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use switchboard_server::middleware::{BoxError, Request, Response};
use switchboard_server::types::methods::Target as MethodTarget;
use tower::{Layer, Service};

/// The OpenMetrics content type of [`Metrics::render`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// How a request ended.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
enum Outcome {
    ok,
    error,
    tool_error,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Outcomes {
    method: String,
    name: String,
    outcome: Outcome,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Target {
    method: String,
    name: String,
}

fn latency_histogram() -> Histogram {
    // 50 µs … ~1.6 s: in-process tools answer in microseconds, commands
    // and network tools in seconds.
    Histogram::new(exponential_buckets(0.000_05, 2.0, 16))
}

/// A server's request metrics and their registry.
pub struct Metrics {
    registry: Registry,
    requests: Family<Outcomes, Counter>,
    latency: Family<Target, Histogram, fn() -> Histogram>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// Empty metrics, registered in a registry of their own.
    pub fn new() -> Arc<Self> {
        let mut registry = Registry::default();
        let requests = Family::<Outcomes, Counter>::default();
        let latency = Family::<Target, Histogram, fn() -> Histogram>::new_with_constructor(latency_histogram);
        registry.register(
            "mcp_requests",
            "MCP requests answered, by method, tool or prompt name, and outcome",
            requests.clone(),
        );
        registry.register(
            "mcp_request_duration_seconds",
            "Time from dispatch to answer, by method and tool or prompt name",
            latency.clone(),
        );
        Arc::new(Self { registry, requests, latency })
    }

    /// The layer that counts and times every request the server answers.
    pub fn layer(self: &Arc<Self>) -> MetricsLayer {
        MetricsLayer { metrics: Arc::clone(self) }
    }

    /// Everything, in the OpenMetrics text format.
    pub fn render(&self) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)
            .expect("writing to a String does not fail");
        text
    }

    fn record(&self, method: &str, name: String, outcome: Outcome, seconds: f64) {
        let target = Target { method: method.to_owned(), name };
        self.latency.get_or_create(&target).observe(seconds);
        self.requests.get_or_create(&Outcomes { method: target.method, name: target.name, outcome }).inc();
    }
}

/// Counts and times requests (see [`Metrics::layer`]).
#[derive(Debug, Clone)]
pub struct MetricsLayer {
    metrics: Arc<Metrics>,
}

impl<S> Layer<S> for MetricsLayer {
    type Service = MetricsService<S>;

    fn layer(&self, inner: S) -> MetricsService<S> {
        MetricsService { inner, metrics: Arc::clone(&self.metrics) }
    }
}

/// The service of [`MetricsLayer`].
#[derive(Debug, Clone)]
pub struct MetricsService<S> {
    inner: S,
    metrics: Arc<Metrics>,
}

impl<S> Service<Request> for MetricsService<S>
where
    S: Service<Request, Response = Response, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let method = request.method().to_owned();
        // Only names label a request: tool and prompt names are a set the
        // server defines, resource URIs are not (unbounded cardinality).
        let name = match request.target_param() {
            Some(MethodTarget::Name) => request.target().unwrap_or_default(),
            _ => String::new(),
        };
        let metrics = Arc::clone(&self.metrics);
        let started = Instant::now();
        let answer = self.inner.call(request);
        Box::pin(async move {
            let result = answer.await;
            let outcome = match &result {
                Ok(response) if response.is_tool_error() => Outcome::tool_error,
                Ok(_) => Outcome::ok,
                Err(_) => Outcome::error,
            };
            metrics.record(&method, name, outcome, started.elapsed().as_secs_f64());
            result
        })
    }
}
