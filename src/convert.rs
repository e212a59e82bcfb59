//! Values that cross between JS and Rust, through serde: JS values in ([`read_js`], read by
//! core's tree reader over the JS value, whose errors never format a number: the package then
//! carries no float formatting), Rust values out ([`to_js`], by serde-wasm-bindgen), and JSON
//! text through the platform's `JSON`.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::Error;

/// The serializer of every value JS receives: `null` (not `undefined`) for absent values,
/// plain objects for maps.
#[cfg_attr(not(any(feature = "events", feature = "signin")), allow(dead_code))]
pub(crate) const TO_JS: serde_wasm_bindgen::Serializer = serde_wasm_bindgen::Serializer::new()
    .serialize_missing_as_null(true)
    .serialize_maps_as_objects(true);

/// A JS value (an argument, an options object, a parsed answer) as `T`, by core's tree reader;
/// when it does not fit, the reader's error: where (a member, an index) and why.
#[cfg_attr(not(feature = "signin"), allow(dead_code))]
pub(crate) fn read_js<T: DeserializeOwned>(
    value: JsValue,
) -> Result<T, fundraising_core::json::DeError> {
    fundraising_core::json::from_node(&crate::json::Node::new(value))
}

/// A Rust value as the plain JS object JS receives.
#[cfg_attr(not(any(feature = "events", feature = "signin")), allow(dead_code))]
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    value.serialize(&TO_JS).unwrap_or(JsValue::NULL)
}

/// A JSON text parsed by the platform's `JSON.parse`.
#[cfg_attr(not(feature = "signin"), allow(dead_code))]
pub(crate) fn parse_json(text: &str) -> Result<JsValue, Error> {
    js_sys::JSON::parse(text).map_err(|_| Error::decode("the answer is not JSON"))
}

/// A JS value as JSON text, by the platform's `JSON.stringify`.
#[cfg_attr(not(any(feature = "events", feature = "signin")), allow(dead_code))]
pub(crate) fn to_json(value: &JsValue) -> String {
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_default()
}
