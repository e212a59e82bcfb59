//! The login and consent pages and the login-session cookie.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;

use super::authorize::with_query;
use super::html::{consent_page as render_consent, error_page, login_page as render_login};
use super::SESSION_COOKIE;
use crate::config::User;
use crate::grants::{Grant, LoginGate, SESSION_LIFETIME_MS};
use crate::state::Sandbox;

const EXPIRED: &str =
    "This sign-in request is unknown or has expired. Start again from the application.";
const CROSS_SITE: &str = "This form was sent from another site and was refused. \
Start again from the application.";
const WRONG_PASSWORD: &str = "The email address or password is not correct. Please try again.";
const TOO_MANY_FOR_REQUEST: &str = "Too many wrong passwords for this sign-in request. \
Start again from the application.";

fn locked_message(remaining_ms: i64) -> String {
    let secs = (remaining_ms + 999) / 1000;
    format!(
        "Too many wrong passwords for this account. Sign-in is locked; try again in {secs} seconds."
    )
}

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
        .find_map(|(_, value)| state.grants().session(value, now))
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
    match state.grants().request(id, state.clock().now_millis()) {
        Some(request) => render_login(StatusCode::OK, id, &request.client_id, "", None),
        None => error_page(StatusCode::BAD_REQUEST, EXPIRED),
    }
}

/// `POST /connect/login` (`request`, `username`, `password`): starts the session or shows
/// the form again with a message. A form from another site is refused (403). Wrong passwords
/// are limited per request (the request ends) and per account (a lock-out with a growing
/// backoff, during which even the right password is refused, 429).
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
    let Some(request) = state.grants().request(id, now) else {
        return error_page(StatusCode::BAD_REQUEST, EXPIRED);
    };
    let username = field(&form, "username");
    let account = state
        .config()
        .user(username.trim())
        .map(|u| u.email.clone());
    if let Some(account) = &account {
        if let LoginGate::Locked { remaining_ms } = state.grants().login_gate(account, now) {
            return render_login(
                StatusCode::TOO_MANY_REQUESTS,
                id,
                &request.client_id,
                username,
                Some(&locked_message(remaining_ms)),
            );
        }
    }
    let Some(user) = state
        .config()
        .authenticate(username, field(&form, "password"))
    else {
        let failure = state.grants().login_failed(id, account.as_deref(), now);
        if failure.request_ended {
            return error_page(StatusCode::TOO_MANY_REQUESTS, TOO_MANY_FOR_REQUEST);
        }
        return match failure.account_locked_ms {
            Some(ms) => render_login(
                StatusCode::TOO_MANY_REQUESTS,
                id,
                &request.client_id,
                username,
                Some(&locked_message(ms)),
            ),
            None => render_login(
                StatusCode::OK,
                id,
                &request.client_id,
                username,
                Some(WRONG_PASSWORD),
            ),
        };
    };
    state.grants().login_succeeded(&user.email, now);
    let session = state.grants().start_session(&user.email, now);
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
    let Some(request) = state.grants().request(id, state.clock().now_millis()) else {
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
    if state.grants().request(id, now).is_none() {
        return error_page(StatusCode::BAD_REQUEST, EXPIRED);
    }
    let Some((user, auth_time)) = session_user(&state, &headers) else {
        return to_login(id);
    };
    let allow = form.contains_key("allow");
    if !allow && !form.contains_key("deny") {
        return error_page(StatusCode::BAD_REQUEST, "Choose Allow or Deny.");
    }
    let Some(request) = state.grants().finish_request(id, now) else {
        return error_page(StatusCode::BAD_REQUEST, EXPIRED);
    };
    let mut pairs: Vec<(&str, String)> = Vec::new();
    if allow {
        let code = state.grants().issue_code(
            Grant {
                client_id: request.client_id.clone(),
                redirect_uri: request.redirect_uri.clone(),
                user_email: user.email.clone(),
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
    Redirect::to(&with_query(&request.redirect_uri, &pairs)).into_response()
}
