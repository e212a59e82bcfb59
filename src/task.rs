//! Futures run by the platform as Promises.

use std::future::Future;
use std::pin::Pin;

use js_sys::Promise;
use wasm_bindgen::JsValue;

/// Work to run as a Promise.
pub(crate) type Task = Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>;

/// Runs `work` as a Promise that settles with its outcome. It runs to its end whether or not
/// anyone awaits the Promise. (Boxed: the Promise machinery is compiled once, for every caller.)
pub(crate) fn spawn(work: Task) -> Promise {
    wasm_bindgen_futures::future_to_promise(work)
}
