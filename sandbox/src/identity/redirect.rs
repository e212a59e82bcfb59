//! Sending the browser on: a 302 to an address with query parameters added. The authorize
//! endpoint and the login and consent pages use these.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

/// Builds `uri?name=value&...` (or `&` when `uri` already has a query).
pub fn with_query(uri: &str, pairs: &[(&str, &str)]) -> String {
    let query = serde_urlencoded::to_string(pairs).unwrap_or_default();
    let separator = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{separator}{query}")
}

/// A 302 redirect.
pub fn found(location: &str) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, location.to_owned())]).into_response()
}
