//! `GET /healthz` (liveness) and `GET /readyz` (readiness).

use crate::state::AppState;
use axum::extract::State;
use axum::http::header::CACHE_CONTROL;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
/// The companion's version, which `/healthz` and `--version` report: the npm package and the
/// crates of the same minor version work with it (docs/compatibility.md).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Liveness: `{"status":"ok","version":"<the companion's version>"}` (does not call the
/// identity server).
pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok", "version": VERSION }))
}

/// Readiness: 200 `{"status":"ready"}` when the companion can do its work: the identity
/// server's discovery document is loaded and, with `--redis-url`, Redis answered the last
/// background `PING`. Otherwise 503 `{"status":"unavailable","missing":[...]}` naming
/// `discovery` and/or `redis`; while the process drains, 503
/// `{"status":"draining","missing":["draining"]}`. It reads the state a background task keeps
/// fresh ([`AppState::keep_fresh`]): no call is made per request.
pub async fn readyz(State(state): State<AppState>) -> Response {
    let no_store = [(CACHE_CONTROL, HeaderValue::from_static("no-store"))];
    if state.is_draining() {
        let body = json!({ "status": "draining", "missing": ["draining"] });
        return (StatusCode::SERVICE_UNAVAILABLE, no_store, Json(body)).into_response();
    }
    let mut missing = Vec::new();
    if !state.provider().discovery_loaded() {
        missing.push("discovery");
    }
    if state.redis_answers() == Some(false) {
        missing.push("redis");
    }
    if missing.is_empty() {
        (StatusCode::OK, no_store, Json(json!({ "status": "ready" }))).into_response()
    } else {
        let body = json!({ "status": "unavailable", "missing": missing });
        (StatusCode::SERVICE_UNAVAILABLE, no_store, Json(body)).into_response()
    }
}
