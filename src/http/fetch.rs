//! One HTTP request through the global `fetch`, bounded by a timeout and the caller's signal.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, AbortSignal, Headers, Request, RequestCredentials, RequestInit, Response,
};

use crate::error::js_message;
use crate::timer::{clear_timeout, set_timeout};
use crate::Error;

#[wasm_bindgen]
extern "C" {
    /// `globalThis.fetch`: present in windows, workers and Node 18+.
    #[wasm_bindgen(js_name = fetch)]
    fn global_fetch(request: &Request) -> Promise;
}

/// Reason given to the internal controller when the timeout fires.
const TIMEOUT_REASON: &str = "fundraising-client:timeout";

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
    if signal.is_some_and(AbortSignal::aborted) {
        return Err(Error::Aborted);
    }
    let controller = AbortController::new().map_err(|e| Error::Network(js_message(&e)))?;
    let abort: Function = Reflect::get(&controller, &"abort".into())
        .map_err(|e| Error::Network(js_message(&e)))?
        .unchecked_into();
    let on_abort = abort.bind0(&controller);
    let on_timeout: JsValue = abort
        .bind1(&controller, &JsValue::from_str(TIMEOUT_REASON))
        .into();
    let timer = set_timeout(&on_timeout, timeout_ms);
    if let Some(signal) = signal {
        let _ = signal.add_event_listener_with_callback("abort", &on_abort);
    }

    let outcome = exchange(request, &controller.signal()).await;

    clear_timeout(&timer);
    if let Some(signal) = signal {
        let _ = signal.remove_event_listener_with_callback("abort", &on_abort);
    }
    outcome.map_err(|e| {
        if signal.is_some_and(AbortSignal::aborted) {
            Error::Aborted
        } else if controller.signal().reason().as_string().as_deref() == Some(TIMEOUT_REASON) {
            Error::Timeout("the request timed out")
        } else {
            Error::Network(js_message(&e))
        }
    })
}

async fn exchange(
    request: &HttpRequest<'_>,
    signal: &AbortSignal,
) -> Result<HttpResponse, JsValue> {
    let headers = Headers::new()?;
    headers.set("Accept", "application/json")?;
    let init = RequestInit::new();
    init.set_method(request.method);
    init.set_signal(Some(signal));
    if let Some(body) = request.body {
        headers.set("Content-Type", "application/json")?;
        init.set_body(&body.into());
    }
    if let Some(token) = request.bearer {
        headers.set("Authorization", &["Bearer ", token].concat())?;
    }
    if request.companion {
        headers.set("X-Fundraising-Client", "1")?;
        init.set_credentials(RequestCredentials::Include);
    }
    init.set_headers(&headers);
    let request = Request::new_with_str_and_init(request.url, &init)?;
    let response: Response = JsFuture::from(global_fetch(&request))
        .await?
        .unchecked_into();
    let body = JsFuture::from(response.text()?)
        .await?
        .as_string()
        .unwrap_or_default();
    Ok(HttpResponse {
        status: response.status(),
        body,
        retry_after: response.headers().get("Retry-After")?,
    })
}
