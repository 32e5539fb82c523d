//! Logs on stderr, and with the `otel` feature, the `mcp.request` spans
//! exported over OTLP/HTTP when the standard OpenTelemetry variables name a
//! collector (`OTEL_EXPORTER_OTLP_ENDPOINT`, or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; `OTEL_SERVICE_NAME` defaults to
//! `switchboard`). Nothing is exported, and no exporter thread started, without
//! them. Logs keep their own filter (`SWITCHBOARD_LOG`, default `warn`); the
//! exporter takes the framework's INFO spans whatever that filter says.
//!
//! The feature also turns on switchboard-server's `otel`: a request whose
//! `_meta` carries W3C `traceparent` / `tracestate` / `baggage` gets the
//! host's span as the parent of its `mcp.request` span, through the
//! `tracing-opentelemetry` layer installed here, so the exported spans
//! continue the host's trace instead of starting their own.

use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{EnvFilter, Layer as _};

/// Flushes exported spans when dropped (at the end of `main`).
pub(crate) struct Telemetry {
    #[cfg(feature = "otel")]
    provider: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        #[cfg(feature = "otel")]
        if let Some(provider) = self.provider.take()
            && let Err(e) = provider.shutdown()
        {
            eprintln!("switchboard: could not flush OpenTelemetry spans: {e}");
        }
    }
}

/// Installs the global subscriber.
pub(crate) fn init() -> Telemetry {
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_filter(EnvFilter::try_from_env("SWITCHBOARD_LOG").unwrap_or_else(|_| EnvFilter::new("warn")));
    #[cfg(feature = "otel")]
    {
        let (layer, provider) = match otel() {
            Some((layer, provider)) => (Some(layer), Some(provider)),
            None => (None, None),
        };
        tracing_subscriber::registry().with(layer).with(logs).init();
        Telemetry { provider }
    }
    #[cfg(not(feature = "otel"))]
    {
        tracing_subscriber::registry().with(logs).init();
        Telemetry {}
    }
}

#[cfg(feature = "otel")]
type OtelLayer = Box<dyn tracing_subscriber::Layer<tracing_subscriber::Registry> + Send + Sync>;

#[cfg(feature = "otel")]
fn otel() -> Option<(OtelLayer, opentelemetry_sdk::trace::SdkTracerProvider)> {
    use opentelemetry::trace::TracerProvider as _;
    let configured = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if !configured {
        return None;
    }
    let exporter = match opentelemetry_otlp::SpanExporter::builder().with_http().build() {
        Ok(exporter) => exporter,
        Err(e) => {
            eprintln!("switchboard: OpenTelemetry export is off: {e}");
            return None;
        }
    };
    let service = std::env::var("OTEL_SERVICE_NAME").unwrap_or_else(|_| "switchboard".into());
    let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(opentelemetry_sdk::Resource::builder().with_service_name(service).build())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("switchboard")).with_filter(
        tracing_subscriber::filter::Targets::new().with_target("switchboard_server", tracing::Level::INFO),
    );
    Some((Box::new(layer), provider))
}
