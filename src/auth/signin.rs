//! The sign-in state of one client: the session, the flows that create it, and the
//! access token with its single-flight refresh.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use fundraising_core::callback;
use fundraising_core::companion::TokenRequest;
use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use super::events::SessionEvents;
use super::popup::{self, PopupSignIn};
use super::transaction::Transaction;
use super::{AuthConfig, Companion, Reason, Session, SessionChange, SignInRequest};
use crate::options::SignInOptions;
use crate::time::now_ms;
use crate::Error;

/// A token that expires within this is refreshed first.
const REFRESH_MARGIN_MS: f64 = 60_000.0;

/// A refresh in progress, shared by every caller that needs it.
#[derive(Clone)]
struct Flight {
    done: Promise,
    result: Rc<RefCell<Option<Result<Session, Error>>>>,
}

/// Sign-in state: configuration (or why sign-in is not configured), the current session and
/// the refresh in flight.
pub(crate) struct Auth {
    config: Result<AuthConfig, Error>,
    timeout_ms: u32,
    bff: bool,
    session: RefCell<Option<Session>>,
    flight: RefCell<Option<Flight>>,
    events: Rc<SessionEvents>,
    this: Weak<Auth>,
}

impl Auth {
    pub(crate) fn new(
        app_id: &str,
        config: Result<AuthConfig, Error>,
        timeout_ms: u32,
        bff: bool,
    ) -> Rc<Self> {
        let tabs = config.is_ok();
        Rc::new_cyclic(|this: &Weak<Auth>| Auth {
            config,
            timeout_ms,
            bff,
            session: RefCell::new(None),
            flight: RefCell::new(None),
            events: Rc::new(SessionEvents::new(app_id, tabs, {
                let this = this.clone();
                move |kind: &str| {
                    if let Some(auth) = this.upgrade() {
                        auth.on_other_tab(kind);
                    }
                }
            })),
            this: this.clone(),
        })
    }

    /// The subscribers of session changes.
    pub(crate) fn events(&self) -> &Rc<SessionEvents> {
        &self.events
    }

    /// Keeps `session` and tells the subscribers why it changed.
    fn set_session(&self, session: Option<Session>, reason: Reason) {
        *self.session.borrow_mut() = session.clone();
        self.events.dispatch(&SessionChange { reason, session });
    }

    /// Another tab of this origin signed in or out.
    pub(crate) fn on_other_tab(&self, kind: &str) {
        match kind {
            "signout" if self.session.borrow().is_some() => {
                self.flight.borrow_mut().take();
                self.set_session(None, Reason::SignOut);
            }
            "signin" if self.session.borrow().is_none() && self.config.is_ok() => {
                // Picked up through the companion's session cookie.
                if let Some(auth) = self.this.upgrade() {
                    let _ = auth.flight();
                }
            }
            _ => {}
        }
    }

    fn config(&self) -> Result<&AuthConfig, Error> {
        self.config.as_ref().map_err(Clone::clone)
    }

    fn companion(&self) -> Result<Companion, Error> {
        Ok(Companion::new(
            &self.config()?.companion_url,
            self.timeout_ms,
        ))
    }

    /// True when the companion runs in BFF mode (the page never holds an access token).
    pub(crate) fn bff(&self) -> bool {
        self.bff
    }

    /// The current session, if signed in.
    pub(crate) fn session(&self) -> Option<Session> {
        self.session.borrow().clone()
    }

    /// True when signed in.
    pub(crate) fn signed_in(&self) -> bool {
        self.session.borrow().is_some()
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
                "the callback belongs to another sign-in".into(),
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
        self.set_session(Some(session.clone()), Reason::SignIn);
        self.events.tell_other_tabs(Reason::SignIn);
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
                    "returnPath",
                    "must be a path of this site, starting with /",
                ))
            }
            None => None,
        };
        Transaction::new(&request, return_path).save()?;
        Ok(request.authorize_url)
    }

    /// Finishes a sign-in on the home page (see `handleCallback`). `Ok(None)` when `url` is
    /// not a sign-in callback, or when this window is a pop-up that handed the callback over.
    pub(crate) async fn handle_callback(
        &self,
        url: Option<String>,
    ) -> Result<Option<Session>, Error> {
        let window = web_sys::window();
        let current = window.as_ref().and_then(|w| w.location().href().ok());
        let Some(url) = url.or_else(|| current.clone()) else {
            return Err(Error::Unsupported(
                "handleCallback needs a URL or a browser window",
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
                "no sign-in is pending for this callback (already used, expired, or from another browser)".into(),
            ));
        };
        if transaction.expired() {
            return Err(Error::StateMismatch(
                "the sign-in took too long and expired; please sign in again".into(),
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
        self.set_session(Some(session.clone()), Reason::SignIn);
        self.events.tell_other_tabs(Reason::SignIn);
        Ok(Some(session))
    }

    /// A callback is a URL on the redirect URI (when configured) with `code` or `error`.
    fn is_callback(&self, url: &str) -> bool {
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

    /// A valid access token, refreshing it through the companion when it expires within
    /// 60 s (concurrent callers share one refresh). With no session, tries to restore one
    /// from the companion's cookie; `Ok(None)` when there is none.
    pub(crate) async fn access_token(
        self: &Rc<Self>,
        signal: Option<&AbortSignal>,
    ) -> Result<Option<String>, Error> {
        if let Some(session) = self.session.borrow().as_ref() {
            if session.expires_at.millis as f64 - now_ms() > REFRESH_MARGIN_MS {
                return Ok(session.access_token.clone());
            }
        }
        let had_session = self.session.borrow().is_some();
        if self.config.is_err() {
            return Ok(None);
        }
        let flight = self.flight();
        if signal.is_some_and(AbortSignal::aborted) {
            return Err(Error::Aborted);
        }
        let _ = JsFuture::from(flight.done.clone()).await;
        let result = flight.result.borrow().clone();
        match result {
            Some(Ok(session)) => Ok(session.access_token),
            Some(Err(Error::Companion { status: 401, .. })) if !had_session => Ok(None),
            Some(Err(e)) => Err(e),
            None => Err(Error::Network("the token refresh did not finish".into())),
        }
    }

    /// The refresh in flight, or a new one.
    fn flight(self: &Rc<Self>) -> Flight {
        if let Some(flight) = self.flight.borrow().as_ref() {
            return flight.clone();
        }
        let result: Rc<RefCell<Option<Result<Session, Error>>>> = Rc::default();
        let auth = self.clone();
        let slot = result.clone();
        let done = crate::task::spawn(Box::pin(async move {
            let outcome = match auth.companion() {
                Ok(companion) => companion.refresh(None).await,
                Err(e) => Err(e),
            };
            let had_session = auth.session.borrow().is_some();
            match &outcome {
                Ok(session) => {
                    let reason = if had_session {
                        Reason::Refresh
                    } else {
                        Reason::SignIn
                    };
                    auth.set_session(Some(session.clone()), reason);
                }
                Err(Error::Companion { status: 401, .. }) if had_session => {
                    auth.set_session(None, Reason::Expired)
                }
                Err(_) => {}
            }
            *slot.borrow_mut() = Some(outcome);
            auth.flight.borrow_mut().take();
            Ok(JsValue::UNDEFINED)
        }));
        let flight = Flight { done, result };
        *self.flight.borrow_mut() = Some(flight.clone());
        flight
    }

    /// Forgets the session here and the refresh token at the companion.
    pub(crate) async fn sign_out(&self) -> Result<(), Error> {
        self.set_session(None, Reason::SignOut);
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
