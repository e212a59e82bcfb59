//! Access tokens and refresh-token chains. A chain is everything that descends from one
//! authorisation code: its access tokens and its rotating refresh tokens. Chains are counted
//! per user, so one user's sign-ins never cost another user a session.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

use super::grant::{random_token, Grant};

/// Lifetime of an access token (and of an id_token), in seconds.
pub const ACCESS_TOKEN_LIFETIME_SECS: i64 = 3600;
/// Lifetime of a refresh token, in milliseconds (30 days).
pub const REFRESH_TOKEN_LIFETIME_MS: i64 = 30 * 24 * 3600 * 1000;
/// Most chains one user holds at once (over every application); a further sign-in of that
/// user revokes that user's least recently refreshed chain. Other users' chains are never
/// touched, so the store holds at most this many chains per configured user.
pub const MAX_CHAINS_PER_USER: usize = 256;
/// Most access tokens live at once in one chain; a further refresh revokes the oldest.
pub const MAX_ACCESS_TOKENS_PER_CHAIN: usize = 16;
/// Most used refresh tokens one chain remembers (for reuse detection); a further refresh
/// forgets the oldest, which is then answered as an unknown token.
pub const MAX_USED_REFRESH_TOKENS_PER_CHAIN: usize = 16;
/// The `error_description` of an unknown, expired, revoked or foreign refresh token.
pub const UNKNOWN_REFRESH_TOKEN: &str = "the refresh token is unknown, expired or revoked";

/// Tokens handed out by one code exchange or refresh.
#[derive(Debug, Clone)]
pub struct IssuedTokens {
    /// The bearer access token.
    pub access_token: String,
    /// Its lifetime, in seconds (`expires_in`).
    pub expires_in: i64,
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

/// Why a refresh was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshRefusal {
    /// `invalid_grant`: an unknown, expired, revoked or used refresh token.
    Grant(&'static str),
    /// `invalid_scope`: a scope the grant does not hold.
    Scope(&'static str),
}

#[derive(Debug)]
struct RefreshEntry {
    grant: Grant,
    chain: String,
    used: bool,
    expires_ms: i64,
}

/// What the store keeps of one chain, so that it stays bounded and is revoked without a scan.
#[derive(Debug, Default)]
struct Chain {
    /// Its user ([`Grant::user_key`]) and application.
    user: String,
    client_id: String,
    /// Its access tokens, oldest first.
    access: VecDeque<String>,
    /// Its refresh tokens, used ones oldest first, then the live one.
    refresh: VecDeque<String>,
    /// Position in its user's order of activity.
    seq: u64,
    /// When its last token expires.
    expires_ms: i64,
}

#[derive(Debug, Default)]
struct Inner {
    access: HashMap<String, AccessInfo>,
    refresh: HashMap<String, RefreshEntry>,
    chains: HashMap<String, Chain>,
    /// Each user's chain ids by last activity, for revoking the least recent beyond
    /// [`MAX_CHAINS_PER_USER`].
    by_user: HashMap<String, BTreeMap<u64, String>>,
    next_seq: u64,
}

impl Inner {
    fn prune(&mut self, now: i64) {
        self.access.retain(|_, a| a.expires_at_ms > now);
        self.refresh.retain(|_, r| r.expires_ms > now);
        let by_user = &mut self.by_user;
        self.chains.retain(|_, c| {
            let live = c.expires_ms > now;
            if !live {
                if let Some(order) = by_user.get_mut(&c.user) {
                    order.remove(&c.seq);
                }
            }
            live
        });
        by_user.retain(|_, order| !order.is_empty());
    }

    fn revoke_chain(&mut self, id: &str) {
        let Some(chain) = self.chains.remove(id) else {
            return;
        };
        if let Some(order) = self.by_user.get_mut(&chain.user) {
            order.remove(&chain.seq);
            if order.is_empty() {
                self.by_user.remove(&chain.user);
            }
        }
        for token in &chain.access {
            self.access.remove(token);
        }
        for token in &chain.refresh {
            self.refresh.remove(token);
        }
    }

    /// Moves the chain to the end of its user's order of activity.
    fn touch(&mut self, id: &str) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let Some(chain) = self.chains.get_mut(id) else {
            return;
        };
        let order = self.by_user.entry(chain.user.clone()).or_default();
        order.remove(&chain.seq);
        order.insert(seq, id.to_owned());
        chain.seq = seq;
    }

    /// Issues an access token for `access_scopes` (the grant's, or fewer on a refresh) and,
    /// with `offline_access` granted, a refresh token for the whole grant, in the chain `id`;
    /// the chain's oldest access token beyond [`MAX_ACCESS_TOKENS_PER_CHAIN`] is revoked, and
    /// its oldest used refresh tokens beyond [`MAX_USED_REFRESH_TOKENS_PER_CHAIN`] forgotten.
    fn issue(
        &mut self,
        grant: &Grant,
        access_scopes: &[String],
        id: &str,
        now: i64,
    ) -> IssuedTokens {
        let access_token = random_token();
        let access_expiry = now + ACCESS_TOKEN_LIFETIME_SECS * 1000;
        self.access.insert(
            access_token.clone(),
            AccessInfo {
                client_id: grant.client_id.clone(),
                user_email: grant.user_email.clone(),
                scopes: access_scopes.to_vec(),
                expires_at_ms: access_expiry,
            },
        );
        let refresh_token = grant.has_scope("offline_access").then(|| {
            let token = random_token();
            self.refresh.insert(
                token.clone(),
                RefreshEntry {
                    grant: grant.clone(),
                    chain: id.to_owned(),
                    used: false,
                    expires_ms: now + REFRESH_TOKEN_LIFETIME_MS,
                },
            );
            token
        });
        self.touch(id);
        let mut dropped = Vec::new();
        if let Some(chain) = self.chains.get_mut(id) {
            chain.access.push_back(access_token.clone());
            while chain.access.len() > MAX_ACCESS_TOKENS_PER_CHAIN {
                dropped.extend(chain.access.pop_front());
            }
            let mut expiry = access_expiry;
            if let Some(token) = &refresh_token {
                chain.refresh.push_back(token.clone());
                expiry = expiry.max(now + REFRESH_TOKEN_LIFETIME_MS);
            }
            chain.expires_ms = chain.expires_ms.max(expiry);
            // The last refresh token is the live one.
            while chain.refresh.len() > MAX_USED_REFRESH_TOKENS_PER_CHAIN + 1 {
                dropped.extend(chain.refresh.pop_front());
            }
        }
        for token in dropped {
            self.access.remove(&token);
            self.refresh.remove(&token);
        }
        IssuedTokens {
            access_token,
            expires_in: ACCESS_TOKEN_LIFETIME_SECS,
            refresh_token,
        }
    }
}

/// Thread-safe store of the tokens the identity server hands out.
#[derive(Default)]
pub struct Tokens {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for Tokens {
    /// Counts only: never a token, code or name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("chains", &self.counts(i64::MIN).2)
            .finish()
    }
}

impl Tokens {
    fn lock(&self, now: i64) -> MutexGuard<'_, Inner> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.prune(now);
        inner
    }

    /// Starts a chain for a redeemed code; returns its id and its first tokens. Beyond
    /// [`MAX_CHAINS_PER_USER`] the user's own least recently refreshed chain is revoked.
    pub fn start_chain(&self, grant: &Grant, now: i64) -> (String, IssuedTokens) {
        let mut inner = self.lock(now);
        let user = grant.user_key();
        while inner.by_user.get(&user).map_or(0, BTreeMap::len) >= MAX_CHAINS_PER_USER {
            let oldest = inner
                .by_user
                .get_mut(&user)
                .and_then(BTreeMap::pop_first)
                .map(|(_, id)| id);
            match oldest {
                Some(id) => inner.revoke_chain(&id),
                None => break,
            }
        }
        let id = random_token();
        inner.chains.insert(
            id.clone(),
            Chain {
                user,
                client_id: grant.client_id.clone(),
                ..Chain::default()
            },
        );
        let issued = inner.issue(grant, &grant.scopes, &id, now);
        (id, issued)
    }

    /// Revokes a chain: every refresh and access token descending from its code.
    pub fn revoke_chain(&self, id: &str, now: i64) {
        self.lock(now).revoke_chain(id);
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
                if asked.is_empty() || asked.iter().any(|s| !entry.grant.has_scope(s)) {
                    return Err(RefreshRefusal::Scope(if asked.is_empty() {
                        "the scope names no scope"
                    } else {
                        "the scope asks for more than the refresh token was granted"
                    }));
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
        let answered = Grant {
            scopes: access_scopes,
            ..grant
        };
        Ok((answered, tokens))
    }

    /// Shortens the life of a live access token to `lifetime_secs` from `now`.
    pub fn shorten(&self, access_token: &str, lifetime_secs: i64, now: i64) {
        if let Some(info) = self.lock(now).access.get_mut(access_token) {
            info.expires_at_ms = info.expires_at_ms.min(now + lifetime_secs * 1000);
        }
    }

    /// Who a live access token speaks for.
    pub fn access(&self, access_token: &str, now: i64) -> Option<AccessInfo> {
        self.lock(now).access.get(access_token).cloned()
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
                .is_some_and(|a| a.client_id == client_id)
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

    /// Revokes every chain of a user (of one application, when given): the user's next
    /// refresh there gets `invalid_grant`, and the access tokens stop working. Returns how
    /// many chains ended.
    pub fn revoke_user(&self, user_email: &str, client_id: Option<&str>, now: i64) -> usize {
        let mut inner = self.lock(now);
        let user = user_email.to_ascii_lowercase();
        let ids: Vec<String> = inner
            .by_user
            .get(&user)
            .into_iter()
            .flat_map(|order| order.values())
            .filter(|id| {
                inner
                    .chains
                    .get(*id)
                    .is_some_and(|c| client_id.is_none_or(|wanted| c.client_id == wanted))
            })
            .cloned()
            .collect();
        for id in &ids {
            inner.revoke_chain(id);
        }
        ids.len()
    }

    /// How many refresh tokens (live and used), access tokens and chains the store holds.
    pub fn counts(&self, now: i64) -> (usize, usize, usize) {
        let inner = self.lock(now);
        (inner.refresh.len(), inner.access.len(), inner.chains.len())
    }
}
