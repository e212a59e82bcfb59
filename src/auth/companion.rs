//! Calls of the backend companion: code exchange, refresh and logout. Each carries the
//! static `X-Fundraising-Client: 1` header and the companion's cookie.

use fundraising_core::service_error::parse_error_body;
use fundraising_core::ServiceDate;
use serde::{Deserialize, Serialize};
use web_sys::AbortSignal;

use super::{Profile, Session};
use crate::http::{send, HttpRequest, HttpResponse};
use crate::Error;

/// The companion at `url`.
#[derive(Debug, Clone)]
pub(crate) struct Companion {
    url: String,
    timeout_ms: u32,
}

/// The body of `POST /auth/token`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TokenRequest<'a> {
    code: &'a str,
    code_verifier: &'a str,
    nonce: &'a str,
    redirect_uri: &'a str,
}

/// The companion's answer `{accessToken, tokenType, expiresIn, expiresAt (ms), scope, profile}`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TokenAnswer {
    access_token: String,
    expires_at: f64,
    scope: Option<String>,
    profile: Profile,
}

impl Companion {
    pub(crate) fn new(url: &str, timeout_ms: u32) -> Self {
        Companion {
            url: url.trim_end_matches('/').to_owned(),
            timeout_ms,
        }
    }

    /// `POST /auth/token`: redeems the code; the companion checks the id_token and the nonce.
    pub(crate) async fn exchange(
        &self,
        code: &str,
        code_verifier: &str,
        nonce: &str,
        redirect_uri: &str,
        signal: Option<&AbortSignal>,
    ) -> Result<Session, Error> {
        let body = serde_json::to_value(TokenRequest {
            code,
            code_verifier,
            nonce,
            redirect_uri,
        })
        .map_err(|e| Error::Decode(e.to_string()))?
        .to_string();
        let answer = self.post("/auth/token", Some(&body), signal).await?;
        session(answer)
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
            method: "POST",
            url: &url,
            body,
            bearer: None,
            companion: true,
        };
        let response = send(&request, self.timeout_ms, signal).await?;
        if (200..300).contains(&response.status) {
            return Ok(response);
        }
        Err(companion_error(&response))
    }
}

/// The companion's error body `{error, message}`.
#[derive(Deserialize)]
struct CompanionError {
    error: String,
    message: Option<String>,
}

fn companion_error(response: &HttpResponse) -> Error {
    match fundraising_core::json::decode::<CompanionError>(&response.body) {
        Ok(body) => Error::Companion {
            message: body.message.unwrap_or_else(|| body.error.clone()),
            code: body.error,
            status: response.status,
        },
        Err(_) => {
            let error = parse_error_body(response.status, &response.body);
            Error::Companion {
                code: "http_error".to_owned(),
                status: error.status,
                message: error.message,
            }
        }
    }
}

fn session(response: HttpResponse) -> Result<Session, Error> {
    let answer: TokenAnswer = fundraising_core::json::decode(&response.body)?;
    Ok(Session {
        access_token: answer.access_token,
        expires_at: ServiceDate::from_millis(answer.expires_at as i64),
        scope: answer.scope,
        profile: answer.profile,
    })
}
