//! An answer's body, and its reading as JSON by the platform's parser: in the browser the JS
//! string the answer arrived as, read by `JSON.parse` without a copy into Rust (the package
//! carries no JSON parser of its own); off the browser (the native tests) its text, read by
//! serde_json as core reads it.

#[cfg(feature = "signin")]
use crate::Error;

/// The body of an [`HttpResponse`](super::HttpResponse).
#[derive(Debug, Clone)]
pub struct Body {
    #[cfg(target_arch = "wasm32")]
    js: js_sys::JsString,
    #[cfg(not(target_arch = "wasm32"))]
    text: String,
}

impl Body {
    /// A body of `text`.
    pub fn from_text(text: impl Into<String>) -> Self {
        let text: String = text.into();
        Body {
            #[cfg(target_arch = "wasm32")]
            js: js_sys::JsString::from(text),
            #[cfg(not(target_arch = "wasm32"))]
            text,
        }
    }

    /// The body as Rust text.
    pub fn text(&self) -> String {
        #[cfg(target_arch = "wasm32")]
        return String::from(&self.js);
        #[cfg(not(target_arch = "wasm32"))]
        return self.text.clone();
    }

    /// The body as the JS string the JS face reads.
    #[cfg(all(feature = "js", feature = "__operation"))]
    pub(crate) fn js(&self) -> js_sys::JsString {
        #[cfg(target_arch = "wasm32")]
        return self.js.clone();
        #[cfg(not(target_arch = "wasm32"))]
        return js_sys::JsString::from(self.text.as_str());
    }

    /// The service's error answer of `status` with this body, by core's rules.
    #[cfg(any(feature = "signin", feature = "__operation"))]
    pub(crate) fn service_error(&self, status: u16) -> fundraising_core::ServiceError {
        #[cfg(target_arch = "wasm32")]
        return crate::json::service_error(status, &self.text());
        #[cfg(not(target_arch = "wasm32"))]
        return fundraising_core::service_error::parse_error_body(status, &self.text);
    }

    /// The body read as `T`, a companion's answer or error body: `decode_error` saying "the
    /// answer is not JSON", or naming where the companion's answer does not fit `T`.
    #[cfg(feature = "signin")]
    pub(crate) fn read<T: serde::de::DeserializeOwned>(&self) -> Result<T, Error> {
        let misfit = |e: &dyn std::fmt::Display| {
            Error::decode(["the companion's answer: ", &e.to_string()].concat())
        };
        #[cfg(target_arch = "wasm32")]
        return crate::convert::read_js(crate::json::parse_body(&self.js)?).map_err(|e| misfit(&e));
        #[cfg(not(target_arch = "wasm32"))]
        return serde_json::from_str(&self.text).map_err(|e| {
            if e.is_data() {
                misfit(&e)
            } else {
                Error::decode("the answer is not JSON")
            }
        });
    }
}

/// The JS string the browser's answer arrived as.
impl From<js_sys::JsString> for Body {
    fn from(js: js_sys::JsString) -> Self {
        Body {
            #[cfg(target_arch = "wasm32")]
            js,
            #[cfg(not(target_arch = "wasm32"))]
            text: String::from(&js),
        }
    }
}
