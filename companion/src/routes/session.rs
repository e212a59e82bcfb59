//! `GET /auth/session`.

use crate::session::clear_cookie;
use crate::state::{AppState, Live};
use axum::extract::State;
use axum::http::header::CACHE_CONTROL;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use fundraising_core::companion::SessionStatus;

/// Whether a session exists: `{"active": true, "profile": {...}}` or `{"active": false}`;
/// in BFF mode an active session also carries `expiresAt` and `scope`. Never any token. An
/// unreadable cookie, or one of a session a sign-out ended, is inactive and cleared.
pub async fn session(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let settings = state.settings();
    let no_store = (CACHE_CONTROL, HeaderValue::from_static("no-store"));
    match state.live_session(&headers).await {
        Live::Valid(s) => (
            [no_store],
            Json(SessionStatus {
                active: true,
                profile: Some(s.profile),
                expires_at: s.expires_at.filter(|_| settings.bff),
                scope: s.scope.filter(|_| settings.bff),
            }),
        )
            .into_response(),
        Live::Absent => ([no_store], Json(SessionStatus::inactive())).into_response(),
        Live::Invalid | Live::Ended => (
            clear_cookie(settings.cookie_scope()),
            [no_store],
            Json(SessionStatus::inactive()),
        )
            .into_response(),
    }
}
