//! What a user granted an application, and the random values and checks the stores share.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use fundraising_core::pkce::{challenge_s256, CodeVerifier};
use rand::RngCore;

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

    /// The user as the stores key them: the email in lower case.
    pub fn user_key(&self) -> String {
        self.user_email.to_ascii_lowercase()
    }
}
