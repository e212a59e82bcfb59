//! Sign-in on the typed client, its public methods over the sign-in state (`signin/`): the restore when a page starts, pop-up, redirect, callback,
//! the session state, access token, sign-out, and session changes.

use std::future::Future;
use std::rc::Rc;

use crate::auth::{
    PopupSignIn, Session, SessionChange, SessionChanges, SessionState, Subscription,
};
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
        self.auth()
            .finish_popup(pending, options.timeout_ms(), None)
            .await
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

    /// When a page starts: finishes the sign-in if this page is its callback (in the sign-in
    /// pop-up, hands it to the opener, which closes the pop-up), or else asks the companion
    /// once whether it holds a session for this browser: in token-mediating mode the session
    /// comes back with a fresh access token, in BFF mode with its profile and expiry and no
    /// token. Afterwards [`Client::session_state`] is known (signed in or signed out), whatever
    /// happened; a refused callback or a companion that cannot be reached is returned as the
    /// error, the page then signed out. With no companion configured it asks nothing.
    /// Concurrent calls share one restore, and once the state is known it asks nothing more.
    ///
    /// ```no_run
    /// # async fn run(client: fundraising_client::Client) {
    /// match client.restore_session().await {
    ///     Ok(Some(session)) => log(&format!("welcome back {}", session.profile.sub)),
    ///     Ok(None) => log("signed out"),
    ///     Err(e) => log(&format!("signed out: {e} ({})", e.code())),
    /// }
    /// # }
    /// # fn log(_: &str) {}
    /// ```
    pub async fn restore_session(&self) -> Result<Option<Session>, Error> {
        self.auth().restore().await
    }

    /// On the home page: finishes a sign-in, and only that ([`Client::restore_session`] also
    /// restores a session when the page is no callback). In a pop-up it hands the callback to
    /// the opener and closes (`Ok(None)`); after a redirect it redeems the code and returns
    /// the session; `Ok(None)` when `url` (default: the current address) is no sign-in
    /// callback. Removes `code` and `state` from the address bar.
    pub async fn handle_callback(&self, url: Option<&str>) -> Result<Option<Session>, Error> {
        self.auth().handle_callback(url.map(str::to_owned)).await
    }

    /// True when `url` is a sign-in's way back, as [`Client::restore_session`] and
    /// [`Client::handle_callback`] tell it: an address on the redirect URI with an OAuth answer
    /// (`code` or `error`). For an app (a router) that must keep such an address until the
    /// client has read it.
    pub fn is_sign_in_callback(&self, url: &str) -> bool {
        self.auth().is_callback(url)
    }

    /// Where the page stands with the session: [`SessionState::Unknown`] until
    /// [`Client::restore_session`] has finished (with no companion configured, signed out from
    /// the start), then signed in or signed out.
    pub fn session_state(&self) -> SessionState {
        self.auth().state()
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

    /// Calls `listener` on every change of the session state: the restore, sign-in, refresh,
    /// sign-out (here or in another tab of this origin) and a session the companion no longer
    /// holds. Dropping the returned [`Subscription`] unsubscribes.
    ///
    /// ```no_run
    /// # fn run(client: fundraising_client::Client) {
    /// let subscription = client.on_session_change(|change| {
    ///     let who = change.session().and_then(|s| s.profile.name.clone());
    ///     log(&format!("{}: {who:?}", change.reason.as_str()));
    /// });
    /// // ... keep `subscription` as long as the page shows the session.
    /// # drop(subscription);
    /// # }
    /// # fn log(_: &str) {}
    /// ```
    pub fn on_session_change(&self, listener: impl Fn(&SessionChange) + 'static) -> Subscription {
        Subscription::new(self.auth().events(), Rc::new(listener))
    }

    /// Every change of the session state from now on, as a `Stream` (the same changes as
    /// [`Client::on_session_change`]). Dropping the stream unsubscribes; it ends when the
    /// client is dropped.
    ///
    /// ```no_run
    /// # async fn run(client: fundraising_client::Client) {
    /// use futures_util::StreamExt;
    /// let mut changes = client.session_changes();
    /// while let Some(change) = changes.next().await {
    ///     show(&change.state);
    /// }
    /// # }
    /// # fn show(_: &fundraising_client::SessionState) {}
    /// ```
    pub fn session_changes(&self) -> SessionChanges {
        SessionChanges::new(self.auth().events())
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
