//! What operators see of the companion: the log (text or JSON lines), the request id, W3C
//! trace context, and (with the `otlp` feature) OpenTelemetry export of the spans.

mod context;
#[cfg(feature = "otlp")]
mod otlp;
mod traceparent;

pub use context::{
    carry, current, new_request_id, scope, usable_request_id, RequestContext, MAX_REQUEST_ID,
    REQUEST_ID,
};
pub use traceparent::{TraceParent, TRACEPARENT};

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// How log lines are written (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines (colours on a terminal).
    #[default]
    Text,
    /// One JSON object per line: `timestamp`, `level`, `target`, the event's fields and the
    /// request's span (`request_id`, `method`, `route`).
    Json,
}

/// What the process's telemetry needs at exit: spans still to export are flushed.
#[must_use = "dropping it flushes the spans; keep it until the process ends"]
pub struct Telemetry {
    #[cfg(feature = "otlp")]
    otlp: Option<otlp::Exporter>,
}

impl Telemetry {
    /// Sends the spans still buffered (with `--otlp-endpoint`); a no-op otherwise.
    pub fn shutdown(self) {
        #[cfg(feature = "otlp")]
        if let Some(exporter) = self.otlp {
            exporter.shutdown();
        }
    }
}

/// Where spans go with the `otlp` feature: an OTLP/HTTP endpoint (`--otlp-endpoint`).
#[derive(Debug, Clone, Default)]
pub struct TraceExport {
    /// The collector's base address, e.g. `http://127.0.0.1:4318` (spans go to `/v1/traces`).
    pub endpoint: Option<url::Url>,
}

/// Installs the process's subscriber: `RUST_LOG` (default `info`) filters, lines go to stderr
/// in `format`; with `export.endpoint` (and the `otlp` feature) spans are exported too.
pub fn init(format: LogFormat, export: &TraceExport) -> Result<Telemetry, String> {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let fmt = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let lines = match format {
        LogFormat::Text => fmt
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .boxed(),
        LogFormat::Json => fmt
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .boxed(),
    };
    let registry = tracing_subscriber::registry().with(filter).with(lines);
    #[cfg(feature = "otlp")]
    {
        let exporter = match &export.endpoint {
            Some(endpoint) => Some(otlp::Exporter::new(endpoint)?),
            None => None,
        };
        let layer = exporter.as_ref().map(otlp::Exporter::layer);
        registry.with(layer).try_init().map_err(|e| e.to_string())?;
        Ok(Telemetry { otlp: exporter })
    }
    #[cfg(not(feature = "otlp"))]
    {
        if export.endpoint.is_some() {
            return Err(
                "--otlp-endpoint needs the companion built with the `otlp` cargo feature".into(),
            );
        }
        registry.try_init().map_err(|e| e.to_string())?;
        Ok(Telemetry {})
    }
}

/// The span of one request: its id, method and route. Its place in the trace is `incoming`
/// continued (or a new trace): with OpenTelemetry export, the exported span's ids.
pub fn request_span(
    request_id: &str,
    method: &'static str,
    route: &'static str,
    incoming: Option<TraceParent>,
) -> (tracing::Span, TraceParent) {
    let span = tracing::info_span!("request", request_id, method, route);
    let own = match incoming {
        Some(parent) => parent.child(),
        None => TraceParent::new_root(),
    };
    #[cfg(feature = "otlp")]
    let own = otlp::link(&span, incoming).unwrap_or(own);
    (span, own)
}

/// The span of one upstream call (`upstream`: identity or api; `call`: which), and the
/// `traceparent` to send with it: the call's own span when spans are exported, else the
/// request's span.
pub fn upstream_span(
    upstream: &'static str,
    call: &'static str,
    request: Option<&RequestContext>,
) -> (tracing::Span, Option<TraceParent>) {
    let span = tracing::info_span!("upstream", upstream, call);
    let parent = request.map(|r| r.trace);
    #[cfg(feature = "otlp")]
    let parent = otlp::span_ids(&span).or(parent);
    (span, parent)
}
