//! Authorisation codes: single-use, short-lived, bound to the client, the redirect_uri and
//! the PKCE challenge. Redeeming one starts a token chain.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use super::grant::{pkce_matches, random_token, Grant};
use super::tokens::{IssuedTokens, Tokens};

/// How long an authorisation code can be redeemed, in milliseconds.
pub const CODE_LIFETIME_MS: i64 = 60_000;
/// The `error_description` of an unknown, expired or foreign authorisation code.
pub const UNKNOWN_CODE: &str = "the authorization code is unknown or has expired";

#[derive(Debug)]
struct Entry {
    grant: Grant,
    code_challenge: Option<String>,
    expires_ms: i64,
    /// The chain its first use started; a second use revokes it.
    chain: Option<String>,
}

/// The codes issued and not expired yet.
#[derive(Default)]
pub struct Codes {
    inner: Mutex<HashMap<String, Entry>>,
}

impl std::fmt::Debug for Codes {
    /// Counts only: never a token, code or name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Codes")
            .field("codes", &self.inner.lock().map_or(0, |i| i.len()))
            .finish()
    }
}

impl Codes {
    fn lock(&self, now: i64) -> MutexGuard<'_, HashMap<String, Entry>> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.retain(|_, c| c.expires_ms > now);
        inner
    }

    /// Issues a single-use authorisation code for the grant.
    pub fn issue(&self, grant: Grant, code_challenge: Option<String>, now: i64) -> String {
        let code = random_token();
        self.lock(now).insert(
            code.clone(),
            Entry {
                grant,
                code_challenge,
                expires_ms: now + CODE_LIFETIME_MS,
                chain: None,
            },
        );
        code
    }

    /// Redeems a code: checks client, redirect_uri and PKCE verifier, then starts a chain in
    /// `tokens`.
    ///
    /// A second use of a code by its own client fails and revokes the tokens issued for its
    /// first use; another client's code is refused and changes nothing, with the answer an
    /// unknown code gets (a client learns nothing about codes that are not its own).
    /// The error is the `error_description` of an `invalid_grant` answer.
    pub fn redeem(
        &self,
        code: &str,
        client_id: &str,
        redirect_uri: &str,
        code_verifier: Option<&str>,
        tokens: &Tokens,
        now: i64,
    ) -> Result<(Grant, IssuedTokens), &'static str> {
        // The code stays locked while its chain starts, so a replay meanwhile waits and then
        // finds the chain to revoke (locks are always taken codes first, then tokens).
        let mut inner = self.lock(now);
        // The client comes first: another client's code, used or not, changes nothing and is
        // answered as an unknown one.
        let entry = inner
            .get_mut(code)
            .filter(|c| c.grant.client_id == client_id)
            .ok_or(UNKNOWN_CODE)?;
        if let Some(chain) = &entry.chain {
            tokens.revoke_chain(chain, now);
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
        let (chain, issued) = tokens.start_chain(&entry.grant, now);
        entry.chain = Some(chain);
        Ok((entry.grant.clone(), issued))
    }
}
