//! Calls of the backend companion: code exchange, refresh and logout. Each carries the
//! static `X-Fundraising-Client: 1` header and the companion's cookie.

use fundraising_core::ServiceDate;
use js_sys::Object;
use wasm_bindgen::JsValue;
use web_sys::AbortSignal;

use super::{Profile, Session};
use crate::error_body::service_error;
use crate::http::{send, HttpRequest, HttpResponse};
use crate::js_object::{member, number, parse_json, set, string, to_json};
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

    /// `POST /auth/token`: redeems the code; the companion checks the id_token and the nonce.
    pub(crate) async fn exchange(
        &self,
        code: &str,
        code_verifier: &str,
        nonce: &str,
        redirect_uri: &str,
        signal: Option<&AbortSignal>,
    ) -> Result<Session, Error> {
        let body = Object::new();
        set(&body, "code", &code.into());
        set(&body, "codeVerifier", &code_verifier.into());
        set(&body, "nonce", &nonce.into());
        set(&body, "redirectUri", &redirect_uri.into());
        let body = to_json(&body);
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

/// The companion's error body `{error, message}` as [`Error::Companion`].
fn companion_error(response: &HttpResponse) -> Error {
    let body = parse_json(&response.body).unwrap_or(JsValue::UNDEFINED);
    match string(&body, "error").ok().flatten() {
        Some(code) => Error::Companion {
            message: string(&body, "message")
                .ok()
                .flatten()
                .unwrap_or_else(|| code.clone()),
            code,
            status: response.status,
        },
        None => Error::Companion {
            code: "http_error".to_owned(),
            status: response.status,
            message: service_error(response.status, &response.body).message,
        },
    }
}

/// The answer `{accessToken, tokenType, expiresIn, expiresAt (ms), scope, profile: {sub, name, email}}`.
fn session(response: HttpResponse) -> Result<Session, Error> {
    let answer = parse_json(&response.body)?;
    let bad = |what: &str| Error::Decode(["the companion's answer has no valid ", what].concat());
    let profile = member(&answer, "profile");
    Ok(Session {
        access_token: string(&answer, "accessToken")
            .ok()
            .flatten()
            .ok_or_else(|| bad("accessToken"))?,
        expires_at: ServiceDate::from_millis(
            number(&answer, "expiresAt")
                .ok()
                .flatten()
                .ok_or_else(|| bad("expiresAt"))? as i64,
        ),
        scope: string(&answer, "scope").ok().flatten(),
        profile: Profile {
            sub: string(&profile, "sub")
                .ok()
                .flatten()
                .ok_or_else(|| bad("profile.sub"))?,
            name: string(&profile, "name").ok().flatten(),
            email: string(&profile, "email").ok().flatten(),
        },
    })
}
