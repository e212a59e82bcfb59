//! Waiting for a donation: the donor's return from the simple donation integration. The
//! service answers 404 for a while, then `Pending`, then a final status; the wait polls with
//! backoff and jitter until the status is final or the time is up. One loop for both faces.

use std::time::Duration;

use fundraising_core::backoff;
use fundraising_core::model::{Donation, DonationStatus};
use fundraising_core::validate;
use web_sys::AbortSignal;

use crate::http::{HttpResponse, Transport};
use crate::options::WaitOptions;
use crate::{api, Client, Error};

/// Time a wait lasts by default: 10 minutes.
pub(crate) const DEFAULT_WAIT: Duration = Duration::from_secs(600);
/// First wait between polls; it grows to [`MAX_POLL_MS`].
const FIRST_POLL_MS: f64 = 1_000.0;
/// Longest wait between polls.
const MAX_POLL_MS: f64 = 8_000.0;

/// Errors after which the donation may still appear: not yet known (404), or the service
/// or the network briefly unavailable.
fn worth_another_poll(error: &Error) -> bool {
    matches!(
        error,
        Error::NotFound(_) | Error::Network(_) | Error::Timeout(_)
    ) || matches!(error, Error::Http(e) if matches!(e.status, 502..=504))
}

/// How a face reads a donation's answer, and the status of what it read.
pub(crate) struct DonationReader<D> {
    pub read: fn(&HttpResponse) -> Result<D, Error>,
    pub status: fn(&D) -> String,
}

/// Polls the donation of `reference` until its status is final; returns it. `on_status` is
/// called each time the donation is seen with a new status. The polls' waits and the deadline
/// are on the transport's clock.
pub(crate) async fn wait_for_donation<T: Transport, D>(
    client: &Client<T>,
    reference: &str,
    timeout: Option<Duration>,
    reader: DonationReader<D>,
    mut on_status: impl FnMut(&str, &D),
    signal: Option<&AbortSignal>,
) -> Result<D, Error> {
    validate::path_segment("reference", reference)?;
    let timeout = timeout.unwrap_or(DEFAULT_WAIT);
    let clock = client.transport();
    let deadline = clock.now_ms() + timeout.as_secs_f64() * 1000.0;
    let mut seen: Option<String> = None;
    let mut attempt = 0;
    loop {
        if signal.is_some_and(AbortSignal::aborted) {
            return Err(Error::Aborted);
        }
        let response = client.donation_response(reference, signal).await;
        match response.and_then(|response| (reader.read)(&response)) {
            Ok(donation) => {
                let status = (reader.status)(&donation);
                if seen.as_deref() != Some(status.as_str()) {
                    on_status(&status, &donation);
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
        let left = deadline - clock.now_ms();
        if left <= 0.0 {
            return Err(Error::Timeout(
                "the donation did not reach a final status in time",
            ));
        }
        let wait = backoff::delay_ms(attempt, FIRST_POLL_MS, MAX_POLL_MS, clock.random());
        clock.sleep(wait.min(left) as u32, signal).await?;
        attempt += 1;
    }
}

impl<T: Transport> Client<T> {
    /// Waits for the donation of `reference` (the donor back from the simple donation
    /// integration) to reach a final status (`Accepted`, `Rejected`, `Cancelled` or
    /// `Refunded`), polling with backoff and jitter through 404 and `Pending`; returns the
    /// donation. Ends with `timeout` after `options.timeout` (default 10 minutes). Dropping the
    /// future stops the wait.
    ///
    /// ```no_run
    /// # async fn run(client: fundraising_client::Client) -> Result<(), fundraising_client::Error> {
    /// use fundraising_client::WaitOptions;
    /// let options = WaitOptions::default().on_status(|d| show(d.status.as_str()));
    /// let donation = client.wait_for_donation("my-reference", options).await?;
    /// show(&donation.amount);
    /// # Ok(()) }
    /// # fn show(_: &str) {}
    /// ```
    pub async fn wait_for_donation(
        &self,
        reference: &str,
        options: WaitOptions,
    ) -> Result<Donation, Error> {
        let WaitOptions { timeout, on_status } = options;
        let mut on_status = on_status;
        wait_for_donation(
            self,
            reference,
            timeout,
            DonationReader {
                read: api::read_model::<Donation>,
                status: |d| d.status.as_str().to_owned(),
            },
            |_, donation| {
                if let Some(on_status) = on_status.as_mut() {
                    on_status(donation);
                }
            },
            None,
        )
        .await
    }
}
