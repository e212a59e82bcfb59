//! `GET /healthz`.

use axum::Json;
use serde_json::{json, Value};

/// Liveness: `{"status":"ok"}` (does not call the identity server).
pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}
