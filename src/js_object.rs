//! Reading and writing members of plain JS objects (options, JSON answers), with the
//! argument checks of the public API.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::Error;

/// `object[name]`, or `undefined` when `object` is not an object.
pub(crate) fn member(object: &JsValue, name: &str) -> JsValue {
    if object.is_object() {
        Reflect::get(object, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

/// Sets `object[name] = value`.
pub(crate) fn set(object: &Object, name: &str, value: &JsValue) {
    let _ = Reflect::set(object, &JsValue::from_str(name), value);
}

fn absent(value: &JsValue) -> bool {
    value.is_undefined() || value.is_null()
}

/// An optional string member; `invalid_argument` naming it when it is something else.
pub(crate) fn string(object: &JsValue, name: &str) -> Result<Option<String>, Error> {
    let value = member(object, name);
    if absent(&value) {
        return Ok(None);
    }
    value
        .as_string()
        .map(Some)
        .ok_or_else(|| Error::invalid(name, "expected a string"))
}

/// An optional number member.
pub(crate) fn number(object: &JsValue, name: &str) -> Result<Option<f64>, Error> {
    let value = member(object, name);
    if absent(&value) {
        return Ok(None);
    }
    value
        .as_f64()
        .map(Some)
        .ok_or_else(|| Error::invalid(name, "expected a number"))
}

/// An optional array-of-strings member.
pub(crate) fn strings(object: &JsValue, name: &str) -> Result<Option<Vec<String>>, Error> {
    let value = member(object, name);
    if absent(&value) {
        return Ok(None);
    }
    if !Array::is_array(&value) {
        return Err(Error::invalid(name, "expected an array of strings"));
    }
    Array::from(&value)
        .iter()
        .map(|item| {
            item.as_string()
                .ok_or_else(|| Error::invalid(name, "expected an array of strings"))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// A JSON text parsed by the platform's `JSON.parse`.
pub(crate) fn parse_json(text: &str) -> Result<JsValue, Error> {
    js_sys::JSON::parse(text).map_err(|_| Error::Decode("the answer is not JSON".into()))
}

/// A value as JSON text, by the platform's `JSON.stringify`.
pub(crate) fn to_json(value: &JsValue) -> String {
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_default()
}
