//! Values that cross between JS and Rust, through serde: JS values in ([`read_js`], read by
//! core's tree reader over the JS value, whose errors never format a number: the package then
//! carries no float formatting), Rust values out ([`to_js`], by serde-wasm-bindgen), and JSON
//! text through the platform's `JSON`.

#[cfg(any(feature = "signin", feature = "js"))]
use serde::de::DeserializeOwned;

#[cfg(feature = "signin")]
use crate::Error;

/// The serializer of every value JS receives: `null` (not `undefined`) for absent values,
/// plain objects for maps.
// Read by sign-in, the JS face's pages, and the JSON text of a created event in the browser.
#[cfg(any(
    feature = "signin",
    all(feature = "js", feature = "pages"),
    all(feature = "events", target_arch = "wasm32")
))]
const TO_JS: serde_wasm_bindgen::Serializer = serde_wasm_bindgen::Serializer::new()
    .serialize_missing_as_null(true)
    .serialize_maps_as_objects(true);

/// A JS value (an argument, an options object, a parsed answer) as `T`, by core's tree reader;
/// when it does not fit, the reader's error: where (a member, an index) and why.
#[cfg(any(feature = "signin", feature = "js"))]
pub(crate) fn read_js<T: DeserializeOwned>(
    value: wasm_bindgen::JsValue,
) -> Result<T, fundraising_core::json::DeError> {
    fundraising_core::json::from_node(&crate::json::Node::new(value))
}

/// A Rust value as the plain JS object JS receives.
// Read by sign-in, the JS face's pages, and the JSON text of a created event in the browser.
#[cfg(any(
    feature = "signin",
    all(feature = "js", feature = "pages"),
    all(feature = "events", target_arch = "wasm32")
))]
pub(crate) fn to_js<T: serde::Serialize + ?Sized>(value: &T) -> wasm_bindgen::JsValue {
    serde::Serialize::serialize(value, &TO_JS).unwrap_or(wasm_bindgen::JsValue::NULL)
}

/// A JSON text parsed by the platform's `JSON.parse`.
#[cfg(feature = "signin")]
pub(crate) fn parse_json(text: &str) -> Result<wasm_bindgen::JsValue, Error> {
    js_sys::JSON::parse(text).map_err(|_| Error::decode("the answer is not JSON"))
}

/// A Rust value as JSON text (a request's body, a stored record): by the platform's
/// `JSON.stringify` of [`to_js`] in the browser (the package carries no JSON writer of its
/// own), by serde_json elsewhere (the native tests).
#[cfg(any(feature = "events", feature = "signin"))]
pub(crate) fn json_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    #[cfg(target_arch = "wasm32")]
    return js_sys::JSON::stringify(&to_js(value))
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_default();
    #[cfg(not(target_arch = "wasm32"))]
    return serde_json::to_string(value).unwrap_or_default();
}
