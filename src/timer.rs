//! Timers that work wherever there is a global `setTimeout`: windows, workers and Node.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use crate::Error;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(callback: &JsValue, ms: u32) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
    #[wasm_bindgen(js_namespace = Date, js_name = now)]
    pub(crate) fn now_ms() -> f64;
}

/// Waits `ms` milliseconds; an abort of `signal` ends the wait with [`Error::Aborted`].
pub(crate) async fn sleep(ms: u32, signal: Option<&AbortSignal>) -> Result<(), Error> {
    if signal.is_some_and(AbortSignal::aborted) {
        return Err(Error::Aborted);
    }
    let mut timer = JsValue::UNDEFINED;
    let mut on_abort: Option<Function> = None;
    let promise = Promise::new(&mut |resolve, reject| {
        timer = set_timeout(resolve.as_ref(), ms);
        if let Some(signal) = signal {
            let _ = signal.add_event_listener_with_callback("abort", &reject);
            on_abort = Some(reject);
        }
    });
    let outcome = JsFuture::from(promise).await;
    clear_timeout(&timer);
    if let (Some(signal), Some(listener)) = (signal, on_abort) {
        let _ = signal.remove_event_listener_with_callback("abort", &listener);
    }
    outcome.map(drop).map_err(|_| Error::Aborted)
}
