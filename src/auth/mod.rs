//! Sign-in (pop-up and redirect), the callback, and the session with its single-flight refresh.

mod companion;
mod events;
mod popup;
mod request;
mod session;
mod signin;
mod transaction;

pub(crate) use companion::Companion;
pub use events::Subscription;
pub use fundraising_core::companion::Profile;
pub use popup::PopupSignIn;
pub(crate) use request::{AuthConfig, SignInRequest};
#[cfg(feature = "js")]
pub(crate) use session::SESSION_CHANGE_TS;
pub use session::{Reason, Session, SessionChange};
pub(crate) use signin::Auth;
pub(crate) use transaction::Transaction;
