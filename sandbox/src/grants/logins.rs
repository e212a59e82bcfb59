//! The lock-out of wrong passwords: per client address and login name, so that wrong
//! passwords slow down the address that sends them and never lock an account for anyone else.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use sha2::{Digest, Sha256};

/// Wrong passwords in a row, for one name from one client address, before that address is
/// locked out of that name for a while.
pub const LOGIN_FAILURES_BEFORE_LOCK: u32 = 5;
/// The first lock-out, in milliseconds; each further wrong password after a lock-out doubles
/// it, up to [`LOGIN_LOCK_MAX_MS`].
pub const LOGIN_LOCK_FIRST_MS: i64 = 30_000;
/// The longest lock-out, in milliseconds (15 minutes): the longest wait a sign-in can be put
/// in, counted from the last wrong password sent from the locked-out address.
pub const LOGIN_LOCK_MAX_MS: i64 = 15 * 60 * 1000;
/// Most (client address, name) pairs whose wrong passwords are tracked. Beyond it the least
/// recently failed pair that is not locked out is forgotten; an active lock-out never is.
/// When every tracked pair is locked out, a login from an untracked pair waits until a
/// lock-out ends (so the table never grows, and no lock-out is lost).
pub const MAX_THROTTLED_LOGINS: usize = 1000;
/// Most names one client address has tracked at once. Beyond it the address's own least
/// recently failed name that is not locked out is forgotten; when all of them are locked out,
/// that address (and no other) waits until its first lock-out ends. So one address never fills
/// the table that every address shares.
pub const MAX_NAMES_PER_ADDRESS: usize = 16;

/// What a login attempt may do, decided before the password is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginGate {
    /// Check the password.
    Open,
    /// This name is locked for this client address for this many more milliseconds (at most
    /// [`LOGIN_LOCK_MAX_MS`]); refuse without checking.
    Locked {
        /// Milliseconds until the lock-out ends.
        remaining_ms: i64,
    },
}

/// Wrong passwords for one name from one client address.
#[derive(Debug, Clone, Copy)]
struct Failures {
    /// Wrong passwords in a row.
    count: u32,
    /// Until when every password for the name from this address is refused (milliseconds
    /// since the epoch).
    locked_until_ms: i64,
    /// When the last wrong password came (for forgetting the least recent pair).
    last_ms: i64,
}

impl Failures {
    fn locked(&self, now: i64) -> bool {
        self.locked_until_ms > now
    }
}

/// A login name as tracked: the SHA-256 of its trimmed, lower-cased form, so that any name a
/// client types (a configured user's or not) costs the same few bytes and is answered the
/// same way.
type Name = [u8; 32];

fn name_of(name: &str) -> Name {
    Sha256::digest(name.trim().to_ascii_lowercase().as_bytes()).into()
}

#[derive(Debug, Default)]
struct Inner {
    /// Wrong passwords by client address, then name.
    by_address: HashMap<String, HashMap<Name, Failures>>,
    /// Pairs tracked in all.
    pairs: usize,
}

impl Inner {
    fn prune(&mut self, now: i64) {
        let mut pairs = 0;
        self.by_address.retain(|_, names| {
            names.retain(|_, f| f.locked(now) || now - f.last_ms < LOGIN_LOCK_MAX_MS);
            pairs += names.len();
            !names.is_empty()
        });
        self.pairs = pairs;
    }

    /// The end of the first lock-out to end among `pairs`, when every one is locked out.
    fn all_locked<'a>(pairs: impl Iterator<Item = &'a Failures>, now: i64) -> Option<i64> {
        let mut first_end = None::<i64>;
        for f in pairs {
            if !f.locked(now) {
                return None;
            }
            first_end = Some(first_end.map_or(f.locked_until_ms, |e| e.min(f.locked_until_ms)));
        }
        first_end
    }

    /// When an untracked pair from `address` must wait: the address holds
    /// [`MAX_NAMES_PER_ADDRESS`] lock-outs, or the whole table is full of lock-outs.
    fn untracked_wait(&self, address: &str, now: i64) -> Option<i64> {
        if let Some(names) = self.by_address.get(address) {
            if names.len() >= MAX_NAMES_PER_ADDRESS {
                if let Some(end) = Self::all_locked(names.values(), now) {
                    return Some(end);
                }
            }
        }
        if self.pairs >= MAX_THROTTLED_LOGINS {
            return Self::all_locked(self.by_address.values().flat_map(|n| n.values()), now);
        }
        None
    }

    /// Forgets the least recently failed pair that is not locked out, among `address`'s
    /// names or, without one, among all; false when every candidate is locked out.
    fn forget_one(&mut self, address: Option<&str>, now: i64) -> bool {
        let oldest = self
            .by_address
            .iter()
            .filter(|(a, _)| address.is_none_or(|wanted| wanted == a.as_str()))
            .flat_map(|(a, names)| names.iter().map(move |(n, f)| (a, n, f)))
            .filter(|(_, _, f)| !f.locked(now))
            .min_by_key(|(_, _, f)| f.last_ms)
            .map(|(a, n, _)| (a.clone(), *n));
        let Some((a, n)) = oldest else {
            return false;
        };
        if let Some(names) = self.by_address.get_mut(&a) {
            names.remove(&n);
            if names.is_empty() {
                self.by_address.remove(&a);
            }
        }
        self.pairs -= 1;
        true
    }
}

/// Wrong passwords by client address and name, bounded by [`MAX_THROTTLED_LOGINS`] and
/// [`MAX_NAMES_PER_ADDRESS`].
#[derive(Default)]
pub struct LoginThrottle {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for LoginThrottle {
    /// Counts only: never a token, code or name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginThrottle")
            .field("tracked_pairs", &self.tracked(i64::MIN))
            .finish()
    }
}

impl LoginThrottle {
    fn lock(&self, now: i64) -> MutexGuard<'_, Inner> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.prune(now);
        inner
    }

    /// Whether a password for `name` (whatever was typed, a configured user's or not) may be
    /// checked now for a login from `client` (the client's address, see the login page).
    pub fn gate(&self, name: &str, client: &str, now: i64) -> LoginGate {
        let inner = self.lock(now);
        let tracked = inner
            .by_address
            .get(client)
            .and_then(|names| names.get(&name_of(name)));
        let until = match tracked {
            Some(f) => f.locked(now).then_some(f.locked_until_ms),
            None => inner.untracked_wait(client, now),
        };
        match until {
            Some(until) => LoginGate::Locked {
                remaining_ms: until - now,
            },
            None => LoginGate::Open,
        }
    }

    /// Counts a wrong password for `name` from `client`, locking that address out of that
    /// name with a growing backoff (at most [`LOGIN_LOCK_MAX_MS`]); returns the lock-out's
    /// length when there is one now. Logins from other addresses are not affected.
    pub fn failed(&self, name: &str, client: &str, now: i64) -> Option<i64> {
        let mut inner = self.lock(now);
        let key = name_of(name);
        let tracked = inner
            .by_address
            .get(client)
            .is_some_and(|names| names.contains_key(&key));
        if !tracked {
            let address_full = inner
                .by_address
                .get(client)
                .is_some_and(|names| names.len() >= MAX_NAMES_PER_ADDRESS);
            if address_full && !inner.forget_one(Some(client), now) {
                // Every name of this address is locked out; its logins wait at the gate.
                return None;
            }
            if inner.pairs >= MAX_THROTTLED_LOGINS && !inner.forget_one(None, now) {
                return None;
            }
            inner.pairs += 1;
        }
        let entry = inner
            .by_address
            .entry(client.to_owned())
            .or_default()
            .entry(key)
            .or_insert(Failures {
                count: 0,
                locked_until_ms: 0,
                last_ms: now,
            });
        entry.count += 1;
        entry.last_ms = now;
        (entry.count >= LOGIN_FAILURES_BEFORE_LOCK).then(|| {
            let doublings = (entry.count - LOGIN_FAILURES_BEFORE_LOCK).min(16);
            let lock = (LOGIN_LOCK_FIRST_MS << doublings).min(LOGIN_LOCK_MAX_MS);
            entry.locked_until_ms = now + lock;
            lock
        })
    }

    /// Forgets the wrong passwords for `name` from `client` after a successful login there.
    pub fn succeeded(&self, name: &str, client: &str, now: i64) {
        let mut inner = self.lock(now);
        let Some(names) = inner.by_address.get_mut(client) else {
            return;
        };
        if names.remove(&name_of(name)).is_some() {
            if names.is_empty() {
                inner.by_address.remove(client);
            }
            inner.pairs -= 1;
        }
    }

    /// How many (client address, name) pairs are tracked (at most [`MAX_THROTTLED_LOGINS`]).
    pub fn tracked(&self, now: i64) -> usize {
        self.lock(now).pairs
    }
}
