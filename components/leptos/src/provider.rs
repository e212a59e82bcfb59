//! [`FundraisingProvider`]: the client, the restore, and the session kept in step.

use fundraising_client::{Client, ClientOptions};
use futures_util::StreamExt;
use leptos::prelude::*;

use crate::context::Fundraising;
use crate::ON_SERVER;

/// Holds the client for the components below it, built from `options` or the `client` the app
/// made. In the browser it restores the session when it starts (finishing a sign-in that
/// comes back to this page: in the sign-in pop-up it hands the callback to the opener, which
/// closes it) and follows every change the client tells, for as long as it lives. On the
/// server it builds no client, and everything below renders the pending branch.
///
/// `Client` is `!Send`: the provider keeps it in Leptos's arena as a local value, and shares a
/// `Copy` handle ([`Fundraising`]) as the context.
#[component]
pub fn FundraisingProvider(
    /// The client's options (the client is built in the browser, never on the server).
    #[prop(optional)]
    options: Option<ClientOptions>,
    /// A client the app made, instead of `options` (browser only).
    #[prop(optional)]
    client: Option<Client>,
    /// Called with the authorize URL of a sign-in by redirect instead of navigating to it
    /// (for an app that navigates its own way, or a test that signs in headlessly).
    #[prop(optional, into)]
    on_redirect: Option<Callback<String>>,
    children: Children,
) -> impl IntoView {
    let shared = Fundraising::new(on_redirect);
    provide_context(shared);
    if !ON_SERVER {
        match client.map(Ok).or_else(|| options.map(Client::new)) {
            Some(Ok(client)) => start(shared, client),
            Some(Err(refused)) => {
                shared.spawn(async move {
                    shared.error.set(Some(refused));
                    shared
                        .state
                        .set(fundraising_client::SessionState::SignedOut);
                });
            }
            None => {}
        }
    }
    children()
}

/// Follows the client's session and restores it. The state is set in a task, after the first
/// render, so that a page rendered on the server hydrates in the state it was rendered in.
fn start(shared: Fundraising, client: Client) {
    shared.client.set_value(Some(client.clone()));
    // Subscribed before the restore starts, so that no change falls between.
    let mut changes = client.session_changes();
    let current = client.clone();
    shared.spawn(async move {
        shared.state.set(current.session_state());
        while let Some(change) = changes.next().await {
            shared.state.set(change.state);
        }
    });
    // The address the page started at, read before the components below render: a router may
    // rewrite it first (dioxus-router replaces an address whose query its routes do not name),
    // and a sign-in coming back by redirect carries its code and state there.
    let entry = address();
    shared.spawn(async move {
        if let Some(entry) = entry.filter(|url| client.is_sign_in_callback(url)) {
            if address().as_ref() != Some(&entry) {
                replace_address(&entry);
            }
        }
        let before = address();
        if let Err(e) = client.restore_session().await {
            shared.error.set(Some(e));
        }
        // A sign-in that came back by redirect moves the address bar to its return path
        // (`history.replaceState`); a router follows the address bar on `popstate`.
        if address() != before {
            if let (Some(window), Ok(event)) = (web_sys::window(), web_sys::Event::new("popstate"))
            {
                let _ = window.dispatch_event(&event);
            }
        }
    });
}

/// Puts `url` in the address bar, without a navigation.
fn replace_address(url: &str) {
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(url));
    }
}

/// The page's address.
fn address() -> Option<String> {
    web_sys::window()?.location().href().ok()
}
