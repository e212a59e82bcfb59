//! `FundraisingClient`, the class JS uses: a thin layer over the Rust [`Client`] that reads
//! options and arguments, passes the caller's `AbortSignal`, and writes plain JS objects; every
//! failure is a `FundraisingError`. Here: the constructor, sign-in and the session; each
//! resource operation's methods are in its own module, built with its feature.

use wasm_bindgen::prelude::*;

use super::options::ClientOptions;
use crate::Client;

#[cfg(feature = "signin")]
use super::options::CallOptions;
#[cfg(feature = "signin")]
use super::promise::promise;
#[cfg(feature = "signin")]
use js_sys::{Object, Promise};

#[cfg(feature = "signin")]
use super::options::SignInOptions;
#[cfg(feature = "signin")]
use super::session::{dispatch, session_to_js, state_name};

/// Signs users in with the fundraising service and calls its API.
#[wasm_bindgen]
pub struct FundraisingClient {
    pub(super) client: Client,
    /// The target of `sessionchange`.
    #[cfg(feature = "signin")]
    events: Option<web_sys::EventTarget>,
}

#[wasm_bindgen]
impl FundraisingClient {
    /// A client. Throws a `FundraisingError` (`invalid_argument`) for bad options.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ClientOptions")] options: JsValue,
    ) -> Result<FundraisingClient, JsValue> {
        let client = Client::new(ClientOptions::from_js(options)?)?;
        #[cfg(feature = "signin")]
        let events = web_sys::EventTarget::new().ok().inspect(|target| {
            // Subscribed for the life of the client (the subscriber goes with it).
            let target = target.clone();
            let fire = move |change: &crate::SessionChange| dispatch(&target, change);
            client.auth().events().subscribe(std::rc::Rc::new(fire));
        });
        Ok(FundraisingClient {
            client,
            #[cfg(feature = "signin")]
            events,
        })
    }
}

#[cfg(feature = "signin")]
#[wasm_bindgen]
impl FundraisingClient {
    /// Signs in through a pop-up, opened synchronously (call it from a click handler);
    /// resolves with the new Session.
    #[wasm_bindgen(js_name = signInWithPopup, unchecked_return_type = "Promise<Session>")]
    pub fn sign_in_with_popup(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "SignInOptions")] options: Option<Object>,
    ) -> Promise {
        let started = SignInOptions::read(options)
            .and_then(|(options, signal)| Ok((self.client.open_popup(&options)?, options, signal)));
        let client = self.client.clone();
        promise(async move {
            let (pending, options, signal) = started?;
            let session = client
                .auth()
                .finish_popup(&pending, options.timeout_ms(), signal.as_ref())
                .await?;
            Ok(session_to_js(Some(&session)))
        })
    }

    /// Signs in by navigating this window to the identity server; the home page then calls
    /// `restoreSession()` (or `handleCallback()`). The Promise settles just before the
    /// navigation.
    #[wasm_bindgen(js_name = signInWithRedirect, unchecked_return_type = "Promise<void>")]
    pub fn sign_in_with_redirect(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "SignInOptions")] options: Option<Object>,
    ) -> Promise {
        let started = SignInOptions::read(options)
            .and_then(|(options, _)| self.client.sign_in_with_redirect(&options));
        promise(async move {
            started?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// When a page starts: finishes the sign-in if the page is its callback (in the sign-in
    /// pop-up, hands it to the opener), or else asks the companion once whether it holds a
    /// session (a fresh access token in token-mediating mode; the profile and expiry in BFF
    /// mode). Resolves with the Session or `null`; afterwards `sessionState` is `"signedIn"` or
    /// `"signedOut"`. Rejects with the reason when a callback is refused or the companion cannot
    /// be reached; the page is then signed out. With no `companionUrl` it asks nothing.
    #[wasm_bindgen(js_name = restoreSession, unchecked_return_type = "Promise<Session | null>")]
    pub fn restore_session(&self) -> Promise {
        let client = self.client.clone();
        promise(async move {
            let session = client.restore_session().await?;
            Ok(session_to_js(session.as_ref()))
        })
    }

    /// Where the page stands with the session: `"unknown"` until `restoreSession()` has
    /// finished (with no `companionUrl`, `"signedOut"` from the start), then `"signedIn"` (see
    /// `session`) or `"signedOut"`.
    #[wasm_bindgen(getter = sessionState, unchecked_return_type = "SessionState")]
    pub fn session_state(&self) -> String {
        state_name(&self.client.session_state()).to_owned()
    }

    /// On the home page: finishes a sign-in, and only that (`restoreSession()` also restores a
    /// session when the page is no callback). In a pop-up it hands the callback to the opener
    /// and closes (resolves `null`); after a redirect it redeems the code and resolves with
    /// the Session; resolves `null` when `url` (default: the current address) is no callback.
    #[wasm_bindgen(js_name = handleCallback, unchecked_return_type = "Promise<Session | null>")]
    pub fn handle_callback(&self, url: Option<String>) -> Promise {
        let client = self.client.clone();
        promise(async move {
            let session = client.handle_callback(url.as_deref()).await?;
            Ok(session_to_js(session.as_ref()))
        })
    }

    /// The current Session, or `null`.
    #[wasm_bindgen(getter, unchecked_return_type = "Session | null")]
    pub fn session(&self) -> JsValue {
        session_to_js(self.client.session().as_ref())
    }

    /// A valid access token (refreshed through the companion when it expires within 60 s;
    /// concurrent calls share one refresh), or `null` when not signed in.
    #[wasm_bindgen(js_name = getAccessToken, unchecked_return_type = "Promise<string | null>")]
    pub fn get_access_token(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: Option<Object>,
    ) -> Promise {
        let client = self.client.clone();
        let options = CallOptions::read(options);
        promise(async move {
            let options = options?;
            let token = client.access_token_with(options.signal.as_ref()).await?;
            Ok(token.map(JsValue::from).unwrap_or(JsValue::NULL))
        })
    }

    /// Signs out: forgets the session and the companion's refresh token.
    #[wasm_bindgen(js_name = signOut, unchecked_return_type = "Promise<void>")]
    pub fn sign_out(&self) -> Promise {
        let client = self.client.clone();
        promise(async move {
            client.sign_out().await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Listens for `sessionchange` (`event.detail`: `{reason, state, session}`; `reason` is
    /// `restore`, `signin`, `refresh`, `signout` or `expired`, `state` the new `sessionState`).
    /// Fires when a restore finishes, on sign-in, refresh, sign-out (here or in another tab of
    /// this origin) and for a session the companion no longer holds.
    #[wasm_bindgen(js_name = addEventListener)]
    pub fn add_event_listener(
        &self,
        #[wasm_bindgen(js_name = type, unchecked_param_type = "\"sessionchange\"")] kind: &str,
        #[wasm_bindgen(unchecked_param_type = "(event: CustomEvent<SessionChange>) => void")]
        listener: &js_sys::Function,
    ) {
        if let Some(target) = &self.events {
            let _ = target.add_event_listener_with_callback(kind, listener);
        }
    }

    /// Stops a listener added with `addEventListener`.
    #[wasm_bindgen(js_name = removeEventListener)]
    pub fn remove_event_listener(
        &self,
        #[wasm_bindgen(js_name = type, unchecked_param_type = "\"sessionchange\"")] kind: &str,
        #[wasm_bindgen(unchecked_param_type = "(event: CustomEvent<SessionChange>) => void")]
        listener: &js_sys::Function,
    ) {
        if let Some(target) = &self.events {
            let _ = target.remove_event_listener_with_callback(kind, listener);
        }
    }
}
