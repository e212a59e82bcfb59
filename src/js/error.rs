//! The crate's [`Error`] as the JS `FundraisingError`.

use wasm_bindgen::prelude::*;

use crate::Error;

#[wasm_bindgen(module = "/src/js/error.js")]
extern "C" {
    #[wasm_bindgen(js_name = newFundraisingError)]
    fn new_fundraising_error(code: &str, message: &str, status: Option<u16>) -> JsValue;
}

impl From<Error> for JsValue {
    fn from(e: Error) -> Self {
        new_fundraising_error(e.code(), &e.message(), e.status())
    }
}
