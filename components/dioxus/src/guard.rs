//! [`RequireSignIn`]: a route of `dioxus-router` for signed-in users only.

use dioxus::prelude::*;
use dioxus::router::router;
use fundraising_client::{SessionState, SignInOptions};

use crate::context::use_fundraising;

/// Shows its children to a signed-in user. A signed-out visitor is sent to sign in (by
/// redirect), and comes back to the route they asked for, its query and fragment too: the
/// return path travels with the sign-in in `sessionStorage`, the client goes there when it
/// finishes the sign-in, and the router follows. `fallback` shows meanwhile (and on the
/// server). Use it inside a route's component, under the app's `Router`.
///
/// ```no_run
/// use dioxus::prelude::*;
/// use fundraising_dioxus::RequireSignIn;
///
/// #[component]
/// fn Account() -> Element {
///     rsx! {
///         RequireSignIn { fallback: rsx! { "Signing you in…" },
///             p { "Your donations" }
///         }
///     }
/// }
/// ```
#[component]
pub fn RequireSignIn(
    /// Shown while the session is not known, and while the visitor is sent to sign in.
    fallback: Option<Element>,
    /// The sign-in's options; the return path is the route asked for.
    options: Option<SignInOptions>,
    children: Element,
) -> Element {
    let shared = use_fundraising();
    let signed_in = use_memo(move || matches!(*shared.state.read(), SessionState::SignedIn(_)));
    // Effects run in the browser only, after the render.
    use_effect(move || {
        if !matches!(*shared.state.read(), SessionState::SignedOut) || *shared.busy.peek() {
            return;
        }
        let asked = router().full_route_string();
        let options = options.clone().unwrap_or_default().return_path(asked);
        if let Err(e) = shared.sign_in_with_redirect(&options) {
            let mut error = shared.error;
            error.set(Some(e));
        }
    });
    if signed_in() {
        children
    } else {
        fallback.unwrap_or_else(VNode::empty)
    }
}
