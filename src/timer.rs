//! Time: the clock and the retry backoff's wait (`setTimeout` in `src/js/fetch.js`), wherever
//! there is a global `setTimeout`: windows, workers and Node.

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use crate::Error;

#[wasm_bindgen(module = "/src/js/fetch.js")]
extern "C" {
    #[wasm_bindgen(js_name = sleep)]
    fn sleep_promise(ms: u32, signal: Option<AbortSignal>) -> Promise;
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Date, js_name = now)]
    pub(crate) fn now_ms() -> f64;
}

/// Waits `ms` milliseconds; an abort of `signal` ends the wait with [`Error::Aborted`].
pub(crate) async fn sleep(ms: u32, signal: Option<&AbortSignal>) -> Result<(), Error> {
    JsFuture::from(sleep_promise(ms, signal.cloned()))
        .await
        .map(drop)
        .map_err(|_| Error::Aborted)
}
