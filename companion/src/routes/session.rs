//! `GET /auth/session`.

use crate::session::{clear_cookie, session_from_headers, CookieState};
use crate::state::AppState;
use axum::extract::State;
use axum::http::header::CACHE_CONTROL;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use fundraising_core::companion::SessionState;

/// Whether a refreshable session exists: `{"active": true, "profile": {...}}` or
/// `{"active": false}`. Never any token. An unreadable cookie is cleared.
pub async fn session(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let settings = state.settings();
    let no_store = (CACHE_CONTROL, HeaderValue::from_static("no-store"));
    let inactive = SessionState {
        active: false,
        profile: None,
    };
    match session_from_headers(&settings.cookie_key, &headers) {
        CookieState::Valid(s) => (
            [no_store],
            Json(SessionState {
                active: true,
                profile: Some(s.profile),
            }),
        )
            .into_response(),
        CookieState::Absent => ([no_store], Json(inactive)).into_response(),
        CookieState::Invalid => (
            clear_cookie(settings.cookie_scope()),
            [no_store],
            Json(inactive),
        )
            .into_response(),
    }
}
