//! The options objects of the JS API: one record of every member any of them holds, read by
//! serde-wasm-bindgen through one `Deserialize`, and a typed view of it per call, whose
//! TypeScript declaration is derived from the view; each view becomes the Rust API's options.

use fundraising_core::shape::{Record, TypeScript};
use js_sys::Function;
use serde::Deserializer;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use crate::convert::from_js;
use crate::options::milliseconds;
use crate::Error;

/// Options of `new FundraisingClient(options)`.
#[allow(dead_code)] // the declaration of the constructor's options; read through `Given`
#[derive(Debug, Clone, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub(crate) struct ClientOptions {
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
pub(crate) struct CallOptions {
    /// Aborts the call; it then rejects with code `aborted`.
    pub signal: Option<AbortSignal>,
}

/// Options of `getEventPages`.
#[derive(Debug, Clone, Default, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub(crate) struct PageOptions {
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
pub(crate) struct PagesOptions {
    /// Results per request, 1 to 100 (default 100).
    pub page_size: Option<f64>,
    /// Aborts the iteration; the pending `next()` then rejects with code `aborted`.
    pub signal: Option<AbortSignal>,
}

/// Options of `signInWithPopup` and `signInWithRedirect`.
#[cfg(feature = "signin")]
#[allow(dead_code)] // the declaration of the sign-in options; read through `Given`
#[derive(Debug, Clone, Default, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub(crate) struct SignInOptions {
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

/// Options of `waitForDonation`.
#[derive(Debug, Clone, Default, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub(crate) struct WaitOptions {
    /// How long to wait for a final status, in milliseconds (default 600000); then the call
    /// rejects with code `timeout`.
    pub timeout_ms: Option<f64>,
    /// Aborts the wait; it then rejects with code `aborted`.
    pub signal: Option<AbortSignal>,
    /// Called with `(status, donation)` each time the donation is seen with a new status.
    pub on_status: Option<StatusCallback>,
}

/// A JS function, declared in TypeScript as `StatusCallback`.
pub(crate) type StatusCallback = Function;

/// The declaration of `StatusCallback`.
#[allow(dead_code)] // read by the `typescript_custom_section` in typescript.rs
pub(crate) const STATUS_CALLBACK_TS: &str = "/** Called by `waitForDonation` with the donation's new status and the donation. */\nexport type StatusCallback = (status: DonationStatus, donation: Donation) => void;\n";

/// Every member an options object of the API may hold. One record (one `Deserialize`, one
/// visitor) serves every call instead of one per options type: each call takes its view of it
/// (`From<Given>`), and a member of the wrong type is refused whichever call it is given to.
#[derive(Default, Record)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(not(feature = "signin"), allow(dead_code))]
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
    /// Reads the constructor's options object as the Rust API's options and the time limit of
    /// a request in milliseconds, checked.
    pub(crate) fn from_js(value: JsValue) -> Result<(crate::ClientOptions, u32), Error> {
        if !value.is_object() {
            return Err(Error::invalid("options", "expected an object"));
        }
        let given = given(Some(value))?;
        let required = |value: Option<String>, name: &str| {
            value.ok_or_else(|| Error::invalid(name, "is missing"))
        };
        let timeout_ms = match given.timeout_ms {
            Some(ms) => milliseconds(ms, "timeoutMs", false)?,
            None => crate::DEFAULT_TIMEOUT.as_millis() as u32,
        };
        let options = crate::ClientOptions {
            app_id: required(given.app_id, "appId")?,
            base_url: required(given.base_url, "baseUrl")?,
            auth_url: given.auth_url,
            redirect_uri: given.redirect_uri,
            companion_url: given.companion_url,
            scopes: given.scopes.unwrap_or_default(),
            timeout: None,
            bff: given.bff.unwrap_or(false),
        };
        Ok((options, timeout_ms))
    }
}

/// What a sign-in call reads: the options, the pop-up's time limit, the signal.
#[cfg(feature = "signin")]
pub(crate) type SignIn = (crate::SignInOptions, Option<u32>, Option<AbortSignal>);

#[cfg(feature = "signin")]
impl SignInOptions {
    /// The Rust API's sign-in options, the pop-up's time limit in milliseconds (checked), and
    /// the signal.
    pub(crate) fn read(value: Option<JsValue>) -> Result<SignIn, Error> {
        let given = given(value)?;
        let timeout_ms = given
            .timeout_ms
            .map(|ms| milliseconds(ms, "timeoutMs", true))
            .transpose()?;
        let options = crate::SignInOptions {
            scopes: given.scopes,
            prompt: given.prompt,
            login_hint: given.login_hint,
            return_path: given.return_path,
            timeout: None,
        };
        Ok((options, timeout_ms, given.signal))
    }
}
