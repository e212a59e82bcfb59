//! Sign-in (pop-up and redirect), the callback, and the session with its single-flight refresh
//! and its restore when a page starts.

mod client;
mod companion;
mod events;
mod popup;
mod request;
mod session;
mod signin;
mod transaction;

pub(crate) use companion::Companion;
pub use events::{SessionChanges, Subscription};
pub use fundraising_core::companion::Profile;
pub use popup::PopupSignIn;
pub(crate) use request::{AuthConfig, SignInRequest};
#[allow(unused_imports)] // used by the JS layer
pub(crate) use session::with_reasons;
pub use session::{Reason, Session, SessionChange, SessionState};
pub(crate) use signin::Auth;
pub(crate) use transaction::Transaction;
