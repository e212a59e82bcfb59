//! The redirect flow's pending sign-in, kept in `sessionStorage` across the navigation.
//! Abandoned ones (older than [`MAX_AGE_MS`]) are removed the next time the package runs.

use fundraising_core::shape::Record;
use serde::Serialize;
use web_sys::Storage;

use super::SignInRequest;
use crate::convert::{json_text, parse_json, read_js};
use crate::time::now_ms;
use crate::Error;

/// Storage key prefix; the state follows.
const KEY_PREFIX: &str = "fundraising-client:signin:";
/// A transaction older than this is refused as expired, and removed.
pub(crate) const MAX_AGE_MS: f64 = 10.0 * 60.0 * 1000.0;

/// What the redirect flow needs back on the home page.
#[derive(Serialize, Record)]
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
        storage()?
            .set_item(&[KEY_PREFIX, &self.state].concat(), &json_text(self))
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
        read_js(parse_json(text).ok()?).ok()
    }

    /// True when it is older than [`MAX_AGE_MS`].
    pub(crate) fn expired(&self) -> bool {
        now_ms() - self.created_at > MAX_AGE_MS
    }

    /// Removes every transaction of this tab that expired (or cannot be read), so a PKCE
    /// verifier of an abandoned sign-in is not kept for the life of the tab. Returns how many.
    pub(crate) fn remove_expired() -> u32 {
        let Ok(storage) = storage() else {
            return 0;
        };
        let keys: Vec<String> = (0..storage.length().unwrap_or(0))
            .filter_map(|i| storage.key(i).ok().flatten())
            .filter(|key| key.starts_with(KEY_PREFIX))
            .collect();
        let mut removed = 0;
        for key in keys {
            let stale = storage
                .get_item(&key)
                .ok()
                .flatten()
                .and_then(|text| Self::from_json(&text))
                .is_none_or(|t| t.expired());
            if stale && storage.remove_item(&key).is_ok() {
                removed += 1;
            }
        }
        removed
    }
}
