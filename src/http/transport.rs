//! The seam between the client and what it runs on: [`Transport`], the request and answer it
//! carries, and one request bounded by a timeout on the transport's clock.

use std::future::Future;

use fundraising_core::operation::Method;
use web_sys::AbortSignal;

use super::Body;
use crate::Error;

/// What the client runs on: one HTTP exchange at a time, and a clock with timers. The client
/// is generic over it ([`Client`](crate::Client)`<T: Transport = Browser>`), as an OAuth client
/// takes its HTTP client, so that its logic (retries, backoff, timeouts, the donation wait, the
/// page walk, BFF mode) runs over any of them: the browser's `fetch` and `setTimeout` in an
/// app ([`Browser`](super::Browser)), or an in-memory service and a clock a test moves by hand.
///
/// Every wait of the client goes through [`Transport::sleep`] and every reading of the time
/// through [`Transport::now_ms`]: a request's timeout, the backoff before a retry, a
/// `Retry-After`, the donation wait's polls and its deadline.
pub trait Transport: 'static {
    /// Sends `request` once and reads its answer. An error status is an answer, not an error;
    /// a fired `signal` ends it with [`Error::Aborted`], any other failure to get an answer is
    /// [`Error::Network`]. Dropping the future must cancel the exchange (abort the request).
    /// The client bounds it with its timeout itself.
    fn fetch<'a>(
        &'a self,
        request: &'a HttpRequest<'a>,
        signal: Option<&'a AbortSignal>,
    ) -> impl Future<Output = Result<HttpResponse, Error>> + 'a;

    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> f64;

    /// Waits `ms` milliseconds; a fired `signal` ends the wait with [`Error::Aborted`].
    /// Dropping the future must leave nothing behind (no timer keeps running).
    fn sleep<'a>(
        &'a self,
        ms: u32,
        signal: Option<&'a AbortSignal>,
    ) -> impl Future<Output = Result<(), Error>> + 'a;

    /// A number in `[0, 1)`, for the jitter of backoffs.
    fn random(&self) -> f64;
}

/// One request the client makes.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct HttpRequest<'a> {
    /// `GET` or `POST`.
    pub method: Method,
    /// The absolute URL.
    pub url: &'a str,
    /// The JSON body, sent with `Content-Type: application/json`.
    pub body: Option<&'a str>,
    /// The access token, sent as `Authorization: Bearer`.
    pub bearer: Option<&'a str>,
    /// Send cookies (the companion's calls and its BFF proxy).
    pub credentials: bool,
    /// Send the companion's static CSRF header
    /// ([`CSRF_HEADER`](fundraising_core::companion::CSRF_HEADER)): its POSTs and its `/api`
    /// proxy ask for it.
    pub csrf: bool,
}

/// The answer to one request.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpResponse {
    /// The HTTP status.
    pub status: u16,
    /// The body.
    pub body: Body,
    /// The `Retry-After` header, if any (for the retry policy of reads).
    pub retry_after: Option<String>,
}

impl HttpResponse {
    /// The answer of `status` with `body` and no `Retry-After`.
    pub fn new(status: u16, body: Body) -> Self {
        HttpResponse {
            status,
            body,
            retry_after: None,
        }
    }

    /// The answer with a `Retry-After` header of `value`.
    pub fn with_retry_after(mut self, value: impl Into<String>) -> Self {
        self.retry_after = Some(value.into());
        self
    }

    /// True for a 2xx status.
    #[cfg(any(feature = "signin", feature = "__operation"))]
    pub(crate) fn succeeded(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Sends `request` once through `transport`, for at most `timeout_ms` on its clock:
/// [`Error::Timeout`] when the time is up first (the exchange is then dropped, which aborts
/// it), [`Error::Aborted`] when `signal` has fired.
#[cfg(any(feature = "signin", feature = "__operation"))]
pub(crate) async fn send<T: Transport>(
    transport: &T,
    request: &HttpRequest<'_>,
    timeout_ms: u32,
    signal: Option<&AbortSignal>,
) -> Result<HttpResponse, Error> {
    if signal.is_some_and(AbortSignal::aborted) {
        return Err(Error::Aborted);
    }
    use std::task::Poll;
    let mut exchange = std::pin::pin!(transport.fetch(request, signal));
    let mut timer = std::pin::pin!(transport.sleep(timeout_ms, None));
    std::future::poll_fn(|cx| {
        if let Poll::Ready(outcome) = exchange.as_mut().poll(cx) {
            return Poll::Ready(outcome);
        }
        match timer.as_mut().poll(cx) {
            Poll::Ready(_) => Poll::Ready(Err(Error::Timeout("the request timed out"))),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}
