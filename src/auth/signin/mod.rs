//! The sign-in state of one client: its configuration, the session state and whom it tells of
//! changes (here), and the ways the state changes, one concept each: the sign-in flows and
//! sign-out (`flows`), the restore when a page starts (`restore`), and the access token with
//! its single-flight refresh (`refresh`).

mod flows;
mod refresh;
mod restore;

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use refresh::Shared;

use super::events::SessionEvents;
use super::{AuthConfig, Companion, Reason, Session, SessionChange, SessionState};
use crate::Error;

/// The outcome of a refresh, or of a restore.
type Outcome = Result<Option<Session>, Error>;

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

    /// The companion ended the session (a proxied call in BFF mode answered
    /// `session_expired`): signed out.
    #[cfg(feature = "__operation")]
    pub(crate) fn expired(&self) {
        if self.signed_in() {
            self.set_state(SessionState::SignedOut, Reason::Expired);
        }
    }
}
