//! OpenTelemetry export of the spans over OTLP/HTTP (protobuf), with the `otlp` feature: the
//! request and upstream spans go to `{endpoint}/v1/traces` through the SDK's batch processor,
//! and a request's span continues the trace its `traceparent` names.

use super::traceparent::TraceParent;
use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState, TracerProvider as _,
};
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::registry::LookupSpan;

/// The service name the spans carry.
const SERVICE: &str = "fundraising-companion";

/// The exporting tracer provider.
pub(super) struct Exporter {
    provider: SdkTracerProvider,
}

impl Exporter {
    /// An exporter to the collector at `endpoint` (spans go to its `/v1/traces`).
    pub(super) fn new(endpoint: &url::Url) -> Result<Self, String> {
        let traces = format!("{}/v1/traces", endpoint.as_str().trim_end_matches('/'));
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(traces)
            .build()
            .map_err(|e| format!("--otlp-endpoint: {e}"))?;
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(Resource::builder().with_service_name(SERVICE).build())
            .build();
        Ok(Self { provider })
    }

    /// The layer that turns the process's spans into exported ones.
    pub(super) fn layer<S>(&self) -> impl tracing_subscriber::Layer<S>
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    {
        tracing_opentelemetry::layer().with_tracer(self.provider.tracer(SERVICE))
    }

    /// Exports what is buffered and stops.
    pub(super) fn shutdown(self) {
        if let Err(e) = self.provider.shutdown() {
            eprintln!("fundraising-companion: exporting the last spans failed: {e}");
        }
    }
}

/// The ids of `span` as exported (`None` when it is not exported: no exporter, or filtered).
pub(super) fn span_ids(span: &tracing::Span) -> Option<TraceParent> {
    let context = span.context();
    let ids = context.span().span_context().clone();
    ids.is_valid().then(|| TraceParent {
        trace_id: ids.trace_id().to_bytes(),
        span_id: ids.span_id().to_bytes(),
        flags: ids.trace_flags().to_u8(),
    })
}

/// Makes `span` the child of the remote span `incoming` (if any); its exported ids.
pub(super) fn link(span: &tracing::Span, incoming: Option<TraceParent>) -> Option<TraceParent> {
    if let Some(parent) = incoming {
        let remote = SpanContext::new(
            TraceId::from_bytes(parent.trace_id),
            SpanId::from_bytes(parent.span_id),
            TraceFlags::new(parent.flags),
            true,
            TraceState::default(),
        );
        let _ = span.set_parent(opentelemetry::Context::new().with_remote_span_context(remote));
    }
    span_ids(span)
}
