//! `GET /healthz` (liveness) and `GET /readyz` (readiness).

use crate::state::AppState;
use axum::extract::State;
use axum::http::header::CACHE_CONTROL;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use std::time::Duration;

/// Longest a readiness check waits for the identity server's discovery document.
pub const READY_CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// The companion's version, which `/healthz` and `--version` report: the npm package and the
/// crates of the same minor version work with it (docs/compatibility.md).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Liveness: `{"status":"ok","version":"<the companion's version>"}` (does not call the
/// identity server).
pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok", "version": VERSION }))
}

/// Readiness: 200 `{"status":"ready"}` when the companion can do its work: Redis answers
/// `PING` (with `--redis-url`) and the identity server's discovery document has been read
/// (it is fetched now if it has not been, within [`READY_CHECK_TIMEOUT`]). Otherwise 503
/// `{"status":"unavailable","missing":[...]}` naming `redis` and/or `discovery`; while the
/// process drains, 503 `{"status":"draining","missing":["draining"]}`.
pub async fn readyz(State(state): State<AppState>) -> Response {
    let no_store = [(CACHE_CONTROL, HeaderValue::from_static("no-store"))];
    if state.is_draining() {
        let body = json!({ "status": "draining", "missing": ["draining"] });
        return (StatusCode::SERVICE_UNAVAILABLE, no_store, Json(body)).into_response();
    }
    let discovery = async {
        tokio::time::timeout(READY_CHECK_TIMEOUT, state.provider().metadata())
            .await
            .is_ok_and(|m| m.is_ok())
    };
    let (redis, discovery) = tokio::join!(state.refreshes().store_answers(), discovery);
    let mut missing = Vec::new();
    if redis == Some(false) {
        missing.push("redis");
    }
    if !discovery {
        missing.push("discovery");
    }
    if missing.is_empty() {
        (StatusCode::OK, no_store, Json(json!({ "status": "ready" }))).into_response()
    } else {
        let body = json!({ "status": "unavailable", "missing": missing });
        (StatusCode::SERVICE_UNAVAILABLE, no_store, Json(body)).into_response()
    }
}
