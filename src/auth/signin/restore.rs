//! The restore when a page starts: the callback finished if the page is one, or else the
//! companion asked once whether it holds a session; concurrent callers share one restore.

use std::rc::Rc;

use super::refresh::Shared;
use super::{Auth, Outcome};
use crate::auth::{Reason, Session, SessionState};
use crate::Error;

impl Auth {
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
}
