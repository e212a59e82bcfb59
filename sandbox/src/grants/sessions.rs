//! Login sessions of the identity server's pages (the `fundraising_sandbox_login` cookie).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use super::grant::random_token;

/// Lifetime of a login session, in milliseconds (8 hours).
pub const SESSION_LIFETIME_MS: i64 = 8 * 3600 * 1000;

#[derive(Debug)]
struct Entry {
    user_email: String,
    auth_time: i64,
    expires_ms: i64,
}

/// The live login sessions, each [`SESSION_LIFETIME_MS`] long. Only a right password starts
/// one, so they grow with configured users' logins, never with anonymous requests.
#[derive(Default)]
pub struct Sessions {
    inner: Mutex<HashMap<String, Entry>>,
}

impl std::fmt::Debug for Sessions {
    /// Counts only: never a token, code or name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions")
            .field("sessions", &self.count(i64::MIN))
            .finish()
    }
}

impl Sessions {
    fn lock(&self, now: i64) -> MutexGuard<'_, HashMap<String, Entry>> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.retain(|_, s| s.expires_ms > now);
        inner
    }

    /// Starts a login session for the user; returns the cookie value.
    pub fn start(&self, user_email: &str, now: i64) -> String {
        let id = random_token();
        self.lock(now).insert(
            id.clone(),
            Entry {
                user_email: user_email.to_owned(),
                auth_time: now.div_euclid(1000),
                expires_ms: now + SESSION_LIFETIME_MS,
            },
        );
        id
    }

    /// The user email and login time (seconds) of a live session.
    pub fn get(&self, id: &str, now: i64) -> Option<(String, i64)> {
        self.lock(now)
            .get(id)
            .map(|s| (s.user_email.clone(), s.auth_time))
    }

    /// How many sessions are live.
    pub fn count(&self, now: i64) -> usize {
        self.lock(now).len()
    }
}
