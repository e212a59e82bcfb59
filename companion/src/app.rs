//! The router: auth endpoints, health, static files, CORS and the request log.

use crate::routes::assets::{self, AssetHeaders};
use crate::routes::{self, BODY_LIMIT, CSRF_HEADER};
use crate::state::AppState;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderName, HeaderValue, Method};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{any, get, post};
use axum::Router;
use std::time::{Duration, Instant};
use tower::ServiceBuilder;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// The companion's router for `state`:
/// `POST /auth/token`, `POST /auth/refresh`, `POST /auth/logout`, `GET /auth/session`,
/// `GET /healthz`, in BFF mode `/api/*` (see [`routes::proxy`]), `/pkg/*` from the pkg
/// folder and everything else from the static folder.
///
/// The auth endpoints and the proxy answer CORS only to the allowed origins, with credentials. The static
/// files are public assets: any origin may embed them (`*`, no credentials), see
/// [`routes::assets`].
pub fn app(state: AppState) -> Router {
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
        .max_age(Duration::from_secs(600));
    let mut api = Router::new()
        .route("/auth/token", post(routes::exchange))
        .route("/auth/refresh", post(routes::refresh))
        .route("/auth/logout", post(routes::logout))
        .route("/auth/session", get(routes::session))
        .route("/healthz", get(routes::healthz))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(cors.clone());
    if settings.bff {
        // The proxy reads its body itself, within routes::MAX_REQUEST_BODY; the CORS
        // allowlist is the auth endpoints' one.
        let proxy = Router::new()
            .route("/api", any(routes::proxy))
            .route("/api/", any(routes::proxy))
            .route("/api/{*rest}", any(routes::proxy))
            .layer(cors);
        api = api.merge(proxy);
    }
    let headers = AssetHeaders::new(settings);
    let assets = ServiceBuilder::new()
        .layer(middleware::from_fn(assets::guard_path))
        .layer(assets::asset_cors())
        .layer(middleware::from_fn_with_state(
            headers,
            assets::asset_headers,
        ))
        .layer(assets::compression());
    let mut router = Router::new().merge(api);
    if let Some(pkg) = &settings.pkg_dir {
        router = router.nest_service("/pkg", assets.clone().service(assets::serve_dir(pkg)));
    }
    if let Some(dir) = &settings.static_dir {
        router = router.fallback_service(assets.service(assets::serve_dir(dir)));
    }
    router
        .layer(middleware::from_fn(log_request))
        .with_state(state)
}

/// One log line per request: method, path (never the query, which may hold a code), status
/// and latency. Headers and bodies are never logged.
async fn log_request(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let started = Instant::now();
    let response = next.run(request).await;
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    tracing::info!(
        target: "fundraising_companion::request",
        %method,
        %path,
        status = response.status().as_u16(),
        latency_ms = format_args!("{latency_ms:.1}"),
        "request"
    );
    response
}
