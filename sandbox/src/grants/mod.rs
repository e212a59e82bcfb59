//! In-memory state of the identity server, one store per concept, each under its own lock:
//! pending authorisation requests, login sessions,
//! authorisation codes, and the tokens with their refresh chains.

mod codes;
mod grant;
mod requests;
mod sessions;
mod tokens;

pub use codes::{Codes, CODE_LIFETIME_MS};
pub use grant::{random_token, Grant};
pub use requests::{
    AuthorizationRequest, Requests, MAX_LOGIN_FAILURES_PER_REQUEST, MAX_PENDING_REQUESTS,
};
pub use sessions::{Sessions, MAX_LOGIN_SESSIONS, SESSION_LIFETIME_MS};
pub use tokens::{
    AccessInfo, IssuedTokens, RefreshRefusal, Tokens, ACCESS_TOKEN_LIFETIME_SECS,
    MAX_ACCESS_TOKENS_PER_CHAIN, MAX_CHAINS_PER_USER, MAX_USED_REFRESH_TOKENS_PER_CHAIN,
    REFRESH_TOKEN_LIFETIME_MS,
};

/// Everything the identity server hands out or keeps between requests. `Debug` shows counts
/// only, never a token.
#[derive(Debug, Default)]
pub struct GrantStore {
    requests: Requests,
    sessions: Sessions,
    codes: Codes,
    tokens: Tokens,
}

impl GrantStore {
    /// Authorisation requests waiting for login and consent.
    pub fn requests(&self) -> &Requests {
        &self.requests
    }

    /// Login sessions of the identity server's pages.
    pub fn sessions(&self) -> &Sessions {
        &self.sessions
    }

    /// Authorisation codes.
    pub fn codes(&self) -> &Codes {
        &self.codes
    }

    /// Access tokens and refresh chains.
    pub fn tokens(&self) -> &Tokens {
        &self.tokens
    }

    /// Redeems a code (see [`Codes::redeem`]), starting its chain in [`GrantStore::tokens`].
    pub fn exchange_code(
        &self,
        code: &str,
        client_id: &str,
        redirect_uri: &str,
        code_verifier: Option<&str>,
        now: i64,
    ) -> Result<(Grant, IssuedTokens), &'static str> {
        self.codes.redeem(
            code,
            client_id,
            redirect_uri,
            code_verifier,
            &self.tokens,
            now,
        )
    }
}
