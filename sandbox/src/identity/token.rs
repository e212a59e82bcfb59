//! `POST /connect/token` (code exchange and refresh) and `POST /connect/revocation` (RFC 7009),
//! HTTP Basic client authentication only (RFC 6749 §2.3.1). Every failure, whatever its
//! cause (method, content type, size, credentials, grant), is RFC 6749 §5.2 JSON.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use super::{id_token, OAuthError};
use crate::basic::{form_decode, Basic};
use crate::config::Application;
use crate::faults::Applied;
use crate::grants::{Grant, IssuedTokens, RefreshRefusal};
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
    let result = match read(request).await {
        Ok((headers, body)) => handle(&state, &headers, &body),
        Err(e) => Err(e),
    };
    let result = match result {
        Ok(issued) => answer(&state, issued).await,
        Err(e) => Err(e),
    };
    match result {
        Ok((answer, fault)) => {
            let mut response = (no_store(), Json(answer)).into_response();
            if let Some(id) = fault {
                response
                    .extensions_mut()
                    .insert(Applied { id, dropped: false });
            }
            response
        }
        Err(e) => e.into_response(),
    }
}

/// A grant just redeemed or refreshed, and its tokens.
struct Issued {
    grant: Grant,
    tokens: IssuedTokens,
    grant_type: &'static str,
    now_ms: i64,
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

fn handle(state: &Sandbox, headers: &HeaderMap, body: &[u8]) -> Result<Issued, OAuthError> {
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
    let (grant_type, (grant, tokens)) = match get("grant_type")? {
        None => return Err(OAuthError::invalid_request("grant_type is missing")),
        Some("authorization_code") => {
            let code =
                get("code")?.ok_or_else(|| OAuthError::invalid_request("code is missing"))?;
            let redirect_uri = get("redirect_uri")?
                .ok_or_else(|| OAuthError::invalid_request("redirect_uri is missing"))?;
            let exchanged = state
                .grants()
                .exchange_code(code, &app.app_id, redirect_uri, get("code_verifier")?, now)
                .map_err(OAuthError::invalid_grant)?;
            ("authorization_code", exchanged)
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
            let refreshed = state
                .grants()
                .tokens()
                .refresh(token, &app.app_id, scope.as_deref(), now)
                .map_err(|e| match e {
                    RefreshRefusal::Grant(description) => OAuthError::invalid_grant(description),
                    RefreshRefusal::Scope(description) => OAuthError::invalid_scope(description),
                })?;
            ("refresh_token", refreshed)
        }
        Some(other) => {
            return Err(OAuthError::unsupported_grant_type(format!(
                "grant_type {other:?} is not supported"
            )))
        }
    };
    Ok(Issued {
        grant,
        tokens,
        grant_type,
        now_ms: now,
    })
}

/// Checks `Authorization: Basic base64(id:secret)`; nothing else authenticates a client.
/// The form-decoded pair (RFC 6749 §2.3.1) is tried first, then the raw one (RFC 7617).
fn authenticate<'a>(
    state: &'a Sandbox,
    headers: &HeaderMap,
    params: Option<&Params>,
) -> Result<&'a Application, OAuthError> {
    let (id, secret) = match Basic::of(headers) {
        Basic::Credentials(id, secret) => (id, secret),
        Basic::Missing => {
            let in_body = params.is_some_and(|p| p.contains("client_secret"));
            return Err(OAuthError::invalid_client(if in_body {
                "client credentials in the body are not accepted; use HTTP Basic"
            } else {
                "client authentication by HTTP Basic is required"
            }));
        }
        Basic::OtherScheme => {
            return Err(OAuthError::invalid_client(
                "client authentication by HTTP Basic is required",
            ))
        }
        Basic::Malformed => return Err(OAuthError::invalid_client("malformed Basic credentials")),
    };
    let matching = |id: &str, secret: &str| {
        state
            .config()
            .application(id)
            .filter(|app| app.secret.matches(secret))
    };
    let form_decoded = form_decode(&id).zip(form_decode(&secret));
    form_decoded
        .and_then(|(id, secret)| matching(&id, &secret))
        .or_else(|| matching(&id, &secret))
        .ok_or_else(|| OAuthError::invalid_client("unknown client or wrong secret"))
}

/// The token answer for a grant just redeemed or refreshed, with the faults in force for it
/// (an id_token a relying party must refuse, a short-lived access token).
async fn answer(state: &Sandbox, issued: Issued) -> Result<(Value, Option<u64>), OAuthError> {
    let Issued {
        grant,
        tokens,
        grant_type,
        now_ms,
    } = issued;
    let user = state
        .config()
        .user(&grant.user_email)
        .ok_or_else(|| OAuthError::invalid_grant("the user no longer exists"))?;
    let fault = state.faults().take_issue(&grant.client_id, grant_type);
    let mut expires_in = tokens.expires_in;
    if let Some(secs) = fault.and_then(|f| f.expires_in) {
        expires_in = i64::from(secs);
        state
            .grants()
            .tokens()
            .shorten(&tokens.access_token, expires_in, now_ms);
    }
    let iat = now_ms.div_euclid(1000);
    let mut claims = json!({
        "iss": state.issuer(),
        "sub": user.subject(),
        "aud": grant.client_id,
        "exp": iat + expires_in,
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
    let id_token = id_token::sign(state, claims, fault.and_then(|f| f.id_token))
        .await
        .map_err(|e| OAuthError::server_error(e.to_string()))?;
    let mut body = json!({
        "id_token": id_token,
        "access_token": tokens.access_token,
        "expires_in": expires_in,
        "token_type": "Bearer",
        "scope": grant.scopes.join(" "),
    });
    if let Some(refresh) = tokens.refresh_token {
        body["refresh_token"] = json!(refresh);
    }
    Ok((body, fault.map(|f| f.id)))
}
