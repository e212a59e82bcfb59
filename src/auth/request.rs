//! A fresh sign-in: state, nonce (GUID), PKCE verifier and the authorize URL, all built by
//! core from random bytes of the platform.

use fundraising_core::authorize::{normalize_scopes, AuthorizeRequest};
use fundraising_core::{nonce, pkce};

use crate::options::{ClientOptions, SignInOptions};
use crate::random::random;
use crate::Error;

/// The addresses sign-in needs, checked once.
#[derive(Debug, Clone)]
pub(crate) struct AuthConfig {
    pub app_id: String,
    pub auth_url: String,
    pub redirect_uri: String,
    pub companion_url: String,
    pub scopes: Vec<String>,
}

impl AuthConfig {
    /// The sign-in settings of `options`, or `invalid_argument` naming the missing one.
    pub(crate) fn from_options(options: &ClientOptions) -> Result<Self, Error> {
        let need = |value: &Option<String>, name: &str| {
            value
                .as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
                .ok_or_else(|| Error::invalid(name, "is needed to sign in"))
        };
        Ok(AuthConfig {
            app_id: options.app_id.clone(),
            auth_url: need(&options.auth_url, "auth_url")?,
            redirect_uri: need(&options.redirect_uri, "redirect_uri")?,
            companion_url: need(&options.companion_url, "companion_url")?,
            scopes: options.scopes.clone(),
        })
    }
}

/// One sign-in attempt's secrets and the address to open.
#[derive(Clone)]
pub(crate) struct SignInRequest {
    /// The `state` sent, and expected back with the code.
    pub state: String,
    /// The `nonce` sent, which the id_token must carry.
    pub nonce: String,
    /// The PKCE verifier, sent only to the companion for the exchange.
    pub code_verifier: String,
    /// The registered home page the code comes back to.
    pub redirect_uri: String,
    /// `{auth_url}/connect/authorize?...`.
    pub authorize_url: String,
}

impl std::fmt::Debug for SignInRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignInRequest")
            .field("state", &self.state)
            .field("code_verifier", &"[redacted]")
            .field("authorize_url", &self.authorize_url)
            .finish()
    }
}

impl SignInRequest {
    /// A new attempt with fresh random state, nonce and PKCE verifier.
    pub(crate) fn new(config: &AuthConfig, options: &SignInOptions) -> Result<Self, Error> {
        let state = nonce::state_from_bytes(&random::<32>()?)?;
        let nonce = nonce::guid_from_bytes(&random::<16>()?)?;
        let pkce = pkce::Pkce::from_random(&random::<32>()?)?;
        let scopes = normalize_scopes(options.scopes.as_deref().unwrap_or(&config.scopes))?;
        let authorize_url = AuthorizeRequest {
            auth_url: config.auth_url.clone(),
            client_id: config.app_id.clone(),
            redirect_uri: config.redirect_uri.clone(),
            scopes,
            state: Some(state.clone()),
            nonce: nonce.clone(),
            code_challenge: Some(pkce.challenge),
            prompt: options.prompt.clone(),
            login_hint: options.login_hint.clone(),
        }
        .to_url()?;
        Ok(SignInRequest {
            state,
            nonce,
            code_verifier: pkce.verifier.as_str().to_owned(),
            redirect_uri: config.redirect_uri.clone(),
            authorize_url,
        })
    }
}
