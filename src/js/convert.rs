//! JS arguments and options read as Rust types, with the error JS receives when they do not fit.

use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

use crate::convert::read_js;
use crate::Error;

/// A JS argument or option as `T`; `invalid_argument` naming the member at fault (or `what`,
/// the argument itself) when it does not fit.
pub(crate) fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, Error> {
    read_js(value).map_err(|e| invalid_input(what, &e))
}

/// `invalid_argument` naming the member at fault, out of line: one copy for every type
/// [`from_js`] reads.
#[inline(never)]
fn invalid_input(what: &str, error: &fundraising_core::json::DeError) -> Error {
    let place = error.place();
    Error::invalid(if place.is_empty() { what } else { place }, error.reason())
}
