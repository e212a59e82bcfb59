//! The retry policy of reads: at most two retries on network errors and 502/503/504, with
//! exponential backoff and jitter, honouring `Retry-After`.

use web_sys::AbortSignal;

use super::{send, HttpRequest, HttpResponse};
use crate::time::{now_ms, sleep};
use crate::Error;

/// Retries after the first attempt.
const MAX_RETRIES: u32 = 2;
/// Backoff before the first retry, doubled for each further one.
const BASE_DELAY_MS: f64 = 300.0;
/// No wait, whatever `Retry-After` says, is longer than this.
const MAX_DELAY_MS: f64 = 10_000.0;

/// Sends `request`, retrying as the policy says when `retry` is true (reads only).
pub(crate) async fn send_with_retry(
    request: &HttpRequest<'_>,
    timeout_ms: u32,
    signal: Option<&AbortSignal>,
    retry: bool,
) -> Result<HttpResponse, Error> {
    let mut attempt = 0;
    loop {
        let outcome = send(request, timeout_ms, signal).await;
        let retry_after = match &outcome {
            Ok(r) if matches!(r.status, 502..=504) => r.retry_after.as_deref(),
            Err(Error::Network(_)) => None,
            _ => return outcome,
        };
        if !retry || attempt >= MAX_RETRIES {
            return outcome;
        }
        let delay = delay_ms(attempt, retry_after, js_sys::Math::random());
        sleep(delay, signal).await?;
        attempt += 1;
    }
}

/// How long to wait before retry number `attempt` (0-based): `Retry-After` (seconds or an
/// HTTP date) when given, else `BASE * 2^attempt` scaled by a jitter in [0.5, 1).
fn delay_ms(attempt: u32, retry_after: Option<&str>, random: f64) -> u32 {
    let wanted = retry_after.and_then(retry_after_ms).unwrap_or_else(|| {
        fundraising_core::backoff::delay_ms(attempt, BASE_DELAY_MS, MAX_DELAY_MS, random)
    });
    wanted.clamp(0.0, MAX_DELAY_MS) as u32
}

fn retry_after_ms(value: &str) -> Option<f64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u32>() {
        return Some(f64::from(seconds) * 1000.0);
    }
    let at = js_sys::Date::parse(value);
    (!at.is_nan()).then(|| at - now_ms())
}
