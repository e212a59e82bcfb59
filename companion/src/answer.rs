//! The token answer the page receives (core's [`TokenAnswer`]: never the refresh token,
//! never the secret).

use crate::oidc::TokenResponse;
use fundraising_core::companion::{Profile, TokenAnswer};
use std::time::{SystemTime, UNIX_EPOCH};

/// Lifetime assumed when the identity server does not state `expires_in` (the spec's value).
const DEFAULT_EXPIRES_IN: u64 = 3600;

/// The answer for a token endpoint response; `scope` falls back to `known_scope`.
/// `expiresAt` is in milliseconds since the Unix epoch (`new Date(expiresAt)` in JavaScript).
/// In BFF mode (`bff`) the answer holds no access token: it stays in the session cookie.
pub fn token_answer(
    tokens: &TokenResponse,
    profile: Profile,
    known_scope: Option<String>,
    bff: bool,
) -> TokenAnswer {
    let expires_in = tokens.expires_in.unwrap_or(DEFAULT_EXPIRES_IN);
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    TokenAnswer {
        access_token: (!bff).then(|| tokens.access_token.expose().to_owned()),
        token_type: "Bearer".to_owned(),
        expires_in,
        expires_at: now_ms + (expires_in as i64) * 1000,
        scope: tokens.scope.clone().or(known_scope),
        profile,
    }
}
