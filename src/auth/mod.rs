//! Sign-in (pop-up and redirect), the callback, and the session with its single-flight refresh.

mod companion;
mod popup;
mod request;
mod session;
mod signin;
mod transaction;

pub(crate) use companion::Companion;
pub use fundraising_core::companion::Profile;
pub use popup::PopupSignIn;
pub(crate) use request::AuthConfig;
pub use request::SignInRequest;
pub use session::Session;
pub use signin::Auth;
pub(crate) use transaction::Transaction;
