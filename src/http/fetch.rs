//! One HTTP request through gloo-net (the global `fetch`: windows, workers, Node 20+),
//! bounded by a timeout and the caller's signal.

use gloo_net::http::RequestBuilder;
use js_sys::{Function, JsString};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal, RequestCredentials};

use crate::time::{clear_timeout, set_timeout};
use crate::{Error, ScriptError};

/// The HTTP methods the package uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    #[cfg_attr(
        not(any(
            feature = "campaign",
            feature = "donation",
            feature = "pages",
            feature = "signin"
        )),
        allow(dead_code)
    )]
    Get,
    #[cfg_attr(not(any(feature = "events", feature = "signin")), allow(dead_code))]
    Post,
}

/// What to send.
pub(crate) struct HttpRequest<'a> {
    /// `GET` or `POST`.
    pub method: Method,
    /// Absolute URL.
    pub url: &'a str,
    /// JSON body, sent with `Content-Type: application/json`.
    pub body: Option<&'a str>,
    /// Access token for `Authorization: Bearer`.
    pub bearer: Option<&'a str>,
    /// Include cookies (calls to the companion).
    pub credentials: bool,
    /// Send the companion's static CSRF header (its POSTs and its `/api` proxy ask for it).
    pub csrf: bool,
}

/// What came back.
pub(crate) struct HttpResponse {
    /// HTTP status.
    pub status: u16,
    /// The body as the JS string it arrived as (read by `JSON.parse` without a copy into
    /// Rust; [`HttpResponse::text`] when Rust needs the text).
    pub body: JsString,
    /// The `Retry-After` header, if any (for the retry policy of the resource operations).
    #[cfg(any(
        feature = "campaign",
        feature = "donation",
        feature = "events",
        feature = "pages"
    ))]
    pub retry_after: Option<String>,
}

impl HttpResponse {
    /// The body as Rust text.
    pub(crate) fn text(&self) -> String {
        String::from(&self.body)
    }
}

#[wasm_bindgen]
extern "C" {
    /// `AbortController.prototype.abort`, to bind to one controller and a reason.
    #[wasm_bindgen(thread_local_v2, js_namespace = ["AbortController", "prototype"], js_name = abort)]
    static ABORT: Function;
}

/// The two reasons the package aborts its own requests with, JS `Error`s (every rejection
/// gloo-net sees must be an `Error`: a non-`Error` reason is a bug to gloo-net). Made once: an
/// `Error` records a stack trace when it is made, and two of them made for every request took
/// a tenth of a small call's time. The reasons never reach the caller ([`send`] tells its
/// errors from the signals' states).
struct Reasons {
    aborted: JsValue,
    timeout: JsValue,
}

thread_local! {
    static REASONS: Reasons = Reasons {
        aborted: js_sys::Error::new("aborted").into(),
        timeout: js_sys::Error::new("timeout").into(),
    };
}

/// Why the package aborts a request.
#[derive(Clone, Copy)]
enum Reason {
    /// The caller's signal fired.
    Aborted,
    /// The request took too long.
    Timeout,
}

/// The controller's `abort`, bound to `reason`, for a timer or an event listener to call.
fn abort_with(controller: &AbortController, reason: Reason) -> Function {
    REASONS.with(|reasons| {
        let reason = match reason {
            Reason::Aborted => &reasons.aborted,
            Reason::Timeout => &reasons.timeout,
        };
        ABORT.with(|abort| abort.bind1(controller, reason).unchecked_into())
    })
}

/// A request in flight: its controller, timer and listener on the caller's signal. Dropped
/// before the request settled (its future was dropped), it aborts the request.
struct InFlight<'a> {
    controller: AbortController,
    timer: JsValue,
    on_abort: Option<(&'a AbortSignal, Function)>,
    settled: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        clear_timeout(&self.timer);
        if let Some((signal, on_abort)) = &self.on_abort {
            let _ = signal.remove_event_listener_with_callback("abort", on_abort);
        }
        if !self.settled {
            self.controller.abort();
        }
    }
}

/// Sends `request` once. A fired `signal` gives [`Error::Aborted`], the timeout
/// [`Error::Timeout`], any other failure to get an answer [`Error::Network`]. Error statuses
/// are not errors here. Dropping the future aborts the request.
pub(crate) async fn send(
    request: &HttpRequest<'_>,
    timeout_ms: u32,
    signal: Option<&AbortSignal>,
) -> Result<HttpResponse, Error> {
    if signal.is_some_and(AbortSignal::aborted) {
        return Err(Error::Aborted);
    }
    let controller =
        AbortController::new().map_err(|_| Error::Unsupported("no AbortController"))?;
    let on_abort = match signal {
        Some(signal) => {
            let on_abort = abort_with(&controller, Reason::Aborted);
            let _ = signal.add_event_listener_with_callback("abort", &on_abort);
            Some((signal, on_abort))
        }
        None => None,
    };
    let timer = set_timeout(&abort_with(&controller, Reason::Timeout), timeout_ms);
    let mut flight = InFlight {
        controller,
        timer,
        on_abort,
        settled: false,
    };
    let outcome = exchange(request, &flight.controller.signal()).await;
    flight.settled = true;
    let timed_out = flight.controller.signal().aborted();
    drop(flight);
    outcome.map_err(|thrown| {
        if signal.is_some_and(AbortSignal::aborted) {
            Error::Aborted
        } else if timed_out {
            Error::Timeout("the request timed out")
        } else {
            Error::Network(thrown)
        }
    })
}

/// The request and the reading of its answer, under `signal`; a failure is what the platform
/// threw.
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
    #[cfg(any(
        feature = "campaign",
        feature = "donation",
        feature = "events",
        feature = "pages"
    ))]
    let retry_after = response.headers().get("Retry-After");
    let raw = web_sys::Response::from(response);
    let text = raw.text().map_err(|e| ScriptError::from_js(&e))?;
    let body = JsFuture::from(text)
        .await
        .map_err(|e| ScriptError::from_js(&e))?;
    Ok(HttpResponse {
        status,
        #[cfg(any(
            feature = "campaign",
            feature = "donation",
            feature = "events",
            feature = "pages"
        ))]
        retry_after,
        body: body.unchecked_into(),
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
