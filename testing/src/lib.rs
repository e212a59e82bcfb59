//! `fundraising-testing`: the last mile of testing an app on `fundraising-client` offline,
//! in `wasm-bindgen-test` against the sandbox (`fundraising-sandbox exec`, its test routes on).
//!
//! - [`Sandbox::sign_in`] signs a configured user in, in one call, through the real
//!   authorize → code → companion path: the client's own authorize request (its state, nonce
//!   and PKCE challenge, from [`Client::prepare_redirect`](fundraising_client::Client::prepare_redirect)),
//!   the sandbox's headless sign-in (`POST /_sandbox/sign-in`), and the client's own
//!   redemption of the code at the companion
//!   ([`Client::handle_callback`](fundraising_client::Client::handle_callback)).
//! - [`until`] and [`element`] wait on the page with a deadline, never a fixed sleep.
//! - [`PopupWatch`] finishes a sign-in the app's own button started in a pop-up.
//! - [`Sandbox::add_fault`], [`Sandbox::remove_fault`] and [`Sandbox::clear_faults`] break the
//!   service on cue; [`Sandbox::last_request_id`] and [`Sandbox::requests`] read its request
//!   log.
//!
//! A test-only crate: add it under `[dev-dependencies]`, so that it never reaches an app's
//! release build.
//!
//! ```no_run
//! # async fn run(client: fundraising_client::Client) {
//! use fundraising_testing::Sandbox;
//! // The addresses `fundraising-sandbox exec` exported to `cargo test`.
//! let sandbox = Sandbox::from_env();
//! let session = sandbox.sign_in(&client, "demo@example.org").await.expect("signed in");
//! assert_eq!(session.profile.name.as_deref(), Some("Demo Fundraiser"));
//! # }
//! ```

#![warn(missing_docs)]

mod error;
mod http;
mod popup;
mod sandbox;
mod wait;

pub use error::Error;
pub use popup::PopupWatch;
pub use sandbox::Sandbox;
pub use serde_json::{json, Value};
pub use wait::{element, pause, until, until_async};
