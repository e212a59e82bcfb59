//! The options objects of the JS API: one record of every member any of them holds, read by
//! serde-wasm-bindgen through one `Deserialize`, and a typed view of it per call, whose
//! TypeScript declaration is derived from the view; each view becomes the Rust API's options
//! (numbers checked and turned into Rust's types here: milliseconds into `Duration`s, pages
//! into integers by core's rules).

use std::time::Duration;

use fundraising_core::shape::{Record, TypeScript};
use js_sys::Function;
use serde::Deserializer;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use crate::convert::from_js;
use crate::Error;

/// Milliseconds of the option `name` as a `Duration`: a finite number above zero (or zero
/// when `zero_allowed`); `invalid_argument` naming the option otherwise.
pub(crate) fn milliseconds(ms: f64, name: &str, zero_allowed: bool) -> Result<Duration, Error> {
    if ms.is_finite() && (ms > 0.0 || (zero_allowed && ms == 0.0)) {
        // Saturating: a later time than u64 milliseconds is no time limit at all.
        Ok(Duration::from_millis(ms.ceil() as u64))
    } else {
        Err(Error::invalid(name, "expected a positive number"))
    }
}

/// An optional page number or page size of a JS call, by core's rule for `f64`s.
fn page_number(
    value: Option<f64>,
    rule: fn(f64) -> Result<u32, fundraising_core::Error>,
) -> Result<Option<u32>, Error> {
    value.map(rule).transpose().map_err(Error::from)
}

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
#[allow(dead_code)] // the declaration of the options; read through `Given`
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
#[allow(dead_code)] // the declaration of the options; read through `Given`
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
#[allow(dead_code)] // the declaration of the options; read through `Given`
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

/// The options of `getEventPages` as the Rust API takes them: page and page size checked.
pub(crate) struct Paging {
    pub page: Option<u32>,
    pub page_size: Option<u32>,
    pub signal: Option<AbortSignal>,
}

/// The options of `waitForDonation` as the Rust API takes them.
pub(crate) struct Waiting {
    pub timeout: Option<Duration>,
    pub signal: Option<AbortSignal>,
    pub on_status: Option<Function>,
}

impl CallOptions {
    /// A call's optional options object.
    pub(crate) fn read(value: Option<JsValue>) -> Result<Self, Error> {
        Ok(CallOptions {
            signal: given(value)?.signal,
        })
    }
}

impl PageOptions {
    /// The options of `getEventPages`.
    pub(crate) fn read(value: Option<JsValue>) -> Result<Paging, Error> {
        let given = given(value)?;
        Ok(Paging {
            page: page_number(given.page, fundraising_core::validate::number::page)?,
            page_size: page_number(
                given.page_size,
                fundraising_core::validate::number::page_size,
            )?,
            signal: given.signal,
        })
    }
}

impl PagesOptions {
    /// The options of `eventPages`: its page size and signal.
    pub(crate) fn read(
        value: Option<JsValue>,
    ) -> Result<(Option<u32>, Option<AbortSignal>), Error> {
        let given = given(value)?;
        let page_size = page_number(
            given.page_size,
            fundraising_core::validate::number::page_size,
        )?;
        Ok((page_size, given.signal))
    }
}

impl WaitOptions {
    /// The options of `waitForDonation`.
    pub(crate) fn read(value: Option<JsValue>) -> Result<Waiting, Error> {
        let given = given(value)?;
        Ok(Waiting {
            timeout: given
                .timeout_ms
                .map(|ms| milliseconds(ms, "timeoutMs", true))
                .transpose()?,
            signal: given.signal,
            on_status: given.on_status,
        })
    }
}

impl ClientOptions {
    /// Reads the constructor's options object as the Rust API's options.
    pub(crate) fn from_js(value: JsValue) -> Result<crate::ClientOptions, Error> {
        if !value.is_object() {
            return Err(Error::invalid("options", "expected an object"));
        }
        let given = given(Some(value))?;
        let required = |value: Option<String>, name: &str| {
            value.ok_or_else(|| Error::invalid(name, "is missing"))
        };
        Ok(crate::ClientOptions {
            app_id: required(given.app_id, "appId")?,
            base_url: required(given.base_url, "baseUrl")?,
            auth_url: given.auth_url,
            redirect_uri: given.redirect_uri,
            companion_url: given.companion_url,
            scopes: given.scopes.unwrap_or_default(),
            timeout: given
                .timeout_ms
                .map(|ms| milliseconds(ms, "timeoutMs", false))
                .transpose()?,
            bff: given.bff.unwrap_or(false),
        })
    }
}

#[cfg(feature = "signin")]
impl SignInOptions {
    /// The Rust API's sign-in options and the signal.
    pub(crate) fn read(
        value: Option<JsValue>,
    ) -> Result<(crate::SignInOptions, Option<AbortSignal>), Error> {
        let given = given(value)?;
        let options = crate::SignInOptions {
            scopes: given.scopes,
            prompt: given.prompt,
            login_hint: given.login_hint,
            return_path: given.return_path,
            timeout: given
                .timeout_ms
                .map(|ms| milliseconds(ms, "timeoutMs", true))
                .transpose()?,
        };
        Ok((options, given.signal))
    }
}
