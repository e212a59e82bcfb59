//! `getDonationByReference` and `waitForDonation`.

use js_sys::{Object, Promise};
use wasm_bindgen::prelude::*;

use super::client::FundraisingClient;
use super::decode::decode;
use super::options::{text_argument, CallOptions, WaitOptions};
use super::promise::promise;
use crate::donation::{wait_for_donation, DonationReader};

/// A donation's answer as the JS object, and the status it holds.
const JS_DONATION: DonationReader<JsValue> = DonationReader {
    read: decode::<fundraising_core::model::Donation>,
    status: |donation| {
        js_sys::Reflect::get(donation, &"status".into())
            .ok()
            .and_then(|s| s.as_string())
            .unwrap_or_default()
    },
};

#[wasm_bindgen]
impl FundraisingClient {
    /// A donation by its third-party reference.
    #[wasm_bindgen(js_name = getDonationByReference, unchecked_return_type = "Promise<Donation>")]
    pub fn get_donation_by_reference(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] reference: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: Option<Object>,
    ) -> Promise {
        let client = self.client.clone();
        let options = CallOptions::read(options);
        promise(async move {
            let options = options?;
            let reference = text_argument(&reference, "reference")?;
            let answer = client
                .donation_response(&reference, options.signal.as_ref())
                .await?;
            decode::<fundraising_core::model::Donation>(&answer)
        })
    }

    /// Waits for the donation of `reference` (the donor back from the simple donation
    /// integration) to reach a final status (`Accepted`, `Rejected`, `Cancelled` or
    /// `Refunded`), polling with backoff and jitter through 404 and `Pending`; resolves with
    /// the donation. Rejects with `timeout` after `timeoutMs`, `aborted` on the signal.
    #[wasm_bindgen(js_name = waitForDonation, unchecked_return_type = "Promise<Donation>")]
    pub fn wait_for_donation(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] reference: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "WaitOptions")] options: Option<Object>,
    ) -> Promise {
        let client = self.client.clone();
        let options = WaitOptions::read(options);
        promise(async move {
            let options = options?;
            let reference = text_argument(&reference, "reference")?;
            let on_status = options.on_status;
            wait_for_donation(
                &client,
                &reference,
                options.timeout,
                JS_DONATION,
                |status, donation| {
                    if let Some(on_status) = &on_status {
                        let _ = on_status.call2(&JsValue::NULL, &status.into(), donation);
                    }
                },
                options.signal.as_ref(),
            )
            .await
        })
    }
}
