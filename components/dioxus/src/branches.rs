//! [`SignedIn`], [`SignedOut`], [`SessionPending`]: the three branches of the session.

use dioxus::prelude::*;
use fundraising_client::SessionState;

use crate::context::use_fundraising;

/// Whether the session is in a state `is` accepts: a memo, so that the branch renders again
/// only when that changes (a token refresh does not).
fn use_branch(is: fn(&SessionState) -> bool) -> Memo<bool> {
    let state = use_fundraising().state;
    use_memo(move || is(&state.read()))
}

/// Its children while a user is signed in.
#[component]
pub fn SignedIn(children: Element) -> Element {
    let shown = use_branch(|s| matches!(s, SessionState::SignedIn(_)));
    if shown() {
        children
    } else {
        VNode::empty()
    }
}

/// Its children while no user is signed in (once the restore has said so).
#[component]
pub fn SignedOut(children: Element) -> Element {
    let shown = use_branch(|s| matches!(s, SessionState::SignedOut));
    if shown() {
        children
    } else {
        VNode::empty()
    }
}

/// Its children while the session is not known yet: until the restore has finished, and on
/// the server.
#[component]
pub fn SessionPending(children: Element) -> Element {
    let shown = use_branch(|s| !s.is_known());
    if shown() {
        children
    } else {
        VNode::empty()
    }
}
