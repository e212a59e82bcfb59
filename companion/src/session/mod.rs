//! The browser session: a sealed cookie holding the refresh token, and single-flight refreshes.

mod cookie;
mod key;
mod single_flight;

pub use self::cookie::{
    clear_cookie, session_cookie, session_from_headers, CookieScope, CookieState, SessionData,
    BFF_COOKIE_PATH, COOKIE_NAME, COOKIE_PATH,
};
pub use key::CookieKey;
pub use single_flight::SingleFlight;
