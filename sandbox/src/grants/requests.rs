//! Authorisation requests that passed the authorize checks and wait for login and consent.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

use super::grant::random_token;

/// How long the user has to log in and consent, in milliseconds (15 minutes).
pub const REQUEST_LIFETIME_MS: i64 = 15 * 60 * 1000;
/// Most pending authorisation requests kept; the oldest is evicted beyond this.
pub const MAX_PENDING_REQUESTS: usize = 1000;
/// Wrong passwords one pending authorisation request accepts; the next ends the request.
pub const MAX_LOGIN_FAILURES_PER_REQUEST: u32 = 5;

/// A checked authorisation request waiting for login and consent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationRequest {
    /// The application.
    pub client_id: String,
    /// The (verified) redirect_uri.
    pub redirect_uri: String,
    /// Requested scopes, in request order, without duplicates.
    pub scopes: Vec<String>,
    /// `state` to echo.
    pub state: Option<String>,
    /// `nonce` to put into the id_token.
    pub nonce: String,
    /// PKCE S256 challenge, when one was sent.
    pub code_challenge: Option<String>,
    /// `login_hint`, when one was sent (the headless sign-in may use it).
    pub login_hint: Option<String>,
}

impl AuthorizationRequest {
    /// Bytes of text the request holds (what a pending request costs in memory).
    pub fn text_len(&self) -> usize {
        self.client_id.len()
            + self.redirect_uri.len()
            + self.scopes.iter().map(String::len).sum::<usize>()
            + self.state.as_ref().map_or(0, String::len)
            + self.nonce.len()
            + self.code_challenge.as_ref().map_or(0, String::len)
            + self.login_hint.as_ref().map_or(0, String::len)
    }
}

#[derive(Debug)]
struct Pending {
    request: AuthorizationRequest,
    expires_ms: i64,
    seq: u64,
    failed_logins: u32,
}

#[derive(Debug, Default)]
struct Inner {
    requests: HashMap<String, Pending>,
    /// Request ids by age (insertion sequence), for evicting the oldest.
    order: BTreeMap<u64, String>,
    next_seq: u64,
}

impl Inner {
    fn prune(&mut self, now: i64) {
        let order = &mut self.order;
        self.requests.retain(|_, p| {
            let live = p.expires_ms > now;
            if !live {
                order.remove(&p.seq);
            }
            live
        });
    }

    fn remove(&mut self, id: &str) -> Option<Pending> {
        let entry = self.requests.remove(id)?;
        self.order.remove(&entry.seq);
        Some(entry)
    }
}

/// The pending authorisation requests, at most [`MAX_PENDING_REQUESTS`].
#[derive(Default)]
pub struct Requests {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for Requests {
    /// Counts only: never a token, code or name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Requests")
            .field("pending_requests", &self.pending(i64::MIN).0)
            .finish()
    }
}

impl Requests {
    fn lock(&self, now: i64) -> MutexGuard<'_, Inner> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.prune(now);
        inner
    }

    /// Keeps a checked authorisation request until login and consent; returns its id.
    /// Beyond [`MAX_PENDING_REQUESTS`] the oldest pending request is forgotten.
    pub fn start(&self, request: AuthorizationRequest, now: i64) -> String {
        let id = random_token();
        let mut inner = self.lock(now);
        let seq = inner.next_seq;
        inner.next_seq += 1;
        inner.requests.insert(
            id.clone(),
            Pending {
                request,
                expires_ms: now + REQUEST_LIFETIME_MS,
                seq,
                failed_logins: 0,
            },
        );
        inner.order.insert(seq, id.clone());
        while inner.requests.len() > MAX_PENDING_REQUESTS {
            let Some((_, oldest)) = inner.order.pop_first() else {
                break;
            };
            inner.requests.remove(&oldest);
        }
        id
    }

    /// The pending request with this id.
    pub fn get(&self, id: &str, now: i64) -> Option<AuthorizationRequest> {
        self.lock(now).requests.get(id).map(|p| p.request.clone())
    }

    /// Removes and returns the pending request (after the user's decision).
    pub fn finish(&self, id: &str, now: i64) -> Option<AuthorizationRequest> {
        self.lock(now).remove(id).map(|p| p.request)
    }

    /// Counts a wrong password against the request; true when that was one too many and the
    /// request is now ended (see [`MAX_LOGIN_FAILURES_PER_REQUEST`]).
    pub fn login_failed(&self, id: &str, now: i64) -> bool {
        let mut inner = self.lock(now);
        let Some(pending) = inner.requests.get_mut(id) else {
            return false;
        };
        pending.failed_logins += 1;
        if pending.failed_logins < MAX_LOGIN_FAILURES_PER_REQUEST {
            return false;
        }
        inner.remove(id);
        true
    }

    /// How many authorisation requests are pending and the bytes of text they hold.
    pub fn pending(&self, now: i64) -> (usize, usize) {
        let inner = self.lock(now);
        let bytes = inner
            .requests
            .iter()
            .map(|(id, p)| id.len() + p.request.text_len())
            .sum();
        (inner.requests.len(), bytes)
    }
}
