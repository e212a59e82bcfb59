//! The token answer the page receives (never the refresh token, never the secret).

use crate::oidc::{Profile, TokenResponse};
use crate::secret::Secret;
use serde::Serialize;
use std::time::{SystemTime, UNIX_EPOCH};

/// Lifetime assumed when the identity server does not state `expires_in` (the spec's value).
const DEFAULT_EXPIRES_IN: u64 = 3600;

/// `{accessToken, tokenType, expiresIn, expiresAt, scope, profile}`. `expiresAt` is in
/// milliseconds since the Unix epoch (`new Date(expiresAt)` in JavaScript).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenAnswer {
    /// The short-lived access token (Bearer).
    pub access_token: Secret,
    /// Always `Bearer`.
    pub token_type: String,
    /// Lifetime in seconds.
    pub expires_in: u64,
    /// Expiry instant, milliseconds since the Unix epoch.
    pub expires_at: i64,
    /// Granted scope (space-separated) when known, else `null`.
    pub scope: Option<String>,
    /// Who signed in.
    pub profile: Profile,
}

impl TokenAnswer {
    /// The answer for a token endpoint response; `scope` falls back to `known_scope`.
    pub fn new(tokens: &TokenResponse, profile: Profile, known_scope: Option<String>) -> Self {
        let expires_in = tokens.expires_in.unwrap_or(DEFAULT_EXPIRES_IN);
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        Self {
            access_token: tokens.access_token.clone(),
            token_type: "Bearer".to_owned(),
            expires_in,
            expires_at: now_ms + (expires_in as i64) * 1000,
            scope: tokens.scope.clone().or(known_scope),
            profile,
        }
    }
}
