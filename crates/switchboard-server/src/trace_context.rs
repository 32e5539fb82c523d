//! W3C trace context carried in a request's `_meta`: `traceparent`,
//! `tracestate` and `baggage`.
//!
//! The 2026-07-28 revision reserves these three keys for OpenTelemetry
//! context propagation (`basic/index.mdx` §`_meta`, "OpenTelemetry trace
//! context"): their values follow W3C Trace Context and W3C Baggage. Hosts
//! send them with earlier revisions too, since every request's params may
//! carry `_meta`, so the dispatcher reads them for every request, from the
//! `_meta` it already parses for the progress token and the protocol
//! version, whatever the transport.
//!
//! The framework does not depend on OpenTelemetry: the values are kept, as
//! sent, on the [`RequestContext`](crate::RequestContext). With the `otel`
//! feature the dispatcher also makes them the parent of the request's
//! `mcp.request` span (W3C propagators of `opentelemetry_sdk`, then
//! `tracing_opentelemetry`'s `set_parent`), so a host's trace continues
//! through the server when the subscriber exports spans through a
//! `tracing_opentelemetry` layer. They are the client's words, not facts: an
//! invalid `traceparent` is ignored (the span starts a new trace), never an
//! error.

use switchboard_types::head::{MetaView, json_str};
pub use switchboard_types::meta::{BAGGAGE, TRACEPARENT, TRACESTATE};

/// The trace context a request's `_meta` carried, unvalidated (see
/// [`RequestContext::trace_context`](crate::RequestContext::trace_context)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceContext {
    traceparent: Option<String>,
    tracestate: Option<String>,
    baggage: Option<String>,
}

impl TraceContext {
    /// The string values of the three keys; `None` when `_meta` has none of
    /// them (values that are not strings are not trace context).
    pub(crate) fn from_meta(meta: &MetaView<'_>) -> Option<Self> {
        let text = |raw| json_str(raw).map(std::borrow::Cow::into_owned);
        let found = Self {
            traceparent: text(meta.traceparent),
            tracestate: text(meta.tracestate),
            baggage: text(meta.baggage),
        };
        (found != Self::default()).then_some(found)
    }

    /// `_meta.traceparent`, as sent.
    pub fn traceparent(&self) -> Option<&str> {
        self.traceparent.as_deref()
    }

    /// `_meta.tracestate`, as sent.
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }

    /// `_meta.baggage`, as sent.
    pub fn baggage(&self) -> Option<&str> {
        self.baggage.as_deref()
    }
}

#[cfg(feature = "otel")]
mod otel {
    use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
    use opentelemetry::trace::TraceContextExt as _;
    use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;

    use super::{BAGGAGE, TRACEPARENT, TRACESTATE, TraceContext};

    /// The propagators read `_meta` as they would read HTTP headers.
    impl Extractor for TraceContext {
        fn get(&self, key: &str) -> Option<&str> {
            match key {
                TRACEPARENT => self.traceparent(),
                TRACESTATE => self.tracestate(),
                BAGGAGE => self.baggage(),
                _ => None,
            }
        }

        fn keys(&self) -> Vec<&str> {
            [TRACEPARENT, TRACESTATE, BAGGAGE].into_iter().filter(|k| self.get(k).is_some()).collect()
        }
    }

    /// Makes the caller's span (with its trace state and baggage) the parent
    /// of `span`, which must not have been entered yet. An invalid
    /// `traceparent` leaves the parent as it was; baggage alone is added to
    /// it.
    pub(crate) fn continue_trace(span: &tracing::Span, trace: &TraceContext) {
        let remote = TraceContextPropagator::new().extract(trace);
        let joined = remote.span().span_context().is_valid();
        if !joined && trace.baggage().is_none() {
            return;
        }
        let base = if joined { remote } else { current_context() };
        let parent = BaggagePropagator::new().extract_with_context(&base, trace);
        if let Err(e) = span.set_parent(parent) {
            // No OpenTelemetry layer in the subscriber: nothing to continue.
            tracing::trace!(error = %e, "trace context not applied");
        }
    }

    /// The parent the span would have had: the current span's context, or
    /// the attached OpenTelemetry context when no span is current.
    fn current_context() -> opentelemetry::Context {
        let current = tracing::Span::current();
        if current.is_none() { opentelemetry::Context::current() } else { current.context() }
    }
}

#[cfg(feature = "otel")]
pub(crate) use otel::continue_trace;

#[cfg(test)]
mod tests {
    use serde_json::json;
    use serde_json::value::RawValue;
    use switchboard_types::head::ParamsHead;

    use super::*;

    /// The trace context of params whose `_meta` is `meta`.
    fn of(meta: serde_json::Value) -> Option<TraceContext> {
        let params = RawValue::from_string(json!({ "_meta": meta }).to_string()).unwrap();
        TraceContext::from_meta(&ParamsHead::read(Some(&params)).unwrap().meta)
    }

    #[test]
    fn string_values_of_the_three_keys_are_kept() {
        let t = of(json!({"traceparent": "tp", "baggage": "k=v", "other": 1})).unwrap();
        assert_eq!((t.traceparent(), t.tracestate(), t.baggage()), (Some("tp"), None, Some("k=v")));
    }

    #[test]
    fn meta_without_string_trace_keys_has_no_trace_context() {
        assert_eq!(of(json!({"progressToken": 1})), None);
        assert_eq!(of(json!({"traceparent": 5, "baggage": null})), None);
    }
}
