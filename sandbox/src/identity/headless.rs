//! The headless sign-in: a test signs a configured user in without filling in pages, through
//! the real authorize checks, the real code and the application's own redirect_uri. The test
//! routes serve it (`POST /_sandbox/sign-in`).

use super::authorize::{checked, Refused};
use super::interaction::decide;
use crate::state::Sandbox;

/// Runs the authorize request `authorize_url` (the client's own: its state, nonce and PKCE
/// challenge) as `user` (or the request's `login_hint`), who allows (or denies) at once, and
/// returns the address the browser would come back to: the redirect_uri with `code` and
/// `state`, or with an OAuth error, exactly as the pages would send it. An untrusted client or
/// redirect_uri, or a user who is not configured, is an error saying why.
pub fn sign_in(
    state: &Sandbox,
    authorize_url: &str,
    user: Option<&str>,
    allow: bool,
) -> Result<String, String> {
    let url = url::Url::parse(authorize_url)
        .map_err(|e| format!("authorize_url is not an absolute URL: {e}"))?;
    if !url.path().ends_with("/connect/authorize") {
        return Err("authorize_url must be the identity server's /connect/authorize".into());
    }
    let request = match checked(state, url.query().unwrap_or("")) {
        Ok(request) => request,
        Err(Refused::Page(_, message)) => return Err(message),
        Err(refused) => return Ok(refused.callback().unwrap_or_default()),
    };
    let name = user
        .or(request.login_hint.as_deref())
        .ok_or("name the user: user, or login_hint in the authorize URL")?;
    let user = state
        .config()
        .user(name.trim())
        .ok_or_else(|| format!("{name:?} is not a configured user"))?;
    let now = state.clock().now_millis();
    Ok(decide(
        state,
        &request,
        &user.email,
        now.div_euclid(1000),
        allow,
        now,
    ))
}
