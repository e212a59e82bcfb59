//! The signed-in session as JS sees it.

use std::fmt;

use fundraising_core::ServiceDate;
use serde::{Deserialize, Serialize};

/// The current sign-in: a short-lived access token (the refresh token stays in the
/// companion's HttpOnly cookie) and who signed in.
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// The bearer token for resource calls.
    pub access_token: String,
    /// When the access token expires.
    pub expires_at: ServiceDate,
    /// The scopes granted, space-separated, when the server said.
    pub scope: Option<String>,
    /// Who signed in.
    pub profile: Profile,
}

/// The signed-in user, from the validated id_token.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// The user's stable identifier.
    pub sub: String,
    /// Display name, when the `profile` scope was granted.
    pub name: Option<String>,
    /// E-mail address, when the `email` scope was granted.
    pub email: Option<String>,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("access_token", &"[redacted]")
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .field("profile", &self.profile)
            .finish()
    }
}
