//! The sign-in state of one client: the session state, the flows that change it (sign-in,
//! restore, refresh, sign-out, other tabs), and the access token with its single-flight
//! refresh.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
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
use super::{AuthConfig, Companion, Reason, Session, SessionChange, SessionState, SignInRequest};
use crate::options::SignInOptions;
use crate::time::now_ms;
use crate::Error;

/// A token that expires within this is refreshed first.
const REFRESH_MARGIN_MS: f64 = 60_000.0;

/// The outcome of a refresh, or of a restore.
type Outcome = Result<Option<Session>, Error>;

/// Work in progress that every caller who needs it shares (a refresh, a restore): it settles
/// `done`, then leaves its outcome in `result`.
#[derive(Clone)]
struct Shared {
    done: Promise,
    result: Rc<RefCell<Option<Outcome>>>,
}

impl Shared {
    /// Runs `work` once, on its own (it goes on if a caller stops waiting). (Boxed: one copy of
    /// this for both kinds of work.)
    fn spawn(work: Pin<Box<dyn Future<Output = Outcome>>>) -> Self {
        let result: Rc<RefCell<Option<Outcome>>> = Rc::default();
        let slot = result.clone();
        let done = crate::task::spawn(Box::pin(async move {
            let outcome = work.await;
            *slot.borrow_mut() = Some(outcome);
            Ok(JsValue::UNDEFINED)
        }));
        Shared { done, result }
    }

    /// The outcome, once the work has finished.
    async fn outcome(&self) -> Outcome {
        let _ = JsFuture::from(self.done.clone()).await;
        let result = self.result.borrow().clone();
        // `done` settles after the work has left its outcome.
        result.expect_throw("shared work settled without its outcome")
    }
}

/// Sign-in state: configuration (or why sign-in is not configured), the session state, and
/// the refresh and the restore in flight.
pub(crate) struct Auth {
    config: Result<AuthConfig, Error>,
    timeout_ms: u32,
    bff: bool,
    state: RefCell<SessionState>,
    refresh: RefCell<Option<Shared>>,
    restore: RefCell<Option<Shared>>,
    events: Rc<SessionEvents>,
}

impl Auth {
    /// The sign-in state of a client. With no companion to ask (sign-in not configured) the
    /// page is signed out from the start; otherwise the state is unknown until a restore.
    pub(crate) fn new(
        app_id: &str,
        config: Result<AuthConfig, Error>,
        timeout_ms: u32,
        bff: bool,
    ) -> Rc<Self> {
        let tabs = config.is_ok();
        let state = if tabs {
            SessionState::Unknown
        } else {
            SessionState::SignedOut
        };
        Rc::new_cyclic(|this: &Weak<Auth>| Auth {
            config,
            timeout_ms,
            bff,
            state: RefCell::new(state),
            refresh: RefCell::new(None),
            restore: RefCell::new(None),
            events: Rc::new(SessionEvents::new(app_id, tabs, {
                let this = this.clone();
                move |kind: &str| {
                    if let Some(auth) = this.upgrade() {
                        auth.on_other_tab(kind);
                    }
                }
            })),
        })
    }

    /// The subscribers of session changes.
    pub(crate) fn events(&self) -> &Rc<SessionEvents> {
        &self.events
    }

    /// Moves to `state` and tells the subscribers why.
    fn set_state(&self, state: SessionState, reason: Reason) {
        *self.state.borrow_mut() = state.clone();
        self.events.dispatch(&SessionChange { reason, state });
    }

    /// Another tab of this origin signed in or out.
    pub(crate) fn on_other_tab(self: &Rc<Self>, kind: &str) {
        match kind {
            "signout" if self.signed_in() => {
                self.refresh.borrow_mut().take();
                self.set_state(SessionState::SignedOut, Reason::SignOut);
            }
            "signin" if !self.signed_in() && self.config.is_ok() => {
                // Picked up through the companion's session cookie.
                let _ = self.refresh_flight(Reason::SignIn);
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

    /// The session state.
    pub(crate) fn state(&self) -> SessionState {
        self.state.borrow().clone()
    }

    /// The current session, if signed in.
    pub(crate) fn session(&self) -> Option<Session> {
        self.state.borrow().session().cloned()
    }

    /// True when signed in.
    pub(crate) fn signed_in(&self) -> bool {
        self.state.borrow().session().is_some()
    }

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

    /// When a page starts: finishes the sign-in if the page is its callback (in a pop-up,
    /// hands it to the opener), or else asks the companion once whether it holds a session.
    /// Afterwards the state is known, whatever happened; a failure (a refused callback, a
    /// companion that cannot be reached) is returned as well. Concurrent calls share one
    /// restore, and once the state is known a restore asks nothing.
    pub(crate) async fn restore(self: &Rc<Self>) -> Outcome {
        let current = web_sys::window().and_then(|w| w.location().href().ok());
        if let Some(url) = current.filter(|url| self.is_callback(url)) {
            let callback = self.handle_callback(Some(url)).await;
            if callback.is_ok() {
                // Signed in, or a pop-up that handed its callback over and closes.
                return callback;
            }
            // A refused callback leaves the session as the companion holds it.
            let restored = self.restore_once().await;
            return callback.and(restored);
        }
        self.restore_once().await
    }

    /// The restore that asks the companion: the one in flight, or a new one.
    async fn restore_once(self: &Rc<Self>) -> Outcome {
        if self.state().is_known() {
            return Ok(self.session());
        }
        let shared = self.restore.borrow().clone();
        let shared = shared.unwrap_or_else(|| {
            let auth = self.clone();
            let shared = Shared::spawn(Box::pin(async move { auth.ask_companion().await }));
            *self.restore.borrow_mut() = Some(shared.clone());
            shared
        });
        shared.outcome().await
    }

    /// Asks the companion whether it holds a session (token-mediating mode: then for a fresh
    /// access token through it). Unless the state changed meanwhile (a sign-in finished), the
    /// answer decides it: signed in, or signed out, also when the companion cannot be reached.
    async fn ask_companion(self: &Rc<Self>) -> Outcome {
        let outcome = match self.companion() {
            Ok(companion) => match companion.session().await {
                Ok(status) if !status.active => Ok(None),
                Ok(status) if self.bff => Ok(Session::from_status(status)),
                Ok(_) => match self.refresh_flight(Reason::Restore).outcome().await {
                    Err(Error::Companion { status: 401, .. }) => Ok(None),
                    refreshed => refreshed,
                },
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        if !self.state().is_known() {
            let session = outcome.as_ref().ok().cloned().flatten();
            self.set_state(SessionState::of(session), Reason::Restore);
        }
        outcome.map(|_| self.session())
    }

    /// A valid access token, refreshing it through the companion when it expires within
    /// 60 s (concurrent callers share one refresh). With no session, tries to restore one
    /// from the companion's cookie; `Ok(None)` when there is none.
    pub(crate) async fn access_token(
        self: &Rc<Self>,
        signal: Option<&AbortSignal>,
    ) -> Result<Option<String>, Error> {
        let had_session = match self.state.borrow().session() {
            Some(session) if session.expires_at.millis as f64 - now_ms() > REFRESH_MARGIN_MS => {
                return Ok(session.access_token.clone())
            }
            session => session.is_some(),
        };
        if self.config.is_err() {
            return Ok(None);
        }
        let reason = if self.state().is_known() {
            Reason::SignIn
        } else {
            Reason::Restore
        };
        let flight = self.refresh_flight(reason);
        if signal.is_some_and(AbortSignal::aborted) {
            return Err(Error::Aborted);
        }
        match flight.outcome().await {
            Ok(session) => Ok(session.and_then(|s| s.access_token)),
            Err(Error::Companion { status: 401, .. }) if !had_session => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The refresh in flight, or a new one. A session where there was none is told with
    /// `new_session` (`SignIn`, or `Restore` from the unknown state), a renewed one with
    /// `Refresh`, and a session the companion no longer holds with `Expired` (signed out: with
    /// `Restore` from the unknown state).
    fn refresh_flight(self: &Rc<Self>, new_session: Reason) -> Shared {
        if let Some(flight) = self.refresh.borrow().as_ref() {
            return flight.clone();
        }
        let auth = self.clone();
        let flight = Shared::spawn(Box::pin(async move {
            let outcome = match auth.companion() {
                Ok(companion) => companion.refresh(None).await,
                Err(e) => Err(e),
            };
            auth.refresh.borrow_mut().take();
            let known = auth.state().is_known();
            let had_session = auth.signed_in();
            match &outcome {
                Ok(session) => {
                    let reason = if had_session {
                        Reason::Refresh
                    } else {
                        new_session
                    };
                    auth.set_state(SessionState::SignedIn(session.clone()), reason);
                }
                Err(Error::Companion { status: 401, .. }) if had_session => {
                    auth.set_state(SessionState::SignedOut, Reason::Expired)
                }
                Err(Error::Companion { status: 401, .. }) if !known => {
                    auth.set_state(SessionState::SignedOut, Reason::Restore)
                }
                _ => {}
            }
            outcome.map(Some)
        }));
        *self.refresh.borrow_mut() = Some(flight.clone());
        flight
    }

    /// The companion ended the session (a proxied call in BFF mode answered
    /// `session_expired`): signed out.
    #[cfg(any(
        feature = "campaign",
        feature = "donation",
        feature = "events",
        feature = "pages"
    ))]
    pub(crate) fn expired(&self) {
        if self.signed_in() {
            self.set_state(SessionState::SignedOut, Reason::Expired);
        }
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
