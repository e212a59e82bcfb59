//! BFF mode's `/api/...`: the resource operations of the table
//! ([`fundraising_core::operation::OPERATIONS`]), forwarded to `{api_url}/{app_id}/v1/...` with
//! the session's bearer token attached on the server.
//!
//! Only these are forwarded, each at its template below `/api` (a template's trailing `/`
//! optional, the query passed through only to an operation that takes one); every other path
//! or method is 404, so this is no open proxy (the mapping is [`crate::api_route::route`]). Answers stay data: every proxied answer is
//! sent with `X-Content-Type-Options: nosniff` and a `Content-Security-Policy` that lets
//! nothing load or run, a `Content-Type` other than JSON becomes `text/plain`, and a
//! `Location` passes only when it points under `--api-url`.

use super::guard::check_api_call;
use super::refresh::{expired, refresh_session};
use crate::api_route::{allowed_location, route};
use crate::error::Error;
use crate::secret::Secret;
use crate::session::{clear_cookie, session_cookie, SessionData, SetCookies};
use crate::state::{AppState, Live};
use crate::upstream;
use axum::body::{to_bytes, Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{
    ACCEPT, AUTHORIZATION, CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, LOCATION,
    WWW_AUTHENTICATE, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue, Method, Request as HttpRequest, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body_util::Full;
use std::time::{SystemTime, UNIX_EPOCH};
use url::Url;

/// Largest request body forwarded (an event is far smaller).
pub const MAX_REQUEST_BODY: usize = 64 * 1024;
/// Largest upstream answer relayed; a larger one is `502 upstream_unavailable`.
pub const MAX_RESPONSE_BODY: usize = 1024 * 1024;
/// An access token with less than this left is refreshed before the call.
const REFRESH_MARGIN_MS: i64 = 60_000;
/// The `Content-Security-Policy` of every proxied answer: opened as a page, it loads and runs
/// nothing (`sandbox` gives it an opaque origin too) and cannot be framed.
pub const ANSWER_CSP: &str = "default-src 'none'; frame-ancestors 'none'; sandbox";
/// The `Content-Type` a non-JSON upstream body is served with.
const PLAIN_TEXT: &str = "text/plain; charset=utf-8";

/// Whether a `Content-Type` is JSON (`application/json`, or a `+json` type).
fn is_json(content_type: &HeaderValue) -> bool {
    let essence = content_type
        .to_str()
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
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
    set_cookie: Option<SetCookies>,
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
        .send("resource", request, MAX_RESPONSE_BODY)
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
/// than a minute left). Without a session the call goes anonymously. The upstream status and
/// body come back, a JSON `Content-Type` unchanged (any other as `text/plain`), a `Location`
/// only under `--api-url`; every answer, the companion's own errors too, carries `nosniff`
/// and [`ANSWER_CSP`].
pub async fn proxy(State(state): State<AppState>, request: Request) -> Response {
    let mut response = match forward(&state, request).await {
        Ok(response) | Err(response) => response,
    };
    let headers = response.headers_mut();
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(
        CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(ANSWER_CSP),
    );
    response
}

async fn forward(state: &AppState, request: Request) -> Result<Response, Response> {
    let (parts, body) = request.into_parts();
    let settings = state.settings();
    let Some(api_url) = &settings.api_url else {
        return Err(Error::NotFound.into_response());
    };
    let url = route(
        api_url,
        &settings.app_id,
        &parts.method,
        parts.uri.path(),
        parts.uri.query(),
    )
    .ok_or_else(|| Error::NotFound.into_response())?
    .url;
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

    let scope = settings.cookie_scope();
    let mut caller = match state.live_session(&parts.headers).await {
        Live::Valid(session) => Caller {
            session: Some(session),
            set_cookie: None,
        },
        Live::Absent => Caller {
            session: None,
            set_cookie: None,
        },
        // A cookie that does not open is no session: cleared, and the call goes anonymously.
        Live::Invalid => Caller {
            session: None,
            set_cookie: Some(clear_cookie(scope)),
        },
        // A session a sign-out ended: nothing goes upstream for it.
        Live::Ended => return Err(expired(scope)),
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

    let response_body_empty = upstream.body.is_empty();
    let mut response = Response::new(Body::from(upstream.body));
    *response.status_mut() = upstream.status;
    let headers = response.headers_mut();
    match upstream.content_type {
        Some(value) if is_json(&value) => {
            headers.insert(CONTENT_TYPE, value);
        }
        Some(_) => {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(PLAIN_TEXT));
        }
        None if !response_body_empty => {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(PLAIN_TEXT));
        }
        None => {}
    }
    let location = upstream
        .location
        .as_ref()
        .and_then(|value| value.to_str().ok())
        .and_then(|value| allowed_location(api_url, &url, value))
        .and_then(|allowed| HeaderValue::from_str(allowed.as_str()).ok());
    if upstream.location.is_some() && location.is_none() {
        tracing::warn!("a Location from the resource API outside --api-url was dropped");
    }
    if let Some(value) = location {
        headers.insert(LOCATION, value);
    }
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Some(cookies) = caller.set_cookie {
        cookies.append_to(headers);
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_types_are_recognised() {
        for json in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON",
            "application/problem+json",
        ] {
            assert!(is_json(&HeaderValue::from_static(json)), "{json}");
        }
        for other in [
            "text/html",
            "text/json",
            "application/javascript",
            "text/html; x=application/json",
            "image/svg+xml",
            "",
        ] {
            assert!(!is_json(&HeaderValue::from_static(other)), "{other}");
        }
    }
}
