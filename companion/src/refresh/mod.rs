//! `POST /auth/refresh`: a new access token from the sealed refresh token, with rotation.

use super::answer::token_answer;
use super::guard::BrowserPost;
use crate::config::Settings;
use crate::error::Error;
use crate::oidc::TokenGrant;
use crate::session::{
    clear_cookie, session_cookie, session_from_headers, CookieScope, CookieState, FlightError,
    SessionData, SharedFlight, SingleFlight,
};
use crate::state::AppState;
use axum::extract::State;
use axum::http::header::CACHE_CONTROL;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use fundraising_core::companion::TokenAnswer;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Most rotations followed for one late request (each is a refresh within the grace period).
const MAX_CHAIN: usize = 32;

/// The outcome of one upstream refresh, shared by all requests of the flight (sealed with
/// the cookie key when it goes through Redis).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Refreshed {
    /// What the page receives.
    pub answer: TokenAnswer,
    /// The session with the rotated refresh token.
    pub session: SessionData,
}

/// `401 session_expired` with the cookie cleared.
pub fn expired(scope: CookieScope) -> Response {
    let mut response = Error::SessionExpired.into_response();
    clear_cookie(scope).append_to(response.headers_mut());
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

/// A refresh failure as shared through Redis with the other requests of its flight.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub enum SharedFailure {
    /// The identity server refused the refresh token.
    SessionExpired,
    /// The identity server did not answer in time.
    UpstreamTimeout,
    /// The new id_token failed a check (logged by the instance that ran the refresh).
    IdTokenInvalid,
    /// Anything else: the identity server could not be used.
    UpstreamUnavailable,
}

impl From<Error> for SharedFailure {
    fn from(error: Error) -> Self {
        match error {
            Error::SessionExpired => SharedFailure::SessionExpired,
            Error::UpstreamTimeout => SharedFailure::UpstreamTimeout,
            Error::IdTokenInvalid(_) => SharedFailure::IdTokenInvalid,
            _ => SharedFailure::UpstreamUnavailable,
        }
    }
}

impl From<SharedFailure> for Error {
    fn from(failure: SharedFailure) -> Self {
        match failure {
            SharedFailure::SessionExpired => Error::SessionExpired,
            SharedFailure::UpstreamTimeout => Error::UpstreamTimeout,
            SharedFailure::IdTokenInvalid => Error::IdTokenInvalid("shared"),
            SharedFailure::UpstreamUnavailable => Error::UpstreamUnavailable,
        }
    }
}

/// What a refresh flight stored in Redis ends with.
pub type SharedOutcome = Result<Refreshed, SharedFailure>;

impl From<FlightError> for Error {
    fn from(error: FlightError) -> Self {
        match error {
            FlightError::StoreUnavailable => Error::SessionStoreUnavailable,
            FlightError::TimedOut => Error::UpstreamTimeout,
            FlightError::Lost => Error::UpstreamUnavailable,
        }
    }
}

/// The refresh flights: per instance (in memory), or shared by every instance through Redis
/// (`--redis-url`).
pub enum RefreshFlights {
    /// Concurrent refreshes of one session share a call within this instance.
    Local(SingleFlight<Result<Refreshed, Error>>),
    /// ... within every instance using the same Redis and cookie key.
    Shared(SharedFlight<SharedOutcome>),
}

impl RefreshFlights {
    /// Shared through Redis when the settings name one, else per instance.
    pub fn new(settings: &Settings) -> Result<Self, Error> {
        let grace = settings.refresh_grace;
        let Some(url) = &settings.redis_url else {
            return Ok(RefreshFlights::Local(SingleFlight::new(
                grace,
                |r: &Result<Refreshed, Error>| r.is_ok(),
            )));
        };
        // A claim outlives the longest refresh: discovery, token and JWKS calls, each
        // bounded by the upstream timeout.
        let lock = settings.upstream_timeout * 3 + Duration::from_secs(2);
        let group = SharedFlight::new(
            url.expose(),
            settings.cookie_key.clone(),
            grace,
            lock,
            |r: &SharedOutcome| r.is_ok(),
        )
        .map_err(|_| Error::Config("--redis-url is not a usable Redis address".into()))?;
        Ok(RefreshFlights::Shared(group))
    }

    /// The outcome of the flight for `key`, started with `session` unless one runs (or ran
    /// within the grace period).
    async fn run(
        &self,
        state: &AppState,
        key: &str,
        session: SessionData,
    ) -> Result<Refreshed, Error> {
        let flight_state = state.clone();
        match self {
            RefreshFlights::Local(group) => group
                .run(key, move || refresh_upstream(flight_state, session))
                .await
                .unwrap_or(Err(Error::UpstreamUnavailable)),
            RefreshFlights::Shared(group) => group
                .run(key, move || async move {
                    refresh_upstream(flight_state, session)
                        .await
                        .map_err(SharedFailure::from)
                })
                .await?
                .map_err(Error::from),
        }
    }

    /// The successful outcome of a running or recent flight for `key`; never starts one.
    async fn joined(&self, key: &str) -> Result<Option<Refreshed>, Error> {
        Ok(match self {
            RefreshFlights::Local(group) => group.joined(key).await.and_then(Result::ok),
            RefreshFlights::Shared(group) => group.joined(key).await?.and_then(Result::ok),
        })
    }

    /// The newest state of the session whose refresh token is `key`: refreshed once for all
    /// concurrent requests, then followed along the rotations made since (cookie 1 gave
    /// cookie 2, which gave cookie 3), so a late request never gets a used refresh token.
    ///
    /// Once a refresh is in hand it is answered: if Redis fails while the rotations are
    /// followed, the state reached so far is the answer (the identity server has rotated the
    /// token; dropping its answer would sign the user out).
    pub async fn newest(&self, state: &AppState, session: SessionData) -> Result<Refreshed, Error> {
        let key = session.refresh_token.expose().to_owned();
        let mut refreshed = self.run(state, &key, session).await?;
        let mut current = key;
        for _ in 0..MAX_CHAIN {
            let next = refreshed.session.refresh_token.expose().to_owned();
            if next == current {
                // The identity server did not rotate the token: this is the newest state.
                break;
            }
            match self.joined(&next).await {
                Ok(Some(newer)) => refreshed = newer,
                Ok(None) => break,
                Err(error) => {
                    tracing::warn!(
                        code = error.code(),
                        "later rotations of a refreshed session could not be looked up; answering the refresh in hand"
                    );
                    break;
                }
            }
            current = next;
        }
        Ok(refreshed)
    }
}

/// The newest state of `session` after a refresh (see [`RefreshFlights::newest`]). Used by
/// `POST /auth/refresh` and by the BFF proxy, so both share one flight.
pub(crate) async fn refresh_session(
    state: &AppState,
    session: SessionData,
) -> Result<Refreshed, Error> {
    state.refreshes().newest(state, session).await
}

/// Refreshes the session of the cookie. Concurrent refreshes of one session share one
/// upstream call (in this instance, or in all of them with `--redis-url`); a refused refresh
/// token ends the session (401, cookie cleared); an unreachable Redis is 503.
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
