//! Sign-in on the typed client: pop-up, redirect, callback, session, access token, sign-out,
//! and session changes.

use std::future::Future;
use std::rc::Rc;

use crate::auth::{PopupSignIn, Session, SessionChange, Subscription};
use crate::options::SignInOptions;
use crate::{Client, Error};

impl Client {
    /// Signs in through a pop-up. The pop-up opens when this is called, not when the future is
    /// first polled: call it from a click handler, where the browser allows a pop-up. The
    /// future resolves with the new [`Session`] once the user has signed in and the companion
    /// has redeemed the code. It fails with `popup_blocked` when the browser gave no window
    /// (sign in with [`Client::sign_in_with_redirect`] instead), `popup_closed` when the user
    /// closed it, `access_denied` when the user said no. Dropping the future closes the pop-up.
    ///
    /// ```no_run
    /// # fn run(client: fundraising_client::Client) {
    /// use fundraising_client::{code, SignInOptions};
    /// // In a click handler:
    /// let signing_in = client.sign_in_with_popup(&SignInOptions::default());
    /// wasm_bindgen_futures::spawn_local(async move {
    ///     match signing_in.await {
    ///         Ok(session) => log(&format!("hello {:?}", session.profile.name)),
    ///         Err(e) if e.code() == code::POPUP_BLOCKED => { /* offer a redirect */ }
    ///         Err(e) => log(&e.to_string()),
    ///     }
    /// });
    /// # }
    /// # fn log(_: &str) {}
    /// ```
    pub fn sign_in_with_popup(
        &self,
        options: &SignInOptions,
    ) -> impl Future<Output = Result<Session, Error>> + 'static {
        let opened = self.open_popup(options);
        let client = self.clone();
        let options = options.clone();
        async move { client.finish_popup(&opened?, &options).await }
    }

    /// Opens the sign-in pop-up, synchronously (from a click handler); finish with
    /// [`Client::finish_popup`]. [`Client::sign_in_with_popup`] does both.
    pub fn open_popup(&self, options: &SignInOptions) -> Result<PopupSignIn, Error> {
        self.auth().open_popup(options)
    }

    /// Waits for the pop-up of `pending`, checks its callback (this sign-in's state, from this
    /// origin) and redeems the code through the companion: the new session.
    pub async fn finish_popup(
        &self,
        pending: &PopupSignIn,
        options: &SignInOptions,
    ) -> Result<Session, Error> {
        let timeout_ms = options.timeout_ms()?;
        self.auth().finish_popup(pending, timeout_ms, None).await
    }

    /// Signs in by navigating this window to the identity server. The home page then calls
    /// [`Client::handle_callback`], which finishes the sign-in and returns to
    /// `options.return_path` (default: this page).
    pub fn sign_in_with_redirect(&self, options: &SignInOptions) -> Result<(), Error> {
        let url = self.prepare_redirect(options)?;
        let window =
            web_sys::window().ok_or(Error::Unsupported("sign-in needs a browser window"))?;
        window
            .location()
            .assign(&url)
            .map_err(|_| Error::Unsupported("the page refused to navigate"))
    }

    /// Starts a redirect sign-in without navigating: keeps state, nonce and PKCE verifier in
    /// `sessionStorage` and returns the authorize URL to go to.
    pub fn prepare_redirect(&self, options: &SignInOptions) -> Result<String, Error> {
        let return_path = options.return_path.clone().or_else(current_path);
        self.auth().prepare_redirect(options, return_path)
    }

    /// On the home page: finishes a sign-in. In a pop-up it hands the callback to the opener
    /// and closes (`Ok(None)`); after a redirect it redeems the code and returns the session;
    /// `Ok(None)` when `url` (default: the current address) is no sign-in callback. Removes
    /// `code` and `state` from the address bar.
    pub async fn handle_callback(&self, url: Option<&str>) -> Result<Option<Session>, Error> {
        self.auth().handle_callback(url.map(str::to_owned)).await
    }

    /// The current session, if signed in.
    pub fn session(&self) -> Option<Session> {
        self.auth().session()
    }

    /// A valid access token, refreshed through the companion when it expires within 60 s
    /// (concurrent calls share one refresh); with no session, one restored from the
    /// companion's cookie if it holds one; `Ok(None)` when not signed in. In BFF mode the token
    /// stays on the companion: `token_not_available`.
    pub async fn access_token(&self) -> Result<Option<String>, Error> {
        self.access_token_with(None).await
    }

    pub(crate) async fn access_token_with(
        &self,
        signal: Option<&web_sys::AbortSignal>,
    ) -> Result<Option<String>, Error> {
        if self.auth().bff() {
            return Err(Error::TokenNotAvailable);
        }
        self.auth().access_token(signal).await
    }

    /// Signs out: forgets the session here, in this origin's other tabs, and at the companion
    /// (which forgets the refresh token).
    pub async fn sign_out(&self) -> Result<(), Error> {
        self.auth().sign_out().await
    }

    /// Calls `listener` on every change of the session: sign-in, refresh, sign-out (here or in
    /// another tab of this origin) and a session the companion no longer holds. Dropping the
    /// returned [`Subscription`] unsubscribes.
    ///
    /// ```no_run
    /// # fn run(client: fundraising_client::Client) {
    /// let subscription = client.on_session_change(|change| {
    ///     let who = change.session.as_ref().and_then(|s| s.profile.name.clone());
    ///     println!("{}: {who:?}", change.reason.as_str());
    /// });
    /// // ... keep `subscription` as long as the page shows the session.
    /// # drop(subscription);
    /// # }
    /// ```
    pub fn on_session_change(&self, listener: impl Fn(&SessionChange) + 'static) -> Subscription {
        Subscription::new(self.auth().events(), Rc::new(listener))
    }
}

/// The current page's path, query and fragment (the default return path of a redirect sign-in).
fn current_path() -> Option<String> {
    let location = web_sys::window()?.location();
    Some(
        [
            location.pathname().ok()?,
            location.search().ok()?,
            location.hash().ok()?,
        ]
        .concat(),
    )
}
