//! The callback parser: any text never panics; a parsed callback has a non-empty code and
//! state that survive being form-encoded into a redirect URL again; and any (code, state)
//! pair put into a URL that way parses back to exactly that pair.
#![no_main]

use fundraising_core::callback::{self, Callback};
use fundraising_core::encoding::form_encode;
use libfuzzer_sys::fuzz_target;

fn url(code: &str, state: &str) -> String {
    format!(
        "http://127.0.0.1:8080/?code={}&state={}",
        form_encode(code),
        form_encode(state)
    )
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match callback::parse(text) {
        Ok(cb) => {
            assert!(!cb.code.is_empty() && !cb.state.is_empty());
            let again =
                callback::parse(&url(&cb.code, &cb.state)).expect("re-encoded callback parses");
            assert_eq!(again, cb);
        }
        Err(e) => {
            let _ = (e.to_string(), e.code(), e.status());
        }
    }
    if let Some((code, state)) = text.split_once('\u{0}') {
        if !code.is_empty() && !state.is_empty() {
            let expected = Callback {
                code: code.to_owned(),
                state: state.to_owned(),
            };
            for input in [
                url(code, state),
                format!("#code={}&state={}", form_encode(code), form_encode(state)),
            ] {
                let got = callback::parse(&input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
                assert_eq!(got, expected, "{input:?}");
            }
        }
    }
});
