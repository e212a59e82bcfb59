//! Values that cross between JS and Rust, through serde and serde-wasm-bindgen: JS values in
//! ([`from_js`]), Rust values out ([`to_js`]), and JSON text through the platform's `JSON`.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::Error;

/// The serializer of every value JS receives: `null` (not `undefined`) for absent values,
/// plain objects for maps.
pub(crate) const TO_JS: serde_wasm_bindgen::Serializer = serde_wasm_bindgen::Serializer::new()
    .serialize_missing_as_null(true)
    .serialize_maps_as_objects(true);

/// The message of a serde-wasm-bindgen error (a JS `Error`).
#[cfg_attr(not(any(feature = "signin", feature = "js")), allow(dead_code))]
pub(crate) fn message(error: serde_wasm_bindgen::Error) -> String {
    JsValue::from(error)
        .dyn_into::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_default()
}

/// A JS argument or option as `T`; `invalid_argument` naming `what` when it does not fit.
#[cfg_attr(not(any(feature = "signin", feature = "js")), allow(dead_code))]
pub(crate) fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, Error> {
    serde_wasm_bindgen::from_value(value).map_err(|e| invalid_input(what, e))
}

/// `invalid_argument` naming `what`, out of line: one copy for every type [`from_js`] reads.
#[cfg_attr(not(any(feature = "signin", feature = "js")), allow(dead_code))]
#[inline(never)]
fn invalid_input(what: &str, error: serde_wasm_bindgen::Error) -> Error {
    Error::invalid(what, &message(error))
}

/// A Rust value as the plain JS object JS receives.
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    value.serialize(&TO_JS).unwrap_or(JsValue::NULL)
}

/// A JSON text parsed by the platform's `JSON.parse`.
#[cfg_attr(not(feature = "signin"), allow(dead_code))]
pub(crate) fn parse_json(text: &str) -> Result<JsValue, Error> {
    js_sys::JSON::parse(text).map_err(|_| Error::decode("the answer is not JSON"))
}

/// A JS value as JSON text, by the platform's `JSON.stringify`.
pub(crate) fn to_json(value: &JsValue) -> String {
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_default()
}
