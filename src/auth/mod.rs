//! Sign-in (pop-up and redirect), the callback, and the session with its single-flight refresh.

mod companion;
mod events;
mod popup;
mod request;
mod session;
mod signin;
mod transaction;

pub(crate) use companion::Companion;
#[allow(unused_imports)] // the declarations are read by typescript.rs (wasm32 only)
pub(crate) use events::{SESSION_CHANGE, SESSION_CHANGE_TS};
pub use fundraising_core::companion::Profile;
pub use popup::PopupSignIn;
pub(crate) use request::AuthConfig;
pub use request::SignInRequest;
pub use session::Session;
pub use signin::Auth;
pub(crate) use transaction::Transaction;
