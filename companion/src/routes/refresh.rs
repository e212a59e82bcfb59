//! `POST /auth/refresh`: a new access token from the sealed refresh token, with rotation.

use super::guard::BrowserPost;
use crate::error::Error;
use crate::refresh::Refreshed;
use crate::session::{clear_cookie, session_cookie, CookieScope, SessionData};
use crate::state::{AppState, Live};
use axum::extract::State;
use axum::http::header::CACHE_CONTROL;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;

/// `401 session_expired` with the cookie cleared.
pub fn expired(scope: CookieScope) -> Response {
    let mut response = Error::SessionExpired.into_response();
    clear_cookie(scope).append_to(response.headers_mut());
    response
}

/// The newest state of `session` after a refresh (see [`RefreshFlights::newest`]). Used by
/// `POST /auth/refresh` and by the BFF proxy, so both share one flight.
pub(crate) async fn refresh_session(
    state: &AppState,
    session: SessionData,
) -> Result<Refreshed, Error> {
    state
        .refreshes()
        .newest(state.refresh_upstream(), session)
        .await
}

/// Refreshes the session of the cookie. Concurrent refreshes of one session share one
/// upstream call (in this instance, or in all of them with `--redis-url`); a refused refresh
/// token, or a session a sign-out ended, is 401 with the cookie cleared; an unreachable
/// Redis is 503.
pub async fn refresh(
    State(state): State<AppState>,
    _guard: BrowserPost,
    headers: HeaderMap,
) -> Response {
    let settings = state.settings();
    let scope = settings.cookie_scope();
    let session = match state.live_session(&headers).await {
        Live::Valid(session) => session,
        Live::Absent | Live::Invalid | Live::Ended => return expired(scope),
    };
    match refresh_session(&state, session).await {
        Ok(refreshed) => (
            session_cookie(&settings.cookie_key, &refreshed.session, scope),
            [(CACHE_CONTROL, HeaderValue::from_static("no-store"))],
            Json(refreshed.answer),
        )
            .into_response(),
        Err(Error::SessionExpired) => expired(scope),
        Err(other) => other.into_response(),
    }
}
