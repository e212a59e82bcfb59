//! `GET /healthz`.

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
