//! fundraising-companion: the backend a partner runs next to its site. It holds the
//! application's secret key, redeems authorisation codes at the token endpoint with HTTP Basic,
//! validates the id_token, keeps the refresh token in a sealed HttpOnly cookie and hands the
//! page only a short-lived access token. It also serves the demo site.

#![warn(missing_docs)]

mod answer;
pub mod api_route;
mod app;
pub mod clock;
mod config;
mod error;
pub mod metrics;
pub mod oidc;
mod refresh;
mod routes;
mod secret;
pub mod session;
mod state;
pub mod telemetry;
mod upstream;

pub use app::{app, metrics_app};
pub use config::{
    is_loopback, normalize_origin, read_client_secret, redacted, start_warnings, Args,
    CompanionEnv, Settings, DEMO_APP_ID, DEMO_AUTH_URL, SECRET_ENV,
};
pub use error::Error;
pub use secret::Secret;
pub use session::CookieKey;
pub use state::AppState;
