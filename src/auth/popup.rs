//! The pop-up flow, both ends: the opener waits for the callback (from its own origin, for
//! its own pending state), and the pop-up hands the callback over and closes.

use fundraising_core::callback;
use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, BroadcastChannel, Window};

use serde::Serialize;

use super::SignInRequest;
use crate::convert::to_js;
use crate::Error;

#[wasm_bindgen(module = "/src/auth/popup.js")]
extern "C" {
    #[wasm_bindgen(js_name = waitForCallback)]
    #[allow(clippy::too_many_arguments)]
    fn wait_for_callback(
        popup: &Window,
        message_type: &str,
        channel_name: &str,
        accept: &Closure<dyn FnMut(String) -> bool>,
        timeout_ms: u32,
        poll_ms: u32,
        closed_polls: u32,
        signal: Option<AbortSignal>,
        dropped: &AbortSignal,
    ) -> Promise;
}

/// Ends the wait for the pop-up when the future waiting for it is dropped: the listeners and
/// timers go, and the pop-up closes.
struct WaitGuard<'a> {
    dropped: web_sys::AbortController,
    popup: &'a Window,
}

impl Drop for WaitGuard<'_> {
    fn drop(&mut self) {
        self.dropped.abort();
        if !self.popup.closed().unwrap_or(true) {
            let _ = self.popup.close();
        }
    }
}

/// The message the pop-up hands to its opener.
#[derive(Serialize)]
struct CallbackMessage<'a> {
    r#type: &'static str,
    url: &'a str,
}

/// `type` of the message the pop-up sends.
pub(crate) const MESSAGE_TYPE: &str = "fundraising-client:callback";
/// Name of the pop-up window, also how a callback page knows it is one.
pub(crate) const POPUP_NAME: &str = "fundraising-client-signin";
/// Default time the user has to finish signing in.
pub(crate) const DEFAULT_TIMEOUT_MS: u32 = 5 * 60 * 1000;
/// How often the opener checks whether the pop-up was closed.
const POLL_MS: u32 = 250;
/// Polls that must see the pop-up closed before giving up, so a result posted just before
/// closing still arrives.
const CLOSED_POLLS: u32 = 3;

/// The name of the `BroadcastChannel` of one sign-in.
pub(crate) fn channel_name(state: &str) -> String {
    ["fundraising-client:", state].concat()
}

/// The state a callback URL carries, success or OAuth error.
pub(crate) fn callback_state(url: &str) -> Option<String> {
    match callback::parse(url) {
        Ok(cb) => Some(cb.state),
        Err(fundraising_core::Error::OAuth { state, .. }) => state,
        Err(_) => None,
    }
}

/// A sign-in whose pop-up is open.
#[derive(Debug)]
pub struct PopupSignIn {
    pub(crate) request: SignInRequest,
    popup: Window,
}

impl PopupSignIn {
    /// Opens the pop-up on the authorize URL. Synchronous, so a click handler's user
    /// activation still counts; `popup_blocked` when the browser gives no window.
    pub(crate) fn open(request: SignInRequest) -> Result<Self, Error> {
        let window =
            web_sys::window().ok_or(Error::Unsupported("sign-in needs a browser window"))?;
        let popup = window
            .open_with_url_and_target_and_features(
                &request.authorize_url,
                POPUP_NAME,
                "popup,width=500,height=680",
            )
            .ok()
            .flatten()
            .ok_or(Error::PopupBlocked)?;
        Ok(PopupSignIn { request, popup })
    }

    /// The `state` this sign-in waits for.
    pub fn state(&self) -> &str {
        &self.request.state
    }

    /// The pop-up window.
    pub fn popup(&self) -> &Window {
        &self.popup
    }

    /// The authorize URL the pop-up was opened on.
    pub fn authorize_url(&self) -> &str {
        &self.request.authorize_url
    }

    /// Waits for the callback URL of this sign-in: a `message` on this window from this
    /// window's own origin, or a message on the sign-in's `BroadcastChannel`, either carrying
    /// a callback whose state is this sign-in's. Anything else is ignored. Ends with
    /// `popup_closed`, `timeout` or `aborted` otherwise. (The listening is `src/auth/popup.js`;
    /// the state check is core's callback parser.)
    pub(crate) async fn wait_for_callback(
        &self,
        timeout_ms: u32,
        signal: Option<&AbortSignal>,
    ) -> Result<String, Error> {
        if signal.is_some_and(AbortSignal::aborted) {
            return Err(Error::Aborted);
        }
        web_sys::window().ok_or(Error::Unsupported("sign-in needs a browser window"))?;
        let state = self.request.state.clone();
        let accept = Closure::<dyn FnMut(String) -> bool>::new(move |url: String| {
            callback_state(&url).as_deref() == Some(state.as_str())
        });
        let guard = WaitGuard {
            dropped: web_sys::AbortController::new()
                .map_err(|_| Error::Unsupported("no AbortController"))?,
            popup: &self.popup,
        };
        let outcome = JsFuture::from(wait_for_callback(
            &self.popup,
            MESSAGE_TYPE,
            &channel_name(&self.request.state),
            &accept,
            timeout_ms,
            POLL_MS,
            CLOSED_POLLS,
            signal.cloned(),
            &guard.dropped.signal(),
        ))
        .await;
        drop(guard);
        drop(accept);
        // The callback's URL, or why the wait ended without one (see `src/auth/popup.js`).
        let outcome = outcome.ok().and_then(|o| o.as_string()).unwrap_or_default();
        match outcome.as_str() {
            "aborted" => Err(Error::Aborted),
            "timeout" => Err(Error::Timeout("the sign-in took too long")),
            "closed" | "" => Err(Error::PopupClosed),
            _ => Ok(outcome),
        }
    }
}

/// In a pop-up: hands `url` to the opener (target origin: this page's own) and to the
/// sign-in's `BroadcastChannel`, then closes the window.
pub(crate) fn hand_over(window: &Window, url: &str, state: &str) -> Result<(), Error> {
    let message = to_js(&CallbackMessage {
        r#type: MESSAGE_TYPE,
        url,
    });
    let origin = window
        .location()
        .origin()
        .map_err(|_| Error::Unsupported("the page has no origin"))?;
    if let Ok(opener) = window.opener() {
        if opener.is_object() {
            // The opener is a WindowProxy; cross-origin it is not `instanceof Window` here.
            let _ = opener
                .unchecked_ref::<Window>()
                .post_message(&message, &origin);
        }
    }
    if let Ok(channel) = BroadcastChannel::new(&channel_name(state)) {
        let _ = channel.post_message(&message);
        channel.close();
    }
    let _ = window.close();
    Ok(())
}

/// True when this window is a sign-in pop-up: it has an opener, or the pop-up's name.
pub(crate) fn is_popup(window: &Window) -> bool {
    window.opener().is_ok_and(|o| o.is_object()) || window.name().is_ok_and(|n| n == POPUP_NAME)
}
