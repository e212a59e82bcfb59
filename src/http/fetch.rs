//! One HTTP request through the global `fetch`, bounded by a timeout and the caller's signal
//! (the request itself is put together in `src/js/fetch.js`: far smaller than the same
//! through web-sys).

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use crate::Error;

#[wasm_bindgen(module = "/src/js/fetch.js")]
extern "C" {
    #[wasm_bindgen(js_name = sendRequest)]
    #[allow(clippy::too_many_arguments)]
    fn send_request(
        method: &str,
        url: &str,
        body: Option<&str>,
        bearer: Option<&str>,
        companion: bool,
        timeout_ms: u32,
        signal: Option<AbortSignal>,
    ) -> Promise;
}

/// What to send.
pub(crate) struct HttpRequest<'a> {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// Absolute URL.
    pub url: &'a str,
    /// JSON body, sent with `Content-Type: application/json`.
    pub body: Option<&'a str>,
    /// Access token for `Authorization: Bearer`.
    pub bearer: Option<&'a str>,
    /// Include cookies and send `X-Fundraising-Client: 1` (calls to the companion).
    pub companion: bool,
}

/// What came back.
pub(crate) struct HttpResponse {
    /// HTTP status.
    pub status: u16,
    /// The body as text.
    pub body: String,
    /// The `Retry-After` header, if any.
    pub retry_after: Option<String>,
}

/// Sends `request` once. A fired `signal` gives [`Error::Aborted`], the timeout [`Error::Timeout`],
/// any other failure to get an answer [`Error::Network`]. Error statuses are not errors here.
pub(crate) async fn send(
    request: &HttpRequest<'_>,
    timeout_ms: u32,
    signal: Option<&AbortSignal>,
) -> Result<HttpResponse, Error> {
    let answer = JsFuture::from(send_request(
        request.method,
        request.url,
        request.body,
        request.bearer,
        request.companion,
        timeout_ms,
        signal.cloned(),
    ))
    .await;
    match answer {
        Ok(answer) => {
            let answer = Array::from(&answer);
            Ok(HttpResponse {
                status: answer.get(0).as_f64().unwrap_or(0.0) as u16,
                body: answer.get(1).as_string().unwrap_or_default(),
                retry_after: answer.get(2).as_string(),
            })
        }
        Err(e) => Err(match e.as_f64() {
            Some(1.0) => Error::Aborted,
            Some(_) => Error::Timeout("the request timed out"),
            None => Error::Network(e.as_string().unwrap_or_default()),
        }),
    }
}
