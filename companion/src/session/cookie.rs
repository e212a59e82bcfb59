//! The session cookie: what it holds, sealed by axum-extra's `PrivateCookieJar` (the `cookie`
//! crate's private jar: AES-256-GCM, the cookie name bound as associated data), and its
//! `Set-Cookie` forms.

use super::key::CookieKey;
use crate::secret::Secret;
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, IntoResponseParts, ResponseParts};
use axum_extra::extract::cookie::{Cookie, PrivateCookieJar, SameSite};
use fundraising_core::companion::Profile;
use serde::{Deserialize, Serialize};
use std::convert::Infallible;

/// Name of the session cookie on a plain-http origin (local development).
pub const COOKIE_NAME: &str = "fundraising_session";
/// Name of the session cookie on an https origin: the `__Host-` prefix makes browsers refuse
/// it unless it is `Secure`, has `Path=/` and no `Domain`, so no other host (a sibling
/// subdomain) and no plain-http page can set or shadow it.
pub const HOST_COOKIE_NAME: &str = "__Host-fundraising_session";
/// The path of the `__Host-` cookie, which the prefix requires to be `/`.
pub const HOST_COOKIE_PATHS: &[&str] = &["/"];
/// Paths the cookie is set for: only the companion's auth endpoints ever see it.
pub const COOKIE_PATHS: &[&str] = &["/auth"];
/// Paths of the cookie in BFF mode: the proxied `/api/...` calls need the session too. The
/// same sealed session is set for each path (a cookie has one path), so that neither the
/// static files nor any other path of the companion ever receives it.
pub const BFF_COOKIE_PATHS: &[&str] = &["/auth", "/api"];

/// The session cookie's `Secure` attribute and paths (see `Settings::cookie_scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CookieScope {
    /// `Secure` (the public origin is https).
    pub secure: bool,
    /// [`HOST_COOKIE_PATHS`] when secure; else [`COOKIE_PATHS`], or [`BFF_COOKIE_PATHS`] in
    /// BFF mode.
    pub paths: &'static [&'static str],
}

impl CookieScope {
    /// The cookie's name: [`HOST_COOKIE_NAME`] when `Secure`, else [`COOKIE_NAME`].
    pub fn name(&self) -> &'static str {
        if self.secure {
            HOST_COOKIE_NAME
        } else {
            COOKIE_NAME
        }
    }
}

/// The `Set-Cookie` values that store or clear a session: one per path of its scope. As a
/// response part they are all appended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetCookies(pub Vec<HeaderValue>);

impl SetCookies {
    /// Appends the values to `headers`.
    pub fn append_to(self, headers: &mut HeaderMap) {
        for value in self.0 {
            headers.append(SET_COOKIE, value);
        }
    }
}

impl IntoResponseParts for SetCookies {
    type Error = Infallible;

    fn into_response_parts(self, mut res: ResponseParts) -> Result<ResponseParts, Infallible> {
        self.append_to(res.headers_mut());
        Ok(res)
    }
}
/// Lifetime the browser keeps the cookie (the identity server decides how long the refresh
/// token really lives).
pub(crate) const MAX_AGE_SECONDS: u64 = 30 * 24 * 3600;

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
    /// The session's own id, made at sign-in and kept across rotations: what a sign-out
    /// records as ended, so that no copy of any of its cookies opens afterwards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<String>,
    /// Until when this cookie opens, milliseconds since the Unix epoch (sealed when it is
    /// set: a copy replayed later than the browser would keep it does not open).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
}

impl SessionData {
    /// A fresh session id (128 random bits, hex).
    pub fn new_sid() -> String {
        let id: [u8; 16] = rand::random();
        id.iter().map(|b| format!("{b:02x}")).collect()
    }
}

fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Outcome of reading the session cookie from a request.
// One per request, matched at once: boxing the session would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum CookieState {
    /// No session cookie was sent.
    Absent,
    /// A session cookie was sent but does not open (tampered, other key, garbage).
    Invalid,
    /// A valid session.
    Valid(SessionData),
}

/// Reads the plain-http session cookie ([`COOKIE_NAME`]) of a request; see [`session_in`].
pub fn session_from_headers(key: &CookieKey, headers: &HeaderMap) -> CookieState {
    session_named(key, COOKIE_NAME, headers)
}

/// Reads the session cookie of `scope` (its name: [`CookieScope::name`]) of a request: on an
/// https origin only the `__Host-` cookie is a session, never a plain one another host set.
pub fn session_in(key: &CookieKey, scope: CookieScope, headers: &HeaderMap) -> CookieState {
    session_named(key, scope.name(), headers)
}

/// Reads the session cookie `name` of a request (any of several `Cookie` headers and values).
/// When several cookies carry the name (set for different paths, the most specific first as
/// browsers send them), the first that opens is the session.
fn session_named(key: &CookieKey, name: &str, headers: &HeaderMap) -> CookieState {
    // Presence is judged on the raw header: a value the jar cannot even parse (bad percent
    // escapes, say) is a cookie that was sent and does not open, so it is cleared.
    let values: Vec<&str> = headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| {
            let (pair_name, value) = pair.split_once('=')?;
            (pair_name.trim() == name).then_some(value.trim())
        })
        .collect();
    if values.is_empty() {
        return CookieState::Absent;
    }
    let opened = values.into_iter().find_map(|value| {
        let mut one = HeaderMap::new();
        one.insert(
            COOKIE,
            HeaderValue::from_str(&format!("{name}={value}")).ok()?,
        );
        let cookie = PrivateCookieJar::from_headers(&one, key.key().clone()).get(name)?;
        serde_json::from_str::<SessionData>(cookie.value())
            .ok()
            .filter(|s| s.until.is_none_or(|until| until > unix_ms()))
    });
    match opened {
        Some(session) => CookieState::Valid(session),
        None => CookieState::Invalid,
    }
}

fn session_cookie_attributes(
    name: &'static str,
    value: String,
    path: &'static str,
    secure: bool,
) -> Cookie<'static> {
    Cookie::build((name, value))
        .path(path)
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(secure)
        .build()
}

/// The `Set-Cookie` values storing a session, sealed by the private jar (one per path).
pub fn session_cookie(key: &CookieKey, session: &SessionData, scope: CookieScope) -> SetCookies {
    let mut session = session.clone();
    session.until = Some(unix_ms() + MAX_AGE_SECONDS as i64 * 1000);
    let Ok(json) = serde_json::to_string(&session) else {
        return clear_cookie(scope);
    };
    let mut cookie = session_cookie_attributes(scope.name(), json, scope.paths[0], scope.secure);
    cookie.set_max_age(time_seconds(MAX_AGE_SECONDS));
    let response = PrivateCookieJar::new(key.key().clone())
        .add(cookie)
        .into_response();
    let Some(sealed) = response
        .headers()
        .get(SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| Cookie::parse(v.to_owned()).ok())
    else {
        return clear_cookie(scope);
    };
    let values = scope
        .paths
        .iter()
        .filter_map(|path| {
            let mut cookie = session_cookie_attributes(
                scope.name(),
                sealed.value().to_owned(),
                path,
                scope.secure,
            );
            cookie.set_max_age(time_seconds(MAX_AGE_SECONDS));
            HeaderValue::from_str(&cookie.to_string()).ok()
        })
        .collect();
    SetCookies(values)
}

fn time_seconds(seconds: u64) -> ::cookie::time::Duration {
    ::cookie::time::Duration::seconds(seconds as i64)
}

/// The `Set-Cookie` values that remove the session cookie (on each path).
pub fn clear_cookie(scope: CookieScope) -> SetCookies {
    let values = scope
        .paths
        .iter()
        .map(|path| {
            let mut cookie =
                session_cookie_attributes(scope.name(), String::new(), path, scope.secure);
            cookie.set_max_age(time_seconds(0));
            HeaderValue::from_str(&cookie.to_string()).unwrap_or(HeaderValue::from_static(
                "fundraising_session=; Path=/auth; Max-Age=0",
            ))
        })
        .collect();
    SetCookies(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SessionData {
        SessionData {
            refresh_token: Secret::new("rt-123"),
            redirect_uri: "http://127.0.0.1:8080/".into(),
            profile: Profile::new("u1").name(Some("Demo".into())),
            scope: None,
            access_token: None,
            expires_at: None,
            sid: Some("sid-1".into()),
            until: None,
        }
    }

    const SECURE: CookieScope = CookieScope {
        secure: true,
        paths: HOST_COOKIE_PATHS,
    };
    const PLAIN: CookieScope = CookieScope {
        secure: false,
        paths: COOKIE_PATHS,
    };

    fn only(cookies: SetCookies) -> String {
        assert_eq!(cookies.0.len(), 1, "{cookies:?}");
        cookies.0[0].to_str().unwrap().to_owned()
    }

    /// On https the cookie is `__Host-` (Secure, `Path=/`, no Domain) and only that name is a
    /// session: a plain `fundraising_session` another host set is not read.
    #[test]
    fn a_cookie_round_trips_and_hides_the_token() {
        let key = CookieKey::random();
        let text = &only(session_cookie(&key, &sample(), SECURE));
        assert!(text.starts_with("__Host-fundraising_session="), "{text}");
        assert!(!text.to_ascii_lowercase().contains("domain="), "{text}");
        for attribute in [
            "HttpOnly",
            "SameSite=Strict",
            "Secure",
            "Path=/",
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
        match session_in(&key, SECURE, &headers) {
            CookieState::Valid(s) => assert_eq!(s.refresh_token.expose(), "rt-123"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            session_in(&CookieKey::random(), SECURE, &headers),
            CookieState::Invalid
        ));
        assert!(matches!(
            session_in(&key, SECURE, &HeaderMap::new()),
            CookieState::Absent
        ));
        // The same sealed value under the plain name is no session on https.
        let plain = value.replacen("__Host-", "", 1);
        let mut shadow = HeaderMap::new();
        shadow.insert(COOKIE, HeaderValue::from_str(&plain).unwrap());
        assert!(matches!(
            session_in(&key, SECURE, &shadow),
            CookieState::Absent
        ));
        assert!(only(clear_cookie(SECURE)).starts_with("__Host-fundraising_session=;"));
        assert!(!only(clear_cookie(PLAIN)).contains("Secure"));
        assert!(only(clear_cookie(PLAIN)).contains("Max-Age=0"));
        assert!(only(clear_cookie(PLAIN)).starts_with("fundraising_session=;"));
    }

    /// In BFF mode the same sealed session is set for `/auth` and `/api`, never for `/`, and
    /// cleared on both; a request carrying a stale cookie after the current one (a cookie
    /// from a less specific path) opens the first that opens.
    #[test]
    fn bff_sessions_are_set_and_cleared_on_auth_and_api_only() {
        let key = CookieKey::random();
        let bff = CookieScope {
            secure: false,
            paths: BFF_COOKIE_PATHS,
        };
        let set: Vec<String> = session_cookie(&key, &sample(), bff)
            .0
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .collect();
        assert_eq!(set.len(), 2, "{set:?}");
        let paths: Vec<&str> = set
            .iter()
            .map(|c| {
                c.split("; ")
                    .find_map(|a| a.strip_prefix("Path="))
                    .expect("a path")
            })
            .collect();
        assert_eq!(paths, ["/auth", "/api"]);
        let value = |c: &str| c.split(';').next().unwrap().to_owned();
        assert_eq!(value(&set[0]), value(&set[1]), "one session for both paths");
        let cleared = clear_cookie(bff);
        assert_eq!(cleared.0.len(), 2);
        for c in &cleared.0 {
            assert!(c.to_str().unwrap().contains("Max-Age=0"));
        }

        let mut other = sample();
        other.refresh_token = Secret::new("rt-older");
        let older = session_cookie(&key, &other, bff).0[0]
            .to_str()
            .unwrap()
            .to_owned();
        let mut headers = HeaderMap::new();
        headers.insert(
            COOKIE,
            HeaderValue::from_str(&format!(
                "fundraising_session=garbage; {}; {}",
                value(&set[0]),
                value(&older)
            ))
            .unwrap(),
        );
        match session_from_headers(&key, &headers) {
            CookieState::Valid(s) => assert_eq!(s.refresh_token.expose(), "rt-123"),
            other => panic!("{other:?}"),
        }
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
