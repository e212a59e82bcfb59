//! The transport the client ships with: the platform's `fetch` through gloo-net (windows,
//! workers, Node 20+) and its timers (`setTimeout`, `Date.now`, `Math.random`).
//!
//! [`Browser::fetch`] is the one place where the client performs a fetch.

use std::future::Future;

use gloo_net::http::RequestBuilder;
use js_sys::{Function, JsString};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal, RequestCredentials};

use super::transport::{HttpRequest, HttpResponse, Transport};
use crate::{Error, ScriptError};
use fundraising_core::operation::Method;

/// The browser's `fetch` and timers: the transport of [`Client`](crate::Client) unless an app
/// names another.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Browser;

impl Transport for Browser {
    fn fetch<'a>(
        &'a self,
        request: &'a HttpRequest<'a>,
        signal: Option<&'a AbortSignal>,
    ) -> impl Future<Output = Result<HttpResponse, Error>> + 'a {
        fetch(request, signal)
    }

    fn now_ms(&self) -> f64 {
        crate::time::now_ms()
    }

    fn sleep<'a>(
        &'a self,
        ms: u32,
        signal: Option<&'a AbortSignal>,
    ) -> impl Future<Output = Result<(), Error>> + 'a {
        crate::time::sleep(ms, signal)
    }

    fn random(&self) -> f64 {
        js_sys::Math::random()
    }
}

#[wasm_bindgen]
extern "C" {
    /// `AbortController.prototype.abort`, to bind to one controller and a reason.
    #[wasm_bindgen(thread_local_v2, js_namespace = ["AbortController", "prototype"], js_name = abort)]
    static ABORT: Function;
}

thread_local! {
    /// The reason the package aborts a request with when the caller's signal fires: a JS
    /// `Error`, because gloo-net takes any rejection that is not an `Error` for a bug of its
    /// own. Made once per thread, not per request: an `Error` records a stack trace when it is
    /// made, costly beside a small call. It never reaches the caller ([`fetch`] tells an abort
    /// from the caller's signal).
    static ABORTED: JsValue = js_sys::Error::new("aborted").into();
}

/// The controller's `abort` bound to [`ABORTED`], for the caller's signal to call.
fn abort_on_signal(controller: &AbortController) -> Function {
    ABORTED.with(|reason| ABORT.with(|abort| abort.bind1(controller, reason).unchecked_into()))
}

/// A request in flight: its controller and its listener on the caller's signal. Dropped before
/// the request settled (its future was dropped: the caller's, or the client's timeout), it
/// aborts the request.
struct InFlight<'a> {
    controller: AbortController,
    on_abort: Option<(&'a AbortSignal, Function)>,
    settled: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if let Some((signal, on_abort)) = &self.on_abort {
            let _ = signal.remove_event_listener_with_callback("abort", on_abort);
        }
        if !self.settled {
            self.controller.abort();
        }
    }
}

/// [`Transport::fetch`] in the browser: `request` once under an `AbortController` that the
/// caller's `signal` and the future's drop abort.
async fn fetch(
    request: &HttpRequest<'_>,
    signal: Option<&AbortSignal>,
) -> Result<HttpResponse, Error> {
    let controller =
        AbortController::new().map_err(|_| Error::Unsupported("no AbortController"))?;
    let on_abort = match signal {
        Some(signal) => {
            let on_abort = abort_on_signal(&controller);
            let _ = signal.add_event_listener_with_callback("abort", &on_abort);
            Some((signal, on_abort))
        }
        None => None,
    };
    let mut flight = InFlight {
        controller,
        on_abort,
        settled: false,
    };
    let outcome = exchange(request, &flight.controller.signal()).await;
    flight.settled = true;
    drop(flight);
    outcome.map_err(|thrown| {
        if signal.is_some_and(AbortSignal::aborted) {
            Error::Aborted
        } else {
            Error::Network(thrown)
        }
    })
}

/// The request and the reading of its answer, under `signal`: where the client performs a
/// fetch. A failure is what the platform threw.
async fn exchange(
    request: &HttpRequest<'_>,
    signal: &AbortSignal,
) -> Result<HttpResponse, ScriptError> {
    let mut builder = match request.method {
        Method::Get => RequestBuilder::new(request.url),
        Method::Post => RequestBuilder::new(request.url).method(gloo_net::http::Method::POST),
    }
    .header("Accept", "application/json")
    .abort_signal(Some(signal));
    if let Some(bearer) = request.bearer {
        builder = builder.header("Authorization", &["Bearer ", bearer].concat());
    }
    if request.credentials {
        builder = builder.credentials(RequestCredentials::Include);
    }
    if request.csrf {
        let (name, value) = fundraising_core::companion::CSRF_HEADER;
        builder = builder.header(name, value);
    }
    let sent = match request.body {
        Some(body) => {
            builder
                .header("Content-Type", "application/json")
                .body(body)
                .map_err(failure)?
                .send()
                .await
        }
        None => super::early::send(builder).await,
    };
    let response = sent.map_err(failure)?;
    let status = response.status();
    let retry_after = response.headers().get("Retry-After");
    let raw = web_sys::Response::from(response);
    let text = raw.text().map_err(|e| ScriptError::from_js(&e))?;
    let body = JsFuture::from(text)
        .await
        .map_err(|e| ScriptError::from_js(&e))?;
    Ok(HttpResponse {
        status,
        retry_after,
        body: body.unchecked_into::<JsString>().into(),
    })
}

/// gloo-net's error as what the platform threw (gloo-net's own errors have no name).
fn failure(error: gloo_net::Error) -> ScriptError {
    #[allow(unreachable_patterns)] // gloo-net's `json` feature (not used here) adds a variant
    match error {
        gloo_net::Error::JsError(e) => ScriptError::new(e.name, e.message),
        gloo_net::Error::GlooError(message) => ScriptError::new("", message),
        other => ScriptError::new("", other.to_string()),
    }
}
