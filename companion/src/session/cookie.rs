//! The session cookie: what it holds and its `Set-Cookie` forms.

use super::key::CookieKey;
use crate::oidc::Profile;
use crate::secret::Secret;
use axum::http::header::COOKIE;
use axum::http::{HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};

/// Name of the session cookie.
pub const COOKIE_NAME: &str = "fundraising_session";
/// Path the cookie is limited to: only the companion's auth endpoints ever see it.
pub const COOKIE_PATH: &str = "/auth";
/// Lifetime the browser keeps the cookie (the identity server decides how long the refresh
/// token really lives).
const MAX_AGE_SECONDS: u64 = 30 * 24 * 3600;

/// What the sealed cookie carries: the newest refresh token and what a refresh needs to
/// answer in the same shape as the sign-in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionData {
    /// The newest refresh token.
    pub refresh_token: Secret,
    /// The redirect URI of the sign-in (the spec lists it on refresh requests).
    pub redirect_uri: String,
    /// Who signed in.
    pub profile: Profile,
    /// The scope granted at sign-in, if the identity server said.
    pub scope: Option<String>,
}

impl SessionData {
    /// Seals the session into a cookie value.
    pub fn seal(&self, key: &CookieKey) -> String {
        let json = serde_json::to_vec(self).unwrap_or_default();
        key.seal(COOKIE_NAME, &json)
    }

    /// Opens a cookie value; `None` when it was tampered with or sealed by another key.
    pub fn open(key: &CookieKey, value: &str) -> Option<Self> {
        let json = key.open(COOKIE_NAME, value)?;
        serde_json::from_slice(&json).ok()
    }
}

/// Outcome of reading the session cookie from a request.
#[derive(Debug)]
pub enum CookieState {
    /// No session cookie was sent.
    Absent,
    /// A session cookie was sent but does not open (tampered, other key, garbage).
    Invalid,
    /// A valid session.
    Valid(SessionData),
}

/// Reads the session cookie of a request (any of several `Cookie` headers and values).
pub fn session_from_headers(key: &CookieKey, headers: &HeaderMap) -> CookieState {
    let mut seen = false;
    for header in headers.get_all(COOKIE) {
        let Ok(text) = header.to_str() else { continue };
        for pair in text.split(';') {
            let Some((name, value)) = pair.trim().split_once('=') else {
                continue;
            };
            if name.trim() != COOKIE_NAME {
                continue;
            }
            seen = true;
            if let Some(session) = SessionData::open(key, value.trim().trim_matches('"')) {
                return CookieState::Valid(session);
            }
        }
    }
    if seen {
        CookieState::Invalid
    } else {
        CookieState::Absent
    }
}

fn attributes(secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("Path={COOKIE_PATH}; HttpOnly; SameSite=Strict{secure}")
}

/// The `Set-Cookie` value storing a session.
pub fn session_cookie(key: &CookieKey, session: &SessionData, secure: bool) -> HeaderValue {
    let value = format!(
        "{COOKIE_NAME}={}; {}; Max-Age={MAX_AGE_SECONDS}",
        session.seal(key),
        attributes(secure)
    );
    HeaderValue::from_str(&value).unwrap_or_else(|_| clear_cookie(secure))
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie(secure: bool) -> HeaderValue {
    let value = format!("{COOKIE_NAME}=; {}; Max-Age=0", attributes(secure));
    HeaderValue::from_str(&value).unwrap_or(HeaderValue::from_static(
        "fundraising_session=; Path=/auth; Max-Age=0",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SessionData {
        SessionData {
            refresh_token: Secret::new("rt-123"),
            redirect_uri: "http://127.0.0.1:8080/".into(),
            profile: Profile {
                sub: "u1".into(),
                name: Some("Demo".into()),
                email: None,
            },
            scope: None,
        }
    }

    #[test]
    fn a_cookie_round_trips_and_hides_the_token() {
        let key = CookieKey::random();
        let set = session_cookie(&key, &sample(), true);
        let text = set.to_str().unwrap();
        assert!(text.contains("; Path=/auth; HttpOnly; SameSite=Strict; Secure"));
        assert!(!text.contains("rt-123"));
        let value = text.split(';').next().unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(
            COOKIE,
            HeaderValue::from_str(&format!("other=1; {value}")).unwrap(),
        );
        match session_from_headers(&key, &headers) {
            CookieState::Valid(s) => assert_eq!(s.refresh_token.expose(), "rt-123"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            session_from_headers(&CookieKey::random(), &headers),
            CookieState::Invalid
        ));
        assert!(matches!(
            session_from_headers(&key, &HeaderMap::new()),
            CookieState::Absent
        ));
        assert!(!clear_cookie(false).to_str().unwrap().contains("Secure"));
        assert!(clear_cookie(false).to_str().unwrap().contains("Max-Age=0"));
    }
}
