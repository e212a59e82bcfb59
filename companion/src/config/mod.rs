//! Command-line flags (each also settable by environment) and the settings built from them.

mod args;
mod settings;

pub use args::{Args, CompanionEnv, DEMO_APP_ID, DEMO_AUTH_URL};
pub use settings::{
    is_loopback, normalize_origin, read_client_secret, redacted, start_warnings, Settings,
    SECRET_ENV,
};
