//! The options objects of the JS API. `build.rs` turns these structs into the TypeScript
//! declarations, so each field here is a member there.

use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use crate::js_object::{member, number, string, strings};
use crate::Error;

/// Options of `new FundraisingClient(options)`.
#[derive(Debug, Clone)]
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
    pub timeout_ms: Option<u32>,
}

/// The last argument of every call.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// Aborts the call; it then rejects with code `aborted`.
    pub signal: Option<AbortSignal>,
}

/// Options of `getEventPages`.
#[derive(Debug, Clone, Default)]
pub struct PageOptions {
    /// Page number, from 1 (the service's default when left out).
    pub page: Option<f64>,
    /// Results per page, 1 to 100 (the service's default when left out).
    pub page_size: Option<f64>,
    /// Aborts the call; it then rejects with code `aborted`.
    pub signal: Option<AbortSignal>,
}

/// Options of `eventPages`.
#[derive(Debug, Clone, Default)]
pub struct PagesOptions {
    /// Results per request, 1 to 100 (default 100).
    pub page_size: Option<f64>,
    /// Aborts the iteration; the pending `next()` then rejects with code `aborted`.
    pub signal: Option<AbortSignal>,
}

/// Options of `signInWithPopup` and `signInWithRedirect`.
#[derive(Debug, Clone, Default)]
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
    pub timeout_ms: Option<u32>,
    /// Aborts the sign-in; it then rejects with code `aborted`.
    pub signal: Option<AbortSignal>,
}

impl ClientOptions {
    /// Reads the constructor's options object.
    pub fn from_js(value: &JsValue) -> Result<Self, Error> {
        if !value.is_object() {
            return Err(Error::invalid("options", "expected an object"));
        }
        let timeout_ms = number(value, "timeoutMs")?
            .map(|ms| {
                if ms.is_finite() && ms > 0.0 {
                    Ok(ms.min(f64::from(u32::MAX)) as u32)
                } else {
                    Err(Error::invalid("timeoutMs", "expected a positive number"))
                }
            })
            .transpose()?;
        Ok(ClientOptions {
            app_id: string(value, "appId")?
                .ok_or_else(|| Error::invalid("appId", "is required"))?,
            base_url: string(value, "baseUrl")?
                .ok_or_else(|| Error::invalid("baseUrl", "is required"))?,
            auth_url: string(value, "authUrl")?,
            redirect_uri: string(value, "redirectUri")?,
            companion_url: string(value, "companionUrl")?,
            scopes: strings(value, "scopes")?,
            timeout_ms,
        })
    }
}

fn signal(options: &JsValue) -> Result<Option<AbortSignal>, Error> {
    let value = member(options, "signal");
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_into::<AbortSignal>()
        .map(Some)
        .map_err(|_| Error::invalid("signal", "expected an AbortSignal"))
}

impl CallOptions {
    /// Reads `{signal}` (absent, `undefined` and `null` are all "no options").
    pub fn from_js(value: &JsValue) -> Result<Self, Error> {
        Ok(CallOptions {
            signal: signal(value)?,
        })
    }
}

impl PageOptions {
    /// Reads `{page, pageSize, signal}`.
    pub fn from_js(value: &JsValue) -> Result<Self, Error> {
        Ok(PageOptions {
            page: number(value, "page")?,
            page_size: number(value, "pageSize")?,
            signal: signal(value)?,
        })
    }
}

impl PagesOptions {
    /// Reads `{pageSize, signal}`.
    pub fn from_js(value: &JsValue) -> Result<Self, Error> {
        Ok(PagesOptions {
            page_size: number(value, "pageSize")?,
            signal: signal(value)?,
        })
    }
}

impl SignInOptions {
    /// Reads `{scopes, prompt, loginHint, returnPath, timeoutMs, signal}`.
    pub fn from_js(value: &JsValue) -> Result<Self, Error> {
        let scopes = strings(value, "scopes")?;
        let timeout_ms = number(value, "timeoutMs")?
            .map(|ms| {
                if ms.is_finite() && ms >= 0.0 {
                    Ok(ms.min(f64::from(u32::MAX)) as u32)
                } else {
                    Err(Error::invalid("timeoutMs", "expected a positive number"))
                }
            })
            .transpose()?;
        Ok(SignInOptions {
            scopes,
            prompt: string(value, "prompt")?,
            login_hint: string(value, "loginHint")?,
            return_path: string(value, "returnPath")?,
            timeout_ms,
            signal: signal(value)?,
        })
    }
}
