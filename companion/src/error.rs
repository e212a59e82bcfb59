//! The companion's one error type and its JSON form `{error, message}`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use fundraising_core::companion::ErrorBody;

/// Everything that can go wrong in the companion. Each variant answers with a stable code
/// (see [`Error::code`]); messages never carry upstream bodies, secrets, codes or tokens.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// Missing or malformed fields, a body over 16 KiB, or a wrong content type (400).
    #[error("{0}")]
    InvalidRequest(String),
    /// The `Origin` header is absent or not on the allowlist (403).
    #[error("this origin is not allowed to call the companion")]
    ForbiddenOrigin,
    /// The static CSRF header `X-Fundraising-Client: 1` is absent (403).
    #[error("the request lacks the header X-Fundraising-Client: 1")]
    CsrfHeaderMissing,
    /// The identity server refused the code: used, expired, or the verifier is wrong (400).
    #[error("the identity server refused the authorisation code (used, expired, or the PKCE verifier does not match); sign in again")]
    InvalidGrant,
    /// The id_token's nonce is not the one sent with the authorisation request (400).
    #[error("the id_token was issued for another sign-in (nonce mismatch); sign in again")]
    NonceMismatch,
    /// The id_token failed a check; the field names which one, for the log only (502).
    #[error("the identity server's id_token failed validation")]
    IdTokenInvalid(&'static str),
    /// No session cookie, a tampered one, or a refresh token the identity server refused (401).
    #[error("there is no active session; sign in again")]
    SessionExpired,
    /// The identity server (or, in BFF mode, the resource API) could not be reached or
    /// answered unusably (502).
    #[error("the identity server or the resource API is unavailable")]
    UpstreamUnavailable,
    /// The identity server (or, in BFF mode, the resource API) did not answer within the
    /// configured timeout (504).
    #[error("the identity server or the resource API did not answer in time")]
    UpstreamTimeout,
    /// In BFF mode, a path or method under `/api/` that is not one of the proxied operations
    /// (404); the message lists them from the operation table.
    #[error(
        "not one of the proxied operations ({})",
        crate::api_route::forwarded()
    )]
    NotFound,
    /// A path under `/auth` that is no endpoint, or under `/api` when BFF mode is off (404).
    #[error("no such endpoint of the companion")]
    NoSuchEndpoint,
    /// In BFF mode, a proxied request body over 64 KiB (413).
    #[error("the body is larger than 64 KiB")]
    PayloadTooLarge,
    /// The shared session store (Redis, `--redis-url`) cannot be reached (503).
    #[error("the session store is unavailable; try again shortly")]
    SessionStoreUnavailable,
    /// Bad configuration at start (never sent to a browser).
    #[error("configuration: {0}")]
    Config(String),
}

impl Error {
    /// The stable machine-readable code of the JSON answer.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidRequest(_) => "invalid_request",
            Error::ForbiddenOrigin => "forbidden_origin",
            Error::CsrfHeaderMissing => "csrf_header_missing",
            Error::InvalidGrant => "invalid_grant",
            Error::NonceMismatch => "nonce_mismatch",
            Error::IdTokenInvalid(_) => "id_token_invalid",
            Error::SessionExpired => "session_expired",
            Error::UpstreamUnavailable => "upstream_unavailable",
            Error::UpstreamTimeout => "upstream_timeout",
            Error::NotFound | Error::NoSuchEndpoint => "not_found",
            Error::PayloadTooLarge => "payload_too_large",
            Error::SessionStoreUnavailable => "session_store_unavailable",
            Error::Config(_) => "internal_error",
        }
    }

    /// The HTTP status of the JSON answer.
    pub fn status(&self) -> StatusCode {
        match self {
            Error::InvalidRequest(_) | Error::InvalidGrant | Error::NonceMismatch => {
                StatusCode::BAD_REQUEST
            }
            Error::ForbiddenOrigin | Error::CsrfHeaderMissing => StatusCode::FORBIDDEN,
            Error::SessionExpired => StatusCode::UNAUTHORIZED,
            Error::IdTokenInvalid(_) | Error::UpstreamUnavailable => StatusCode::BAD_GATEWAY,
            Error::UpstreamTimeout => StatusCode::GATEWAY_TIMEOUT,
            Error::NotFound | Error::NoSuchEndpoint => StatusCode::NOT_FOUND,
            Error::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Error::SessionStoreUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            Error::Config(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let message = match &self {
            Error::Config(_) => "internal error".to_owned(),
            other => other.to_string(),
        };
        let body = ErrorBody {
            error: self.code().to_owned(),
            message,
        };
        (self.status(), Json(body)).into_response()
    }
}

/// Core's form rules (of `POST /auth/token`) refuse with `invalid_argument`; the companion
/// answers them as `invalid_request`, the message naming the field.
impl From<fundraising_core::Error> for Error {
    fn from(error: fundraising_core::Error) -> Self {
        match error {
            fundraising_core::Error::InvalidArgument { field, message } => {
                // The verifier's rule is RFC 7636's; the companion has always said so.
                let source = if field == "code_verifier" {
                    " (RFC 7636)"
                } else {
                    ""
                };
                // The body's members by their JSON names (`codeVerifier`).
                let field = fundraising_core::encoding::camel_case(&field);
                Error::InvalidRequest(format!("{field} {message}{source}"))
            }
            other => Error::InvalidRequest(other.to_string()),
        }
    }
}
