//! Logs on stderr, and with the `otel` feature, the `mcp.request` spans
//! exported over OTLP/HTTP when the standard OpenTelemetry variables name a
//! collector (`OTEL_EXPORTER_OTLP_ENDPOINT`, or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; `OTEL_SERVICE_NAME` defaults to
//! `switchboard`). Nothing is exported, and no exporter thread started, without
//! them. Logs keep their own filter (`SWITCHBOARD_LOG`, default `warn`); the
//! exporter takes the framework's INFO spans whatever that filter says.
//!
//! A bare level in `SWITCHBOARD_LOG` (`debug`) is about switchboard: it
//! applies to the `switchboard*` targets, while every dependency (hyper, h2,
//! reqwest, rustls, redis…) stays at `warn`, so `debug` shows our lines and
//! not hundreds of lines of connection internals. A directive that names a
//! target (`hyper=debug`, `debug,h2=trace`) is kept as written.
//!
//! The feature also turns on switchboard-server's `otel`: a request whose
//! `_meta` carries W3C `traceparent` / `tracestate` / `baggage` gets the
//! host's span as the parent of its `mcp.request` span, through the
//! `tracing-opentelemetry` layer installed here, so the exported spans
//! continue the host's trace instead of starting their own.

use tracing_subscriber::filter::LevelFilter;
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
        .with_filter(log_filter(std::env::var("SWITCHBOARD_LOG").ok().as_deref()));
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

/// Dependencies log at this level unless a directive names them.
const DEPENDENCY_LEVEL: LevelFilter = LevelFilter::WARN;

/// The log filter for `SWITCHBOARD_LOG` (`None`, empty or unparsable: `warn`).
fn log_filter(spec: Option<&str>) -> EnvFilter {
    let spec = spec.map(str::trim).filter(|s| !s.is_empty());
    spec.and_then(|s| EnvFilter::try_new(own_levels(s)).ok()).unwrap_or_else(|| EnvFilter::new("warn"))
}

/// Rewrites every bare level of `spec` into a `switchboard=LEVEL` directive
/// (a target matches by prefix, so it covers `switchboard_server`,
/// `switchboard_http`, …) after a default of `warn` for everything else;
/// a bare level quieter than `warn` (`error`, `off`) lowers that default too.
fn own_levels(spec: &str) -> String {
    let mut default = DEPENDENCY_LEVEL;
    let mut directives = Vec::new();
    for directive in spec.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        match directive.parse::<LevelFilter>() {
            Ok(level) => {
                default = default.min(level);
                directives.push(format!("switchboard={level}"));
            }
            Err(_) => directives.push(directive.to_owned()),
        }
    }
    std::iter::once(default.to_string()).chain(directives).collect::<Vec<_>>().join(",")
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

#[cfg(test)]
mod tests {
    use super::own_levels;

    #[test]
    fn a_bare_level_is_switchboards_and_dependencies_stay_at_warn() {
        assert_eq!(own_levels("debug"), "warn,switchboard=debug");
        assert_eq!(own_levels("TRACE"), "warn,switchboard=trace");
    }

    #[test]
    fn named_targets_are_kept_as_written() {
        assert_eq!(own_levels("debug,hyper=trace"), "warn,switchboard=debug,hyper=trace");
        assert_eq!(own_levels("hyper=debug"), "warn,hyper=debug");
    }

    #[test]
    fn a_quieter_bare_level_lowers_everything() {
        assert_eq!(own_levels("error"), "error,switchboard=error");
        assert_eq!(own_levels("off"), "off,switchboard=off");
    }
}
