//! What an operator relies on, against the real sandbox identity server in process and a
//! real `redis-server`: readiness, the Prometheus metrics (read back with a Prometheus
//! text-format parser), request ids and W3C trace context passed to the identity server, and
//! the companion's own answers for unknown `/auth` and `/api` paths.

#[path = "common/mod.rs"]
mod common;

use common::browser::{sign_in, FULL_SCOPE};
use common::redis::RedisServer;
use common::*;
use fundraising_companion::{CookieKey, Secret};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Signs in through `companion`; returns the session cookie (`name=value`).
async fn signed_in(identity: &Identity, companion: &Companion) -> String {
    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let reply = post(companion, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.cookie()
}

fn shared_key() -> CookieKey {
    CookieKey::from_material(b"operations-test-cookie-key-material-0042").expect("key")
}

/// `/readyz` until it answers `status` (it reads a state kept fresh in the background, once a
/// second); the last answer after 10 s otherwise.
async fn readiness(companion: &Companion, status: u16) -> Reply {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let reply = get(companion, "/readyz", None).await;
        if reply.status == status || std::time::Instant::now() > deadline {
            return reply;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn readyz_needs_the_discovery_document_and_redis_and_fails_while_draining() {
    // The identity server cannot be reached: live, not ready.
    let nowhere = start_companion(settings("http://127.0.0.1:9")).await;
    assert_eq!(get(&nowhere, "/healthz", None).await.status, 200);
    let reply = get(&nowhere, "/readyz", None).await;
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert_eq!(
        reply.json(),
        serde_json::json!({"status": "unavailable", "missing": ["discovery"]})
    );

    let mut redis = RedisServer::start();
    let identity = start_identity().await;
    let mut s = settings(&identity.url);
    s.redis_url = Some(Secret::new(redis.url()));
    let companion = start_companion(s).await;
    let ready = readiness(&companion, 200).await;
    assert_eq!(ready.status, 200, "{}", ready.body);
    assert_eq!(ready.json(), serde_json::json!({"status": "ready"}));
    assert_eq!(ready.header("cache-control").as_deref(), Some("no-store"));

    // Redis gone: not ready, and the answer says why.
    redis.kill();
    let reply = readiness(&companion, 503).await;
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert_eq!(reply.json()["missing"], serde_json::json!(["redis"]));
    redis.restart();
    let back = readiness(&companion, 200).await;
    assert_eq!(
        back.status, 200,
        "ready again once Redis is back: {}",
        back.body
    );

    // Draining: 503 at once, whatever else holds.
    companion.state.drain();
    let draining = get(&companion, "/readyz", None).await;
    assert_eq!(draining.status, 503);
    assert_eq!(
        draining.json(),
        serde_json::json!({"status": "draining", "missing": ["draining"]})
    );
    assert_eq!(get(&companion, "/healthz", None).await.status, 200);
}

/// An identity server that accepts connections and never answers (a black hole), counting
/// them.
async fn black_hole() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            held.push(stream);
        }
    });
    (url, accepted)
}

/// 1,000 `/readyz` calls while discovery cannot load (a black-hole identity server) open no
/// connection of their own: discovery is tried by one background attempt at a time, with a
/// growing pause between them; each attempt is counted in the metrics and logged.
#[tokio::test]
async fn readiness_never_calls_the_identity_server_per_request() {
    logs::capture();
    let (url, accepted) = black_hole().await;
    let mut s = settings(&url);
    s.upstream_timeout = Duration::from_millis(300);
    s.metrics = true;
    let (companion, metrics) = start_companion_with_metrics(s).await;
    let metrics = metrics.expect("metrics");
    let started = std::time::Instant::now();
    for _ in 0..20 {
        let batch: Vec<_> = (0..50)
            .map(|_| {
                let url = companion.url().clone();
                tokio::spawn(async move { client().get(format!("{url}/readyz")).send().await })
            })
            .collect();
        for call in batch {
            let reply = call.await.expect("task").expect("readyz");
            assert_eq!(reply.status().as_u16(), 503);
        }
    }
    let took = started.elapsed();
    let dialled = accepted.load(Ordering::SeqCst);
    // One attempt at start, then one after each backoff (250 ms, 500 ms, 1 s, 2 s, ...).
    let most = 4 + took.as_secs() as usize / 2;
    assert!(
        (1..=most).contains(&dialled),
        "1,000 /readyz calls in {took:?} made {dialled} connections to the identity server"
    );
    let (text, parsed) = scrape(&metrics).await;
    let discovery = [("upstream", "identity"), ("call", "discovery")];
    let counted = sample(&parsed, "companion_upstream_requests_total", &discovery);
    assert!(counted >= 1.0 && counted <= dialled as f64, "{text}");
    assert!(
        logs::text().contains("discovery document could not be loaded"),
        "the failed attempts are logged"
    );
}

/// The value of one sample (a histogram's: its count).
fn value_of(value: &prometheus_parse::Value) -> f64 {
    match value {
        prometheus_parse::Value::Counter(v)
        | prometheus_parse::Value::Gauge(v)
        | prometheus_parse::Value::Untyped(v) => *v,
        prometheus_parse::Value::Histogram(buckets) => {
            buckets.iter().map(|b| b.count).fold(0.0, f64::max)
        }
        prometheus_parse::Value::Summary(_) => 0.0,
    }
}

/// The value of the sample `name{labels}` in a parsed scrape (0 when absent).
fn sample(scrape: &prometheus_parse::Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    scrape
        .samples
        .iter()
        .filter(|s| s.metric == name)
        .filter(|s| labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .map(|s| value_of(&s.value))
        .sum()
}

async fn scrape(metrics: &Served) -> (String, prometheus_parse::Scrape) {
    let response = client()
        .get(format!("http://{}/metrics", metrics.addr))
        .send()
        .await
        .expect("scrape");
    assert_eq!(response.status().as_u16(), 200);
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    let text = response.text().await.expect("body");
    let lines = text.lines().map(|l| Ok(l.to_owned()));
    let parsed = prometheus_parse::Scrape::parse(lines).expect("the scrape parses");
    (text, parsed)
}

#[tokio::test]
async fn the_metrics_scrape_parses_and_counts_requests_refreshes_upstream_calls_and_redis() {
    let redis = RedisServer::start();
    // A slow token endpoint, so that concurrent refreshes join the one in flight.
    let identity =
        start_identity_with(|s| s.with_token_delay(Duration::from_millis(400)), None).await;
    let mut s = settings(&identity.url);
    s.cookie_key = shared_key();
    s.redis_url = Some(Secret::new(redis.url()));
    s.refresh_grace = Duration::from_millis(1500);
    s.metrics = true;
    let (companion, metrics) = start_companion_with_metrics(s).await;
    let metrics = metrics.expect("metrics are on");
    let cookie1 = signed_in(&identity, &companion).await;

    // Three tabs refresh at once: one runs the refresh, two join it.
    let tabs: Vec<_> = (0..3)
        .map(|_| {
            let (url, cookie) = (companion.url().clone(), cookie1.clone());
            tokio::spawn(async move { post_to(&url, "/auth/refresh", None, Some(&cookie)).await })
        })
        .collect();
    let mut cookie2 = String::new();
    for tab in tabs {
        let reply = tab.await.expect("tab");
        assert_eq!(reply.status, 200, "{}", reply.body);
        cookie2 = reply.cookie();
    }
    // A late tab with the old cookie, within the grace window.
    let late = post(&companion, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(late.status, 200, "{}", late.body);
    // After the window (the companion's clock moved past it: the outcome's sealed expiry has
    // passed) the used token goes to the identity server, which refuses it (and ends the
    // session): reuse detected.
    companion
        .state
        .settings()
        .clock
        .advance(Duration::from_millis(1700));
    let reused = post(&companion, "/auth/refresh", None, Some(&cookie1)).await;
    assert_eq!(reused.status, 401, "{}", reused.body);
    let ended = post(&companion, "/auth/refresh", None, Some(&cookie2)).await;
    assert_eq!(ended.status, 401, "the chain is revoked: {}", ended.body);
    assert_eq!(get(&companion, "/healthz", None).await.status, 200);

    let (text, parsed) = scrape(&metrics).await;
    let requests = "companion_http_requests_total";
    let refresh_200 = [
        ("route", "/auth/refresh"),
        ("method", "POST"),
        ("status", "200"),
    ];
    assert_eq!(sample(&parsed, requests, &refresh_200), 4.0, "{text}");
    let refresh_401 = [("route", "/auth/refresh"), ("status", "401")];
    assert_eq!(sample(&parsed, requests, &refresh_401), 2.0, "{text}");
    let token_200 = [("route", "/auth/token"), ("status", "200")];
    assert_eq!(sample(&parsed, requests, &token_200), 1.0, "{text}");
    assert_eq!(
        sample(
            &parsed,
            requests,
            &[("route", "/healthz"), ("method", "GET")]
        ),
        1.0
    );
    assert_eq!(
        sample(
            &parsed,
            "companion_http_request_duration_seconds_count",
            &[("route", "/auth/refresh")]
        ),
        6.0,
        "{text}"
    );
    let refreshes = "companion_refreshes_total";
    for (outcome, count) in [
        ("rotated", 1.0),
        ("joined", 2.0),
        ("grace", 1.0),
        ("reuse_detected", 1.0),
        ("refused", 1.0),
    ] {
        assert_eq!(
            sample(&parsed, refreshes, &[("outcome", outcome)]),
            count,
            "{outcome}: {text}"
        );
    }
    let upstream = "companion_upstream_requests_total";
    let token_ok = [
        ("upstream", "identity"),
        ("call", "token"),
        ("outcome", "ok"),
    ];
    // The exchange, the refresh, the reused token and the revoked chain's.
    assert_eq!(sample(&parsed, upstream, &token_ok), 4.0, "{text}");
    assert_eq!(
        sample(
            &parsed,
            upstream,
            &[("call", "discovery"), ("outcome", "ok")]
        ),
        1.0
    );
    let redis_ok = [("operation", "claim"), ("outcome", "ok")];
    assert!(
        sample(&parsed, "companion_redis_operations_total", &redis_ok) >= 3.0,
        "{text}"
    );
    assert_eq!(
        sample(&parsed, "companion_sessions_started_total", &[]),
        1.0
    );

    // A timed-out upstream call is counted as such.
    let slow = start_identity_with(|s| s.with_token_delay(Duration::from_millis(1500)), None).await;
    let mut s = settings(&slow.url);
    s.upstream_timeout = Duration::from_millis(300);
    s.metrics = true;
    let (impatient, impatient_metrics) = start_companion_with_metrics(s).await;
    let signed = sign_in(&slow.url, FULL_SCOPE).await;
    let reply = post(&impatient, "/auth/token", Some(&token_body(&signed)), None).await;
    assert_eq!(reply.error(), "upstream_timeout");
    let (text, parsed) = scrape(&impatient_metrics.expect("metrics")).await;
    let timeout = [("call", "token"), ("outcome", "timeout")];
    assert_eq!(sample(&parsed, upstream, &timeout), 1.0, "{text}");
}

#[tokio::test]
async fn without_metrics_listen_nothing_is_counted() {
    let (companion, metrics) = start_companion_with_metrics(settings("http://127.0.0.1:9")).await;
    assert!(metrics.is_none());
    assert!(companion.state.metrics().is_none());
}

/// The header values the identity server saw on the calls made for one request.
fn seen_on(identity: &Identity, request_id: &str) -> Vec<Seen> {
    identity
        .seen()
        .into_iter()
        .filter(|s| s.request_id.as_deref() == Some(request_id))
        .collect()
}

#[tokio::test]
async fn the_request_id_and_the_trace_go_upstream_and_the_id_comes_back() {
    let identity = start_identity().await;
    let companion = start_companion(settings(&identity.url)).await;
    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let incoming = format!("00-{trace_id}-00f067aa0ba902b7-01");

    let signed = sign_in(&identity.url, FULL_SCOPE).await;
    let response = client()
        .post(format!("{}/auth/token", companion.url()))
        .header("origin", ORIGIN)
        .header("x-fundraising-client", "1")
        .header("content-type", "application/json")
        .header("x-request-id", "checkout-42")
        .header("traceparent", &incoming)
        .body(token_body(&signed).to_string())
        .send()
        .await
        .expect("send");
    let reply = Reply::from(response).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.header("x-request-id").as_deref(), Some("checkout-42"));
    let calls = seen_on(&identity, "checkout-42");
    let paths: Vec<&str> = calls.iter().map(|s| s.path.as_str()).collect();
    assert!(paths.contains(&"/connect/token"), "{paths:?}");
    for call in &calls {
        let parent = call.traceparent.as_deref().expect("a traceparent upstream");
        let fields: Vec<&str> = parent.split('-').collect();
        assert_eq!(fields.len(), 4, "{parent}");
        assert_eq!(
            (fields[0], fields[1], fields[3]),
            ("00", trace_id, "01"),
            "{parent}"
        );
        assert_ne!(
            fields[2], "00f067aa0ba902b7",
            "the companion's own span is the parent"
        );
    }

    // Without ids (or with one unfit for a log line), the companion makes them.
    let cookie = reply.cookie();
    let response = client()
        .post(format!("{}/auth/refresh", companion.url()))
        .header("origin", ORIGIN)
        .header("x-fundraising-client", "1")
        .header("x-request-id", "two words")
        .header("cookie", &cookie)
        .send()
        .await
        .expect("send");
    let reply = Reply::from(response).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let made = reply.header("x-request-id").expect("a request id");
    assert_eq!(made.len(), 32, "{made}");
    assert!(made.bytes().all(|b| b.is_ascii_hexdigit()), "{made}");
    let calls = seen_on(&identity, &made);
    assert_eq!(calls.len(), 1, "the refresh's token call carried it");
    let parent = calls[0].traceparent.as_deref().expect("traceparent");
    assert!(
        parent.starts_with("00-") && !parent.contains(trace_id),
        "{parent}"
    );
}

#[tokio::test]
async fn unknown_auth_and_api_paths_get_the_companions_json_404() {
    let site = tempfile::tempdir().expect("dir");
    std::fs::create_dir_all(site.path().join("auth")).expect("dir");
    std::fs::write(site.path().join("auth/other"), "a static file").expect("file");
    std::fs::create_dir_all(site.path().join("api")).expect("dir");
    std::fs::write(site.path().join("api/x"), "a static file").expect("file");
    let mut s = settings("http://127.0.0.1:9");
    s.static_dir = Some(site.path().to_path_buf());
    let companion = start_companion(s).await;
    for path in ["/auth/other", "/auth/", "/auth", "/api/x", "/api"] {
        let reply = get(&companion, path, None).await;
        assert_eq!(reply.status, 404, "{path}: {}", reply.body);
        assert_eq!(reply.error(), "not_found", "{path}");
        assert_eq!(reply.header("access-control-allow-origin"), None, "{path}");
    }
    let post_reply = post(&companion, "/auth/tokens", None, None).await;
    assert_eq!(
        (post_reply.status, post_reply.error().as_str()),
        (404, "not_found")
    );
}

#[tokio::test]
async fn request_counts_have_a_fixed_set_of_routes() {
    let mut s = settings("http://127.0.0.1:9");
    s.metrics = true;
    let (companion, metrics) = start_companion_with_metrics(s).await;
    let metrics = metrics.expect("metrics");
    for i in 0..20 {
        let _ = get(&companion, &format!("/no/such/{i}"), None).await;
        let _ = get(&companion, &format!("/auth/x{i}"), None).await;
    }
    let (text, parsed) = scrape(&metrics).await;
    let mut routes: HashMap<String, f64> = HashMap::new();
    for s in parsed
        .samples
        .iter()
        .filter(|s| s.metric == "companion_http_requests_total")
    {
        let route = s.labels.get("route").unwrap_or_default().to_owned();
        *routes.entry(route).or_default() += value_of(&s.value);
    }
    assert_eq!(routes.get("static"), Some(&20.0), "{text}");
    assert_eq!(routes.get("/auth/*"), Some(&20.0), "{text}");
    assert_eq!(routes.len(), 2, "{text}");
}
