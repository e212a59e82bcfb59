//! The router: auth endpoints, health, static files, CORS, and what every request passes
//! through on its way in and out (request id, trace, log line, metrics).

use crate::error::Error;
use crate::metrics::{self, Metrics};
use crate::routes::assets::{self, AssetHeaders, Root};
use crate::routes::{self, BODY_LIMIT, CSRF_HEADER};
use crate::state::AppState;
use crate::telemetry::{self, RequestContext, TraceParent, REQUEST_ID, TRACEPARENT};
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderName, HeaderValue, Method};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::Router;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower::ServiceBuilder;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tracing::Instrument;

/// The companion's router for `state`:
/// `POST /auth/token`, `POST /auth/refresh`, `POST /auth/logout`, `GET /auth/session`,
/// `GET /healthz`, `GET /readyz`, in BFF mode `/api/*` (see [`routes::proxy`]), `/pkg/*` from
/// the pkg folder and everything else from the static folder. Any other path under `/auth`
/// (and under `/api` outside BFF mode) is the companion's own JSON `404 not_found`, never a
/// static file.
///
/// The auth endpoints and the proxy answer CORS only to the allowed origins, with credentials. The static
/// files are public assets: any origin may embed them (`*`, no credentials), see
/// [`routes::assets`].
///
/// Every answer carries `X-Request-Id` (the client's, when usable, else a new one); each
/// request is one log line and, with metrics on, counted.
pub fn app(state: AppState) -> Router {
    // What /readyz reads is kept fresh in the background, not fetched per request.
    state.keep_fresh();
    let settings = state.settings();
    let origins: Vec<HeaderValue> = settings
        .allowed_origins
        .iter()
        .filter_map(|o| HeaderValue::from_str(o).ok())
        .collect();
    let cors = CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins))
        .allow_credentials(true)
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([CONTENT_TYPE, HeaderName::from_static(CSRF_HEADER)])
        .expose_headers([HeaderName::from_static(REQUEST_ID)])
        .max_age(Duration::from_secs(600));
    let mut api = Router::new()
        .route("/auth/token", post(routes::exchange))
        .route("/auth/refresh", post(routes::refresh))
        .route("/auth/logout", post(routes::logout))
        .route("/auth/session", get(routes::session))
        .route("/auth", any(no_such_endpoint))
        .route("/auth/", any(no_such_endpoint))
        .route("/auth/{*rest}", any(no_such_endpoint))
        .route("/healthz", get(routes::healthz))
        .route("/readyz", get(routes::readyz))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(cors.clone());
    let api_handler = if settings.bff {
        // The proxy reads its body itself, within routes::MAX_REQUEST_BODY; the CORS
        // allowlist is the auth endpoints' one.
        any(routes::proxy)
    } else {
        any(no_such_endpoint)
    };
    let proxy = Router::new()
        .route("/api", api_handler.clone())
        .route("/api/", api_handler.clone())
        .route("/api/{*rest}", api_handler)
        .layer(cors);
    api = api.merge(proxy);
    let headers = AssetHeaders::new(settings);
    let assets = |folder: &Path| {
        ServiceBuilder::new()
            .layer(assets::asset_cors())
            .layer(middleware::from_fn_with_state(
                headers.clone(),
                assets::asset_headers,
            ))
            .layer(middleware::from_fn(assets::head_as_get))
            .layer(assets::compression())
            .service(get(assets::serve_file).with_state(Root::new(folder)))
    };
    let mut router = Router::new().merge(api);
    if let Some(pkg) = &settings.pkg_dir {
        router = router.nest_service("/pkg", assets(pkg));
    }
    if let Some(dir) = &settings.static_dir {
        router = router.fallback_service(assets(dir));
    }
    router
        .layer(middleware::from_fn_with_state(state.clone(), observe))
        .with_state(state)
}

/// `404 not_found` for a path under `/auth` (or `/api` outside BFF mode) that is not an
/// endpoint.
async fn no_such_endpoint() -> Response {
    Error::NoSuchEndpoint.into_response()
}

/// The router of the metrics address (`--metrics-listen`): `GET /metrics`, the scrape.
pub fn metrics_app(state: AppState) -> Router {
    Router::new()
        .route("/metrics", get(scrape))
        .with_state(state)
}

async fn scrape(State(state): State<AppState>) -> Response {
    let text = state.metrics().map(|m| m.encode()).unwrap_or_default();
    (
        [(
            CONTENT_TYPE,
            HeaderValue::from_static(metrics::CONTENT_TYPE),
        )],
        text,
    )
        .into_response()
}

/// Milliseconds to a tenth, for the log.
fn millis(took: Duration) -> f64 {
    (took.as_secs_f64() * 10_000.0).round() / 10.0
}

/// The route label of a request: the endpoint's path, `/api` for the proxy, `/pkg` and
/// `static` for files (a fixed set, whatever the path).
fn route_label(matched: Option<&str>) -> &'static str {
    match matched {
        Some("/auth/token") => "/auth/token",
        Some("/auth/refresh") => "/auth/refresh",
        Some("/auth/logout") => "/auth/logout",
        Some("/auth/session") => "/auth/session",
        Some("/healthz") => "/healthz",
        Some("/readyz") => "/readyz",
        Some(p) if p.starts_with("/auth") => "/auth/*",
        Some(p) if p.starts_with("/api") => "/api",
        Some(p) if p.starts_with("/pkg") => "/pkg",
        _ => "static",
    }
}

/// What every request passes through: its context (request id, trace) around the handler,
/// `X-Request-Id` on the answer, one log line (method, route, path without the query,
/// status, latency, upstream time; never a header or a body) and the metrics.
async fn observe(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = metrics::method_label(request.method());
    let path = request.uri().path().to_owned();
    let route = route_label(
        request
            .extensions()
            .get::<MatchedPath>()
            .map(MatchedPath::as_str),
    );
    let headers = request.headers();
    let incoming = headers
        .get(TRACEPARENT)
        .and_then(|v| v.to_str().ok())
        .and_then(TraceParent::parse);
    let request_id = match headers.get(REQUEST_ID).and_then(|v| v.to_str().ok()) {
        Some(id) if telemetry::usable_request_id(id) => id.to_owned(),
        _ => telemetry::new_request_id(),
    };
    let (span, trace) = telemetry::request_span(&request_id, method, route, incoming);
    let context = Arc::new(RequestContext::new(Some(&request_id), trace));
    let mut response = telemetry::scope(context.clone(), next.run(request))
        .instrument(span.clone())
        .await;
    if let Ok(id) = HeaderValue::from_str(&context.request_id) {
        response
            .headers_mut()
            .insert(HeaderName::from_static(REQUEST_ID), id);
    }
    let took = started.elapsed();
    let status = response.status().as_u16();
    tracing::info!(
        target: "fundraising_companion::request",
        request_id = %context.request_id,
        trace_id = %context.trace.trace_id_hex(),
        %method,
        %route,
        %path,
        status,
        latency_ms = millis(took),
        upstream_ms = millis(context.upstream()),
        "request"
    );
    if let Some(metrics) = state.metrics() {
        Metrics::request(metrics, route, method, status, took);
    }
    response
}
