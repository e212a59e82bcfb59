//! A faithful local emulator of the fundraising service: an OpenID Connect identity server
//! (`identity_app`) and the resource API (`api_app`), backed by SQLite and seeded with demo data,
//! and [`exec`], which runs a command against a sandbox and companions started for it.

/// One of core's models with the members named set and every other member at its default:
/// the models are `#[non_exhaustive]`, so outside core they are built this way rather than
/// as struct literals.
macro_rules! model {
    ($ty:ident { $($field:ident: $value:expr),* $(,)? }) => {{
        let mut model = $ty::default();
        $(model.$field = $value;)*
        model
    }};
}

mod api;
mod app;
mod basic;
mod clock;
mod config;
mod error;
pub mod exec;
mod faults;
mod grants;
mod identity;
mod keys;
mod logging;
mod params;
mod request_log;
mod state;
mod store;
mod testing;

pub use api::{ApiError, FIELD_LIMITS, MAX_EVENT_BODY_BYTES, MAX_URI_BYTES};
pub use app::{api_app, identity_app};
pub use clock::Clock;
pub use config::{
    Application, Config, OpenerPolicy, Secret, StagedDonation, User, DEFAULT_CONFIG_TOML,
    MAX_STAGED_DONATIONS,
};
pub use error::{Result, SandboxError};
pub use faults::{
    Endpoint, FaultSpec, FaultView, Faults, IdTokenFault, Listener, MAX_FAULTS, MAX_FAULT_DELAY_MS,
    MAX_RETRY_AFTER_SECS,
};
pub use grants::{
    AccessInfo, AuthorizationRequest, Codes, Grant, GrantStore, IssuedTokens, RefreshRefusal,
    Requests, Sessions, Tokens, ACCESS_TOKEN_LIFETIME_SECS, CODE_LIFETIME_MS,
    MAX_ACCESS_TOKENS_PER_CHAIN, MAX_CHAINS_PER_USER, MAX_LOGIN_FAILURES_PER_REQUEST,
    MAX_LOGIN_SESSIONS, MAX_PENDING_REQUESTS, MAX_USED_REFRESH_TOKENS_PER_CHAIN,
    REFRESH_TOKEN_LIFETIME_MS,
};
pub use identity::{
    OAuthError, JWKS_PATH, MAX_AUTHORIZE_PARAM_LEN, MAX_TOKEN_BODY_BYTES, OTHER_AUDIENCE,
    REVOCATION_PATH, SESSION_COOKIE,
};
pub use keys::{KeyRing, SigningKey, KEY_FILE, MAX_RETIRED_KEYS};
pub use request_log::{LoggedRequest, RequestLog, MAX_LOGGED_REQUESTS};
pub use state::{Sandbox, DEFAULT_ISSUER, DEFAULT_PUBLIC_BASE_URL};
pub use store::{
    Database, PagesKey, PagesSlice, StoredDonation, DB_FILE, DEMO_CAMPAIGN, DEMO_EVENT_ID,
    DEMO_EVENT_PAGES, DEMO_OWNER_EMAIL, DEMO_REF_OWNED, DEMO_REF_SHARED, PAGES_CACHE_ENTRIES,
};
pub use testing::{STAGING_PATH, TEST_ROUTES};
