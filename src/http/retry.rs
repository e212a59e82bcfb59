//! The retry policy of reads, as `docs/api.md` tables it ("Timeouts, retries and
//! cancelling"): at most two retries, on network errors and on 502, 503 and 504 after an
//! exponential backoff with jitter, and on 429 only when `Retry-After` says how long to wait.
//! A `Retry-After` is honoured up to [`MAX_DELAY_MS`]; asked to wait longer, the call does not
//! retry and fails at once with the status. Event creation and the companion's calls are never
//! retried.

use web_sys::AbortSignal;

use super::transport::{send, HttpRequest, HttpResponse, Transport};
use crate::Error;

/// Retries after the first attempt.
const MAX_RETRIES: u32 = 2;
/// Backoff before the first retry, doubled for each further one.
const BASE_DELAY_MS: f64 = 300.0;
/// The longest wait before a retry: a `Retry-After` asking for more is not retried.
const MAX_DELAY_MS: f64 = 10_000.0;

/// Sends `request` through `transport`, retrying as the policy says when `retry` is true
/// (reads only); the backoffs and `Retry-After` waits on the transport's clock.
pub(crate) async fn send_with_retry<T: Transport>(
    transport: &T,
    request: &HttpRequest<'_>,
    timeout_ms: u32,
    signal: Option<&AbortSignal>,
    retry: bool,
) -> Result<HttpResponse, Error> {
    let mut attempt = 0;
    loop {
        let outcome = send(transport, request, timeout_ms, signal).await;
        if !retry || attempt >= MAX_RETRIES {
            return outcome;
        }
        let failure = match &outcome {
            Ok(r) => Failure::Status(
                r.status,
                r.retry_after
                    .as_deref()
                    .and_then(|value| retry_after_ms(value, transport.now_ms())),
            ),
            Err(Error::Network(_)) => Failure::Network,
            Err(_) => return outcome,
        };
        let Some(delay) = retry_delay(failure, attempt, transport.random()) else {
            return outcome;
        };
        transport.sleep(delay, signal).await?;
        attempt += 1;
    }
}

/// What a failed attempt was, as the policy sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Failure {
    /// The request could not be sent or its answer not read.
    Network,
    /// An answer with this status and, when it had one, the wait its `Retry-After` asks for
    /// (milliseconds).
    Status(u16, Option<f64>),
}

/// How long to wait before retry number `attempt` (0-based) after `failure`, or `None` when
/// the policy does not retry it: 502-504 and network errors after `Retry-After` when given,
/// else `BASE * 2^attempt` scaled by a jitter in [0.5, 1); 429 only after its `Retry-After`;
/// nothing when `Retry-After` asks for more than [`MAX_DELAY_MS`].
fn retry_delay(failure: Failure, attempt: u32, random: f64) -> Option<u32> {
    let backoff =
        || fundraising_core::backoff::delay_ms(attempt, BASE_DELAY_MS, MAX_DELAY_MS, random);
    let wanted = match failure {
        Failure::Network => backoff(),
        Failure::Status(502..=504, retry_after) => retry_after.unwrap_or_else(backoff),
        Failure::Status(429, Some(retry_after)) => retry_after,
        Failure::Status(..) => return None,
    };
    (wanted <= MAX_DELAY_MS).then(|| wanted.max(0.0) as u32)
}

/// A `Retry-After` value (seconds, or an HTTP date) as the wait it asks for at `now_ms`, in
/// milliseconds (negative for a date in the past).
fn retry_after_ms(value: &str, now_ms: f64) -> Option<f64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u32>() {
        return Some(f64::from(seconds) * 1000.0);
    }
    // An HTTP date (RFC 9110's three forms), by the platform's `Date.parse` in the browser (the
    // package carries no date parser of its own), by httpdate elsewhere (the native tests).
    #[cfg(target_arch = "wasm32")]
    let at = Some(js_sys::Date::parse(value)).filter(|at| !at.is_nan())?;
    #[cfg(not(target_arch = "wasm32"))]
    let at = httpdate::parse_http_date(value)
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs_f64()
        * 1000.0;
    Some(at - now_ms)
}

#[cfg(test)]
mod tests {
    use super::{retry_delay, Failure, MAX_DELAY_MS};

    /// The rows of docs/api.md's retry table, decided without a browser.
    #[test]
    fn the_policy_follows_the_retry_table() {
        let retries = |failure| [0, 1].map(|attempt| retry_delay(failure, attempt, 0.0));
        // Network errors and 502-504: backoff of up to 300 ms, then up to 600 ms.
        for failure in [
            Failure::Network,
            Failure::Status(502, None),
            Failure::Status(503, None),
            Failure::Status(504, None),
        ] {
            assert_eq!(retries(failure), [Some(150), Some(300)], "{failure:?}");
        }
        // Retry-After up to the cap is honoured, for 503 and for 429 ...
        assert_eq!(
            retries(Failure::Status(503, Some(2000.0))),
            [Some(2000), Some(2000)]
        );
        assert_eq!(
            retries(Failure::Status(429, Some(MAX_DELAY_MS))),
            [Some(10_000), Some(10_000)]
        );
        // ... a longer one is not retried, nor a 429 that does not say how long to wait.
        assert_eq!(retries(Failure::Status(503, Some(10_001.0))), [None, None]);
        assert_eq!(retries(Failure::Status(429, Some(60_000.0))), [None, None]);
        assert_eq!(retries(Failure::Status(429, None)), [None, None]);
        // Other statuses are answers: never retried.
        for status in [200, 400, 401, 404, 413, 500, 501] {
            assert_eq!(retries(Failure::Status(status, None)), [None, None]);
            assert_eq!(retries(Failure::Status(status, Some(1000.0))), [None, None]);
        }
        // A date in the past asks for no wait.
        assert_eq!(
            retry_delay(Failure::Status(503, Some(-5000.0)), 0, 0.5),
            Some(0)
        );
    }
}
