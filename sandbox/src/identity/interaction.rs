//! The login and consent pages and the login-session cookie.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;

use super::html::{consent_page as render_consent, error_page, login_page as render_login};
use super::redirect::with_query;
use super::SESSION_COOKIE;
use crate::config::User;
use crate::grants::{AuthorizationRequest, Grant, SESSION_LIFETIME_MS};
use crate::state::Sandbox;

const EXPIRED: &str =
    "This sign-in request is unknown or has expired. Start again from the application.";
const CROSS_SITE: &str = "This form was sent from another site and was refused. \
Start again from the application.";
const WRONG_PASSWORD: &str = "The email address or password is not correct. Please try again.";
const TOO_MANY_FOR_REQUEST: &str = "Too many wrong passwords for this sign-in request. \
Start again from the application.";

/// Whether a form POST comes from a page of this identity server, not from another site
/// (login CSRF). A browser says where the form was: `Sec-Fetch-Site` (modern browsers), else
/// `Origin`, which must be the issuer's origin or the `Host` the request was sent to. A
/// request with neither header is not a browser's cross-site form and passes.
pub fn same_origin_form(state: &Sandbox, headers: &HeaderMap) -> bool {
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(site) = headers.get("sec-fetch-site") {
        return matches!(site.to_str(), Ok("same-origin") | Ok("none"));
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let Ok(origin) = url::Url::parse(origin) else {
        return false;
    };
    let issuer_origin = url::Url::parse(state.issuer()).map(|u| u.origin());
    if issuer_origin.is_ok_and(|o| o == origin.origin()) {
        return true;
    }
    let origin_host = match (origin.host_str(), origin.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_owned(),
        (None, _) => return false,
    };
    text(header::HOST).is_some_and(|h| h.eq_ignore_ascii_case(&origin_host))
}

/// The signed-in user of the browser (from the session cookie) and the login time.
pub fn session_user<'a>(state: &'a Sandbox, headers: &HeaderMap) -> Option<(&'a User, i64)> {
    let now = state.clock().now_millis();
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(name, _)| *name == SESSION_COOKIE)
        .find_map(|(_, value)| state.grants().sessions().get(value, now))
        .and_then(|(email, auth_time)| state.config().user(&email).map(|u| (u, auth_time)))
}

fn to_login(request_id: &str) -> Response {
    Redirect::to(&with_query("/connect/login", &[("request", request_id)])).into_response()
}

fn field<'a>(form: &'a HashMap<String, String>, name: &str) -> &'a str {
    form.get(name).map(String::as_str).unwrap_or("")
}

/// `GET /connect/login?request=ID`: the login form.
pub async fn login_page(
    State(state): State<Sandbox>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let id = field(&query, "request");
    match state
        .grants()
        .requests()
        .get(id, state.clock().now_millis())
    {
        Some(request) => render_login(StatusCode::OK, id, &request.client_id, "", None),
        None => error_page(StatusCode::BAD_REQUEST, EXPIRED),
    }
}

/// `POST /connect/login` (`request`, `username`, `password`): starts the session or shows
/// the form again with a message. A form from another site is refused (403). Wrong passwords
/// are limited per request only (the request ends): the sandbox locks no account and throttles
/// no address; a test that wants a throttled sign-in asks for a `login` fault (`429` with
/// `Retry-After`).
pub async fn login(
    State(state): State<Sandbox>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    if !same_origin_form(&state, &headers) {
        return error_page(StatusCode::FORBIDDEN, CROSS_SITE);
    }
    let id = field(&form, "request");
    let now = state.clock().now_millis();
    let Some(request) = state.grants().requests().get(id, now) else {
        return error_page(StatusCode::BAD_REQUEST, EXPIRED);
    };
    let username = field(&form, "username");
    let Some(user) = state
        .config()
        .authenticate(username, field(&form, "password"))
    else {
        if state.grants().requests().login_failed(id, now) {
            return error_page(StatusCode::TOO_MANY_REQUESTS, TOO_MANY_FOR_REQUEST);
        }
        return render_login(
            StatusCode::OK,
            id,
            &request.client_id,
            username,
            Some(WRONG_PASSWORD),
        );
    };
    let session = state.grants().sessions().start(&user.email, now);
    let cookie = format!(
        "{SESSION_COOKIE}={session}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}",
        SESSION_LIFETIME_MS / 1000
    );
    let mut response =
        Redirect::to(&with_query("/connect/consent", &[("request", id)])).into_response();
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// `GET /connect/consent?request=ID`: what the application asks for, with Allow and Deny.
pub async fn consent_page(
    State(state): State<Sandbox>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let id = field(&query, "request");
    let Some(request) = state
        .grants()
        .requests()
        .get(id, state.clock().now_millis())
    else {
        return error_page(StatusCode::BAD_REQUEST, EXPIRED);
    };
    match session_user(&state, &headers) {
        Some((user, _)) => render_consent(id, &request.client_id, &user.name, &request.scopes),
        None => to_login(id),
    }
}

/// `POST /connect/consent` (`request` and `allow` or `deny`): redirects to the application
/// with a code, or with `error=access_denied`.
pub async fn consent(
    State(state): State<Sandbox>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    if !same_origin_form(&state, &headers) {
        return error_page(StatusCode::FORBIDDEN, CROSS_SITE);
    }
    let id = field(&form, "request");
    let now = state.clock().now_millis();
    if state.grants().requests().get(id, now).is_none() {
        return error_page(StatusCode::BAD_REQUEST, EXPIRED);
    }
    let Some((user, auth_time)) = session_user(&state, &headers) else {
        return to_login(id);
    };
    let allow = form.contains_key("allow");
    if !allow && !form.contains_key("deny") {
        return error_page(StatusCode::BAD_REQUEST, "Choose Allow or Deny.");
    }
    let Some(request) = state.grants().requests().finish(id, now) else {
        return error_page(StatusCode::BAD_REQUEST, EXPIRED);
    };
    Redirect::to(&decide(
        &state,
        &request,
        &user.email,
        auth_time,
        allow,
        now,
    ))
    .into_response()
}

/// The user's decision on an authorization request: the address the browser goes back to,
/// with a fresh code (`allow`) or `error=access_denied`, and the request's `state`.
pub fn decide(
    state: &Sandbox,
    request: &AuthorizationRequest,
    user_email: &str,
    auth_time: i64,
    allow: bool,
    now: i64,
) -> String {
    let mut pairs: Vec<(&str, String)> = Vec::new();
    if allow {
        let code = state.grants().codes().issue(
            Grant {
                client_id: request.client_id.clone(),
                redirect_uri: request.redirect_uri.clone(),
                user_email: user_email.to_owned(),
                scopes: request.scopes.clone(),
                nonce: request.nonce.clone(),
                auth_time,
            },
            request.code_challenge.clone(),
            now,
        );
        pairs.push(("code", code));
    } else {
        pairs.push(("error", "access_denied".into()));
        pairs.push(("error_description", "The user denied access.".into()));
    }
    if let Some(s) = &request.state {
        pairs.push(("state", s.clone()));
    }
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (*n, v.as_str())).collect();
    with_query(&request.redirect_uri, &pairs)
}
