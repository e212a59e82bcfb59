//! `POST /connect/token`: code exchange and refresh, HTTP Basic client authentication only.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Value};

use super::OAuthError;
use crate::config::Application;
use crate::grants::{Grant, IssuedTokens, ACCESS_TOKEN_LIFETIME_SECS};
use crate::params::Params;
use crate::state::Sandbox;

/// `POST /connect/token`.
pub async fn token(State(state): State<Sandbox>, headers: HeaderMap, body: Bytes) -> Response {
    if !state.token_delay().is_zero() {
        tokio::time::sleep(state.token_delay()).await;
    }
    match handle(&state, &headers, &body) {
        Ok(answer) => (
            [
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
                (header::PRAGMA, HeaderValue::from_static("no-cache")),
            ],
            Json(answer),
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

fn handle(state: &Sandbox, headers: &HeaderMap, body: &[u8]) -> Result<Value, OAuthError> {
    let params = std::str::from_utf8(body)
        .map_err(|_| "the body is not UTF-8".to_owned())
        .and_then(Params::parse);
    let app = authenticate(state, headers, params.as_ref().ok())?;
    let form_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| {
            v.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        })
        .unwrap_or(false);
    if !form_type {
        return Err(OAuthError::invalid_request(
            "the body must be application/x-www-form-urlencoded",
        ));
    }
    let params = params.map_err(OAuthError::invalid_request)?;
    let get = |name: &str| {
        params
            .get(name)
            .map(|v| v.filter(|v| !v.is_empty()))
            .map_err(OAuthError::invalid_request)
    };
    if let Some(client_id) = get("client_id")? {
        if client_id != app.app_id {
            return Err(OAuthError::invalid_request(
                "client_id differs from the authenticated client",
            ));
        }
    }
    let now = state.clock().now_millis();
    let (grant, tokens) = match get("grant_type")? {
        None => return Err(OAuthError::invalid_request("grant_type is missing")),
        Some("authorization_code") => {
            let code =
                get("code")?.ok_or_else(|| OAuthError::invalid_request("code is missing"))?;
            let redirect_uri = get("redirect_uri")?
                .ok_or_else(|| OAuthError::invalid_request("redirect_uri is missing"))?;
            state
                .grants()
                .exchange_code(code, &app.app_id, redirect_uri, get("code_verifier")?, now)
                .map_err(OAuthError::invalid_grant)?
        }
        Some("refresh_token") => {
            let token = get("refresh_token")?
                .ok_or_else(|| OAuthError::invalid_request("refresh_token is missing"))?;
            let redirect_uri = get("redirect_uri")?
                .ok_or_else(|| OAuthError::invalid_request("redirect_uri is missing"))?;
            if redirect_uri != app.home_page {
                return Err(OAuthError::invalid_grant(
                    "redirect_uri does not match the registered home page",
                ));
            }
            state
                .grants()
                .refresh(token, &app.app_id, now)
                .map_err(OAuthError::invalid_grant)?
        }
        Some(other) => {
            return Err(OAuthError::unsupported_grant_type(format!(
                "grant_type {other:?} is not supported"
            )))
        }
    };
    answer(state, &grant, tokens, now)
}

/// Checks `Authorization: Basic base64(appId:secret)`; nothing else authenticates a client.
fn authenticate<'a>(
    state: &'a Sandbox,
    headers: &HeaderMap,
    params: Option<&Params>,
) -> Result<&'a Application, OAuthError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        let in_body = params.is_some_and(|p| p.contains("client_secret"));
        return Err(OAuthError::invalid_client(if in_body {
            "client credentials in the body are not accepted; use HTTP Basic"
        } else {
            "client authentication by HTTP Basic is required"
        }));
    };
    let bad = || OAuthError::invalid_client("malformed Basic credentials");
    let value = value.to_str().map_err(|_| bad())?;
    let (scheme, encoded) = value.trim().split_once(' ').ok_or_else(bad)?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(OAuthError::invalid_client(
            "client authentication by HTTP Basic is required",
        ));
    }
    let decoded = STANDARD.decode(encoded.trim()).map_err(|_| bad())?;
    let decoded = String::from_utf8(decoded).map_err(|_| bad())?;
    let (id, secret) = decoded.split_once(':').ok_or_else(bad)?;
    state
        .config()
        .application(id)
        .filter(|app| app.secret.matches(secret))
        .ok_or_else(|| OAuthError::invalid_client("unknown client or wrong secret"))
}

fn answer(
    state: &Sandbox,
    grant: &Grant,
    tokens: IssuedTokens,
    now_ms: i64,
) -> Result<Value, OAuthError> {
    let user = state
        .config()
        .user(&grant.user_email)
        .ok_or_else(|| OAuthError::invalid_grant("the user no longer exists"))?;
    let iat = now_ms.div_euclid(1000);
    let mut claims = json!({
        "iss": state.issuer(),
        "sub": user.subject(),
        "aud": grant.client_id,
        "exp": iat + ACCESS_TOKEN_LIFETIME_SECS,
        "iat": iat,
        "auth_time": grant.auth_time,
        "nonce": grant.nonce,
    });
    if grant.has_scope("profile") {
        claims["name"] = json!(user.name);
    }
    if grant.has_scope("email") {
        claims["email"] = json!(user.email);
        claims["email_verified"] = json!(true);
    }
    let id_token = state
        .signing_key()
        .sign_jwt(&claims)
        .map_err(|e| OAuthError::server_error(e.to_string()))?;
    let mut body = json!({
        "id_token": id_token,
        "access_token": tokens.access_token,
        "expires_in": ACCESS_TOKEN_LIFETIME_SECS,
        "token_type": "Bearer",
        "scope": grant.scopes.join(" "),
    });
    if let Some(refresh) = tokens.refresh_token {
        body["refresh_token"] = json!(refresh);
    }
    Ok(body)
}
