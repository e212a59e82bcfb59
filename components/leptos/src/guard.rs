//! [`RequireSignIn`]: a route of `leptos_router` for signed-in users only.

use fundraising_client::SessionState;
use leptos::prelude::*;
use leptos_router::hooks::use_location;

use crate::context::use_fundraising;
use crate::SignInOptions;

/// Shows its children to a signed-in user. A signed-out visitor is sent to sign in (by
/// redirect), and comes back to the route they asked for, its query and fragment too: the
/// return path travels with the sign-in in `sessionStorage`, the client goes there when it
/// finishes the sign-in, and the router follows. `fallback` shows meanwhile (and on the
/// server).
///
/// ```no_run
/// use fundraising_leptos::RequireSignIn;
/// use leptos::prelude::*;
/// use leptos_router::components::{Route, Router, Routes};
/// use leptos_router::path;
///
/// # #[component] fn Home() -> impl IntoView {} #[component] fn Account() -> impl IntoView {}
/// # fn routes() -> impl IntoView {
/// view! {
///     <Router>
///         <Routes fallback=|| "Not found">
///             <Route path=path!("/") view=Home />
///             <Route path=path!("/account") view=|| view! {
///                 <RequireSignIn fallback=|| "Signing you in…"><Account /></RequireSignIn>
///             } />
///         </Routes>
///     </Router>
/// }
/// # }
/// ```
#[component]
pub fn RequireSignIn(
    /// Shown while the session is not known, and while the visitor is sent to sign in.
    #[prop(optional, into)]
    fallback: ViewFn,
    /// The sign-in's options; the return path is the route asked for.
    #[prop(optional)]
    options: Option<SignInOptions>,
    children: ChildrenFn,
) -> impl IntoView {
    let shared = use_fundraising();
    let location = use_location();
    let options = StoredValue::new(options.unwrap_or_default());
    let signed_in = Memo::new(move |_| {
        shared
            .state
            .with(|s| matches!(s, SessionState::SignedIn(_)))
    });
    // Effects run in the browser only, after the first render.
    Effect::new(move |_| {
        if !shared.state.with(|s| matches!(s, SessionState::SignedOut))
            || shared.busy.get_untracked()
        {
            return;
        }
        let search = location.search.get_untracked();
        let asked = [
            location.pathname.get_untracked().as_str(),
            if search.is_empty() { "" } else { "?" },
            &search,
            &location.hash.get_untracked(),
        ]
        .concat();
        let options = options.get_value().return_path(asked);
        if let Err(e) = shared.sign_in_with_redirect(&options) {
            shared.error.set(Some(e));
        }
    });
    move || {
        if signed_in.get() {
            children().into_any()
        } else {
            fallback.run()
        }
    }
}
