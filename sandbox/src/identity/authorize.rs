//! `GET /connect/authorize`: checks the request, then sends the browser to login or consent.

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use fundraising_core::authorize::{ANNOUNCED_SCOPES, AVAILABLE_SCOPES};
use fundraising_core::pkce;

use super::html::error_page;
use super::interaction::session_user;
use super::redirect::{found, with_query};
use crate::grants::AuthorizationRequest;
use crate::params::Params;
use crate::state::Sandbox;

/// Longest name or value of any authorize parameter, in bytes. Longer is `invalid_request`
/// (or the HTML error page for `client_id` and `redirect_uri`, which are not trusted yet).
pub const MAX_PARAM_LEN: usize = 1024;

/// An error sent back to the redirect_uri.
struct RedirectError {
    error: &'static str,
    description: String,
}

fn invalid_request(description: impl Into<String>) -> RedirectError {
    RedirectError {
        error: "invalid_request",
        description: description.into(),
    }
}

fn invalid_scope(description: impl Into<String>) -> RedirectError {
    RedirectError {
        error: "invalid_scope",
        description: description.into(),
    }
}

/// Why an authorization request was refused.
pub enum Refused {
    /// The client or the redirect_uri cannot be trusted: an error page, nothing sent back.
    Page(StatusCode, String),
    /// An OAuth error for the application, sent back to its redirect_uri.
    Back {
        /// The (registered) redirect_uri.
        redirect_uri: String,
        /// The `error`.
        error: &'static str,
        /// The `error_description`.
        description: String,
        /// The `state` to echo, when it may be.
        state: Option<String>,
    },
}

impl Refused {
    /// The address the browser is sent back to, for a [`Refused::Back`].
    pub fn callback(&self) -> Option<String> {
        match self {
            Self::Page(..) => None,
            Self::Back {
                redirect_uri,
                error,
                description,
                state,
            } => {
                let mut pairs = vec![("error", *error), ("error_description", description)];
                if let Some(state) = state {
                    pairs.push(("state", state));
                }
                Some(with_query(redirect_uri, &pairs))
            }
        }
    }
}

/// `GET /connect/authorize`.
pub async fn authorize(
    State(state): State<Sandbox>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let request = match checked(&state, query.as_deref().unwrap_or("")) {
        Ok(request) => request,
        Err(Refused::Page(status, message)) => return error_page(status, &message),
        Err(refused) => return found(&refused.callback().unwrap_or_default()),
    };
    let now = state.clock().now_millis();
    let id = state.grants().requests().start(request, now);
    let next = if session_user(&state, &headers).is_some() {
        "/connect/consent"
    } else {
        "/connect/login"
    };
    Redirect::to(&with_query(next, &[("request", &id)])).into_response()
}

/// Checks an authorize request's query as the specification's authorisation endpoint says.
pub fn checked(state: &Sandbox, query: &str) -> Result<AuthorizationRequest, Refused> {
    let page = |message: String| Refused::Page(StatusCode::BAD_REQUEST, message);
    let params = Params::parse(query).map_err(page)?;
    for name in ["client_id", "redirect_uri"] {
        if params
            .iter()
            .any(|(n, v)| n == name && v.len() > MAX_PARAM_LEN)
        {
            return Err(page(format!(
                "The {name} is longer than {MAX_PARAM_LEN} bytes."
            )));
        }
    }
    let client_id = match params.get("client_id") {
        Ok(Some(id)) if !id.is_empty() => id,
        Ok(_) => return Err(page("The request has no client_id.".into())),
        Err(e) => return Err(page(e)),
    };
    let Some(app) = state.config().application(client_id) else {
        return Err(page(format!(
            "The application {client_id:?} is not registered."
        )));
    };
    let redirect_uri = match params.get("redirect_uri") {
        Ok(Some(uri)) if !uri.is_empty() => uri,
        Ok(_) => return Err(page("The request has no redirect_uri.".into())),
        Err(e) => return Err(page(e)),
    };
    if redirect_uri != app.home_page {
        return Err(page(
            "The redirect_uri does not match the home page registered for the application.".into(),
        ));
    }
    let echoed_state = params
        .first("state")
        .filter(|s| s.len() <= MAX_PARAM_LEN)
        .map(str::to_owned);
    let back = |error: &'static str, description: String| Refused::Back {
        redirect_uri: redirect_uri.to_owned(),
        error,
        description,
        state: echoed_state.clone(),
    };
    if let Some((name, _)) = params
        .iter()
        .find(|(n, v)| n.len() > MAX_PARAM_LEN || v.len() > MAX_PARAM_LEN)
    {
        let name = if name.len() > MAX_PARAM_LEN {
            "a parameter name"
        } else {
            name
        };
        return Err(back(
            "invalid_request",
            format!("{name} is longer than {MAX_PARAM_LEN} bytes"),
        ));
    }
    check(&params, client_id, redirect_uri).map_err(|e| back(e.error, e.description))
}

fn check(
    params: &Params,
    client_id: &str,
    redirect_uri: &str,
) -> Result<AuthorizationRequest, RedirectError> {
    let get = |name: &str| params.get(name).map_err(invalid_request);
    let state = get("state")?.map(str::to_owned);
    match get("response_type")? {
        None | Some("") => return Err(invalid_request("response_type is missing")),
        Some("code") => {}
        Some(other) => {
            return Err(RedirectError {
                error: "unsupported_response_type",
                description: format!("response_type {other:?} is not supported; use code"),
            })
        }
    }
    let scope = get("scope")?.unwrap_or("");
    let mut scopes: Vec<String> = Vec::new();
    for s in scope.split([' ', '+']).filter(|s| !s.is_empty()) {
        if ANNOUNCED_SCOPES.contains(&s) {
            return Err(invalid_scope(format!("the scope {s} is not yet available")));
        }
        if !AVAILABLE_SCOPES.contains(&s) {
            return Err(invalid_scope(format!("the scope {s} is unknown")));
        }
        if !scopes.iter().any(|x| x == s) {
            scopes.push(s.to_owned());
        }
    }
    if scopes.is_empty() {
        return Err(invalid_request("scope is missing"));
    }
    if !scopes.iter().any(|s| s == "openid") || !scopes.iter().any(|s| s == "profile") {
        return Err(invalid_scope("the scopes openid and profile are required"));
    }
    let nonce = match get("nonce")? {
        Some(n) if !n.is_empty() => n.to_owned(),
        _ => return Err(invalid_request("nonce is missing")),
    };
    let code_challenge = match (get("code_challenge")?, get("code_challenge_method")?) {
        (None, None) => None,
        (Some(challenge), Some(pkce::METHOD)) => {
            let well_formed = challenge.len() == 43
                && challenge
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !well_formed {
                return Err(invalid_request(
                    "code_challenge must be the 43-character base64url SHA-256 of the verifier",
                ));
            }
            Some(challenge.to_owned())
        }
        (Some(_), None) | (Some(_), Some(_)) => {
            return Err(invalid_request("code_challenge_method must be S256"))
        }
        (None, Some(_)) => {
            return Err(invalid_request(
                "code_challenge_method was sent without code_challenge",
            ))
        }
    };
    Ok(AuthorizationRequest {
        client_id: client_id.to_owned(),
        redirect_uri: redirect_uri.to_owned(),
        scopes,
        state,
        nonce,
        code_challenge,
        login_hint: get("login_hint")?
            .filter(|h| !h.is_empty())
            .map(str::to_owned),
    })
}
