//! The redirect flow's pending sign-in, kept in `sessionStorage` across the navigation.

use serde::{Deserialize, Serialize};
use web_sys::Storage;

use super::SignInRequest;
use crate::timer::now_ms;
use crate::Error;

/// Storage key prefix; the state follows.
const KEY_PREFIX: &str = "fundraising-client:signin:";
/// A transaction older than this is refused as expired.
pub(crate) const MAX_AGE_MS: f64 = 10.0 * 60.0 * 1000.0;

/// What the redirect flow needs back on the home page.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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
        let text = serde_json::to_value(self)
            .map_err(|e| Error::Decode(e.to_string()))?
            .to_string();
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
        Ok(text.and_then(|t| fundraising_core::json::decode(&t).ok()))
    }

    /// True when it is older than [`MAX_AGE_MS`].
    pub(crate) fn expired(&self) -> bool {
        now_ms() - self.created_at > MAX_AGE_MS
    }
}
