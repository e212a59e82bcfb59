//! Time, wherever there is a global `setTimeout` (windows, workers and Node): the clock, and
//! waits that end early on an `AbortSignal` and leave nothing behind when dropped. The clock of
//! the browser transport ([`Browser`](crate::http::Browser)).

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, AddEventListenerOptions};

use crate::Error;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Date, js_name = now)]
    pub(crate) fn now_ms() -> f64;

    /// The global `setTimeout`, called with a JS function (no Rust closure needed).
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: u32) -> JsValue;

    /// The global `clearTimeout`.
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
}

/// A timer and an abort listener, removed when the wait ends or is dropped.
struct Pending<'a> {
    timer: JsValue,
    on_abort: Option<(&'a AbortSignal, Function)>,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        clear_timeout(&self.timer);
        if let Some((signal, reject)) = &self.on_abort {
            let _ = signal.remove_event_listener_with_callback("abort", reject);
        }
    }
}

/// Waits `ms` milliseconds; an abort of `signal` ends the wait with [`Error::Aborted`].
pub(crate) async fn sleep(ms: u32, signal: Option<&AbortSignal>) -> Result<(), Error> {
    if signal.is_some_and(AbortSignal::aborted) {
        return Err(Error::Aborted);
    }
    let mut pending = Pending {
        timer: JsValue::UNDEFINED,
        on_abort: None,
    };
    let wait = Promise::new(&mut |resolve, reject| {
        pending.timer = set_timeout(&resolve, ms);
        if let Some(signal) = signal {
            let once = AddEventListenerOptions::new();
            once.set_once(true);
            let _ = signal.add_event_listener_with_callback_and_add_event_listener_options(
                "abort", &reject, &once,
            );
            pending.on_abort = Some((signal, reject));
        }
    });
    let outcome = JsFuture::from(wait).await;
    drop(pending);
    outcome.map(drop).map_err(|_| Error::Aborted)
}
