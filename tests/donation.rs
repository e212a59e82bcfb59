//! The donation return flow through the typed API: `wait_for_donation` polls through 404 and
//! `Pending` to a final status, against donations the sandbox stages (its test-only route).
#![cfg(target_arch = "wasm32")]

mod common;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use common::*;
use fundraising_client::model::DonationStatus;
use fundraising_client::{code, new_donation_reference, WaitOptions};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Stages a donation at the sandbox: 404 for `appears` seconds, `Pending` until `settles`,
/// then `status`.
async fn stage(reference: &str, appears: u32, settles: u32, status: &str) {
    let body = serde_json::json!({
        "reference": reference,
        "appears_after_secs": appears,
        "final_after_secs": settles,
        "final_status": status,
        "amount": "12.50",
        "message": "Well done!",
        "share_message": true,
    })
    .to_string();
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&body.into());
    let headers = web_sys::Headers::new().unwrap();
    headers.set("Content-Type", "application/json").unwrap();
    init.set_headers(&headers);
    let url = [BASE_URL, "/_sandbox/staged-donations"].concat();
    let window = web_sys::window().unwrap();
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str_and_init(&url, &init))
        .await
        .unwrap()
        .unchecked_into();
    assert_eq!(response.status(), 201, "staging {reference}");
}

/// Wait options that record every status they are told.
fn recording(timeout_ms: u64) -> (WaitOptions, Rc<RefCell<Vec<DonationStatus>>>) {
    let seen: Rc<RefCell<Vec<DonationStatus>>> = Rc::default();
    let sink = seen.clone();
    let options = WaitOptions::default()
        .timeout(Duration::from_millis(timeout_ms))
        .on_status(move |donation| sink.borrow_mut().push(donation.status.clone()));
    (options, seen)
}

#[wasm_bindgen_test]
async fn waits_through_not_found_and_pending_to_accepted() {
    let reference = new_donation_reference().expect("a reference");
    stage(&reference, 1, 3, "Accepted").await;
    let (options, seen) = recording(20_000);
    let started = js_sys::Date::now();
    let donation = client_for(BASE_URL)
        .wait_for_donation(&reference, options)
        .await
        .expect("the donation settles");
    assert_eq!(donation.status, DonationStatus::Accepted);
    assert_eq!(donation.third_party_reference, reference);
    assert_eq!(donation.amount, "12.50");
    assert_eq!(donation.message.as_deref(), Some("Well done!"));
    let elapsed = js_sys::Date::now() - started;
    assert!(
        elapsed >= 2_500.0,
        "settled after {elapsed} ms, before the sandbox did"
    );
    let seen = seen.borrow().clone();
    assert_eq!(seen.last(), Some(&DonationStatus::Accepted), "{seen:?}");
    assert!(
        seen.len() <= 2 && (seen.len() == 1 || seen[0] == DonationStatus::Pending),
        "{seen:?}"
    );
}

#[wasm_bindgen_test]
async fn bad_arguments_are_refused() {
    let client = client_for(BASE_URL);
    let e = client
        .wait_for_donation("", WaitOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.code(), code::INVALID_ARGUMENT);
    let e = client
        .wait_for_donation("  ", WaitOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.code(), code::INVALID_ARGUMENT);
}

#[wasm_bindgen_test]
fn donation_references_are_fresh_guids() {
    let a = new_donation_reference().unwrap();
    let b = new_donation_reference().unwrap();
    assert_ne!(a, b);
    for r in [&a, &b] {
        assert_eq!(r.len(), 36, "{r}");
        assert!(r.chars().all(|c| c == '-' || c.is_ascii_hexdigit()), "{r}");
        assert_eq!(&r[14..15], "4", "a version-4 GUID: {r}");
    }
}
