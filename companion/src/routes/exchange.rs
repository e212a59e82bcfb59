//! `POST /auth/token`: redeems an authorisation code.

use super::answer::TokenAnswer;
use super::guard::BrowserPost;
use super::json::ApiJson;
use crate::error::Error;
use crate::oidc::TokenGrant;
use crate::secret::Secret;
use crate::session::{clear_cookie, session_cookie, SessionData};
use crate::state::AppState;
use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, SET_COOKIE};
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use url::Url;

/// The body of `POST /auth/token`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenRequest {
    /// The authorisation code from the redirect.
    pub code: Secret,
    /// The PKCE verifier (43 to 128 characters of `A-Z a-z 0-9 - . _ ~`).
    pub code_verifier: Secret,
    /// The nonce sent in the authorisation request.
    pub nonce: String,
    /// The redirect URI the code was issued for.
    pub redirect_uri: String,
}

fn bad(message: &str) -> Error {
    Error::InvalidRequest(message.to_owned())
}

impl TokenRequest {
    /// Checks the fields' form (the identity server checks their meaning).
    pub fn validate(&self) -> Result<(), Error> {
        let code = self.code.expose();
        if code.is_empty() || code.len() > 4096 || code.chars().any(char::is_control) {
            return Err(bad(
                "code must be a non-empty string of at most 4096 characters",
            ));
        }
        let verifier = self.code_verifier.expose();
        let verifier_ok = (43..=128).contains(&verifier.len())
            && verifier
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b));
        if !verifier_ok {
            return Err(bad(
                "codeVerifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636)",
            ));
        }
        if self.nonce.is_empty()
            || self.nonce.len() > 512
            || self.nonce.chars().any(char::is_control)
        {
            return Err(bad(
                "nonce must be a non-empty string of at most 512 characters",
            ));
        }
        let uri_ok = self.redirect_uri.len() <= 2048
            && Url::parse(&self.redirect_uri)
                .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
        if !uri_ok {
            return Err(bad("redirectUri must be an absolute http or https address"));
        }
        Ok(())
    }
}

/// Redeems the code (Basic-authenticated), validates the id_token, answers the access token
/// and profile, and seals the refresh token (if granted) into the session cookie.
pub async fn exchange(
    State(state): State<AppState>,
    _guard: BrowserPost,
    ApiJson(request): ApiJson<TokenRequest>,
) -> Result<Response, Error> {
    request.validate()?;
    let provider = state.provider();
    let grant = TokenGrant::AuthorizationCode {
        code: &request.code,
        redirect_uri: &request.redirect_uri,
        code_verifier: &request.code_verifier,
    };
    let tokens = provider.token(grant).await?;
    let Some(id_token) = tokens.id_token.as_ref() else {
        tracing::warn!(check = "missing", "id_token refused");
        return Err(Error::IdTokenInvalid("missing"));
    };
    let claims = provider
        .check_id_token(id_token, Some(&request.nonce))
        .await?;
    let profile = claims.profile();
    let answer = TokenAnswer::new(&tokens, profile.clone(), None);
    let secure = state.settings().secure_cookies();
    let cookie = match &tokens.refresh_token {
        Some(refresh_token) => {
            let session = SessionData {
                refresh_token: refresh_token.clone(),
                redirect_uri: request.redirect_uri.clone(),
                profile,
                scope: answer.scope.clone(),
            };
            session_cookie(&state.settings().cookie_key, &session, secure)
        }
        // No refresh token granted: drop any session left from an earlier sign-in.
        None => clear_cookie(secure),
    };
    Ok((
        [
            (SET_COOKIE, cookie),
            (CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        Json(answer),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> TokenRequest {
        TokenRequest {
            code: Secret::new("abc"),
            code_verifier: Secret::new("a".repeat(43)),
            nonce: "n".into(),
            redirect_uri: "http://127.0.0.1:8080/".into(),
        }
    }

    #[test]
    fn fields_are_checked() {
        assert!(request().validate().is_ok());
        let mut r = request();
        r.code = Secret::new("");
        assert!(r.validate().is_err());
        let mut r = request();
        r.code_verifier = Secret::new("short");
        assert!(r.validate().is_err());
        let mut r = request();
        r.code_verifier = Secret::new(format!("{}!", "a".repeat(43)));
        assert!(r.validate().is_err());
        let mut r = request();
        r.nonce = String::new();
        assert!(r.validate().is_err());
        let mut r = request();
        r.redirect_uri = "javascript:alert(1)".into();
        assert!(r.validate().is_err());
    }
}
