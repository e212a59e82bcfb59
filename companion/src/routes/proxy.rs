//! BFF mode's `/api/...`: the four resource operations, forwarded to
//! `{api_url}/{app_id}/v1/...` with the session's bearer token attached on the server.
//!
//! Only these are forwarded; every other path or method is 404, so this is no open proxy:
//! - `GET api/campaign/byshortname/{shortName}`
//! - `GET api/donation/ref/{reference}`
//! - `POST api/event` and `POST api/event/`
//! - `GET api/event/{eventId}/pages` (the query passed through)

use super::guard::check_api_call;
use super::refresh::{expired, refresh_session};
use crate::error::Error;
use crate::secret::Secret;
use crate::session::{
    clear_cookie, session_cookie, session_from_headers, CookieState, SessionData,
};
use crate::state::AppState;
use crate::upstream;
use axum::body::{to_bytes, Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{
    ACCEPT, AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, LOCATION, SET_COOKIE, WWW_AUTHENTICATE,
};
use axum::http::{HeaderMap, HeaderValue, Method, Request as HttpRequest, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body_util::Full;
use percent_encoding::percent_decode_str;
use std::time::{SystemTime, UNIX_EPOCH};
use url::Url;

/// Largest request body forwarded (an event is far smaller).
pub const MAX_REQUEST_BODY: usize = 64 * 1024;
/// Largest upstream answer relayed; a larger one is `502 upstream_unavailable`.
pub const MAX_RESPONSE_BODY: usize = 1024 * 1024;
/// An access token with less than this left is refreshed before the call.
const REFRESH_MARGIN_MS: i64 = 60_000;

/// One of the four operations, with its upstream path segments (below `{app_id}/v1/`).
#[derive(Debug, PartialEq, Eq)]
struct Operation {
    segments: Vec<String>,
    /// Whether the query string is passed through (the pages listing only).
    query: bool,
}

/// A path parameter as the upstream will see it: percent-decoded, non-empty, no `/` or `\`
/// (no encoded slash smuggles a segment), not `.` or `..` (no traversal), no control
/// characters, valid UTF-8.
fn parameter(raw: &str) -> Option<String> {
    let value = percent_decode_str(raw).decode_utf8().ok()?;
    let bad = value.is_empty()
        || value == "."
        || value == ".."
        || value
            .chars()
            .any(|c| c == '/' || c == '\\' || c.is_control());
    (!bad).then(|| value.into_owned())
}

/// The operation of `method` and `path` (the path below `/api/`), or `None` (404).
fn operation(method: &Method, path: &str) -> Option<Operation> {
    let parts: Vec<&str> = path.split('/').collect();
    let owned = |s: &[&str]| s.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    match (method, parts.as_slice()) {
        (&Method::GET, ["campaign", "byshortname", name]) => Some(Operation {
            segments: vec!["campaign".into(), "byshortname".into(), parameter(name)?],
            query: false,
        }),
        (&Method::GET, ["donation", "ref", reference]) => Some(Operation {
            segments: vec!["donation".into(), "ref".into(), parameter(reference)?],
            query: false,
        }),
        (&Method::POST, ["event"]) | (&Method::POST, ["event", ""]) => Some(Operation {
            segments: owned(&parts),
            query: false,
        }),
        (&Method::GET, ["event", id, "pages"]) => Some(Operation {
            segments: vec!["event".into(), parameter(id)?, "pages".into()],
            query: true,
        }),
        _ => None,
    }
}

fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The session the call is made for, and the `Set-Cookie` its answer must carry.
struct Caller {
    session: Option<SessionData>,
    set_cookie: Option<HeaderValue>,
}

impl Caller {
    /// Refreshes the session (through the shared single flight); the rotated cookie goes back
    /// on the answer. A refused refresh token ends the session (`401 session_expired`).
    async fn refresh(&mut self, state: &AppState, session: SessionData) -> Result<(), Response> {
        let settings = state.settings();
        let scope = settings.cookie_scope();
        match refresh_session(state, session).await {
            Ok(refreshed) => {
                self.set_cookie = Some(session_cookie(
                    &settings.cookie_key,
                    &refreshed.session,
                    scope,
                ));
                self.session = Some(refreshed.session);
                Ok(())
            }
            Err(Error::SessionExpired) => Err(expired(scope)),
            Err(other) => Err(other.into_response()),
        }
    }

    fn bearer(&self) -> Option<&Secret> {
        self.session.as_ref().and_then(|s| s.access_token.as_ref())
    }
}

/// The upstream answer, read within [`MAX_RESPONSE_BODY`].
struct Upstream {
    status: StatusCode,
    content_type: Option<HeaderValue>,
    location: Option<HeaderValue>,
    www_authenticate: Option<HeaderValue>,
    body: Bytes,
}

impl Upstream {
    /// A 401 refusing the bearer token itself (expired or revoked before we knew).
    fn token_refused(&self) -> bool {
        self.status == StatusCode::UNAUTHORIZED
            && self
                .www_authenticate
                .as_ref()
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.contains("invalid_token"))
    }
}

async fn call(
    state: &AppState,
    method: &Method,
    url: &Url,
    headers: &HeaderMap,
    body: &Bytes,
    bearer: Option<&Secret>,
) -> Result<Upstream, Error> {
    let mut request = HttpRequest::builder()
        .method(method.clone())
        .uri(upstream::uri(url).ok_or(Error::UpstreamUnavailable)?);
    for name in [CONTENT_TYPE, ACCEPT] {
        if let Some(value) = headers.get(&name) {
            request = request.header(name, value.clone());
        }
    }
    if let Some(token) = bearer {
        let mut value = HeaderValue::from_str(&format!("Bearer {}", token.expose()))
            .map_err(|_| Error::UpstreamUnavailable)?;
        value.set_sensitive(true);
        request = request.header(AUTHORIZATION, value);
    }
    let body = match *method {
        Method::POST => Full::new(body.clone()),
        _ => Full::default(),
    };
    let request = request.body(body).map_err(|_| Error::UpstreamUnavailable)?;
    let answer = state
        .api_http()
        .send(request, MAX_RESPONSE_BODY)
        .await
        .map_err(|failure| failure.into_error("api", "resource API"))?;
    let header = |name| answer.headers.get(name).cloned();
    Ok(Upstream {
        status: answer.status,
        content_type: header(CONTENT_TYPE),
        location: header(LOCATION),
        www_authenticate: header(WWW_AUTHENTICATE),
        body: answer.body,
    })
}

/// `/api/...` in BFF mode: checks the operation (404 otherwise), the Origin and CSRF header
/// (403), refuses a request with its own `Authorization` (400) or a body over 64 KiB (413),
/// then forwards it with only `Content-Type` and `Accept` (never the browser's `Cookie` or
/// `Authorization`), attaching the session's bearer token (refreshed first when it has less
/// than a minute left). Without a session the call goes anonymously. The upstream status,
/// body, `Content-Type` and `Location` come back unchanged.
pub async fn proxy(State(state): State<AppState>, request: Request) -> Response {
    match forward(&state, request).await {
        Ok(response) | Err(response) => response,
    }
}

async fn forward(state: &AppState, request: Request) -> Result<Response, Response> {
    let (parts, body) = request.into_parts();
    let settings = state.settings();
    let path = parts.uri.path();
    let below = path.strip_prefix("/api/").unwrap_or("");
    let op = operation(&parts.method, below).ok_or(Error::NotFound.into_response())?;
    check_api_call(state, &parts.method, &parts.headers).map_err(IntoResponse::into_response)?;
    if parts.headers.contains_key(AUTHORIZATION) {
        return Err(Error::InvalidRequest(
            "send no Authorization header: the companion attaches the session's token".into(),
        )
        .into_response());
    }
    let body = to_bytes(body, MAX_REQUEST_BODY)
        .await
        .map_err(|_| Error::PayloadTooLarge.into_response())?;

    let Some(api_url) = &settings.api_url else {
        return Err(Error::NotFound.into_response());
    };
    let mut url = api_url.clone();
    url.path_segments_mut()
        .map_err(|_| Error::UpstreamUnavailable.into_response())?
        .pop_if_empty()
        .push(&settings.app_id)
        .push("v1")
        .extend(&op.segments);
    if op.query {
        url.set_query(parts.uri.query());
    }

    let scope = settings.cookie_scope();
    let mut caller = match session_from_headers(&settings.cookie_key, &parts.headers) {
        CookieState::Valid(session) => Caller {
            session: Some(session),
            set_cookie: None,
        },
        CookieState::Absent => Caller {
            session: None,
            set_cookie: None,
        },
        // A cookie that does not open is no session: cleared, and the call goes anonymously.
        CookieState::Invalid => Caller {
            session: None,
            set_cookie: Some(clear_cookie(scope)),
        },
    };
    if let Some(session) = &caller.session {
        let fresh = session.access_token.is_some()
            && session
                .expires_at
                .is_some_and(|at| at - now_millis() > REFRESH_MARGIN_MS);
        if !fresh {
            let session = session.clone();
            caller.refresh(state, session).await?;
        }
    }

    let mut upstream = call(
        state,
        &parts.method,
        &url,
        &parts.headers,
        &body,
        caller.bearer(),
    )
    .await
    .map_err(IntoResponse::into_response)?;
    if upstream.token_refused() && caller.bearer().is_some() {
        // The token died before its announced expiry (clocks differ, revoked): refresh it.
        // A GET is then retried once; a POST is not (no automatic repeat of a creation), its
        // 401 goes back with the refreshed cookie and the page may send it again.
        if let Some(session) = caller.session.clone() {
            caller.refresh(state, session).await?;
            if parts.method == Method::GET {
                upstream = call(
                    state,
                    &parts.method,
                    &url,
                    &parts.headers,
                    &body,
                    caller.bearer(),
                )
                .await
                .map_err(IntoResponse::into_response)?;
            }
        }
    }

    let mut response = Response::new(Body::from(upstream.body));
    *response.status_mut() = upstream.status;
    let headers = response.headers_mut();
    if let Some(value) = upstream.content_type {
        headers.insert(CONTENT_TYPE, value);
    }
    if let Some(value) = upstream.location {
        headers.insert(LOCATION, value);
    }
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Some(cookie) = caller.set_cookie {
        headers.insert(SET_COOKIE, cookie);
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segments(method: Method, path: &str) -> Option<Vec<String>> {
        operation(&method, path).map(|o| o.segments)
    }

    #[test]
    fn only_the_four_operations_match() {
        assert_eq!(
            segments(Method::GET, "campaign/byshortname/demo%20campaign"),
            Some(vec![
                "campaign".into(),
                "byshortname".into(),
                "demo campaign".into()
            ])
        );
        assert!(segments(Method::GET, "donation/ref/demo-ref-1").is_some());
        assert_eq!(
            segments(Method::POST, "event/"),
            Some(vec!["event".into(), "".into()])
        );
        assert!(segments(Method::POST, "event").is_some());
        assert!(operation(&Method::GET, "event/1001/pages").is_some_and(|o| o.query));
        for (method, path) in [
            (Method::POST, "campaign/byshortname/x"),
            (Method::GET, "event"),
            (Method::DELETE, "donation/ref/x"),
            (Method::GET, "campaign/byshortname"),
            (Method::GET, "campaign/byshortname/"),
            (Method::GET, "campaign/byshortname/x/y"),
            (Method::GET, "donation/ref/.."),
            (Method::GET, "donation/ref/%2e%2e"),
            (Method::GET, "donation/ref/a%2Fb"),
            (Method::GET, "donation/ref/a%5cb"),
            (Method::GET, "donation/ref/a%00b"),
            (Method::GET, "donation/ref/%ff"),
            (Method::GET, "event/../pages"),
            (Method::GET, "account"),
            (Method::GET, ""),
        ] {
            assert!(
                operation(&method, path).is_none(),
                "{method} {path} must not be forwarded"
            );
        }
    }
}
