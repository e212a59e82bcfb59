//! The JS layer's futures as Promises whose rejection is a `FundraisingError`.

use std::future::Future;
use std::pin::Pin;

use js_sys::Promise;
use wasm_bindgen::JsValue;

use crate::Error;

/// A boxed future of a JS result.
type Work = Pin<Box<dyn Future<Output = Result<JsValue, Error>>>>;

/// Runs `work` as a Promise whose rejection is a `FundraisingError`.
/// (Generic only in this thin shell: the Promise machinery is compiled once, for the boxed future.)
pub(crate) fn promise<F>(work: F) -> Promise
where
    F: Future<Output = Result<JsValue, Error>> + 'static,
{
    spawn(Box::pin(work))
}

/// Runs `work` (boxed) as a Promise whose rejection is a `FundraisingError`.
pub(crate) fn spawn(work: Work) -> Promise {
    crate::task::spawn(Box::pin(async move { work.await.map_err(JsValue::from) }))
}
