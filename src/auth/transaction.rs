//! The redirect flow's pending sign-in, kept in `sessionStorage` across the navigation.

use js_sys::Object;
use web_sys::Storage;

use super::SignInRequest;
use crate::js_object::{number, parse_json, set, string, to_json};
use crate::timer::now_ms;
use crate::Error;

/// Storage key prefix; the state follows.
const KEY_PREFIX: &str = "fundraising-client:signin:";
/// A transaction older than this is refused as expired.
pub(crate) const MAX_AGE_MS: f64 = 10.0 * 60.0 * 1000.0;

/// What the redirect flow needs back on the home page.
pub(crate) struct Transaction {
    pub state: String,
    pub nonce: String,
    pub code_verifier: String,
    pub redirect_uri: String,
    pub return_path: Option<String>,
    pub created_at: f64,
}

fn storage() -> Result<Storage, Error> {
    web_sys::window()
        .and_then(|w| w.session_storage().ok().flatten())
        .ok_or(Error::Unsupported(
            "sign-in needs a browser window with sessionStorage",
        ))
}

impl Transaction {
    pub(crate) fn new(request: &SignInRequest, return_path: Option<String>) -> Self {
        Transaction {
            state: request.state.clone(),
            nonce: request.nonce.clone(),
            code_verifier: request.code_verifier.clone(),
            redirect_uri: request.redirect_uri.clone(),
            return_path,
            created_at: now_ms(),
        }
    }

    /// Stores it under its state.
    pub(crate) fn save(&self) -> Result<(), Error> {
        let object = Object::new();
        set(&object, "state", &self.state.as_str().into());
        set(&object, "nonce", &self.nonce.as_str().into());
        set(&object, "codeVerifier", &self.code_verifier.as_str().into());
        set(&object, "redirectUri", &self.redirect_uri.as_str().into());
        if let Some(path) = &self.return_path {
            set(&object, "returnPath", &path.as_str().into());
        }
        set(&object, "createdAt", &self.created_at.into());
        let text = to_json(&object);
        storage()?
            .set_item(&[KEY_PREFIX, &self.state].concat(), &text)
            .map_err(|_| Error::Unsupported("sessionStorage refused the sign-in transaction"))
    }

    /// Removes and returns the transaction of `state` (so it can be used once), if any.
    pub(crate) fn take(state: &str) -> Result<Option<Self>, Error> {
        let storage = storage()?;
        let key = [KEY_PREFIX, state].concat();
        let text = storage.get_item(&key).ok().flatten();
        let _ = storage.remove_item(&key);
        Ok(text.and_then(|t| Self::from_json(&t)))
    }

    fn from_json(text: &str) -> Option<Self> {
        let value = parse_json(text).ok()?;
        let text = |name| string(&value, name).ok().flatten();
        Some(Transaction {
            state: text("state")?,
            nonce: text("nonce")?,
            code_verifier: text("codeVerifier")?,
            redirect_uri: text("redirectUri")?,
            return_path: text("returnPath"),
            created_at: number(&value, "createdAt").ok().flatten()?,
        })
    }

    /// True when it is older than [`MAX_AGE_MS`].
    pub(crate) fn expired(&self) -> bool {
        now_ms() - self.created_at > MAX_AGE_MS
    }
}
