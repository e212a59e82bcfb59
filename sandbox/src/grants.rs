//! In-memory state of the identity server: pending authorisation requests, login sessions,
//! authorisation codes, access tokens and refresh-token chains.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use fundraising_core::pkce::{challenge_s256, CodeVerifier};
use rand::RngCore;

/// How long an authorisation code can be redeemed, in milliseconds.
pub const CODE_LIFETIME_MS: i64 = 60_000;
/// Lifetime of an access token (and of an id_token), in seconds.
pub const ACCESS_TOKEN_LIFETIME_SECS: i64 = 3600;
/// Lifetime of a refresh token, in milliseconds (30 days).
pub const REFRESH_TOKEN_LIFETIME_MS: i64 = 30 * 24 * 3600 * 1000;
/// Lifetime of a login session, in milliseconds (8 hours).
pub const SESSION_LIFETIME_MS: i64 = 8 * 3600 * 1000;
/// How long the user has to log in and consent, in milliseconds (15 minutes).
pub const REQUEST_LIFETIME_MS: i64 = 15 * 60 * 1000;
/// Most pending authorisation requests kept; the oldest is evicted beyond this.
pub const MAX_PENDING_REQUESTS: usize = 1000;
/// Wrong passwords one pending authorisation request accepts; the next ends the request.
pub const MAX_LOGIN_FAILURES_PER_REQUEST: u32 = 5;
/// Wrong passwords in a row, for one account from one client address, before that address is
/// locked out of that account for a while.
pub const LOGIN_FAILURES_BEFORE_LOCK: u32 = 5;
/// The first lock-out, in milliseconds; each further wrong password after a lock-out doubles
/// it, up to [`LOGIN_LOCK_MAX_MS`].
pub const LOGIN_LOCK_FIRST_MS: i64 = 30_000;
/// The longest lock-out, in milliseconds (15 minutes): the longest wait a sign-in can be put
/// in, counted from the last wrong password sent from the locked-out address.
pub const LOGIN_LOCK_MAX_MS: i64 = 15 * 60 * 1000;
/// Most (account, client address) pairs whose wrong passwords are tracked. Beyond it the
/// least recently failed pair that is not locked out is forgotten; an active lock-out never
/// is. When every tracked pair is locked out, a login from an untracked pair waits until a
/// lock-out ends (so the table never grows, and no lock-out is lost).
pub const MAX_THROTTLED_LOGINS: usize = 1000;
/// Most chains (the tokens descending from one authorisation code) kept at once; beyond it
/// the least recently refreshed chain is revoked.
pub const MAX_TOKEN_CHAINS: usize = 4096;
/// Most access tokens live at once in one chain; a further refresh revokes the oldest.
pub const MAX_ACCESS_TOKENS_PER_CHAIN: usize = 16;
/// Most used refresh tokens one chain remembers (for reuse detection); a further refresh
/// forgets the oldest, which is then answered as an unknown token.
pub const MAX_USED_REFRESH_TOKENS_PER_CHAIN: usize = 16;

/// The `error_description` of an unknown, expired or foreign authorisation code.
pub const UNKNOWN_CODE: &str = "the authorization code is unknown or has expired";
/// The `error_description` of an unknown, expired, revoked or foreign refresh token.
pub const UNKNOWN_REFRESH_TOKEN: &str = "the refresh token is unknown, expired or revoked";

/// A fresh unguessable token: 32 random bytes, base64url.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Whether `verifier` is a well-formed PKCE verifier (core's RFC 7636 rule) whose S256
/// transform is `challenge`.
pub fn pkce_matches(verifier: &str, challenge: &str) -> bool {
    CodeVerifier::new(verifier).is_ok() && challenge_s256(verifier) == challenge
}

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
}

/// What a user granted an application; carried by codes and token chains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The application.
    pub client_id: String,
    /// The redirect_uri of the authorisation request.
    pub redirect_uri: String,
    /// The signed-in user's email.
    pub user_email: String,
    /// Granted scopes.
    pub scopes: Vec<String>,
    /// The nonce of the authorisation request.
    pub nonce: String,
    /// When the user logged in (seconds since the epoch).
    pub auth_time: i64,
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
    }
}

impl Grant {
    /// Whether the scope was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}

/// Tokens handed out by one code exchange or refresh.
#[derive(Debug, Clone)]
pub struct IssuedTokens {
    /// The bearer access token.
    pub access_token: String,
    /// The refresh token (only with `offline_access`).
    pub refresh_token: Option<String>,
}

/// Who an access token speaks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessInfo {
    /// The application it was issued to.
    pub client_id: String,
    /// The user.
    pub user_email: String,
    /// Granted scopes.
    pub scopes: Vec<String>,
    /// Expiry, milliseconds since the epoch.
    pub expires_at_ms: i64,
}

#[derive(Debug)]
struct CodeEntry {
    grant: Grant,
    code_challenge: Option<String>,
    expires_ms: i64,
    used: bool,
    chain: Option<String>,
}

#[derive(Debug)]
struct RefreshEntry {
    grant: Grant,
    chain: String,
    used: bool,
    expires_ms: i64,
}

#[derive(Debug)]
struct AccessEntry {
    info: AccessInfo,
}

/// What the store keeps of one chain, so that it stays bounded and is revoked without a scan.
#[derive(Debug, Default)]
struct ChainEntry {
    /// Its access tokens, oldest first.
    access: VecDeque<String>,
    /// Its refresh tokens, used ones oldest first, then the live one.
    refresh: VecDeque<String>,
    /// Position in the chains' order of activity.
    seq: u64,
    /// When its last token expires.
    expires_ms: i64,
}

/// Why a refresh was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshRefusal {
    /// `invalid_grant`: an unknown, expired, revoked or used refresh token.
    Grant(&'static str),
    /// `invalid_scope`: a scope the grant does not hold.
    Scope(&'static str),
}

#[derive(Debug)]
struct PendingEntry {
    request: AuthorizationRequest,
    expires_ms: i64,
    seq: u64,
    failed_logins: u32,
}

/// Wrong passwords for one account from one client address.
#[derive(Debug, Clone, Copy)]
struct LoginFailures {
    /// Wrong passwords in a row.
    count: u32,
    /// Until when every password for the account from this address is refused
    /// (milliseconds since the epoch).
    locked_until_ms: i64,
    /// When the last wrong password came (for forgetting the least recent pair).
    last_ms: i64,
}

/// What a login attempt may do, decided before the password is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginGate {
    /// Check the password.
    Open,
    /// The account is locked for this client address for this many more milliseconds
    /// (at most [`LOGIN_LOCK_MAX_MS`]); refuse without checking.
    Locked {
        /// Milliseconds until the lock-out ends.
        remaining_ms: i64,
    },
}

/// What a wrong password led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoginFailure {
    /// The pending request has had too many wrong passwords and was ended.
    pub request_ended: bool,
    /// The account is now locked for the client address for this many milliseconds.
    pub account_locked_ms: Option<i64>,
}

#[derive(Debug)]
struct SessionEntry {
    user_email: String,
    auth_time: i64,
    expires_ms: i64,
}

#[derive(Debug, Default)]
struct Inner {
    requests: HashMap<String, PendingEntry>,
    /// Pending request ids by age (insertion sequence), for evicting the oldest.
    request_order: BTreeMap<u64, String>,
    next_seq: u64,
    /// Wrong passwords by (account, client address).
    throttles: HashMap<(String, String), LoginFailures>,
    sessions: HashMap<String, SessionEntry>,
    codes: HashMap<String, CodeEntry>,
    access: HashMap<String, AccessEntry>,
    refresh: HashMap<String, RefreshEntry>,
    chains: HashMap<String, ChainEntry>,
    /// Chain ids by last activity, for revoking the least recent beyond [`MAX_TOKEN_CHAINS`].
    chain_order: BTreeMap<u64, String>,
}

impl Inner {
    fn prune(&mut self, now: i64) {
        let order = &mut self.request_order;
        self.requests.retain(|_, p| {
            let live = p.expires_ms > now;
            if !live {
                order.remove(&p.seq);
            }
            live
        });
        self.throttles
            .retain(|_, a| a.locked_until_ms > now || now - a.last_ms < LOGIN_LOCK_MAX_MS);
        self.sessions.retain(|_, s| s.expires_ms > now);
        self.codes.retain(|_, c| c.expires_ms > now);
        self.access.retain(|_, a| a.info.expires_at_ms > now);
        self.refresh.retain(|_, r| r.expires_ms > now);
        let order = &mut self.chain_order;
        self.chains.retain(|_, c| {
            let live = c.expires_ms > now;
            if !live {
                order.remove(&c.seq);
            }
            live
        });
    }

    /// When the table of wrong passwords is full and every pair in it is locked out: the end
    /// of the first lock-out to end.
    fn full_of_lock_outs(&self, now: i64) -> Option<i64> {
        if self.throttles.len() < MAX_THROTTLED_LOGINS {
            return None;
        }
        let mut first_end = i64::MAX;
        for a in self.throttles.values() {
            if a.locked_until_ms <= now {
                return None;
            }
            first_end = first_end.min(a.locked_until_ms);
        }
        Some(first_end)
    }

    fn remove_request(&mut self, id: &str) -> Option<PendingEntry> {
        let entry = self.requests.remove(id)?;
        self.request_order.remove(&entry.seq);
        Some(entry)
    }

    fn revoke_chain(&mut self, chain: &str) {
        let Some(entry) = self.chains.remove(chain) else {
            return;
        };
        self.chain_order.remove(&entry.seq);
        for token in &entry.access {
            self.access.remove(token);
        }
        for token in &entry.refresh {
            self.refresh.remove(token);
        }
    }

    /// The chain `chain`, made (and the least recently active one revoked beyond
    /// [`MAX_TOKEN_CHAINS`]) if new, moved to the end of the order of activity.
    fn touch_chain(&mut self, chain: &str) -> &mut ChainEntry {
        let seq = self.next_seq;
        self.next_seq += 1;
        match self.chains.get(chain) {
            Some(entry) => {
                self.chain_order.remove(&entry.seq);
            }
            None => {
                while self.chains.len() >= MAX_TOKEN_CHAINS {
                    let Some((_, oldest)) = self.chain_order.pop_first() else {
                        break;
                    };
                    self.revoke_chain(&oldest);
                }
            }
        }
        let entry = self.chains.entry(chain.to_owned()).or_default();
        entry.seq = seq;
        self.chain_order.insert(seq, chain.to_owned());
        entry
    }

    /// Issues an access token for `access_scopes` (the grant's, or fewer on a refresh) and,
    /// with `offline_access` granted, a refresh token for the whole grant, in `chain`; the
    /// chain's oldest access token beyond [`MAX_ACCESS_TOKENS_PER_CHAIN`] is revoked.
    fn issue(
        &mut self,
        grant: &Grant,
        access_scopes: &[String],
        chain: &str,
        now: i64,
    ) -> IssuedTokens {
        let access_token = random_token();
        let access_expiry = now + ACCESS_TOKEN_LIFETIME_SECS * 1000;
        self.access.insert(
            access_token.clone(),
            AccessEntry {
                info: AccessInfo {
                    client_id: grant.client_id.clone(),
                    user_email: grant.user_email.clone(),
                    scopes: access_scopes.to_vec(),
                    expires_at_ms: access_expiry,
                },
            },
        );
        let refresh_token = grant.has_scope("offline_access").then(|| {
            let token = random_token();
            self.refresh.insert(
                token.clone(),
                RefreshEntry {
                    grant: grant.clone(),
                    chain: chain.to_owned(),
                    used: false,
                    expires_ms: now + REFRESH_TOKEN_LIFETIME_MS,
                },
            );
            token
        });
        let entry = self.touch_chain(chain);
        entry.access.push_back(access_token.clone());
        let mut expired = Vec::new();
        while entry.access.len() > MAX_ACCESS_TOKENS_PER_CHAIN {
            expired.extend(entry.access.pop_front());
        }
        if let Some(token) = &refresh_token {
            entry.refresh.push_back(token.clone());
        }
        entry.expires_ms = entry
            .expires_ms
            .max(access_expiry)
            .max(if refresh_token.is_some() {
                now + REFRESH_TOKEN_LIFETIME_MS
            } else {
                0
            });
        for token in expired {
            self.access.remove(&token);
        }
        IssuedTokens {
            access_token,
            refresh_token,
        }
    }

    /// Forgets the chain's oldest used refresh tokens beyond
    /// [`MAX_USED_REFRESH_TOKENS_PER_CHAIN`] (the live one, last, stays).
    fn forget_used(&mut self, chain: &str) {
        let Some(entry) = self.chains.get_mut(chain) else {
            return;
        };
        let mut forgotten = Vec::new();
        // The last one is the live token.
        while entry.refresh.len() > MAX_USED_REFRESH_TOKENS_PER_CHAIN + 1 {
            forgotten.extend(entry.refresh.pop_front());
        }
        for token in forgotten {
            self.refresh.remove(&token);
        }
    }
}

/// Thread-safe store of everything the identity server hands out. `Debug` shows counts only.
#[derive(Default)]
pub struct GrantStore {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for GrantStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("GrantStore")
            .field("pending_requests", &inner.requests.len())
            .field("throttled_logins", &inner.throttles.len())
            .field("sessions", &inner.sessions.len())
            .field("codes", &inner.codes.len())
            .field("access_tokens", &inner.access.len())
            .field("refresh_tokens", &inner.refresh.len())
            .finish()
    }
}

impl GrantStore {
    fn lock(&self, now: i64) -> MutexGuard<'_, Inner> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.prune(now);
        inner
    }

    /// Keeps a checked authorisation request until login and consent; returns its id.
    /// Beyond [`MAX_PENDING_REQUESTS`] the oldest pending request is forgotten.
    pub fn start_request(&self, request: AuthorizationRequest, now: i64) -> String {
        let id = random_token();
        let mut inner = self.lock(now);
        let seq = inner.next_seq;
        inner.next_seq += 1;
        inner.requests.insert(
            id.clone(),
            PendingEntry {
                request,
                expires_ms: now + REQUEST_LIFETIME_MS,
                seq,
                failed_logins: 0,
            },
        );
        inner.request_order.insert(seq, id.clone());
        while inner.requests.len() > MAX_PENDING_REQUESTS {
            let Some((_, oldest)) = inner.request_order.pop_first() else {
                break;
            };
            inner.requests.remove(&oldest);
        }
        id
    }

    /// The pending request with this id.
    pub fn request(&self, id: &str, now: i64) -> Option<AuthorizationRequest> {
        self.lock(now).requests.get(id).map(|p| p.request.clone())
    }

    /// Removes and returns the pending request (after the user's decision).
    pub fn finish_request(&self, id: &str, now: i64) -> Option<AuthorizationRequest> {
        self.lock(now).remove_request(id).map(|p| p.request)
    }

    /// How many authorisation requests are pending and the bytes of text they hold.
    pub fn pending_requests(&self, now: i64) -> (usize, usize) {
        let inner = self.lock(now);
        let bytes = inner
            .requests
            .iter()
            .map(|(id, p)| id.len() + p.request.text_len())
            .sum();
        (inner.requests.len(), bytes)
    }

    /// How many (account, client address) pairs have wrong passwords tracked (at most
    /// [`MAX_THROTTLED_LOGINS`]).
    pub fn throttled_logins(&self, now: i64) -> usize {
        self.lock(now).throttles.len()
    }

    /// Whether a password for `account` (a known user's email) may be checked now for a login
    /// from `client` (the client's address, see the login page). A pair not tracked yet waits
    /// while the table is full of active lock-outs (see [`MAX_THROTTLED_LOGINS`]).
    pub fn login_gate(&self, account: &str, client: &str, now: i64) -> LoginGate {
        let key = (account.to_ascii_lowercase(), client.to_owned());
        let inner = self.lock(now);
        match inner.throttles.get(&key) {
            Some(a) if a.locked_until_ms > now => LoginGate::Locked {
                remaining_ms: a.locked_until_ms - now,
            },
            Some(_) => LoginGate::Open,
            None => match inner.full_of_lock_outs(now) {
                Some(until) => LoginGate::Locked {
                    remaining_ms: until - now,
                },
                None => LoginGate::Open,
            },
        }
    }

    /// Counts a wrong password against the pending request `id` and, when the name is a
    /// known user's (`account`), against that account for logins from `client`, locking that
    /// address out of the account with a growing backoff (at most [`LOGIN_LOCK_MAX_MS`]).
    /// Logins from other addresses are not affected: wrong passwords can slow down one
    /// address, never lock the account itself.
    pub fn login_failed(
        &self,
        id: &str,
        account: Option<&str>,
        client: &str,
        now: i64,
    ) -> LoginFailure {
        let mut inner = self.lock(now);
        let mut request_ended = false;
        if let Some(pending) = inner.requests.get_mut(id) {
            pending.failed_logins += 1;
            if pending.failed_logins >= MAX_LOGIN_FAILURES_PER_REQUEST {
                inner.remove_request(id);
                request_ended = true;
            }
        }
        let account_locked_ms = account.and_then(|account| {
            let key = (account.to_ascii_lowercase(), client.to_owned());
            if !inner.throttles.contains_key(&key) && inner.throttles.len() >= MAX_THROTTLED_LOGINS
            {
                // The least recently failed pair that is not locked out; an active lock-out
                // is never forgotten. None: every pair is locked out, and this one is not
                // tracked (its logins wait at the gate until a lock-out ends).
                let oldest = inner
                    .throttles
                    .iter()
                    .filter(|(_, a)| a.locked_until_ms <= now)
                    .min_by_key(|(_, a)| a.last_ms)
                    .map(|(k, _)| k.clone());
                match oldest {
                    Some(oldest) => {
                        inner.throttles.remove(&oldest);
                    }
                    None => return None,
                }
            }
            let entry = inner.throttles.entry(key).or_insert(LoginFailures {
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
        });
        LoginFailure {
            request_ended,
            account_locked_ms,
        }
    }

    /// Forgets the wrong passwords of an account from `client` after a successful login there.
    pub fn login_succeeded(&self, account: &str, client: &str, now: i64) {
        self.lock(now)
            .throttles
            .remove(&(account.to_ascii_lowercase(), client.to_owned()));
    }

    /// Starts a login session for the user; returns the cookie value.
    pub fn start_session(&self, user_email: &str, now: i64) -> String {
        let id = random_token();
        self.lock(now).sessions.insert(
            id.clone(),
            SessionEntry {
                user_email: user_email.to_owned(),
                auth_time: now.div_euclid(1000),
                expires_ms: now + SESSION_LIFETIME_MS,
            },
        );
        id
    }

    /// The user email and login time (seconds) of a live session.
    pub fn session(&self, id: &str, now: i64) -> Option<(String, i64)> {
        self.lock(now)
            .sessions
            .get(id)
            .map(|s| (s.user_email.clone(), s.auth_time))
    }

    /// Issues a single-use authorisation code for the grant.
    pub fn issue_code(&self, grant: Grant, code_challenge: Option<String>, now: i64) -> String {
        let code = random_token();
        self.lock(now).codes.insert(
            code.clone(),
            CodeEntry {
                grant,
                code_challenge,
                expires_ms: now + CODE_LIFETIME_MS,
                used: false,
                chain: None,
            },
        );
        code
    }

    /// Redeems a code: checks client, redirect_uri and PKCE verifier, then issues tokens.
    ///
    /// A second use of a code by its own client fails and revokes the tokens issued for its
    /// first use; another client's code is refused and changes nothing, with the answer an
    /// unknown code gets (a client learns nothing about codes that are not its own).
    /// The error is the `error_description` of an `invalid_grant` answer.
    pub fn exchange_code(
        &self,
        code: &str,
        client_id: &str,
        redirect_uri: &str,
        code_verifier: Option<&str>,
        now: i64,
    ) -> Result<(Grant, IssuedTokens), &'static str> {
        let mut inner = self.lock(now);
        // The client comes first: another client's code, used or not, changes nothing and is
        // answered as an unknown one.
        let entry = inner
            .codes
            .get_mut(code)
            .filter(|c| c.grant.client_id == client_id)
            .ok_or(UNKNOWN_CODE)?;
        if entry.used {
            let chain = entry.chain.clone();
            if let Some(chain) = chain {
                inner.revoke_chain(&chain);
            }
            return Err("the authorization code has already been used");
        }
        if entry.grant.redirect_uri != redirect_uri {
            return Err("redirect_uri differs from the one of the authorization request");
        }
        match (&entry.code_challenge, code_verifier) {
            (Some(challenge), Some(verifier)) => {
                if !pkce_matches(verifier, challenge) {
                    return Err("code_verifier does not match the code_challenge");
                }
            }
            (Some(_), None) => return Err("code_verifier is required for this code"),
            (None, Some(_)) => {
                return Err(
                    "code_verifier sent but the authorization request had no code_challenge",
                )
            }
            (None, None) => {}
        }
        let chain = random_token();
        entry.used = true;
        entry.chain = Some(chain.clone());
        let grant = entry.grant.clone();
        let tokens = inner.issue(&grant, &grant.scopes, &chain, now);
        Ok((grant, tokens))
    }

    /// How many refresh tokens (live and used) and access tokens the store holds.
    pub fn token_counts(&self, now: i64) -> (usize, usize) {
        let inner = self.lock(now);
        (inner.refresh.len(), inner.access.len())
    }

    /// Rotates a refresh token: the presented one stops working and a new pair is issued.
    ///
    /// `scope` (RFC 6749 §6) narrows the new access token to those of the granted scopes;
    /// absent, it has the grant's. A scope not granted is refused ([`RefreshRefusal::Scope`])
    /// and the token stays usable. The new refresh token keeps the whole grant. The returned
    /// grant carries the access token's scopes.
    ///
    /// Presenting a refresh token that was already used revokes its whole chain (every
    /// refresh and access token descending from the same code); a chain remembers its last
    /// [`MAX_USED_REFRESH_TOKENS_PER_CHAIN`] used tokens. Another client's refresh token
    /// changes nothing and is answered as an unknown one, so that a client learns nothing
    /// about tokens that are not its own.
    pub fn refresh(
        &self,
        refresh_token: &str,
        client_id: &str,
        scope: Option<&[&str]>,
        now: i64,
    ) -> Result<(Grant, IssuedTokens), RefreshRefusal> {
        let mut inner = self.lock(now);
        let entry = inner
            .refresh
            .get_mut(refresh_token)
            .filter(|r| r.grant.client_id == client_id)
            .ok_or(RefreshRefusal::Grant(UNKNOWN_REFRESH_TOKEN))?;
        if entry.used {
            let chain = entry.chain.clone();
            inner.revoke_chain(&chain);
            return Err(RefreshRefusal::Grant(
                "the refresh token has already been used; its whole chain is revoked",
            ));
        }
        let access_scopes: Vec<String> = match scope {
            None => entry.grant.scopes.clone(),
            Some(asked) => {
                if asked.iter().any(|s| !entry.grant.has_scope(s)) {
                    return Err(RefreshRefusal::Scope(
                        "the scope asks for more than the refresh token was granted",
                    ));
                }
                // In the grant's order.
                entry
                    .grant
                    .scopes
                    .iter()
                    .filter(|s| asked.contains(&s.as_str()))
                    .cloned()
                    .collect()
            }
        };
        entry.used = true;
        let grant = entry.grant.clone();
        let chain = entry.chain.clone();
        let tokens = inner.issue(&grant, &access_scopes, &chain, now);
        inner.forget_used(&chain);
        let answered = Grant {
            scopes: access_scopes,
            ..grant
        };
        Ok((answered, tokens))
    }

    /// Who a live access token speaks for.
    pub fn access(&self, access_token: &str, now: i64) -> Option<AccessInfo> {
        self.lock(now)
            .access
            .get(access_token)
            .map(|a| a.info.clone())
    }

    /// Revokes a token of `client_id` (RFC 7009): a refresh token ends its whole chain (every
    /// refresh and access token descending from the same code), an access token ends itself.
    /// `hint` (`refresh_token` or `access_token`) only orders the search. An unknown token, or
    /// one issued to another client, changes nothing. Returns whether something was revoked.
    pub fn revoke(&self, token: &str, client_id: &str, hint: Option<&str>, now: i64) -> bool {
        let mut inner = self.lock(now);
        let refresh_chain = |inner: &Inner| {
            inner
                .refresh
                .get(token)
                .filter(|r| r.grant.client_id == client_id)
                .map(|r| r.chain.clone())
        };
        let access_owned = |inner: &Inner| {
            inner
                .access
                .get(token)
                .is_some_and(|a| a.info.client_id == client_id)
        };
        let access_first = hint == Some("access_token");
        if access_first && access_owned(&inner) {
            inner.access.remove(token);
            return true;
        }
        if let Some(chain) = refresh_chain(&inner) {
            inner.revoke_chain(&chain);
            return true;
        }
        if !access_first && access_owned(&inner) {
            inner.access.remove(token);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(n: usize) -> Grant {
        Grant {
            client_id: "demo-app".into(),
            redirect_uri: "http://127.0.0.1:8080/".into(),
            user_email: format!("user{n}@example.org"),
            scopes: vec!["openid".into(), "profile".into(), "offline_access".into()],
            nonce: "n".into(),
            auth_time: 0,
        }
    }

    /// Sign-ins beyond the cap revoke the least recently refreshed chain: the store never
    /// holds more than [`MAX_TOKEN_CHAINS`] sessions, and a session in use is not the one
    /// revoked.
    #[test]
    fn the_chains_are_capped_and_the_least_recently_refreshed_goes_first() {
        let store = GrantStore::default();
        let now = 1_000_000;
        let mut first = None;
        let mut kept = None;
        for n in 0..MAX_TOKEN_CHAINS + 50 {
            let code = store.issue_code(grant(n), None, now);
            let (_, tokens) = store
                .exchange_code(&code, "demo-app", "http://127.0.0.1:8080/", None, now)
                .expect("exchange");
            let rt = tokens.refresh_token.expect("offline_access");
            match n {
                0 => first = Some(rt),
                // The second session is refreshed late: it is the most recent, then.
                1 => kept = Some(rt),
                n if n == MAX_TOKEN_CHAINS - 10 => {
                    let (_, fresh) = store
                        .refresh(kept.as_deref().expect("kept"), "demo-app", None, now)
                        .expect("refresh");
                    kept = fresh.refresh_token;
                }
                _ => {}
            }
        }
        assert_eq!(
            store.inner.lock().expect("lock").chains.len(),
            MAX_TOKEN_CHAINS
        );
        let (refresh_tokens, access_tokens) = store.token_counts(now);
        assert!(refresh_tokens <= MAX_TOKEN_CHAINS + 1, "{refresh_tokens}");
        assert!(access_tokens <= MAX_TOKEN_CHAINS + 1, "{access_tokens}");
        assert_eq!(
            store
                .refresh(first.as_deref().expect("first"), "demo-app", None, now)
                .err(),
            Some(RefreshRefusal::Grant(UNKNOWN_REFRESH_TOKEN)),
            "the oldest session was revoked"
        );
        assert!(store
            .refresh(kept.as_deref().expect("kept"), "demo-app", None, now)
            .is_ok());
    }
}
