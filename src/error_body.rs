//! Error bodies read by core's rules over the platform's `JSON.parse`, so the package
//! carries no JSON parser of its own.

use fundraising_core::service_error::{parse_error_body_with, JsonNode};
use fundraising_core::ServiceError;
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::js_object::member;

/// A value `JSON.parse` gave.
struct Parsed(JsValue);

impl JsonNode for Parsed {
    fn string(&self) -> Option<String> {
        self.0.as_string()
    }

    fn number_text(&self) -> Option<String> {
        self.0.as_f64()?;
        self.0
            .unchecked_ref::<js_sys::Number>()
            .to_string_with_radix(10)
            .ok()
            .map(String::from)
    }

    fn is_object(&self) -> bool {
        self.0.is_object() && !Array::is_array(&self.0)
    }

    fn items(&self) -> Option<Vec<Self>> {
        Array::is_array(&self.0).then(|| Array::from(&self.0).iter().map(Parsed).collect())
    }

    fn member(&self, name: &str) -> Option<Self> {
        if !self.is_object() {
            return None;
        }
        Object::keys(self.0.unchecked_ref::<Object>())
            .iter()
            .filter_map(|key| key.as_string())
            .filter(|key| key.eq_ignore_ascii_case(name))
            .map(|key| member(&self.0, &key))
            .find(|value| !value.is_null() && !value.is_undefined())
            .map(Parsed)
    }
}

/// The service's error answer (`status`, `body`) by core's rules.
pub(crate) fn service_error(status: u16, body: &str) -> ServiceError {
    parse_error_body_with(status, body, |text| {
        js_sys::JSON::parse(text).ok().map(Parsed)
    })
}
