//! `POST /auth/refresh`: a new access token from the sealed refresh token, with rotation.

use super::answer::token_answer;
use super::guard::BrowserPost;
use crate::error::Error;
use crate::oidc::TokenGrant;
use crate::session::{
    clear_cookie, session_cookie, session_from_headers, CookieScope, CookieState, SessionData,
};
use crate::state::AppState;
use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use fundraising_core::companion::TokenAnswer;

/// Most rotations followed for one late request (each is a refresh within the grace period).
const MAX_CHAIN: usize = 32;

/// The outcome of one upstream refresh, shared by all requests of the flight.
#[derive(Debug, Clone)]
pub struct Refreshed {
    /// What the page receives.
    pub answer: TokenAnswer,
    /// The session with the rotated refresh token.
    pub session: SessionData,
}

/// `401 session_expired` with the cookie cleared.
pub fn expired(scope: CookieScope) -> Response {
    let mut response = Error::SessionExpired.into_response();
    response
        .headers_mut()
        .insert(SET_COOKIE, clear_cookie(scope));
    response
}

async fn refresh_upstream(state: AppState, session: SessionData) -> Result<Refreshed, Error> {
    let provider = state.provider();
    let grant = TokenGrant::RefreshToken {
        refresh_token: &session.refresh_token,
        redirect_uri: &session.redirect_uri,
    };
    let tokens = provider.token(grant).await?;
    let mut profile = session.profile.clone();
    if let Some(id_token) = &tokens.id_token {
        // jsonwebtoken refuses an id_token naming another user (`sub`).
        let claims = provider
            .check_id_token(id_token, None, Some(&session.profile.sub))
            .await?;
        let fresh = claims.profile();
        profile.name = fresh.name.or(profile.name);
        profile.email = fresh.email.or(profile.email);
    }
    let bff = state.settings().bff;
    let answer = token_answer(&tokens, profile.clone(), session.scope.clone(), bff);
    let session = SessionData {
        access_token: bff.then(|| tokens.access_token.clone()),
        expires_at: bff.then_some(answer.expires_at),
        refresh_token: tokens
            .refresh_token
            .clone()
            .unwrap_or(session.refresh_token),
        redirect_uri: session.redirect_uri,
        profile,
        scope: answer.scope.clone(),
    };
    Ok(Refreshed { answer, session })
}

/// The newest state of `session` after a refresh: concurrent refreshes of one session in this
/// instance share one upstream call, and a late request with an already rotated refresh token
/// follows the rotations to the newest state. Used by `POST /auth/refresh` and by the BFF
/// proxy.
pub(crate) async fn refresh_session(
    state: &AppState,
    session: SessionData,
) -> Result<Refreshed, Error> {
    let key = session.refresh_token.expose().to_owned();
    let flight_state = state.clone();
    let mut outcome = state
        .refreshes()
        .run(&key, move || refresh_upstream(flight_state, session))
        .await
        .unwrap_or(Err(Error::UpstreamUnavailable));
    // The rotated token may have been refreshed in turn (cookie 1 gave cookie 2, which gave
    // cookie 3): a late request with an old cookie gets the newest state of the session, never
    // a refresh token that was already used.
    let mut current = key;
    for _ in 0..MAX_CHAIN {
        let Ok(refreshed) = &outcome else { break };
        let next = refreshed.session.refresh_token.expose().to_owned();
        if next == current {
            // The identity server did not rotate the token: this is the newest state.
            break;
        }
        match state.refreshes().joined(&next).await {
            Some(newer @ Ok(_)) => outcome = newer,
            _ => break,
        }
        current = next;
    }
    outcome
}

/// Refreshes the session of the cookie (see [`refresh_session`]); a refused refresh token
/// ends the session (401, cookie cleared).
pub async fn refresh(
    State(state): State<AppState>,
    _guard: BrowserPost,
    headers: HeaderMap,
) -> Response {
    let settings = state.settings();
    let scope = settings.cookie_scope();
    let session = match session_from_headers(&settings.cookie_key, &headers) {
        CookieState::Valid(session) => session,
        CookieState::Absent | CookieState::Invalid => return expired(scope),
    };
    match refresh_session(&state, session).await {
        Ok(refreshed) => {
            let cookie = session_cookie(&settings.cookie_key, &refreshed.session, scope);
            (
                [
                    (SET_COOKIE, cookie),
                    (CACHE_CONTROL, HeaderValue::from_static("no-store")),
                ],
                Json(refreshed.answer),
            )
                .into_response()
        }
        Err(Error::SessionExpired) => expired(scope),
        Err(other) => other.into_response(),
    }
}
