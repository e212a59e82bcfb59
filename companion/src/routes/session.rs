//! `GET /auth/session`.

use crate::session::{clear_cookie, session_from_headers, CookieState};
use crate::state::AppState;
use axum::extract::State;
use axum::http::header::CACHE_CONTROL;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use fundraising_core::companion::SessionStatus;

/// Whether a session exists: `{"active": true, "profile": {...}}` or `{"active": false}`;
/// in BFF mode an active session also carries `expiresAt` and `scope`. Never any token. An
/// unreadable cookie is cleared.
pub async fn session(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let settings = state.settings();
    let no_store = (CACHE_CONTROL, HeaderValue::from_static("no-store"));
    match session_from_headers(&settings.cookie_key, &headers) {
        CookieState::Valid(s) => (
            [no_store],
            Json(SessionStatus {
                active: true,
                profile: Some(s.profile),
                expires_at: s.expires_at.filter(|_| settings.bff),
                scope: s.scope.filter(|_| settings.bff),
            }),
        )
            .into_response(),
        CookieState::Absent => ([no_store], Json(SessionStatus::inactive())).into_response(),
        CookieState::Invalid => (
            clear_cookie(settings.cookie_scope()),
            [no_store],
            Json(SessionStatus::inactive()),
        )
            .into_response(),
    }
}
