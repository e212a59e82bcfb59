//! Calls of the backend companion: the session it holds, code exchange, refresh and logout.
//! Each carries the companion's cookie, and each POST the static CSRF header. The bodies are
//! core's companion contract.

use fundraising_core::companion::{ErrorBody, SessionStatus, TokenAnswer, TokenRequest};
use serde::de::DeserializeOwned;
use web_sys::AbortSignal;

use super::Session;
use crate::convert::json_text;
use crate::http::{send, Browser, HttpRequest, HttpResponse, Method};
use crate::Error;

/// The companion at `url`.
#[derive(Debug, Clone)]
pub(crate) struct Companion {
    url: String,
    timeout_ms: u32,
}

impl Companion {
    pub(crate) fn new(url: &str, timeout_ms: u32) -> Self {
        Companion {
            url: url.trim_end_matches('/').to_owned(),
            timeout_ms,
        }
    }

    /// `GET /auth/session`: whether the companion holds a session for this browser (with its
    /// profile, and in BFF mode its expiry).
    pub(crate) async fn session(&self) -> Result<SessionStatus, Error> {
        let url = [self.url.as_str(), "/auth/session"].concat();
        let request = HttpRequest {
            method: Method::Get,
            url: &url,
            body: None,
            bearer: None,
            // A plain GET: no CSRF header, so no CORS preflight either.
            credentials: true,
            csrf: false,
        };
        let response = send(&Browser, &request, self.timeout_ms, None).await?;
        if !response.succeeded() {
            return Err(companion_error(&response));
        }
        answer(&response)
    }

    /// `POST /auth/token`: redeems the code; the companion checks the id_token and the nonce.
    pub(crate) async fn exchange(
        &self,
        request: &TokenRequest,
        signal: Option<&AbortSignal>,
    ) -> Result<Session, Error> {
        let body = json_text(request);
        session(self.post("/auth/token", Some(&body), signal).await?)
    }

    /// `POST /auth/refresh`: a new access token from the refresh token in the cookie.
    pub(crate) async fn refresh(&self, signal: Option<&AbortSignal>) -> Result<Session, Error> {
        session(self.post("/auth/refresh", None, signal).await?)
    }

    /// `POST /auth/logout`: forgets the refresh token.
    pub(crate) async fn logout(&self) -> Result<(), Error> {
        self.post("/auth/logout", None, None).await.map(drop)
    }

    async fn post(
        &self,
        path: &str,
        body: Option<&str>,
        signal: Option<&AbortSignal>,
    ) -> Result<HttpResponse, Error> {
        let url = [self.url.as_str(), path].concat();
        let request = HttpRequest {
            method: Method::Post,
            url: &url,
            body,
            bearer: None,
            credentials: true,
            csrf: true,
        };
        let response = send(&Browser, &request, self.timeout_ms, signal).await?;
        if response.succeeded() {
            return Ok(response);
        }
        Err(companion_error(&response))
    }
}

#[cfg(feature = "__operation")]
impl Companion {
    /// True for the companion's `401 session_expired` (on any of its answers, the BFF proxy's
    /// among them): it no longer holds the session.
    pub(crate) fn ended_session(response: &HttpResponse) -> bool {
        response.status == 401
            && matches!(
                companion_error(response),
                Error::Companion { code, .. } if code == "session_expired"
            )
    }
}

/// The companion's error body `{error, message}` as [`Error::Companion`].
fn companion_error(response: &HttpResponse) -> Error {
    match response.body.read::<ErrorBody>() {
        Ok(ErrorBody { error, message }) => Error::Companion {
            code: error,
            status: response.status,
            message,
        },
        Err(_) => Error::Companion {
            code: crate::error::code::HTTP_ERROR.to_owned(),
            status: response.status,
            message: response.body.service_error(response.status).message,
        },
    }
}

/// The companion's answer as `T`.
fn answer<T: DeserializeOwned>(response: &HttpResponse) -> Result<T, Error> {
    response.body.read()
}

/// The token answer as the session.
fn session(response: HttpResponse) -> Result<Session, Error> {
    answer::<TokenAnswer>(&response).map(Session::from)
}
