//! `fundraising-dioxus`: Dioxus 0.7 components on `fundraising-client`'s typed Rust API.
//!
//! - [`FundraisingProvider`] holds the client (built from [`ClientOptions`], or one the app
//!   made) as a context, restores the session when the app starts, and keeps it in step with
//!   every change the client tells (a sign-in or sign-out here or in another tab, a refresh,
//!   expiry);
//! - [`SignedIn`], [`SignedOut`] and [`SessionPending`] render from the session's three
//!   states;
//! - [`SignInButton`] opens the sign-in pop-up inside the click and falls back to the redirect
//!   when the browser blocks it; [`SignOutButton`] signs out;
//! - [`use_session`], [`use_profile`], [`use_client`] and [`use_fundraising`] are the hooks;
//! - [`RequireSignIn`] guards a route of `dioxus-router`: a signed-out visitor is sent to sign
//!   in and brought back to the route they asked for;
//! - [`use_campaign`], [`use_donation`] and [`use_event_pages`] are the service's calls as
//!   `use_resource`s, whose requests are aborted when their component goes.
//!
//! ```no_run
//! use dioxus::prelude::*;
//! use fundraising_dioxus::*;
//!
//! fn App() -> Element {
//!     let options = ClientOptions::new("my-app", "https://api.example")
//!         .auth_url("https://identity.example")
//!         .redirect_uri("https://my-app.example/")
//!         .companion_url("https://my-app.example");
//!     rsx! {
//!         FundraisingProvider { options,
//!             SessionPending { "Checking whether you are signed in…" }
//!             SignedOut { SignInButton { "Sign in" } }
//!             SignedIn { Welcome {} SignOutButton { "Sign out" } }
//!         }
//!     }
//! }
//!
//! #[component]
//! fn Welcome() -> Element {
//!     let profile = use_profile();
//!     let name = profile().and_then(|p| p.name).unwrap_or_default();
//!     rsx! { p { "Hello {name}" } }
//! }
//! ```
//!
//! # Server rendering
//!
//! With the `server` feature (or built for any target but `wasm32`) the provider builds no
//! client and the components touch no browser API: they render the pending branch, resources
//! stay pending, and the guard waits. In the browser the same tree hydrates in that state,
//! then the provider restores the session.

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

/// True where the components render on a server: with the `server` feature, or built for any
/// target but the browser's. There the provider builds no client and nothing touches a
/// browser API.
pub const ON_SERVER: bool = cfg!(any(feature = "server", not(target_arch = "wasm32")));
