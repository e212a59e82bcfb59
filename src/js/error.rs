//! The crate's [`Error`] as the JS `FundraisingError`, and its TypeScript declarations.

use std::error::Error as _;

use wasm_bindgen::prelude::*;

use crate::Error;

#[wasm_bindgen(module = "/src/js/error.js")]
extern "C" {
    #[wasm_bindgen(js_name = newFundraisingError)]
    fn new_fundraising_error(code: &str, message: &str, status: Option<u16>) -> JsValue;
}

/// The error as JavaScript names things: an argument by its JS name (`base_url` becomes
/// `baseUrl`, as the models' JSON names are made).
fn in_js_names(e: Error) -> Error {
    match e {
        Error::InvalidArgument(core) => Error::InvalidArgument(core.with_wire_names()),
        other => other,
    }
}

/// The message JS sees: the error's and its sources', joined by `": "`.
fn message(e: &Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

impl From<Error> for JsValue {
    fn from(e: Error) -> Self {
        let e = in_js_names(e);
        new_fundraising_error(e.code(), &message(&e), e.status())
    }
}

macro_rules! error_ts {
    ($($name:ident = $code:literal),* $(,)?) => {
        /// The declarations of `FundraisingErrorCode` (from the crate's list of codes) and
        /// `FundraisingError`.
        #[wasm_bindgen(typescript_custom_section)]
        const ERROR_TS: &str = concat!(
            "/** Stable machine-readable error codes; the companion may add codes of its own. */\n",
            "export type FundraisingErrorCode = ", $("\"", $code, "\" | ",)* "(string & {});\n\n",
            "/** The error every failing call rejects with. */\n",
            "export class FundraisingError extends Error {\n",
            "  private constructor();\n",
            "  /** Stable machine-readable code to branch on. */\n",
            "  readonly code: FundraisingErrorCode;\n",
            "  /** The HTTP status behind the error, or null. */\n",
            "  readonly status: number | null;\n",
            "}\n"
        );
    };
}

crate::error::with_error_codes!(error_ts);

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::*;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    fn js_message(e: Error) -> String {
        js_sys::Reflect::get(&JsValue::from(e), &"message".into())
            .unwrap()
            .as_string()
            .unwrap()
    }

    #[wasm_bindgen_test]
    fn messages_name_options_as_js_does_and_carry_their_source() {
        assert_eq!(
            js_message(Error::invalid("base_url", "must be an absolute URL")),
            "invalid baseUrl: must be an absolute URL"
        );
        assert_eq!(
            js_message(Error::decode("Donation.id: missing")),
            "cannot decode the answer: Donation.id: missing"
        );
        assert_eq!(js_message(Error::Aborted), "the operation was aborted");
    }
}
