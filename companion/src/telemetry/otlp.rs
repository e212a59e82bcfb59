//! OpenTelemetry export of the spans over OTLP/HTTP (the `otlp` feature).
