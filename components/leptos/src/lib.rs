//! `fundraising-leptos`: Leptos 0.8 components on `fundraising-client`'s typed Rust API.
//!
//! - [`FundraisingProvider`] holds the client (built from [`ClientOptions`], or one the app
//!   made), restores the session when the app starts, and keeps it in step with every change
//!   the client tells (a sign-in or sign-out here or in another tab, a refresh, expiry);
//! - [`SignedIn`], [`SignedOut`] and [`SessionPending`] render from the session's three
//!   states;
//! - [`SignInButton`] opens the sign-in pop-up inside the click and falls back to the
//!   redirect when the browser blocks it; [`SignOutButton`] signs out;
//! - [`use_session`], [`use_profile`], [`use_client`] and [`use_fundraising`] are the hooks;
//! - [`RequireSignIn`] guards a route of `leptos_router`: a signed-out visitor is sent to sign
//!   in and brought back to the route they asked for;
//! - [`use_campaign`], [`use_donation`] and [`use_event_pages`] are the service's calls as
//!   `LocalResource`s, whose requests are aborted when their owner goes.
//!
//! ```no_run
//! use fundraising_client::ClientOptions;
//! use fundraising_leptos::*;
//! use leptos::prelude::*;
//!
//! #[component]
//! fn App() -> impl IntoView {
//!     let options = ClientOptions::new("my-app", "https://api.example")
//!         .auth_url("https://identity.example")
//!         .redirect_uri("https://my-app.example/")
//!         .companion_url("https://my-app.example");
//!     view! {
//!         <FundraisingProvider options>
//!             <SessionPending>"Checking whether you are signed in…"</SessionPending>
//!             <SignedOut><SignInButton>"Sign in"</SignInButton></SignedOut>
//!             <SignedIn><Welcome /><SignOutButton>"Sign out"</SignOutButton></SignedIn>
//!         </FundraisingProvider>
//!     }
//! }
//!
//! #[component]
//! fn Welcome() -> impl IntoView {
//!     let profile = use_profile();
//!     move || profile.get().and_then(|p| p.name).map(|name| view! { <p>"Hello " {name}</p> })
//! }
//! ```
//!
//! # Server-side rendering
//!
//! With the `ssr` feature (or built for any target but `wasm32`) the provider builds no
//! client and the components touch no browser API: they render the pending branch, resources
//! stay pending (their `<Suspense>` fallback), and the guard waits. In the browser
//! (`hydrate`) the same tree hydrates in that state, then the provider restores the session.

#![warn(missing_docs)]

mod branches;
mod buttons;
mod context;
mod guard;
mod provider;
mod resources;

pub use branches::{SessionPending, SignedIn, SignedOut};
pub use buttons::{SignInButton, SignOutButton};
pub use context::{use_client, use_fundraising, use_profile, use_session, Fundraising};
pub use fundraising_client::{ClientOptions, SessionState, SignInOptions};
pub use guard::RequireSignIn;
pub use provider::FundraisingProvider;
pub use resources::{use_campaign, use_donation, use_event_pages};

/// True where the components render on a server: with the `ssr` feature, or built for any
/// target but the browser's. There the provider builds no client and nothing touches a
/// browser API.
pub const ON_SERVER: bool = cfg!(any(feature = "ssr", not(target_arch = "wasm32")));
