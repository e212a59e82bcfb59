//! In-memory state of the identity server: pending authorisation requests, login sessions,
//! authorisation codes, access tokens and refresh-token chains.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use rand::RngCore;
use sha2::{Digest, Sha256};

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

/// A fresh unguessable token: 32 random bytes, base64url.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Whether `verifier` is a well-formed PKCE verifier whose S256 transform is `challenge`.
pub fn pkce_matches(verifier: &str, challenge: &str) -> bool {
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b));
    well_formed && URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())) == challenge
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
    chain: String,
}

#[derive(Debug)]
struct SessionEntry {
    user_email: String,
    auth_time: i64,
    expires_ms: i64,
}

#[derive(Debug, Default)]
struct Inner {
    requests: HashMap<String, (AuthorizationRequest, i64)>,
    sessions: HashMap<String, SessionEntry>,
    codes: HashMap<String, CodeEntry>,
    access: HashMap<String, AccessEntry>,
    refresh: HashMap<String, RefreshEntry>,
}

impl Inner {
    fn prune(&mut self, now: i64) {
        self.requests.retain(|_, (_, expires)| *expires > now);
        self.sessions.retain(|_, s| s.expires_ms > now);
        self.codes.retain(|_, c| c.expires_ms > now);
        self.access.retain(|_, a| a.info.expires_at_ms > now);
        self.refresh.retain(|_, r| r.expires_ms > now);
    }

    fn revoke_chain(&mut self, chain: &str) {
        self.refresh.retain(|_, r| r.chain != chain);
        self.access.retain(|_, a| a.chain != chain);
    }

    fn issue(&mut self, grant: &Grant, chain: &str, now: i64) -> IssuedTokens {
        let access_token = random_token();
        self.access.insert(
            access_token.clone(),
            AccessEntry {
                info: AccessInfo {
                    client_id: grant.client_id.clone(),
                    user_email: grant.user_email.clone(),
                    scopes: grant.scopes.clone(),
                    expires_at_ms: now + ACCESS_TOKEN_LIFETIME_SECS * 1000,
                },
                chain: chain.to_owned(),
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
        IssuedTokens {
            access_token,
            refresh_token,
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
    pub fn start_request(&self, request: AuthorizationRequest, now: i64) -> String {
        let id = random_token();
        self.lock(now)
            .requests
            .insert(id.clone(), (request, now + REQUEST_LIFETIME_MS));
        id
    }

    /// The pending request with this id.
    pub fn request(&self, id: &str, now: i64) -> Option<AuthorizationRequest> {
        self.lock(now).requests.get(id).map(|(r, _)| r.clone())
    }

    /// Removes and returns the pending request (after the user's decision).
    pub fn finish_request(&self, id: &str, now: i64) -> Option<AuthorizationRequest> {
        self.lock(now).requests.remove(id).map(|(r, _)| r)
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
    /// A second use of a code fails and revokes the tokens issued for its first use.
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
        let entry = inner
            .codes
            .get_mut(code)
            .ok_or("the authorization code is unknown or has expired")?;
        if entry.used {
            let chain = entry.chain.clone();
            if let Some(chain) = chain {
                inner.revoke_chain(&chain);
            }
            return Err("the authorization code has already been used");
        }
        if entry.grant.client_id != client_id {
            return Err("the authorization code was issued to another client");
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
        let tokens = inner.issue(&grant, &chain, now);
        Ok((grant, tokens))
    }

    /// Rotates a refresh token: the presented one stops working and a new pair is issued.
    ///
    /// Presenting a refresh token that was already used revokes its whole chain (every
    /// refresh and access token descending from the same code). The error is the
    /// `error_description` of an `invalid_grant` answer.
    pub fn refresh(
        &self,
        refresh_token: &str,
        client_id: &str,
        now: i64,
    ) -> Result<(Grant, IssuedTokens), &'static str> {
        let mut inner = self.lock(now);
        let entry = inner
            .refresh
            .get_mut(refresh_token)
            .ok_or("the refresh token is unknown, expired or revoked")?;
        if entry.grant.client_id != client_id {
            return Err("the refresh token was issued to another client");
        }
        if entry.used {
            let chain = entry.chain.clone();
            inner.revoke_chain(&chain);
            return Err("the refresh token has already been used; its whole chain is revoked");
        }
        entry.used = true;
        let grant = entry.grant.clone();
        let chain = entry.chain.clone();
        let tokens = inner.issue(&grant, &chain, now);
        Ok((grant, tokens))
    }

    /// Who a live access token speaks for.
    pub fn access(&self, access_token: &str, now: i64) -> Option<AccessInfo> {
        self.lock(now)
            .access
            .get(access_token)
            .map(|a| a.info.clone())
    }
}
