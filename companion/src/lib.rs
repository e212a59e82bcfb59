//! fundraising-companion: the backend a partner runs next to its site. It holds the
//! application's secret key, redeems authorisation codes at the token endpoint with HTTP Basic,
//! validates the id_token, keeps the refresh token in a sealed HttpOnly cookie and hands the
//! page only a short-lived access token. It also serves the demo site.

#![warn(missing_docs)]

pub mod api_route;
mod app;
mod config;
mod error;
pub mod oidc;
mod routes;
mod secret;
pub mod session;
mod state;
mod upstream;

pub use app::app;
pub use config::{normalize_origin, read_client_secret, Args, Settings, SECRET_ENV};
pub use error::Error;
pub use secret::Secret;
pub use session::CookieKey;
pub use state::AppState;
