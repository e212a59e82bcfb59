//! The browser guards: an allowed `Origin` and the static CSRF header, on every POST and on
//! every proxied call of BFF mode.

use crate::error::Error;
use crate::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::header::ORIGIN;
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method};

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
        check(state, &parts.headers, false).map(|()| BrowserPost)
    }
}

/// Fetch metadata header (sent by browsers, which no script can set or change).
const SEC_FETCH_SITE: &str = "sec-fetch-site";

/// The guard of a proxied call in BFF mode (`/api/...`): an allowed `Origin` and the CSRF
/// header. Browsers send no `Origin` on a same-origin GET, so a GET without `Origin` passes
/// when it carries `Sec-Fetch-Site: same-origin` (a header only the browser sets); a GET with
/// neither is refused, like any POST without `Origin`.
pub fn check_api_call(state: &AppState, method: &Method, headers: &HeaderMap) -> Result<(), Error> {
    check(state, headers, method == Method::GET)
}

fn check(state: &AppState, headers: &HeaderMap, same_origin_get: bool) -> Result<(), Error> {
    match headers.get(ORIGIN) {
        Some(origin) => {
            let origin = origin.to_str().unwrap_or("");
            if !state.settings().allowed_origins.iter().any(|o| o == origin) {
                return Err(Error::ForbiddenOrigin);
            }
        }
        None => {
            let same_origin = headers
                .get(SEC_FETCH_SITE)
                .is_some_and(|v| v.as_bytes() == b"same-origin");
            if !(same_origin_get && same_origin) {
                return Err(Error::ForbiddenOrigin);
            }
        }
    }
    match headers.get(CSRF_HEADER) {
        Some(v) if v.as_bytes() == b"1" => Ok(()),
        _ => Err(Error::CsrfHeaderMissing),
    }
}
