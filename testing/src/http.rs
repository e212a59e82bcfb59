//! JSON requests to the sandbox's test routes, through the platform's `fetch` (a page or a
//! worker).

use js_sys::Promise;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::Error;

/// `method url` with `body` as JSON; the JSON answer, or the sandbox's error.
pub(crate) async fn call(method: &str, url: &str, body: Option<&Value>) -> Result<Value, Error> {
    let init = web_sys::RequestInit::new();
    init.set_method(method);
    if let Some(body) = body {
        let headers = web_sys::Headers::new().map_err(unreachable)?;
        headers
            .set("Content-Type", "application/json")
            .map_err(unreachable)?;
        init.set_headers(&headers);
        init.set_body(&JsValue::from_str(&body.to_string()));
    }
    let request = web_sys::Request::new_with_str_and_init(url, &init).map_err(unreachable)?;
    let response: web_sys::Response = JsFuture::from(fetch(&request)?)
        .await
        .map_err(unreachable)?
        .unchecked_into();
    let text = JsFuture::from(response.text().map_err(unreachable)?)
        .await
        .map_err(unreachable)?
        .as_string()
        .unwrap_or_default();
    let status = response.status();
    let answer: Option<Value> = serde_json::from_str(&text).ok();
    if !response.ok() {
        let message = answer
            .as_ref()
            .and_then(|a| a.get("errorMessage"))
            .and_then(Value::as_str)
            .map_or(text.clone(), str::to_owned);
        return Err(Error::Sandbox { status, message });
    }
    answer.ok_or_else(|| Error::Unreachable(format!("{url} answered what is not JSON: {text}")))
}

/// The platform's `fetch` (a page's or a worker's: the global object's own).
fn fetch(request: &web_sys::Request) -> Result<Promise, Error> {
    let global = js_sys::global();
    js_sys::Reflect::get(&global, &"fetch".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|fetch| fetch.call1(&global, request).ok())
        .and_then(|answer| answer.dyn_into::<Promise>().ok())
        .ok_or_else(|| Error::Unreachable("no fetch here (neither a page nor a worker)".into()))
}

fn unreachable(e: JsValue) -> Error {
    let message = js_sys::Reflect::get(&e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| format!("{e:?}"));
    Error::Unreachable(message)
}
