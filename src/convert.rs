//! Conversions between Rust values and the plain JS objects of the public API.
//!
//! Results go Rust model -> `serde_json::Value` -> JS object, turning every field the models
//! type as a date (the set is generated from the models by `build.rs`) into a JS `Date`.
//! Inputs go the other way: JS object -> `serde_json::Value` (a `Date` becomes the wire date)
//! -> model.

use fundraising_core::ServiceDate;
use js_sys::{Array, Object, Reflect};
use serde::Serialize;
use serde_json::{Map, Number, Value};
use wasm_bindgen::prelude::*;

use crate::Error;

include!(concat!(env!("OUT_DIR"), "/date_fields.rs"));

/// A Rust value as a plain JS object, dates as `Date`, `None` as `null`.
pub(crate) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, Error> {
    let value = serde_json::to_value(value).map_err(|e| Error::Decode(e.to_string()))?;
    Ok(value_to_js(&value, false))
}

fn value_to_js(value: &Value, is_date_field: bool) -> JsValue {
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) if is_date_field => match ServiceDate::parse(s) {
            Ok(date) => js_sys::Date::new(&JsValue::from_f64(date.millis as f64)).into(),
            Err(_) => JsValue::from_str(s),
        },
        Value::String(s) => JsValue::from_str(s),
        Value::Array(items) => items
            .iter()
            .map(|item| value_to_js(item, false))
            .collect::<Array>()
            .into(),
        Value::Object(fields) => {
            let object = Object::new();
            for (key, field) in fields {
                let date = DATE_FIELDS.contains(&key.as_str());
                let _ = Reflect::set(&object, &JsValue::from_str(key), &value_to_js(field, date));
            }
            object.into()
        }
    }
}

/// A JS value (plain object, array, string, number, boolean, `Date`, null/undefined) as JSON;
/// a `Date` becomes the service's wire date. Functions and symbols are refused.
pub(crate) fn from_js(value: &JsValue, what: &str) -> Result<Value, Error> {
    if value.is_null() || value.is_undefined() {
        return Ok(Value::Null);
    }
    if let Some(b) = value.as_bool() {
        return Ok(Value::Bool(b));
    }
    if let Some(n) = value.as_f64() {
        // Whole numbers stay integers, so they fit integer fields.
        if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
            return Ok(Value::Number(Number::from(n as i64)));
        }
        return Number::from_f64(n)
            .map(Value::Number)
            .ok_or_else(|| Error::invalid(what, "numbers must be finite"));
    }
    if let Some(s) = value.as_string() {
        return Ok(Value::String(s));
    }
    if let Some(date) = value.dyn_ref::<js_sys::Date>() {
        let millis = date.get_time();
        if millis.is_nan() {
            return Err(Error::invalid(what, "invalid Date"));
        }
        return Ok(Value::String(
            ServiceDate::from_millis(millis as i64).to_wire(),
        ));
    }
    if Array::is_array(value) {
        let array: &Array = value.unchecked_ref();
        return array.iter().map(|item| from_js(&item, what)).collect();
    }
    if value.is_object() && !value.is_function() {
        let mut map = Map::new();
        for key in Object::keys(value.unchecked_ref::<Object>()).iter() {
            let field = Reflect::get(value, &key).unwrap_or(JsValue::UNDEFINED);
            if let Some(key) = key.as_string() {
                map.insert(key, from_js(&field, what)?);
            }
        }
        return Ok(Value::Object(map));
    }
    Err(Error::invalid(what, "expected a plain object"))
}

/// A JS input (options, an event) as `T`, through core's decoder; `invalid_argument` naming
/// `what` when it does not fit.
pub(crate) fn input<T: serde::de::DeserializeOwned>(value: &JsValue, what: &str) -> Result<T, Error> {
    fundraising_core::json::decode_value(from_js(value, what)?).map_err(|e| match e {
        fundraising_core::Error::Decode { message } => Error::invalid(what, &message),
        other => Error::invalid(what, &other.to_string()),
    })
}
