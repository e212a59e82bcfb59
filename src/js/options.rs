//! The options objects of the JS API: one record of every member any of them holds, read by
//! serde-wasm-bindgen through one `Deserialize`, and a typed view of it per call, whose
//! TypeScript declaration is derived from the view; each view becomes the Rust API's options
//! (numbers checked and turned into Rust's types here: milliseconds into `Duration`s, pages
//! into integers by core's rules).

use std::time::Duration;

use fundraising_core::shape::{Record, TypeScript};
#[cfg(feature = "donation")]
use js_sys::Function;
use js_sys::Object;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use super::convert::from_js;
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

/// A string argument of a JS call; `invalid_argument` naming it otherwise.
#[cfg(any(feature = "campaign", feature = "donation"))]
pub(crate) fn text_argument(value: &JsValue, name: &str) -> Result<String, Error> {
    value
        .as_string()
        .ok_or_else(|| Error::invalid(name, "expected a string"))
}

/// An optional page number or page size of a JS call, by core's rule for `f64`s.
#[cfg(feature = "pages")]
fn page_number(
    value: Option<f64>,
    rule: fn(f64) -> Result<u32, fundraising_core::Error>,
) -> Result<Option<u32>, Error> {
    value.map(rule).transpose().map_err(Error::from)
}

/// Options of `new FundraisingClient(options)`.
#[allow(dead_code)] // the declaration of the constructor's options; read through `OptionMembers`
#[derive(Debug, Clone, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub(crate) struct ClientOptions {
    /// The application id (the `{appId}` segment of resource paths, `client_id` of sign-in).
    pub app_id: String,
    /// The service's base address for resource calls (`{base_url}`).
    pub base_url: String,
    /// The identity server's address (`{auth_url}`); needed to sign in.
    #[cfg(feature = "signin")]
    pub auth_url: Option<String>,
    /// The application's registered home page, where sign-in returns; needed to sign in.
    #[cfg(feature = "signin")]
    pub redirect_uri: Option<String>,
    /// The companion's address, which redeems codes and refreshes tokens; needed to sign in.
    pub companion_url: Option<String>,
    /// Scopes to ask for; `openid` and `profile` are always added.
    #[cfg(feature = "signin")]
    pub scopes: Option<Vec<String>>,
    /// Time limit of each request in milliseconds (default 10000).
    pub timeout_ms: Option<f64>,
    /// The companion runs in BFF mode: resource calls go through it (`{companionUrl}/api/...`),
    /// and the access token never reaches JavaScript.
    pub bff: Option<bool>,
}

/// The last argument of every call (but the pages', which have options of their own).
#[cfg(any(
    feature = "campaign",
    feature = "donation",
    feature = "events",
    feature = "signin"
))]
#[derive(Debug, Clone, Default, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub(crate) struct CallOptions {
    /// Aborts the call; it then rejects with code `aborted`.
    pub signal: Option<AbortSignal>,
}

/// Options of `getEventPages`.
#[cfg(feature = "pages")]
#[allow(dead_code)] // the declaration of the options; read through `OptionMembers`
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
#[cfg(feature = "pages")]
#[allow(dead_code)] // the declaration of the options; read through `OptionMembers`
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
#[allow(dead_code)] // the declaration of the sign-in options; read through `OptionMembers`
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
#[cfg(feature = "donation")]
#[allow(dead_code)] // the declaration of the options; read through `OptionMembers`
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
#[cfg(feature = "donation")]
pub(crate) type StatusCallback = Function;

/// Every member an options object of the API may hold. One record (one `Deserialize`, one
/// visitor) serves every call instead of one per options type: each call takes its view of it
/// (`From<OptionMembers>`), and a member of the wrong type is refused whichever call it is given to.
#[derive(Default, Record)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OptionMembers {
    app_id: Option<String>,
    base_url: Option<String>,
    #[cfg(feature = "signin")]
    auth_url: Option<String>,
    #[cfg(feature = "signin")]
    redirect_uri: Option<String>,
    companion_url: Option<String>,
    #[cfg(feature = "signin")]
    scopes: Option<Vec<String>>,
    timeout_ms: Option<f64>,
    bff: Option<bool>,
    #[cfg(feature = "pages")]
    page: Option<f64>,
    #[cfg(feature = "pages")]
    page_size: Option<f64>,
    #[cfg(feature = "signin")]
    prompt: Option<String>,
    #[cfg(feature = "signin")]
    login_hint: Option<String>,
    #[cfg(feature = "signin")]
    return_path: Option<String>,
}

/// An options object as read: its plain members, and those that are JS objects kept as they
/// are (read apart, so the tree reader never walks into them).
#[derive(Default)]
struct OptionsObject {
    members: OptionMembers,
    signal: Option<AbortSignal>,
    #[cfg(feature = "donation")]
    on_status: Option<Function>,
}

/// The member `name` of `options`, if it is a `T`; `invalid_argument` naming it when it is
/// something else (`undefined` and `null` are none).
fn object_member<T: JsCast>(
    options: &JsValue,
    name: &str,
    expected: &str,
) -> Result<Option<T>, Error> {
    let value =
        js_sys::Reflect::get(options, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_into::<T>()
        .map(Some)
        .map_err(|_| Error::invalid(name, expected))
}

/// Reads an options object; `undefined` and `null` are "no options".
fn read_options_object(value: Option<JsValue>) -> Result<OptionsObject, Error> {
    match value {
        Some(value) if !value.is_undefined() && !value.is_null() => {
            if !value.is_object() {
                return Err(Error::invalid("options", "expected an object"));
            }
            Ok(OptionsObject {
                signal: object_member(&value, "signal", "expected an AbortSignal")?,
                #[cfg(feature = "donation")]
                on_status: object_member(&value, "onStatus", "expected a function")?,
                members: from_js(value, "options")?,
            })
        }
        _ => Ok(OptionsObject::default()),
    }
}

/// The options of `getEventPages` as the Rust API takes them: page and page size checked.
#[cfg(feature = "pages")]
pub(crate) struct Paging {
    pub page: Option<u32>,
    pub page_size: Option<u32>,
    pub signal: Option<AbortSignal>,
}

/// The options of `waitForDonation` as the Rust API takes them.
#[cfg(feature = "donation")]
pub(crate) struct Waiting {
    pub timeout: Option<Duration>,
    pub signal: Option<AbortSignal>,
    pub on_status: Option<Function>,
}

#[cfg(any(
    feature = "campaign",
    feature = "donation",
    feature = "events",
    feature = "signin"
))]
impl CallOptions {
    /// A call's optional options object.
    pub(crate) fn read(value: Option<Object>) -> Result<Self, Error> {
        Ok(CallOptions {
            signal: read_options_object(value.map(JsValue::from))?.signal,
        })
    }
}

#[cfg(feature = "pages")]
impl PageOptions {
    /// The options of `getEventPages`.
    pub(crate) fn read(value: Option<Object>) -> Result<Paging, Error> {
        let options = read_options_object(value.map(JsValue::from))?;
        Ok(Paging {
            page: page_number(
                options.members.page,
                fundraising_core::validate::number::page,
            )?,
            page_size: page_number(
                options.members.page_size,
                fundraising_core::validate::number::page_size,
            )?,
            signal: options.signal,
        })
    }
}

#[cfg(feature = "pages")]
impl PagesOptions {
    /// The options of `eventPages`: its page size and signal.
    pub(crate) fn read(value: Option<Object>) -> Result<(Option<u32>, Option<AbortSignal>), Error> {
        let options = read_options_object(value.map(JsValue::from))?;
        let page_size = page_number(
            options.members.page_size,
            fundraising_core::validate::number::page_size,
        )?;
        Ok((page_size, options.signal))
    }
}

#[cfg(feature = "donation")]
impl WaitOptions {
    /// The options of `waitForDonation`.
    pub(crate) fn read(value: Option<Object>) -> Result<Waiting, Error> {
        let options = read_options_object(value.map(JsValue::from))?;
        Ok(Waiting {
            timeout: options
                .members
                .timeout_ms
                .map(|ms| milliseconds(ms, "timeoutMs", true))
                .transpose()?,
            signal: options.signal,
            on_status: options.on_status,
        })
    }
}

impl ClientOptions {
    /// Reads the constructor's options object as the Rust API's options.
    pub(crate) fn from_js(value: JsValue) -> Result<crate::ClientOptions, Error> {
        if !value.is_object() {
            return Err(Error::invalid("options", "expected an object"));
        }
        let options = read_options_object(Some(value))?;
        let required = |value: Option<String>, name: &str| {
            value.ok_or_else(|| Error::invalid(name, "is missing"))
        };
        Ok(crate::ClientOptions {
            app_id: required(options.members.app_id, "appId")?,
            base_url: required(options.members.base_url, "baseUrl")?,
            #[cfg(feature = "signin")]
            auth_url: options.members.auth_url,
            #[cfg(feature = "signin")]
            redirect_uri: options.members.redirect_uri,
            #[cfg(not(feature = "signin"))]
            auth_url: None,
            #[cfg(not(feature = "signin"))]
            redirect_uri: None,
            companion_url: options.members.companion_url,
            #[cfg(feature = "signin")]
            scopes: options.members.scopes.unwrap_or_default(),
            #[cfg(not(feature = "signin"))]
            scopes: Vec::new(),
            timeout: options
                .members
                .timeout_ms
                .map(|ms| milliseconds(ms, "timeoutMs", false))
                .transpose()?,
            bff: options.members.bff.unwrap_or(false),
        })
    }
}

#[cfg(feature = "signin")]
impl SignInOptions {
    /// The Rust API's sign-in options and the signal.
    pub(crate) fn read(
        value: Option<Object>,
    ) -> Result<(crate::SignInOptions, Option<AbortSignal>), Error> {
        let options = read_options_object(value.map(JsValue::from))?;
        let sign_in = crate::SignInOptions {
            scopes: options.members.scopes,
            prompt: options.members.prompt,
            login_hint: options.members.login_hint,
            return_path: options.members.return_path,
            timeout: options
                .members
                .timeout_ms
                .map(|ms| milliseconds(ms, "timeoutMs", true))
                .transpose()?,
        };
        Ok((sign_in, options.signal))
    }
}
