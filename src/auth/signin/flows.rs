//! The sign-in flows (pop-up, redirect, the callback on the home page) and sign-out.

use fundraising_core::callback;
use fundraising_core::companion::TokenRequest;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::Auth;
use crate::auth::popup::{self, PopupSignIn};
use crate::auth::transaction::Transaction;
use crate::auth::{Reason, Session, SessionState, SignInRequest};
use crate::options::SignInOptions;
use crate::Error;

impl Auth {
    /// A sign-in finished here: signed in, here and (picked up through the companion) in the
    /// other tabs.
    fn signed_in_here(&self, session: &Session) {
        self.set_state(SessionState::SignedIn(session.clone()), Reason::SignIn);
        self.events.tell_other_tabs(Reason::SignIn);
    }

    /// Opens the sign-in pop-up (synchronously).
    pub(crate) fn open_popup(&self, options: &SignInOptions) -> Result<PopupSignIn, Error> {
        let request = SignInRequest::new(self.config()?, options)?;
        PopupSignIn::open(request)
    }

    /// Waits for the pop-up's callback, checks it and redeems the code: the new session.
    /// `timeout_ms`: how long the user has (default 5 minutes).
    pub(crate) async fn finish_popup(
        &self,
        pending: &PopupSignIn,
        timeout_ms: Option<u32>,
        signal: Option<&AbortSignal>,
    ) -> Result<Session, Error> {
        let timeout = timeout_ms.unwrap_or(popup::DEFAULT_TIMEOUT_MS);
        let url = pending.wait_for_callback(timeout, signal).await?;
        let callback = callback::parse(&url)?;
        if callback.state != pending.request.state {
            return Err(Error::StateMismatch(
                "the callback belongs to another sign-in",
            ));
        }
        let request = &pending.request;
        let exchange = TokenRequest {
            code: callback.code,
            code_verifier: request.code_verifier.clone(),
            nonce: request.nonce.clone(),
            redirect_uri: request.redirect_uri.clone(),
        };
        let session = self.companion()?.exchange(&exchange, signal).await?;
        self.signed_in_here(&session);
        Ok(session)
    }

    /// Starts a redirect sign-in without navigating: stores the transaction in
    /// `sessionStorage` and returns the authorize URL to go to.
    /// `return_path` is where the home page goes once the sign-in is finished (a path of this
    /// site), when given.
    pub(crate) fn prepare_redirect(
        &self,
        options: &SignInOptions,
        return_path: Option<String>,
    ) -> Result<String, Error> {
        let request = SignInRequest::new(self.config()?, options)?;
        let return_path = match return_path {
            Some(path) if path.starts_with('/') && !path.starts_with("//") => Some(path),
            Some(_) => {
                return Err(Error::invalid(
                    "return_path",
                    "must be a path of this site, starting with /",
                ))
            }
            None => None,
        };
        Transaction::new(&request, return_path).save()?;
        Ok(request.authorize_url)
    }

    /// Finishes a sign-in on the home page (see `handle_callback`). `Ok(None)` when `url` is
    /// not a sign-in callback, or when this window is a pop-up that handed the callback over.
    pub(crate) async fn handle_callback(
        &self,
        url: Option<String>,
    ) -> Result<Option<Session>, Error> {
        let window = web_sys::window();
        let current = window.as_ref().and_then(|w| w.location().href().ok());
        let Some(url) = url.or_else(|| current.clone()) else {
            return Err(Error::Unsupported(
                "handling a callback needs a URL or a browser window",
            ));
        };
        if !self.is_callback(&url) {
            return Ok(None);
        }
        let state = popup::callback_state(&url);
        let transaction = match &state {
            Some(state) => Transaction::take(state)?,
            None => None,
        };
        if current.as_deref() == Some(url.as_str()) {
            clean_address_bar(
                &url,
                transaction.as_ref().and_then(|t| t.return_path.as_deref()),
            );
        }
        let Some(transaction) = transaction else {
            if let (Some(window), Some(state)) = (&window, &state) {
                if popup::is_popup(window) {
                    popup::hand_over(window, &url, state)?;
                    return Ok(None);
                }
            }
            return Err(Error::StateMismatch(
                "no sign-in is pending for this callback (already used, expired, or from another browser)",
            ));
        };
        if transaction.expired() {
            return Err(Error::StateMismatch(
                "the sign-in took too long and expired; please sign in again",
            ));
        }
        let callback = callback::parse(&url)?;
        let exchange = TokenRequest {
            code: callback.code,
            code_verifier: transaction.code_verifier,
            nonce: transaction.nonce,
            redirect_uri: transaction.redirect_uri,
        };
        let session = self.companion()?.exchange(&exchange, None).await?;
        self.signed_in_here(&session);
        Ok(Some(session))
    }

    /// A callback is a URL on the redirect URI (when configured) with `code` or `error`.
    pub(crate) fn is_callback(&self, url: &str) -> bool {
        let Ok(parsed) = web_sys::Url::new(url) else {
            return false;
        };
        if let Ok(config) = self.config() {
            if let Ok(home) = web_sys::Url::new(&config.redirect_uri) {
                if parsed.origin() != home.origin() || parsed.pathname() != home.pathname() {
                    return false;
                }
            }
        }
        let params = parsed.search_params();
        params.has("code") || params.has("error")
    }

    /// Forgets the session here and the refresh token at the companion.
    pub(crate) async fn sign_out(&self) -> Result<(), Error> {
        self.set_state(SessionState::SignedOut, Reason::SignOut);
        self.events.tell_other_tabs(Reason::SignOut);
        self.companion()?.logout().await
    }
}

/// Removes `code`, `state` and the OAuth error parameters from the address bar (or goes to
/// the sign-in's return path), without a navigation.
fn clean_address_bar(url: &str, return_path: Option<&str>) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(history) = window.history() else {
        return;
    };
    let target = match return_path {
        Some(path) => path.to_owned(),
        None => {
            let Ok(parsed) = web_sys::Url::new(url) else {
                return;
            };
            let params = parsed.search_params();
            for name in [
                "code",
                "state",
                "error",
                "error_description",
                "error_uri",
                "session_state",
                "iss",
            ] {
                params.delete(name);
            }
            parsed.set_search(&String::from(params.to_string()));
            parsed.href()
        }
    };
    let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&target));
}
