//! `waitForDonation`: the donor's return from the simple donation integration. The service
//! answers 404 for a while, then `Pending`, then a final status; this polls with backoff and
//! jitter until the status is final or the time is up.

use std::rc::Rc;

use fundraising_core::backoff;
use fundraising_core::model::DonationStatus;
use fundraising_core::shape::TypeScript;
use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use crate::client::Inner;
use crate::timer::{now_ms, sleep};
use crate::Error;

/// Time `waitForDonation` waits by default: 10 minutes.
pub const DEFAULT_WAIT_MS: f64 = 600_000.0;
/// First wait between polls; it grows to [`MAX_POLL_MS`].
const FIRST_POLL_MS: f64 = 1_000.0;
/// Longest wait between polls.
const MAX_POLL_MS: f64 = 8_000.0;

/// Options of `waitForDonation`.
#[derive(Debug, Clone, Default, TypeScript)]
#[serde(rename_all = "camelCase")]
#[model(input)]
pub struct WaitOptions {
    /// How long to wait for a final status, in milliseconds (default 600000); then the call
    /// rejects with code `timeout`.
    pub timeout_ms: Option<f64>,
    /// Aborts the wait; it then rejects with code `aborted`.
    pub signal: Option<AbortSignal>,
    /// Called with `(status, donation)` each time the donation is seen with a new status.
    pub on_status: Option<StatusCallback>,
}

/// `(status: DonationStatus, donation: Donation) => void`.
pub type StatusCallback = Function;

/// Errors after which the donation may still appear: not yet known (404), or the service
/// or the network briefly unavailable.
fn worth_another_poll(error: &Error) -> bool {
    matches!(
        error,
        Error::NotFound(_) | Error::Network(_) | Error::Timeout(_)
    ) || matches!(error, Error::Http { status, .. } if matches!(status, 502..=504))
}

/// Polls the donation of `reference` until its status is final; resolves with it.
pub(crate) async fn wait_for_donation(
    inner: Rc<Inner>,
    reference: String,
    options: WaitOptions,
) -> Result<JsValue, Error> {
    let timeout = options.timeout_ms.unwrap_or(DEFAULT_WAIT_MS);
    if !(timeout.is_finite() && timeout >= 0.0) {
        return Err(Error::invalid("timeoutMs", "expected a positive number"));
    }
    let deadline = now_ms() + timeout;
    let signal = options.signal;
    let mut seen: Option<String> = None;
    let mut attempt = 0;
    loop {
        if signal.as_ref().is_some_and(AbortSignal::aborted) {
            return Err(Error::Aborted);
        }
        match inner.donation(&reference, signal.clone()).await {
            Ok(donation) => {
                let status = Reflect::get(&donation, &"status".into())
                    .ok()
                    .and_then(|s| s.as_string())
                    .unwrap_or_default();
                if seen.as_deref() != Some(status.as_str()) {
                    if let Some(on_status) = &options.on_status {
                        let _ = on_status.call2(&JsValue::NULL, &status.as_str().into(), &donation);
                    }
                    seen = Some(status.clone());
                }
                if DonationStatus::from_wire(&status).is_final() {
                    return Ok(donation);
                }
            }
            Err(Error::Aborted) => return Err(Error::Aborted),
            Err(e) if worth_another_poll(&e) => {}
            Err(e) => return Err(e),
        }
        let left = deadline - now_ms();
        if left <= 0.0 {
            return Err(Error::Timeout(
                "the donation did not reach a final status in time",
            ));
        }
        let wait = backoff::delay_ms(attempt, FIRST_POLL_MS, MAX_POLL_MS, js_sys::Math::random());
        sleep(wait.min(left) as u32, signal.as_ref()).await?;
        attempt += 1;
    }
}
