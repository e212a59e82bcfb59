//! The session cookie: what it holds, sealed by axum-extra's `PrivateCookieJar` (the `cookie`
//! crate's private jar: AES-256-GCM, the cookie name bound as associated data), and its
//! `Set-Cookie` forms.

use super::key::CookieKey;
use crate::secret::Secret;
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::IntoResponse;
use axum_extra::extract::cookie::{Cookie, PrivateCookieJar, SameSite};
use fundraising_core::companion::Profile;
use serde::{Deserialize, Serialize};

/// Name of the session cookie.
pub const COOKIE_NAME: &str = "fundraising_session";
/// Path the cookie is limited to: only the companion's auth endpoints ever see it.
pub const COOKIE_PATH: &str = "/auth";
/// Path of the cookie in BFF mode: the proxied `/api/...` calls need the session too.
pub const BFF_COOKIE_PATH: &str = "/";

/// The session cookie's `Secure` attribute and `Path` (see `Settings::cookie_scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CookieScope {
    /// `Secure` (the public origin is https).
    pub secure: bool,
    /// [`COOKIE_PATH`], or [`BFF_COOKIE_PATH`] in BFF mode.
    pub path: &'static str,
}
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
    /// BFF mode only: the access token the companion attaches to proxied calls (it never
    /// reaches the page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<Secret>,
    /// BFF mode only: when the access token expires, milliseconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
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
    // Presence is judged on the raw header: a value the jar cannot even parse (bad percent
    // escapes, say) is a cookie that was sent and does not open, so it is cleared.
    let sent = headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .any(|pair| pair.split('=').next().map(str::trim) == Some(COOKIE_NAME));
    if !sent {
        return CookieState::Absent;
    }
    let opened = PrivateCookieJar::from_headers(headers, key.key().clone())
        .get(COOKIE_NAME)
        .and_then(|cookie| serde_json::from_str::<SessionData>(cookie.value()).ok());
    match opened {
        Some(session) => CookieState::Valid(session),
        None => CookieState::Invalid,
    }
}

fn session_cookie_attributes(value: String, scope: CookieScope) -> Cookie<'static> {
    Cookie::build((COOKIE_NAME, value))
        .path(scope.path)
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(scope.secure)
        .build()
}

/// The `Set-Cookie` value storing a session, sealed by the private jar.
pub fn session_cookie(key: &CookieKey, session: &SessionData, scope: CookieScope) -> HeaderValue {
    let Ok(json) = serde_json::to_string(session) else {
        return clear_cookie(scope);
    };
    let mut cookie = session_cookie_attributes(json, scope);
    cookie.set_max_age(time_seconds(MAX_AGE_SECONDS));
    let response = PrivateCookieJar::new(key.key().clone())
        .add(cookie)
        .into_response();
    response
        .headers()
        .get(SET_COOKIE)
        .cloned()
        .unwrap_or_else(|| clear_cookie(scope))
}

fn time_seconds(seconds: u64) -> ::cookie::time::Duration {
    ::cookie::time::Duration::seconds(seconds as i64)
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie(scope: CookieScope) -> HeaderValue {
    let mut cookie = session_cookie_attributes(String::new(), scope);
    cookie.set_max_age(time_seconds(0));
    HeaderValue::from_str(&cookie.to_string()).unwrap_or(HeaderValue::from_static(
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
            access_token: None,
            expires_at: None,
        }
    }

    const SECURE: CookieScope = CookieScope {
        secure: true,
        path: COOKIE_PATH,
    };
    const PLAIN: CookieScope = CookieScope {
        secure: false,
        path: COOKIE_PATH,
    };

    #[test]
    fn a_cookie_round_trips_and_hides_the_token() {
        let key = CookieKey::random();
        let set = session_cookie(&key, &sample(), SECURE);
        let text = set.to_str().unwrap();
        for attribute in [
            "HttpOnly",
            "SameSite=Strict",
            "Secure",
            "Path=/auth",
            "Max-Age=2592000",
        ] {
            assert!(
                text.split("; ").any(|a| a == attribute),
                "{attribute}: {text}"
            );
        }
        assert!(!text.contains("rt-123"));
        assert!(!text.contains("Demo"), "the profile is sealed too: {text}");
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
        assert!(!clear_cookie(PLAIN).to_str().unwrap().contains("Secure"));
        assert!(clear_cookie(PLAIN).to_str().unwrap().contains("Max-Age=0"));
        assert!(clear_cookie(PLAIN)
            .to_str()
            .unwrap()
            .starts_with("fundraising_session=;"));
    }

    #[test]
    fn an_old_format_cookie_is_invalid() {
        // The former hand-sealed format: base64url of nonce || AES-GCM output.
        let mut headers = HeaderMap::new();
        headers.insert(
            COOKIE,
            HeaderValue::from_static(
                "fundraising_session=q83vEjRWeJq83vEjAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
            ),
        );
        assert!(matches!(
            session_from_headers(&CookieKey::random(), &headers),
            CookieState::Invalid
        ));
    }
}
