//! The options objects of the JS API, read by serde-wasm-bindgen; their TypeScript
//! declarations are derived from these types.

use fundraising_core::shape::{Record, TypeScript};
use serde::Deserializer;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use crate::convert::from_js;
use crate::Error;

/// Options of `new FundraisingClient(options)`.
#[derive(Debug, Clone, Record, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub struct ClientOptions {
    /// The application id (the `{appId}` segment of resource paths, `client_id` of sign-in).
    pub app_id: String,
    /// The service's base address for resource calls (`{base_url}`).
    pub base_url: String,
    /// The identity server's address (`{auth_url}`); needed to sign in.
    pub auth_url: Option<String>,
    /// The application's registered home page, where sign-in returns; needed to sign in.
    pub redirect_uri: Option<String>,
    /// The companion's address, which redeems codes and refreshes tokens; needed to sign in.
    pub companion_url: Option<String>,
    /// Scopes to ask for; `openid` and `profile` are always added.
    pub scopes: Option<Vec<String>>,
    /// Time limit of each request in milliseconds (default 10000).
    pub timeout_ms: Option<f64>,
    /// The companion runs in BFF mode: resource calls go through it (`{companionUrl}/api/...`),
    /// and the access token never reaches JavaScript.
    pub bff: Option<bool>,
}

/// The last argument of every call.
#[derive(Debug, Clone, Default, Record, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub struct CallOptions {
    /// Aborts the call; it then rejects with code `aborted`.
    #[serde(default, deserialize_with = "signal")]
    pub signal: Option<AbortSignal>,
}

/// Options of `getEventPages`.
#[derive(Debug, Clone, Default, Record, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub struct PageOptions {
    /// Page number, from 1 (the service's default when left out).
    pub page: Option<f64>,
    /// Results per page, 1 to 100 (the service's default when left out).
    pub page_size: Option<f64>,
    /// Aborts the call; it then rejects with code `aborted`.
    #[serde(default, deserialize_with = "signal")]
    pub signal: Option<AbortSignal>,
}

/// Options of `eventPages`.
#[derive(Debug, Clone, Default, Record, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub struct PagesOptions {
    /// Results per request, 1 to 100 (default 100).
    pub page_size: Option<f64>,
    /// Aborts the iteration; the pending `next()` then rejects with code `aborted`.
    #[serde(default, deserialize_with = "signal")]
    pub signal: Option<AbortSignal>,
}

/// Options of `signInWithPopup` and `signInWithRedirect`.
#[derive(Debug, Clone, Default, Record, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub struct SignInOptions {
    /// Scopes for this sign-in instead of the client's.
    pub scopes: Option<Vec<String>>,
    /// OpenID `prompt`, e.g. `login` or `consent`.
    pub prompt: Option<String>,
    /// OpenID `login_hint`: the user's e-mail address, to prefill the form.
    pub login_hint: Option<String>,
    /// Where the redirect flow returns to after sign-in (a path of this site; default: the current page).
    pub return_path: Option<String>,
    /// Pop-up only: how long to wait for the user, in milliseconds (default 300000).
    pub timeout_ms: Option<f64>,
    /// Aborts the sign-in; it then rejects with code `aborted`.
    #[serde(default, deserialize_with = "signal")]
    pub signal: Option<AbortSignal>,
}

/// An `AbortSignal` member, kept as the JS object it is (`serde_wasm_bindgen::preserve`).
pub(crate) fn signal<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<AbortSignal>, D::Error> {
    let value: JsValue = serde_wasm_bindgen::preserve::deserialize(deserializer)?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_into::<AbortSignal>()
        .map(Some)
        .map_err(|_| serde::de::Error::custom("signal: expected an AbortSignal"))
}

/// Milliseconds as a positive whole `u32` (at most `u32::MAX`); `invalid_argument` otherwise.
fn milliseconds(value: Option<f64>, name: &str, zero_allowed: bool) -> Result<Option<u32>, Error> {
    value
        .map(|ms| {
            if ms.is_finite() && (ms > 0.0 || (zero_allowed && ms == 0.0)) {
                Ok(ms.min(f64::from(u32::MAX)) as u32)
            } else {
                Err(Error::invalid(name, "expected a positive number"))
            }
        })
        .transpose()
}

/// Reads an optional options object (`undefined` and `null` are "no options").
pub(crate) fn read<T: DeserializeOwnedDefault>(value: Option<JsValue>) -> Result<T, Error> {
    match value {
        Some(value) if !value.is_undefined() && !value.is_null() => {
            if !value.is_object() {
                return Err(Error::invalid("options", "expected an object"));
            }
            from_js(value, "options")
        }
        _ => Ok(T::default()),
    }
}

/// Options types that may be left out.
pub(crate) trait DeserializeOwnedDefault: serde::de::DeserializeOwned + Default {}
impl<T: serde::de::DeserializeOwned + Default> DeserializeOwnedDefault for T {}

impl ClientOptions {
    /// Reads the constructor's options object.
    pub fn from_js(value: JsValue) -> Result<Self, Error> {
        if !value.is_object() {
            return Err(Error::invalid("options", "expected an object"));
        }
        from_js(value, "options")
    }

    /// The request time limit, checked.
    pub(crate) fn timeout(&self) -> Result<Option<u32>, Error> {
        milliseconds(self.timeout_ms, "timeoutMs", false)
    }
}

impl SignInOptions {
    /// How long the pop-up may take, checked.
    pub(crate) fn timeout(&self) -> Result<Option<u32>, Error> {
        milliseconds(self.timeout_ms, "timeoutMs", true)
    }
}
