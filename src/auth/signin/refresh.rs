//! The access token and its single-flight refresh through the companion: work that every
//! caller who needs it shares ([`Shared`]), which restores use too.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use super::{Auth, Outcome};
use crate::auth::{Reason, SessionState};
use crate::time::now_ms;
use crate::Error;

/// A token that expires within this is refreshed first.
const REFRESH_MARGIN_MS: f64 = 60_000.0;

/// Work in progress that every caller who needs it shares (a refresh, a restore): it settles
/// `done`, then leaves its outcome in `result`.
#[derive(Clone)]
pub(super) struct Shared {
    done: Promise,
    result: Rc<RefCell<Option<Outcome>>>,
}

impl Shared {
    /// Runs `work` once, on its own (it goes on if a caller stops waiting). (Boxed: one copy of
    /// this for both kinds of work.)
    pub(super) fn spawn(work: Pin<Box<dyn Future<Output = Outcome>>>) -> Self {
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
    pub(super) async fn outcome(&self) -> Outcome {
        let _ = JsFuture::from(self.done.clone()).await;
        let result = self.result.borrow().clone();
        // `done` settles after the work has left its outcome.
        result.expect_throw("shared work settled without its outcome")
    }
}

impl Auth {
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
    pub(super) fn refresh_flight(self: &Rc<Self>, new_session: Reason) -> Shared {
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
}
