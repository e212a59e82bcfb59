//! The signed-in session as JS sees it.

use std::fmt;

use fundraising_core::ServiceDate;
use js_sys::Object;
use wasm_bindgen::JsValue;

use crate::decode::date;
use crate::js_object::set;

/// The current sign-in: a short-lived access token (the refresh token stays in the
/// companion's HttpOnly cookie) and who signed in.
#[derive(Clone)]
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
#[derive(Debug, Clone)]
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

fn text_or_null(value: &Option<String>) -> JsValue {
    value.as_deref().map_or(JsValue::NULL, JsValue::from_str)
}

impl Session {
    /// The session as JS sees it: `{accessToken, expiresAt: Date, scope, profile: {sub, name, email}}`.
    pub fn to_js(&self) -> JsValue {
        let profile = Object::new();
        set(&profile, "sub", &self.profile.sub.as_str().into());
        set(&profile, "name", &text_or_null(&self.profile.name));
        set(&profile, "email", &text_or_null(&self.profile.email));
        let session = Object::new();
        set(&session, "accessToken", &self.access_token.as_str().into());
        set(&session, "expiresAt", &date(self.expires_at));
        set(&session, "scope", &text_or_null(&self.scope));
        set(&session, "profile", &profile);
        session.into()
    }
}
