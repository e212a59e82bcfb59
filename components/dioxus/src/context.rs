//! [`Fundraising`]: what the provider shares with the components below it, and the hooks.

use std::future::Future;

use dioxus::core::{Runtime, ScopeId};
use dioxus::prelude::*;
use fundraising_client::{code, Client, Error, Profile, SessionState, SignInOptions};

/// What [`FundraisingProvider`](crate::FundraisingProvider) shares as a context: the client
/// (none on the server), the session state as a signal, whether a sign-in or sign-out is
/// running, and the last error of one. Read it with [`use_fundraising`].
#[derive(Clone, Copy)]
pub struct Fundraising {
    pub(crate) client: Signal<Option<Client>>,
    pub(crate) state: Signal<SessionState>,
    pub(crate) busy: Signal<bool>,
    pub(crate) error: Signal<Option<Error>>,
    pub(crate) redirect: Option<EventHandler<String>>,
    pub(crate) scope: ScopeId,
}

impl Fundraising {
    /// The client; `None` on the server, and when the provider's options were refused (see
    /// [`Fundraising::error`]).
    pub fn client(&self) -> Option<Client> {
        self.client.peek().clone()
    }

    /// The session state: `Unknown` until the restore has finished (and on the server), then
    /// signed in or signed out, following every change in this tab and the others.
    pub fn session(&self) -> ReadSignal<SessionState> {
        self.state.into()
    }

    /// True while a sign-in or a sign-out started by the components runs (their buttons are
    /// disabled meanwhile).
    pub fn busy(&self) -> ReadSignal<bool> {
        self.busy.into()
    }

    /// The last error of the restore, a sign-in or a sign-out (cleared when the next starts),
    /// or the options' refusal: show it with its `code()`.
    pub fn error(&self) -> ReadSignal<Option<Error>> {
        self.error.into()
    }

    /// Signs in by pop-up, opened now (call it inside a click handler), falling back to the
    /// redirect when the browser blocks the pop-up. Does nothing while a sign-in runs.
    pub fn sign_in(&self, options: SignInOptions) {
        let Some(client) = self.client() else {
            return;
        };
        if *self.busy.peek() {
            return;
        }
        // The pop-up opens now, inside the click, not when the future is first polled.
        let popup = client.sign_in_with_popup(&options);
        let mut this = *self;
        this.busy.set(true);
        this.error.set(None);
        self.spawn(async move {
            let outcome = match popup.await {
                Err(e) if e.code() == code::POPUP_BLOCKED => this.go_sign_in(&client, &options),
                outcome => outcome.map(drop),
            };
            if let Err(e) = outcome {
                this.error.set(Some(e));
            }
            this.busy.set(false);
        });
    }

    /// Signs out here, in this origin's other tabs and at the companion.
    pub fn sign_out(&self) {
        let Some(client) = self.client() else {
            return;
        };
        if *self.busy.peek() {
            return;
        }
        let mut this = *self;
        this.busy.set(true);
        this.error.set(None);
        self.spawn(async move {
            if let Err(e) = client.sign_out().await {
                this.error.set(Some(e));
            }
            this.busy.set(false);
        });
    }

    /// Sends this window to sign in (the redirect), coming back to `options.return_path`
    /// (default: this page); with the provider's `on_redirect`, hands it the authorize URL
    /// instead.
    pub fn sign_in_with_redirect(&self, options: &SignInOptions) -> Result<(), Error> {
        match self.client() {
            Some(client) => self.go_sign_in(&client, options),
            None => Ok(()),
        }
    }

    fn go_sign_in(&self, client: &Client, options: &SignInOptions) -> Result<(), Error> {
        match self.redirect {
            Some(redirect) => {
                redirect.call(client.prepare_redirect(options)?);
                Ok(())
            }
            None => client.sign_in_with_redirect(options),
        }
    }

    /// Runs `task` in the provider's scope: for as long as the provider lives.
    pub(crate) fn spawn(&self, task: impl Future<Output = ()> + 'static) {
        Runtime::current().spawn(self.scope, task);
    }
}

/// The provider's [`Fundraising`]; panics outside a
/// [`FundraisingProvider`](crate::FundraisingProvider) (a bug in the app's tree).
pub fn use_fundraising() -> Fundraising {
    try_use_context::<Fundraising>()
        .expect("fundraising-dioxus: a component or hook used outside FundraisingProvider")
}

/// The client of the nearest provider; `None` on the server (and when the provider's options
/// were refused). Clones share one session.
pub fn use_client() -> Option<Client> {
    use_fundraising().client()
}

/// The session state of the nearest provider, as a signal.
pub fn use_session() -> ReadSignal<SessionState> {
    use_fundraising().session()
}

/// The signed-in user's profile (`None` while signed out or unknown), as a memo.
pub fn use_profile() -> Memo<Option<Profile>> {
    let state = use_fundraising().state;
    use_memo(move || state.read().session().map(|s| s.profile.clone()))
}
