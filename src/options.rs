//! The options objects of the JS API: one record of every member any of them holds, read by
//! serde-wasm-bindgen through one `Deserialize`, and a typed view of it per call, whose
//! TypeScript declaration is derived from the type.

use fundraising_core::shape::{Record, TypeScript};
use js_sys::Function;
use serde::Deserializer;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use crate::convert::from_js;
use crate::donation::WaitOptions;
use crate::Error;

/// Options of `new FundraisingClient(options)`.
#[derive(Debug, Clone, TypeScript)]
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
#[derive(Debug, Clone, Default, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub struct CallOptions {
    /// Aborts the call; it then rejects with code `aborted`.
    pub signal: Option<AbortSignal>,
}

/// Options of `getEventPages`.
#[derive(Debug, Clone, Default, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub struct PageOptions {
    /// Page number, from 1 (the service's default when left out).
    pub page: Option<f64>,
    /// Results per page, 1 to 100 (the service's default when left out).
    pub page_size: Option<f64>,
    /// Aborts the call; it then rejects with code `aborted`.
    pub signal: Option<AbortSignal>,
}

/// Options of `eventPages`.
#[derive(Debug, Clone, Default, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub struct PagesOptions {
    /// Results per request, 1 to 100 (default 100).
    pub page_size: Option<f64>,
    /// Aborts the iteration; the pending `next()` then rejects with code `aborted`.
    pub signal: Option<AbortSignal>,
}

/// Options of `signInWithPopup` and `signInWithRedirect`.
#[derive(Debug, Clone, Default, TypeScript)]
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
    pub signal: Option<AbortSignal>,
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

/// Every member an options object of the API may hold. One record (one `Deserialize`, one
/// visitor) serves every call instead of one per options type: each call takes its view of it
/// (`From<Given>`), and a member of the wrong type is refused whichever call it is given to.
#[derive(Default, Record)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Given {
    app_id: Option<String>,
    base_url: Option<String>,
    auth_url: Option<String>,
    redirect_uri: Option<String>,
    companion_url: Option<String>,
    scopes: Option<Vec<String>>,
    timeout_ms: Option<f64>,
    bff: Option<bool>,
    page: Option<f64>,
    page_size: Option<f64>,
    prompt: Option<String>,
    login_hint: Option<String>,
    return_path: Option<String>,
    #[serde(default, deserialize_with = "signal")]
    signal: Option<AbortSignal>,
    #[serde(default, deserialize_with = "callback")]
    on_status: Option<Function>,
}

/// A member kept as the JS object it is (`serde_wasm_bindgen::preserve`), if it is a `T`.
fn preserved<'de, D: Deserializer<'de>, T: JsCast>(
    deserializer: D,
    expected: &'static str,
) -> Result<Option<T>, D::Error> {
    let value: JsValue = serde_wasm_bindgen::preserve::deserialize(deserializer)?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_into::<T>()
        .map(Some)
        .map_err(|_| serde::de::Error::custom(expected))
}

fn signal<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<AbortSignal>, D::Error> {
    preserved(deserializer, "signal: expected an AbortSignal")
}

fn callback<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Function>, D::Error> {
    preserved(deserializer, "onStatus: expected a function")
}

/// Reads an options object; `undefined` and `null` are "no options".
fn given(value: Option<JsValue>) -> Result<Given, Error> {
    match value {
        Some(value) if !value.is_undefined() && !value.is_null() => {
            if !value.is_object() {
                return Err(Error::invalid("options", "expected an object"));
            }
            from_js(value, "options")
        }
        _ => Ok(Given::default()),
    }
}

/// Reads a call's optional options object as its view `T`.
pub(crate) fn read<T: From<Given>>(value: Option<JsValue>) -> Result<T, Error> {
    given(value).map(T::from)
}

impl From<Given> for CallOptions {
    fn from(given: Given) -> Self {
        CallOptions {
            signal: given.signal,
        }
    }
}

impl From<Given> for PageOptions {
    fn from(given: Given) -> Self {
        PageOptions {
            page: given.page,
            page_size: given.page_size,
            signal: given.signal,
        }
    }
}

impl From<Given> for PagesOptions {
    fn from(given: Given) -> Self {
        PagesOptions {
            page_size: given.page_size,
            signal: given.signal,
        }
    }
}

impl From<Given> for SignInOptions {
    fn from(given: Given) -> Self {
        SignInOptions {
            scopes: given.scopes,
            prompt: given.prompt,
            login_hint: given.login_hint,
            return_path: given.return_path,
            timeout_ms: given.timeout_ms,
            signal: given.signal,
        }
    }
}

impl From<Given> for WaitOptions {
    fn from(given: Given) -> Self {
        WaitOptions {
            timeout_ms: given.timeout_ms,
            signal: given.signal,
            on_status: given.on_status,
        }
    }
}

impl ClientOptions {
    /// Reads the constructor's options object.
    pub fn from_js(value: JsValue) -> Result<Self, Error> {
        if !value.is_object() {
            return Err(Error::invalid("options", "expected an object"));
        }
        let given = given(Some(value))?;
        let required = |value: Option<String>, name: &str| {
            value.ok_or_else(|| Error::invalid(name, "is missing"))
        };
        Ok(ClientOptions {
            app_id: required(given.app_id, "appId")?,
            base_url: required(given.base_url, "baseUrl")?,
            auth_url: given.auth_url,
            redirect_uri: given.redirect_uri,
            companion_url: given.companion_url,
            scopes: given.scopes,
            timeout_ms: given.timeout_ms,
            bff: given.bff,
        })
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
