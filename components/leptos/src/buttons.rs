//! [`SignInButton`] and [`SignOutButton`].

use fundraising_client::SignInOptions;
use leptos::prelude::*;

use crate::context::use_fundraising;

/// A button that signs in by pop-up, opened inside the click, and by redirect when the
/// browser blocks the pop-up. Disabled while a sign-in or sign-out runs, and where there is
/// no client (on the server); the outcome is the session state, a failure
/// [`Fundraising::error`](crate::Fundraising::error).
#[component]
pub fn SignInButton(
    /// The sign-in's options (scopes, `prompt`, a `login_hint`, the redirect's return path).
    #[prop(optional)]
    options: Option<SignInOptions>,
    /// The button's `id`.
    #[prop(optional, into)]
    id: Option<String>,
    /// The button's `class`.
    #[prop(optional, into)]
    class: Option<String>,
    children: Children,
) -> impl IntoView {
    let shared = use_fundraising();
    let options = StoredValue::new(options.unwrap_or_default());
    let disabled = move || shared.busy.get() || shared.client.with_value(Option::is_none);
    view! {
        <button
            type="button"
            id=id
            class=class
            disabled=disabled
            on:click=move |_| shared.sign_in(options.get_value())
        >
            {children()}
        </button>
    }
}

/// A button that signs out here, in this origin's other tabs and at the companion. Disabled
/// while a sign-in or sign-out runs.
#[component]
pub fn SignOutButton(
    /// The button's `id`.
    #[prop(optional, into)]
    id: Option<String>,
    /// The button's `class`.
    #[prop(optional, into)]
    class: Option<String>,
    children: Children,
) -> impl IntoView {
    let shared = use_fundraising();
    let disabled = move || shared.busy.get() || shared.client.with_value(Option::is_none);
    view! {
        <button type="button" id=id class=class disabled=disabled on:click=move |_| shared.sign_out()>
            {children()}
        </button>
    }
}
