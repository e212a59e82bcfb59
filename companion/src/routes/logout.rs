//! `POST /auth/logout`.

use super::guard::BrowserPost;
use crate::session::{clear_cookie, session_from_headers, CookieState};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

/// Clears the session cookie (204) and, when discovery lists a revocation endpoint, revokes
/// the refresh token there (best effort). Idempotent.
pub async fn logout(
    State(state): State<AppState>,
    _guard: BrowserPost,
    headers: HeaderMap,
) -> Response {
    let settings = state.settings();
    if let CookieState::Valid(session) = session_from_headers(&settings.cookie_key, &headers) {
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
