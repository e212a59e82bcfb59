//! Random bytes from the platform's `crypto.getRandomValues`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues)]
    fn get_random_values(buffer: &mut [u8]);
}

/// `N` cryptographically random bytes.
pub(crate) fn bytes<const N: usize>() -> [u8; N] {
    let mut buffer = [0u8; N];
    get_random_values(&mut buffer);
    buffer
}
