//! JS values read for core's rules: a `JSON.parse` tree, an options object, a companion's
//! answer (core's [`JsonNode`](fundraising_core::json::JsonNode): the member-name rule, error
//! bodies, the tree reader of options and answers, and the model decoder of the JS face). This
//! module only reads JS values; every rule stays in core. The package carries no JSON parser of
//! its own.
//!
//! A value is read in one call (`tape.js`'s `scan`, [`tree`]): every object and array it
//! reaches, with the kind of each of their values and the value of each number. A value itself
//! crosses into Rust only when a rule needs it (a date's text), and member names once per
//! distinct list, where each model's fields are found once per list ([`fit`]).

pub(crate) mod codes;
mod fit;
pub(crate) mod tree;

use js_sys::JsString;
use wasm_bindgen::prelude::*;

#[cfg(any(
    all(feature = "js", feature = "__operation"),
    all(target_arch = "wasm32", feature = "signin")
))]
use crate::Error;

pub(crate) use tree::Node;

#[wasm_bindgen]
extern "C" {
    /// `JSON.parse` of a JS string (an answer's body, never copied into Rust).
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn parse_js(text: &JsString) -> Result<JsValue, JsValue>;
}

/// An answer's body parsed by the platform's `JSON.parse`.
#[cfg(any(
    all(feature = "js", feature = "__operation"),
    all(target_arch = "wasm32", feature = "signin")
))]
pub(crate) fn parse_body(body: &JsString) -> Result<JsValue, Error> {
    parse_js(body).map_err(|_| Error::decode("the answer is not JSON"))
}

/// The service's error answer (`status`, `body`) by core's rules; a body serde_json would
/// not read is text, as natively ([`Node::readable`]).
#[cfg(all(
    target_arch = "wasm32",
    any(feature = "signin", feature = "__operation")
))]
pub(crate) fn service_error(status: u16, body: &str) -> fundraising_core::ServiceError {
    fundraising_core::service_error::parse_error_body_with(status, body, |text| {
        let node = js_sys::JSON::parse(text).ok().map(Node::new);
        node.filter(Node::readable)
    })
}
