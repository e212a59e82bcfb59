//! The companion's Prometheus metrics (prometheus-client), served on their own address
//! (`--metrics-listen`) in the text format.
//!
//! Every label value comes from a fixed set (routes, outcomes, operations), so the number of
//! series is bounded whatever the clients send.

use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::time::Duration;

/// The `Content-Type` of a scrape (the OpenMetrics text that prometheus-client writes, which
/// Prometheus reads).
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Labels of a request counter.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: &'static str,
    method: &'static str,
    status: u16,
}

/// Labels of a latency histogram.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: &'static str,
}

/// Labels of an upstream call.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct UpstreamLabels {
    upstream: &'static str,
    call: &'static str,
    outcome: &'static str,
}

/// Labels with an outcome only.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: &'static str,
}

/// Labels of a Redis operation.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RedisLabels {
    operation: &'static str,
    outcome: &'static str,
}

/// How an upstream call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallOutcome {
    /// An answer came (whatever its status).
    Ok,
    /// No usable answer: unreachable, a broken connection, an answer too large.
    Error,
    /// Nothing within the upstream timeout.
    Timeout,
}

impl CallOutcome {
    fn label(self) -> &'static str {
        match self {
            CallOutcome::Ok => "ok",
            CallOutcome::Error => "error",
            CallOutcome::Timeout => "timeout",
        }
    }
}

/// How a request for a refresh was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshOutcome {
    /// This request ran the upstream refresh, and the refresh token was rotated.
    Rotated,
    /// It joined a refresh another request had in flight.
    Joined,
    /// It carried a refresh token rotated moments ago, and got that refresh's outcome
    /// (within the grace window).
    Grace,
    /// The identity server refused a refresh token this instance had already rotated: a used
    /// token came back after the grace window (the identity server then ends the session).
    ReuseDetected,
    /// The identity server refused the refresh token (expired, revoked).
    Refused,
    /// The identity server or Redis could not be used.
    Failed,
}

impl RefreshOutcome {
    fn label(self) -> &'static str {
        match self {
            RefreshOutcome::Rotated => "rotated",
            RefreshOutcome::Joined => "joined",
            RefreshOutcome::Grace => "grace",
            RefreshOutcome::ReuseDetected => "reuse_detected",
            RefreshOutcome::Refused => "refused",
            RefreshOutcome::Failed => "failed",
        }
    }
}

/// The metric families, and the registry that writes them.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram>,
    upstream: Family<UpstreamLabels, Counter>,
    upstream_latency: Family<RouteLabels, Histogram>,
    refreshes: Family<OutcomeLabels, Counter>,
    redis: Family<RedisLabels, Counter>,
    sessions_started: Counter,
    sessions_ended: Family<OutcomeLabels, Counter>,
}

fn latency_histogram() -> Histogram {
    // 0.5 ms to about 16 s.
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// Every family, registered under the prefix `companion`.
    pub fn new() -> Self {
        let mut root = Registry::default();
        let registry = root.sub_registry_with_prefix("companion");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "Requests answered, by route, method and status",
            requests.clone(),
        );
        let latency =
            Family::<RouteLabels, Histogram>::new_with_constructor(latency_histogram as fn() -> _);
        registry.register(
            "http_request_duration_seconds",
            "Time from a request's head to its answer's head, by route",
            latency.clone(),
        );
        let upstream = Family::<UpstreamLabels, Counter>::default();
        registry.register(
            "upstream_requests",
            "Calls to the identity server and the resource API, by call and outcome (ok, error, timeout)",
            upstream.clone(),
        );
        let upstream_latency =
            Family::<RouteLabels, Histogram>::new_with_constructor(latency_histogram as fn() -> _);
        registry.register(
            "upstream_request_duration_seconds",
            "Time of a call to the identity server or the resource API, by upstream (as route)",
            upstream_latency.clone(),
        );
        let refreshes = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "refreshes",
            "Refresh requests by outcome (rotated, joined, grace, reuse_detected, refused, failed)",
            refreshes.clone(),
        );
        let redis = Family::<RedisLabels, Counter>::default();
        registry.register(
            "redis_operations",
            "Redis commands by operation and outcome (ok, error, timeout)",
            redis.clone(),
        );
        let sessions_started = Counter::default();
        registry.register(
            "sessions_started",
            "Sessions begun by a code exchange that granted a refresh token",
            sessions_started.clone(),
        );
        let sessions_ended = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "sessions_ended",
            "Sessions ended: signed out, or refused by the identity server",
            sessions_ended.clone(),
        );
        Self {
            registry: root,
            requests,
            latency,
            upstream,
            upstream_latency,
            refreshes,
            redis,
            sessions_started,
            sessions_ended,
        }
    }

    /// Counts an answered request and its latency.
    pub fn request(&self, route: &'static str, method: &'static str, status: u16, took: Duration) {
        self.requests
            .get_or_create(&RequestLabels {
                route,
                method,
                status,
            })
            .inc();
        self.latency
            .get_or_create(&RouteLabels { route })
            .observe(took.as_secs_f64());
    }

    /// Counts an upstream call (`upstream`: `identity` or `api`; `call`: which endpoint).
    pub fn upstream(
        &self,
        upstream: &'static str,
        call: &'static str,
        outcome: CallOutcome,
        took: Duration,
    ) {
        self.upstream
            .get_or_create(&UpstreamLabels {
                upstream,
                call,
                outcome: outcome.label(),
            })
            .inc();
        self.upstream_latency
            .get_or_create(&RouteLabels { route: upstream })
            .observe(took.as_secs_f64());
    }

    /// Counts a refresh request's outcome.
    pub fn refresh(&self, outcome: RefreshOutcome) {
        self.refreshes
            .get_or_create(&OutcomeLabels {
                outcome: outcome.label(),
            })
            .inc();
        if matches!(
            outcome,
            RefreshOutcome::Refused | RefreshOutcome::ReuseDetected
        ) {
            self.session_ended("refused");
        }
    }

    /// Counts a Redis command (`operation`: what it was for).
    pub fn redis(&self, operation: &'static str, outcome: CallOutcome) {
        self.redis
            .get_or_create(&RedisLabels {
                operation,
                outcome: outcome.label(),
            })
            .inc();
    }

    /// Counts a session begun.
    pub fn session_started(&self) {
        self.sessions_started.inc();
    }

    /// Counts a session ended (`reason`: `signed_out` or `refused`).
    pub fn session_ended(&self, reason: &'static str) {
        self.sessions_ended
            .get_or_create(&OutcomeLabels { outcome: reason })
            .inc();
    }

    /// The scrape: every family in the text format.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}

/// A label value for an HTTP method from the fixed set (`other` for the rest).
pub fn method_label(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::OPTIONS => "OPTIONS",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scrape_names_every_family_with_its_labels() {
        let metrics = Metrics::new();
        metrics.request("/auth/refresh", "POST", 200, Duration::from_millis(3));
        metrics.upstream(
            "identity",
            "token",
            CallOutcome::Timeout,
            Duration::from_secs(1),
        );
        metrics.refresh(RefreshOutcome::Joined);
        metrics.redis("claim", CallOutcome::Error);
        let text = metrics.encode();
        for line in [
            "companion_http_requests_total{route=\"/auth/refresh\",method=\"POST\",status=\"200\"} 1",
            "companion_upstream_requests_total{upstream=\"identity\",call=\"token\",outcome=\"timeout\"} 1",
            "companion_refreshes_total{outcome=\"joined\"} 1",
            "companion_redis_operations_total{operation=\"claim\",outcome=\"error\"} 1",
            "companion_http_request_duration_seconds_count{route=\"/auth/refresh\"} 1",
        ] {
            assert!(text.contains(line), "{line} missing from:\n{text}");
        }
    }
}
