//! [`SignedIn`], [`SignedOut`], [`SessionPending`]: the three branches of the session.

use fundraising_client::SessionState;
use leptos::prelude::*;

use crate::context::use_fundraising;

/// Renders `children` while the session is in a state `is` accepts; they are built again only
/// when the branch changes (a token refresh does not rebuild them).
fn branch(is: fn(&SessionState) -> bool, children: ChildrenFn) -> impl IntoView {
    let state = use_fundraising().state;
    let shown = Memo::new(move |_| state.with(is));
    move || shown.get().then(|| children())
}

/// Its children while a user is signed in.
#[component]
pub fn SignedIn(children: ChildrenFn) -> impl IntoView {
    branch(|s| matches!(s, SessionState::SignedIn(_)), children)
}

/// Its children while no user is signed in (once the restore has said so).
#[component]
pub fn SignedOut(children: ChildrenFn) -> impl IntoView {
    branch(|s| matches!(s, SessionState::SignedOut), children)
}

/// Its children while the session is not known yet: until the restore has finished, and on
/// the server.
#[component]
pub fn SessionPending(children: ChildrenFn) -> impl IntoView {
    branch(|s| !s.is_known(), children)
}
