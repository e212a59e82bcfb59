//! `POST /connect/token` (code exchange and refresh) and `POST /connect/revocation` (RFC 7009),
//! HTTP Basic client authentication only (RFC 6749 §2.3.1). Every failure, whatever its
//! cause (method, content type, size, credentials, grant), is RFC 6749 §5.2 JSON.

use std::borrow::Cow;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use percent_encoding::percent_decode_str;
use serde_json::{json, Value};

use super::OAuthError;
use crate::config::Application;
use crate::grants::{Grant, IssuedTokens, RefreshRefusal, ACCESS_TOKEN_LIFETIME_SECS};
use crate::params::Params;
use crate::state::Sandbox;

/// Largest body of the token and revocation endpoints, in bytes; larger is 413 with an
/// RFC 6749 error.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

fn no_store() -> [(header::HeaderName, HeaderValue); 2] {
    [
        (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        (header::PRAGMA, HeaderValue::from_static("no-cache")),
    ]
}

/// `/connect/token` (every method reaches it; anything but POST is a JSON 405).
pub async fn token(State(state): State<Sandbox>, request: Request) -> Response {
    if !state.token_delay().is_zero() {
        tokio::time::sleep(state.token_delay()).await;
    }
    let result = match read(request).await {
        Ok((headers, body)) => handle(&state, &headers, &body),
        Err(e) => Err(e),
    };
    match result {
        Ok(answer) => (no_store(), Json(answer)).into_response(),
        Err(e) => e.into_response(),
    }
}

/// `/connect/revocation` (RFC 7009): `token` and an optional `token_type_hint`, with the
/// token endpoint's client authentication. 200 with an empty body whether or not the token
/// was known (§2.2); only the authenticated client's own tokens are revoked.
pub async fn revocation(State(state): State<Sandbox>, request: Request) -> Response {
    let result = match read(request).await {
        Ok((headers, body)) => revoke(&state, &headers, &body),
        Err(e) => Err(e),
    };
    match result {
        Ok(()) => (StatusCode::OK, no_store()).into_response(),
        Err(e) => e.into_response(),
    }
}

/// The headers and the whole body of a POST, at most [`MAX_BODY_BYTES`].
async fn read(request: Request) -> Result<(HeaderMap, Vec<u8>), OAuthError> {
    let (parts, body) = request.into_parts();
    if parts.method != Method::POST {
        return Err(OAuthError::method_not_allowed(parts.method.as_str()));
    }
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
        return Err(OAuthError::body_too_large(MAX_BODY_BYTES));
    }
    let body = axum::body::to_bytes(Body::new(body), MAX_BODY_BYTES)
        .await
        .map_err(|_| OAuthError::body_too_large(MAX_BODY_BYTES))?;
    Ok((parts.headers, body.to_vec()))
}

/// The authenticated client and the form, in the order the token endpoint checks them.
fn client_and_form<'a>(
    state: &'a Sandbox,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(&'a Application, Params), OAuthError> {
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
    Ok((app, params))
}

fn revoke(state: &Sandbox, headers: &HeaderMap, body: &[u8]) -> Result<(), OAuthError> {
    let (app, params) = client_and_form(state, headers, body)?;
    let get = |name: &str| {
        params
            .get(name)
            .map(|v| v.filter(|v| !v.is_empty()))
            .map_err(OAuthError::invalid_request)
    };
    let token = get("token")?.ok_or_else(|| OAuthError::invalid_request("token is missing"))?;
    let hint = get("token_type_hint")?;
    let now = state.clock().now_millis();
    state
        .grants()
        .tokens()
        .revoke(token, &app.app_id, hint, now);
    Ok(())
}

fn handle(state: &Sandbox, headers: &HeaderMap, body: &[u8]) -> Result<Value, OAuthError> {
    let (app, params) = client_and_form(state, headers, body)?;
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
            // RFC 6749 §6 has no redirect_uri in a refresh, and standard clients send none;
            // the spec's example sends it, and then it must be the registered one.
            if get("redirect_uri")?.is_some_and(|uri| uri != app.home_page) {
                return Err(OAuthError::invalid_grant(
                    "redirect_uri does not match the registered home page",
                ));
            }
            // RFC 6749 §6: `scope` may narrow the grant, never widen it; absent, it is the
            // grant's. The refresh token keeps the grant's scopes.
            let scope: Option<Vec<&str>> = get("scope")?.map(|s| {
                let mut scopes: Vec<&str> = Vec::new();
                for s in s.split(' ').filter(|s| !s.is_empty()) {
                    if !scopes.contains(&s) {
                        scopes.push(s);
                    }
                }
                scopes
            });
            state
                .grants()
                .tokens()
                .refresh(token, &app.app_id, scope.as_deref(), now)
                .map_err(|e| match e {
                    RefreshRefusal::Grant(description) => OAuthError::invalid_grant(description),
                    RefreshRefusal::Scope(description) => OAuthError::invalid_scope(description),
                })?
        }
        Some(other) => {
            return Err(OAuthError::unsupported_grant_type(format!(
                "grant_type {other:?} is not supported"
            )))
        }
    };
    answer(state, &grant, tokens, now)
}

/// Checks `Authorization: Basic base64(id:secret)`; nothing else authenticates a client.
///
/// RFC 6749 §2.3.1 form-urlencodes the id and the secret before base64 (`%XX`, `+` for a
/// space); the unencoded form that RFC 7617 shows is accepted too. The decoded pair is tried
/// first, then the raw one.
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
    let matching = |id: &str, secret: &str| {
        state
            .config()
            .application(id)
            .filter(|app| app.secret.matches(secret))
    };
    let form_decoded = form_decode(id).zip(form_decode(secret));
    form_decoded
        .and_then(|(id, secret)| matching(&id, &secret))
        .or_else(|| matching(id, secret))
        .ok_or_else(|| OAuthError::invalid_client("unknown client or wrong secret"))
}

/// `application/x-www-form-urlencoded` decoding of one value: `+` is a space, `%XX` a byte;
/// `None` when the bytes are not UTF-8.
fn form_decode(value: &str) -> Option<String> {
    let spaced = value.replace('+', " ");
    percent_decode_str(&spaced)
        .decode_utf8()
        .ok()
        .map(Cow::into_owned)
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
