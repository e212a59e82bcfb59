//! `fundraising-client`: sign a user in with the fundraising service (OAuth 2.0 / OpenID
//! Connect, by pop-up or redirect, the code redeemed by your backend companion) and call its
//! four resource operations, from a Rust web app compiled to WebAssembly (Leptos, Yew, Dioxus,
//! plain web-sys), or from JavaScript through the npm package built from this crate.
//!
//! The Rust API is typed: `async fn`s return `fundraising-core`'s models, every failure is one
//! [`Error`] with a stable [`code`](Error::code), a sequence of pages is a `Stream`, and
//! dropping a future cancels it (its request is aborted). The service's rules (the models,
//! their case-insensitive decoding, the `\/Date()\/` codec, validation) are
//! `fundraising-core`'s, re-exported as [`model`] and [`ServiceDate`].
//!
//! ```no_run
//! use fundraising_client::{Client, ClientOptions, SignInOptions};
//!
//! # async fn run() -> Result<(), fundraising_client::Error> {
//! let client = Client::new(
//!     ClientOptions::new("demo-app", "http://127.0.0.1:8081")
//!         .auth_url("http://127.0.0.1:8082")
//!         .redirect_uri("http://127.0.0.1:8080/")
//!         .companion_url("http://127.0.0.1:8080")
//!         .scopes(["fundraise", "offline_access"]),
//! )?;
//! // When the page starts: finishes a sign-in callback (a pop-up hands it to its opener), or
//! // asks the companion whether it still holds the user's session.
//! let session = client.restore_session().await?;
//! # let _ = session;
//!
//! let campaign = client.campaign("demo-campaign").await?;
//! let raised = campaign.donation_summary.total_amount;
//! # let _ = raised;
//!
//! // From a click handler: the pop-up opens at once, the future finishes the sign-in.
//! let session = client.sign_in_with_popup(&SignInOptions::default()).await?;
//! # let _ = session;
//! # Ok(()) }
//! ```
//!
//! # Features
//!
//! - `signin` (default): sign-in, sessions and the companion. Without it the client makes
//!   the resource calls only.
//! - `campaign`, `donation`, `events`, `pages` (default): the resource operations, each on its
//!   own ([`Client::campaign`]; [`Client::donation`] and [`Client::wait_for_donation`];
//!   [`Client::create_event`]; [`Client::event_pages`] and [`Client::event_pages_stream`]). An
//!   app that needs only some turns `default-features` off and names them.
//! - `chrono`, `time`: conversions of [`ServiceDate`] to and from chrono's and time's types.
//! - `js`: the package's JavaScript face (the `FundraisingClient` class, its TypeScript
//!   declarations) and its allocator. Only the npm build turns it on; a Rust app leaves it off.
//!
//! # Testing
//!
//! Test an app offline against the sandbox (`fundraising-sandbox`) and the companion with
//! `wasm-bindgen-test` in a headless browser; `examples/leptos` shows the recipe.

#![warn(missing_docs)]

mod api;
mod client;
mod convert;
mod date;
#[cfg(feature = "donation")]
mod donation;
mod error;
pub mod http;
// The reading of JS values: the JS face's, sign-in's, and the browser's error bodies.
#[cfg(any(
    feature = "js",
    feature = "signin",
    all(target_arch = "wasm32", feature = "__operation")
))]
mod json;
mod options;
#[cfg(feature = "pages")]
mod pages;
mod random;
#[cfg(any(feature = "signin", feature = "js"))]
mod task;
mod time;

#[cfg(feature = "signin")]
mod auth;

#[cfg(feature = "js")]
pub mod js;

pub use client::Client;
pub use date::JsDate;
pub use error::{code, Error, ScriptError};
pub use fundraising_core::{model, ServiceDate};
pub use http::{Browser, Transport};
#[cfg(feature = "donation")]
pub use options::WaitOptions;
pub use options::{ClientOptions, DEFAULT_TIMEOUT};
#[cfg(feature = "pages")]
pub use pages::PageStream;
pub use random::new_donation_reference;

#[cfg(feature = "signin")]
pub use auth::{
    PopupSignIn, Profile, Reason, Session, SessionChange, SessionChanges, SessionState,
    Subscription,
};
#[cfg(feature = "signin")]
pub use options::SignInOptions;
