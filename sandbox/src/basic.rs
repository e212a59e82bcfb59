//! HTTP Basic client credentials as the token endpoint reads them: RFC 6749 §2.3.1
//! form-urlencodes the id and the secret before base64 (`%XX`, `+` for a space); the unencoded
//! form that RFC 7617 shows is read too.

use std::borrow::Cow;

use axum::http::{header, HeaderMap};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use percent_encoding::percent_decode_str;

/// What an `Authorization` header holds, for client authentication.
#[derive(Debug, PartialEq, Eq)]
pub enum Basic {
    /// No `Authorization` header.
    Missing,
    /// Another scheme than Basic.
    OtherScheme,
    /// A Basic header that does not decode to `id:secret`.
    Malformed,
    /// The id and secret as sent (before form-decoding).
    Credentials(String, String),
}

impl Basic {
    /// Reads the request's `Authorization` header.
    pub fn of(headers: &HeaderMap) -> Self {
        let Some(value) = headers.get(header::AUTHORIZATION) else {
            return Self::Missing;
        };
        let Ok(value) = value.to_str() else {
            return Self::Malformed;
        };
        let Some((scheme, encoded)) = value.trim().split_once(' ') else {
            return Self::Malformed;
        };
        if !scheme.eq_ignore_ascii_case("basic") {
            return Self::OtherScheme;
        }
        let decoded = STANDARD
            .decode(encoded.trim())
            .ok()
            .and_then(|d| String::from_utf8(d).ok());
        match decoded.as_deref().and_then(|d| d.split_once(':')) {
            Some((id, secret)) => Self::Credentials(id.to_owned(), secret.to_owned()),
            None => Self::Malformed,
        }
    }

    /// The client id the header names, form-decoded when that decodes (no secret checked).
    pub fn client_id(headers: &HeaderMap) -> Option<String> {
        match Self::of(headers) {
            Self::Credentials(id, _) => Some(form_decode(&id).unwrap_or(id)),
            _ => None,
        }
    }
}

/// `application/x-www-form-urlencoded` decoding of one value: `+` is a space, `%XX` a byte;
/// `None` when the bytes are not UTF-8.
pub fn form_decode(value: &str) -> Option<String> {
    let spaced = value.replace('+', " ");
    percent_decode_str(&spaced)
        .decode_utf8()
        .ok()
        .map(Cow::into_owned)
}
