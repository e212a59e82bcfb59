//! RFC 6749 §5.2 error answers of the token endpoint.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error of the token endpoint, answered as `{"error", "error_description"}` JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthError {
    /// HTTP status (400, or 401 for `invalid_client`).
    pub status: StatusCode,
    /// The RFC 6749 error code.
    pub error: &'static str,
    /// Human-readable explanation.
    pub description: String,
}

impl OAuthError {
    /// `invalid_request` (400).
    pub fn invalid_request(description: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_request", description)
    }

    /// `invalid_client` (401, with `WWW-Authenticate`).
    pub fn invalid_client(description: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "invalid_client", description)
    }

    /// `invalid_grant` (400).
    pub fn invalid_grant(description: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_grant", description)
    }

    /// `invalid_scope` (400): a refresh asked for a scope the grant does not hold.
    pub fn invalid_scope(description: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_scope", description)
    }

    /// `unsupported_grant_type` (400).
    pub fn unsupported_grant_type(description: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            description,
        )
    }

    /// `invalid_request` with 405 and `Allow: POST`: the endpoint takes POST only.
    pub fn method_not_allowed(method: &str) -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "invalid_request",
            format!("method {method} is not allowed; use POST"),
        )
    }

    /// `invalid_request` with 413: the body is larger than `limit` bytes.
    pub fn body_too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request",
            format!("the body is larger than {limit} bytes"),
        )
    }

    /// `server_error` (500).
    pub fn server_error(description: impl Into<String>) -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            description,
        )
    }

    /// An error of any status and `error` code (the faults' answers).
    pub fn with_status(
        status: StatusCode,
        error: &'static str,
        description: impl Into<String>,
    ) -> Self {
        Self::new(status, error, description)
    }

    fn new(status: StatusCode, error: &'static str, description: impl Into<String>) -> Self {
        Self {
            status,
            error,
            description: description.into(),
        }
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        let body = json!({ "error": self.error, "error_description": self.description });
        let mut response = (
            self.status,
            [
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
                (header::PRAGMA, HeaderValue::from_static("no-cache")),
            ],
            axum::Json(body),
        )
            .into_response();
        if self.status == StatusCode::METHOD_NOT_ALLOWED {
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("POST"));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"fundraising-sandbox\""),
            );
        }
        response
    }
}
