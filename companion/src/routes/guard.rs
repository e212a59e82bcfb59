//! The browser-POST guard: an allowed `Origin` and the static CSRF header.

use crate::error::Error;
use crate::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::header::ORIGIN;
use axum::http::request::Parts;

/// The static CSRF header every POST must carry (a cross-site form cannot set it, and a
/// cross-origin script cannot send it without passing the CORS preflight).
pub const CSRF_HEADER: &str = "x-fundraising-client";

/// Proof that a POST comes from an allowed origin and carries `X-Fundraising-Client: 1`.
#[derive(Debug, Clone, Copy)]
pub struct BrowserPost;

impl FromRequestParts<AppState> for BrowserPost {
    type Rejection = Error;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let origin = parts
            .headers
            .get(ORIGIN)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !state.settings().allowed_origins.iter().any(|o| o == origin) {
            return Err(Error::ForbiddenOrigin);
        }
        match parts.headers.get(CSRF_HEADER) {
            Some(v) if v.as_bytes() == b"1" => Ok(BrowserPost),
            _ => Err(Error::CsrfHeaderMissing),
        }
    }
}
