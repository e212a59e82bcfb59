//! The application check and the optional bearer token of resource calls.

use axum::http::{header, HeaderMap, StatusCode};

use super::ApiError;
use crate::grants::AccessInfo;
use crate::state::Sandbox;

/// Fails with 404 when `app_id` is not a registered application.
pub fn known_app(state: &Sandbox, app_id: &str) -> Result<(), ApiError> {
    match state.config().application(app_id) {
        Some(_) => Ok(()),
        None => Err(ApiError::not_found(format!(
            "The application {app_id:?} is not registered."
        ))),
    }
}

/// The registered application `app_id` and the user behind `Authorization: Bearer <token>`,
/// if any: [`known_app`], then [`viewer`].
pub fn caller(
    state: &Sandbox,
    app_id: &str,
    headers: &HeaderMap,
) -> Result<Option<AccessInfo>, ApiError> {
    known_app(state, app_id)?;
    viewer(state, app_id, headers)
}

/// The user behind `Authorization: Bearer <token>`, if any. No header is anonymous; a header
/// that is not `Bearer <token>` (RFC 6750 §2.1: one space, a `b64token`) is 401
/// `invalid_request`; an unknown or expired token, or one issued to another application than
/// `app_id`, is 401 `invalid_token`.
pub fn viewer(
    state: &Sandbox,
    app_id: &str,
    headers: &HeaderMap,
) -> Result<Option<AccessInfo>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let token = value
        .to_str()
        .ok()
        .and_then(bearer_token)
        .ok_or_else(|| ApiError {
            authenticate: Some("Bearer error=\"invalid_request\""),
            ..ApiError::new(
                StatusCode::UNAUTHORIZED,
                "The Authorization header is malformed: expected \"Bearer <access token>\".",
            )
        })?;
    let info = state
        .grants()
        .tokens()
        .access(token, state.clock().now_millis())
        .ok_or_else(|| ApiError::invalid_token("The access token is invalid or has expired."))?;
    if info.client_id != app_id {
        return Err(ApiError::invalid_token(
            "The access token was issued to another application.",
        ));
    }
    Ok(Some(info))
}

/// The token of `Bearer <token>` (scheme case-insensitive, exactly one space), when the token
/// is an RFC 6750 `b64token`: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let body = token.trim_end_matches('=');
    let well_formed = !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    well_formed.then_some(token)
}
