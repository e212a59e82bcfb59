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

/// The user behind `Authorization: Bearer <token>`, if any; an unknown or expired token is 401.
pub fn viewer(state: &Sandbox, headers: &HeaderMap) -> Result<Option<AccessInfo>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value.to_str().unwrap_or("");
    let Some((scheme, token)) = value.trim().split_once(' ') else {
        return Ok(None);
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Ok(None);
    }
    match state
        .grants()
        .access(token.trim(), state.clock().now_millis())
    {
        Some(info) => Ok(Some(info)),
        None => Err(ApiError {
            authenticate: Some("Bearer error=\"invalid_token\""),
            ..ApiError::new(
                StatusCode::UNAUTHORIZED,
                "The access token is invalid or has expired.",
            )
        }),
    }
}
