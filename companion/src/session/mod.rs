//! The browser session: a sealed cookie holding the refresh token, and single-flight refreshes
//! (per instance, or shared by every instance through Redis).

mod cookie;
mod ended;
mod key;
mod shared_flight;
mod single_flight;

pub use self::cookie::{
    clear_cookie, session_cookie, session_from_headers, session_in, CookieScope, CookieState,
    SessionData, SetCookies, BFF_COOKIE_PATHS, COOKIE_NAME, COOKIE_PATHS, HOST_COOKIE_NAME,
    HOST_COOKIE_PATHS,
};
pub use ended::{EndedSessions, StoreUnavailable, ENDED_PREFIX, MAX_LOCAL_ENDED, RECORD_LIFETIME};
pub use key::CookieKey;
pub use shared_flight::{
    FlightError, SharedFlight, KEY_PREFIX, MAX_UNSTORED, RECONCILE_WINDOW, REDIS_TIMEOUT,
};
pub use single_flight::{Part, SingleFlight};
