//! `POST /auth/token`: redeems an authorisation code.

use super::guard::BrowserPost;
use super::json::ApiJson;
use crate::answer::token_answer;
use crate::error::Error;
use crate::oidc::TokenGrant;
use crate::secret::Secret;
use crate::session::{clear_cookie, session_cookie, SessionData};
use crate::state::AppState;
use axum::extract::State;
use axum::http::header::CACHE_CONTROL;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use axum::Json;
use fundraising_core::companion::TokenRequest;

/// Redeems the code (Basic-authenticated), validates the id_token, answers the access token
/// and profile, and seals the refresh token (if granted) into the session cookie. In BFF mode
/// the access token goes into the cookie too, and the answer holds none.
pub async fn exchange(
    State(state): State<AppState>,
    _guard: BrowserPost,
    ApiJson(request): ApiJson<TokenRequest>,
) -> Result<Response, Error> {
    request.validate()?;
    let provider = state.provider();
    let (code, code_verifier) = (
        Secret::new(request.code.as_str()),
        Secret::new(request.code_verifier.as_str()),
    );
    let grant = TokenGrant::AuthorizationCode {
        code: &code,
        redirect_uri: &request.redirect_uri,
        code_verifier: &code_verifier,
    };
    let tokens = provider.token(grant).await?;
    let Some(id_token) = tokens.id_token.as_ref() else {
        tracing::warn!(check = "missing", "id_token refused");
        return Err(Error::IdTokenInvalid("missing"));
    };
    let claims = provider
        .check_id_token(id_token, Some(&request.nonce), None)
        .await?;
    let profile = claims.profile();
    let bff = state.settings().bff;
    let answer = token_answer(&tokens, profile.clone(), None, bff);
    let scope = state.settings().cookie_scope();
    let cookies = match &tokens.refresh_token {
        Some(refresh_token) => {
            if let Some(metrics) = state.metrics() {
                metrics.session_started();
            }
            let session = SessionData {
                refresh_token: refresh_token.clone(),
                redirect_uri: request.redirect_uri.clone(),
                profile,
                scope: answer.scope.clone(),
                access_token: bff.then(|| tokens.access_token.clone()),
                expires_at: bff.then_some(answer.expires_at),
                sid: Some(SessionData::new_sid()),
                until: None,
            };
            session_cookie(&state.settings().cookie_key, &session, scope)
        }
        // No refresh token granted: drop any session left from an earlier sign-in. (In BFF
        // mode there is then no session for the proxy either: the page must ask for
        // `offline_access`.)
        None => {
            if bff {
                tracing::warn!("no refresh token granted (offline_access not asked?): BFF calls stay anonymous");
            }
            clear_cookie(scope)
        }
    };
    Ok((
        cookies,
        [(CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Json(answer),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> TokenRequest {
        TokenRequest {
            code: "abc".into(),
            code_verifier: "a".repeat(43),
            nonce: "n".into(),
            redirect_uri: "http://127.0.0.1:8080/".into(),
        }
    }

    fn message(change: fn(&mut TokenRequest)) -> String {
        let mut r = request();
        change(&mut r);
        let error: Error = r.validate().unwrap_err().into();
        assert_eq!(error.code(), "invalid_request");
        error.to_string()
    }

    /// Core's rules give the same messages the companion always answered.
    #[test]
    fn core_rules_keep_the_companion_messages() {
        assert!(request().validate().is_ok());
        assert_eq!(
            message(|r| r.code.clear()),
            "code must be a non-empty string of at most 4096 characters"
        );
        assert_eq!(
            message(|r| r.code_verifier = "short".into()),
            "codeVerifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636)"
        );
        assert_eq!(
            message(|r| r.code_verifier = format!("{}!", "a".repeat(43))),
            "codeVerifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636)"
        );
        assert_eq!(
            message(|r| r.nonce.clear()),
            "nonce must be a non-empty string of at most 512 characters"
        );
        assert_eq!(
            message(|r| r.redirect_uri = "javascript:alert(1)".into()),
            "redirectUri must be an absolute http or https address"
        );
    }
}
