//! The signed-in session as JS sees it.

use std::fmt;

use fundraising_core::companion::{Profile, TokenAnswer};
use fundraising_core::shape::TypeScript;
use fundraising_core::ServiceDate;
use serde::Serialize;
use wasm_bindgen::JsValue;

use crate::convert;

/// The current sign-in: who signed in and until when, and (in token-mediating mode) the
/// short-lived access token. The refresh token stays in the companion's HttpOnly cookie; in
/// BFF mode the access token stays there too and `accessToken` is `null`.
#[derive(Clone, Serialize, TypeScript)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// The bearer token for resource calls; `null` in BFF mode.
    pub access_token: Option<String>,
    /// When the access token expires.
    #[serde(serialize_with = "convert::date")]
    pub expires_at: ServiceDate,
    /// The scopes granted, space-separated, when the server said.
    pub scope: Option<String>,
    /// Who signed in.
    pub profile: Profile,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field(
                "access_token",
                &self.access_token.as_ref().map(|_| "[redacted]"),
            )
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .field("profile", &self.profile)
            .finish()
    }
}

impl From<TokenAnswer> for Session {
    fn from(answer: TokenAnswer) -> Self {
        Session {
            access_token: answer.access_token,
            expires_at: ServiceDate::from_millis(answer.expires_at),
            scope: answer.scope,
            profile: answer.profile,
        }
    }
}

impl Session {
    /// The session as JS sees it: `{accessToken, expiresAt: Date, scope, profile: {sub, name, email}}`.
    pub fn to_js(&self) -> JsValue {
        convert::to_js(self)
    }
}
