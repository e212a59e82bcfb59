//! Sending the browser on: a 302 to an address with query parameters added, and an OAuth
//! error sent back to the application's `redirect_uri`. The authorize endpoint and the login
//! and consent pages both use these.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

/// Builds `uri?name=value&...` (or `&` when `uri` already has a query).
pub fn with_query(uri: &str, pairs: &[(&str, &str)]) -> String {
    let query = serde_urlencoded::to_string(pairs).unwrap_or_default();
    let separator = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{separator}{query}")
}

/// Redirects the browser (302) to the application with an OAuth error.
pub fn redirect_error(
    redirect_uri: &str,
    error: &str,
    description: &str,
    state: Option<&str>,
) -> Response {
    let mut pairs = vec![("error", error), ("error_description", description)];
    if let Some(state) = state {
        pairs.push(("state", state));
    }
    found(&with_query(redirect_uri, &pairs))
}

/// A 302 redirect.
pub fn found(location: &str) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, location.to_owned())]).into_response()
}
