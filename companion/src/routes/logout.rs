//! `POST /auth/logout`.

use super::guard::BrowserPost;
use crate::error::Error;
use crate::session::clear_cookie;
use crate::state::{AppState, Live};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

/// Ends the session everywhere: records it as ended (in this instance and, with
/// `--redis-url`, in Redis for every instance), so that no copy of any of its cookies opens
/// again, not even within the grace window of its last rotation; revokes the refresh token when
/// discovery lists a revocation endpoint (best effort); clears the cookie (204). Idempotent.
/// When Redis does not take the record: `503 session_store_unavailable`, the cookie kept and
/// nothing revoked, so that a retry once Redis is back signs out.
pub async fn logout(
    State(state): State<AppState>,
    _guard: BrowserPost,
    headers: HeaderMap,
) -> Response {
    let settings = state.settings();
    if let Live::Valid(session) = state.live_session(&headers).await {
        if let Some(sid) = &session.sid {
            if state.ended().end(sid).await.is_err() {
                return Error::SessionStoreUnavailable.into_response();
            }
        }
        state.provider().revoke(&session.refresh_token).await;
        if let Some(metrics) = state.metrics() {
            metrics.session_ended("signed_out");
        }
    }
    (
        StatusCode::NO_CONTENT,
        clear_cookie(settings.cookie_scope()),
        (),
    )
        .into_response()
}
