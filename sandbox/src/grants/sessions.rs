//! Login sessions of the identity server's pages (the `fundraising_sandbox_login` cookie).

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

use super::grant::random_token;

/// Lifetime of a login session, in milliseconds (8 hours).
pub const SESSION_LIFETIME_MS: i64 = 8 * 3600 * 1000;
/// Most live login sessions; beyond it the oldest ends (its browser signs in again).
pub const MAX_LOGIN_SESSIONS: usize = 10_000;

#[derive(Debug)]
struct Entry {
    user_email: String,
    auth_time: i64,
    expires_ms: i64,
}

#[derive(Default)]
struct Inner {
    by_id: HashMap<String, Entry>,
    /// The ids in the order they started, which is the order they expire in (one lifetime
    /// for all, on a clock that never goes back).
    order: VecDeque<String>,
}

impl Inner {
    /// Ends the sessions that expired: from the oldest, never a scan of the live ones.
    fn prune(&mut self, now: i64) {
        while let Some(oldest) = self.order.front() {
            let live = self.by_id.get(oldest).is_some_and(|e| e.expires_ms > now);
            if live {
                break;
            }
            if let Some(id) = self.order.pop_front() {
                self.by_id.remove(&id);
            }
        }
    }
}

/// The live login sessions, each [`SESSION_LIFETIME_MS`] long and at most
/// [`MAX_LOGIN_SESSIONS`] at a time (the oldest ends first). Only a right password starts one.
/// A session is found by its id; expired ones are removed from the oldest on.
#[derive(Default)]
pub struct Sessions {
    inner: Mutex<Inner>,
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
    fn lock(&self, now: i64) -> MutexGuard<'_, Inner> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.prune(now);
        inner
    }

    /// Starts a login session for the user; returns the cookie value.
    pub fn start(&self, user_email: &str, now: i64) -> String {
        let id = random_token();
        let mut inner = self.lock(now);
        inner.by_id.insert(
            id.clone(),
            Entry {
                user_email: user_email.to_owned(),
                auth_time: now.div_euclid(1000),
                expires_ms: now + SESSION_LIFETIME_MS,
            },
        );
        inner.order.push_back(id.clone());
        while inner.order.len() > MAX_LOGIN_SESSIONS {
            if let Some(oldest) = inner.order.pop_front() {
                inner.by_id.remove(&oldest);
            }
        }
        id
    }

    /// The user email and login time (seconds) of a live session.
    pub fn get(&self, id: &str, now: i64) -> Option<(String, i64)> {
        self.lock(now)
            .by_id
            .get(id)
            .filter(|s| s.expires_ms > now)
            .map(|s| (s.user_email.clone(), s.auth_time))
    }

    /// How many sessions are live.
    pub fn count(&self, now: i64) -> usize {
        self.lock(now).by_id.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_bounded_the_oldest_ending_first_and_expire() {
        let sessions = Sessions::default();
        let first = sessions.start("a@example.org", 0);
        let second = sessions.start("a@example.org", 0);
        for _ in 0..MAX_LOGIN_SESSIONS - 1 {
            sessions.start("a@example.org", 0);
        }
        assert_eq!(sessions.count(0), MAX_LOGIN_SESSIONS);
        assert_eq!(sessions.get(&first, 0), None, "the oldest ended");
        assert!(sessions.get(&second, 0).is_some());
        let late = sessions.start("b@example.org", 1000);
        assert_eq!(sessions.count(SESSION_LIFETIME_MS), 1);
        assert_eq!(
            sessions.get(&late, SESSION_LIFETIME_MS),
            Some(("b@example.org".to_owned(), 1))
        );
        assert_eq!(sessions.get(&late, SESSION_LIFETIME_MS + 1000), None);
        assert_eq!(sessions.inner.lock().unwrap().order.len(), 0);
    }
}
