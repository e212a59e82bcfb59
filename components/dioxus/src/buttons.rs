//! [`SignInButton`] and [`SignOutButton`].

use dioxus::prelude::*;
use fundraising_client::SignInOptions;

use crate::context::use_fundraising;

/// A button that signs in by pop-up, opened inside the click, and by redirect when the
/// browser blocks the pop-up. Disabled while a sign-in or sign-out runs, and where there is
/// no client (on the server); the outcome is the session state, a failure
/// [`Fundraising::error`](crate::Fundraising::error).
#[component]
pub fn SignInButton(
    /// The sign-in's options (scopes, `prompt`, a `login_hint`, the redirect's return path).
    options: Option<SignInOptions>,
    /// The button's `id`.
    id: Option<String>,
    /// The button's `class`.
    class: Option<String>,
    children: Element,
) -> Element {
    let shared = use_fundraising();
    let disabled = *shared.busy.read() || shared.client.read().is_none();
    rsx! {
        button {
            r#type: "button",
            id,
            class,
            disabled,
            onclick: move |_| shared.sign_in(options.clone().unwrap_or_default()),
            {children}
        }
    }
}

/// A button that signs out here, in this origin's other tabs and at the companion. Disabled
/// while a sign-in or sign-out runs.
#[component]
pub fn SignOutButton(
    /// The button's `id`.
    id: Option<String>,
    /// The button's `class`.
    class: Option<String>,
    children: Element,
) -> Element {
    let shared = use_fundraising();
    let disabled = *shared.busy.read() || shared.client.read().is_none();
    rsx! {
        button {
            r#type: "button",
            id,
            class,
            disabled,
            onclick: move |_| shared.sign_out(),
            {children}
        }
    }
}
