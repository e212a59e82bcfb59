//! The donation return flow: `waitForDonation` polls through 404 and `Pending` to a final
//! status, against donations the sandbox stages (its test-only route).
#![cfg(target_arch = "wasm32")]

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use common::*;
use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Stages a donation at the sandbox: 404 for `appears` seconds, `Pending` until `settles`,
/// then `status`.
async fn stage(reference: &str, appears: u32, settles: u32, status: &str) {
    let body = [
        r#"{"reference":""#,
        reference,
        r#"","appears_after_secs":"#,
        &appears.to_string(),
        r#","final_after_secs":"#,
        &settles.to_string(),
        r#","final_status":""#,
        status,
        r#"","amount":"12.50","message":"Well done!","share_message":true}"#,
    ]
    .concat();
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

/// A status callback that records every `(status, donation)` it is called with.
fn recorder() -> (js_sys::Function, Rc<RefCell<Vec<String>>>) {
    let seen: Rc<RefCell<Vec<String>>> = Rc::default();
    let sink = seen.clone();
    let callback =
        Closure::<dyn FnMut(String, JsValue)>::new(move |status: String, donation: JsValue| {
            assert_eq!(text(&donation, "status"), status);
            sink.borrow_mut().push(status);
        });
    (callback.into_js_value().unchecked_into(), seen)
}

#[wasm_bindgen_test]
async fn waits_through_not_found_and_pending_to_accepted() {
    let reference = unique_key("return");
    stage(&reference, 1, 3, "Accepted").await;
    let client = client_for(BASE_URL);
    let (on_status, seen) = recorder();
    let started = js_sys::Date::now();
    let donation = wait(
        client.wait_for_donation(
            reference.as_str().into(),
            Some(
                object(&[("timeoutMs", 20_000.into()), ("onStatus", on_status.into())])
                    .unchecked_into(),
            ),
        ),
    )
    .await
    .expect("the donation settles");
    assert_eq!(text(&donation, "status"), "Accepted");
    assert_eq!(text(&donation, "thirdPartyReference"), reference);
    assert_eq!(text(&donation, "amount"), "12.50");
    assert_eq!(text(&donation, "message"), "Well done!");
    let elapsed = js_sys::Date::now() - started;
    assert!(
        elapsed >= 2_500.0,
        "settled after {elapsed} ms, before the sandbox did"
    );
    let seen = seen.borrow().clone();
    assert_eq!(
        seen.last().map(String::as_str),
        Some("Accepted"),
        "{seen:?}"
    );
    assert!(
        seen.len() <= 2 && (seen.len() == 1 || seen[0] == "Pending"),
        "{seen:?}"
    );
}

#[wasm_bindgen_test]
async fn other_final_statuses_end_the_wait_too() {
    let reference = unique_key("rejected");
    stage(&reference, 0, 1, "Rejected").await;
    let client = client_for(BASE_URL);
    let donation = wait(client.wait_for_donation(reference.as_str().into(), None))
        .await
        .expect("settled");
    assert_eq!(text(&donation, "status"), "Rejected");
}

#[wasm_bindgen_test]
async fn a_donation_that_never_settles_times_out_and_an_abort_ends_the_wait() {
    let reference = unique_key("pending");
    stage(&reference, 0, 600, "Accepted").await;
    let client = client_for(BASE_URL);
    let (on_status, seen) = recorder();
    let result = wait(client.wait_for_donation(
        reference.as_str().into(),
        Some(
            object(&[("timeoutMs", 2_500.into()), ("onStatus", on_status.into())]).unchecked_into(),
        ),
    ))
    .await;
    assert_eq!(code(result), "timeout");
    assert_eq!(*seen.borrow(), ["Pending"]);

    // Never found at all: still a timeout, not not_found.
    let result = wait(client.wait_for_donation(
        unique_key("missing").into(),
        Some(object(&[("timeoutMs", 1_500.into())]).unchecked_into()),
    ))
    .await;
    assert_eq!(code(result), "timeout");

    let controller = web_sys::AbortController::new().unwrap();
    let waiting = client.wait_for_donation(
        reference.as_str().into(),
        Some(object(&[("signal", controller.signal().into())]).unchecked_into()),
    );
    pause(300).await;
    controller.abort();
    let started = js_sys::Date::now();
    assert_eq!(code(wait(waiting).await), "aborted");
    assert!(
        js_sys::Date::now() - started < 1_000.0,
        "the abort was not prompt"
    );
}

#[wasm_bindgen_test]
async fn bad_arguments_are_refused() {
    let client = client_for(BASE_URL);
    for (arg, options) in [
        (JsValue::from(""), None),
        (JsValue::from(5), None),
        ("ref".into(), Some(object(&[("timeoutMs", (-1).into())]))),
        (
            "ref".into(),
            Some(object(&[("onStatus", "not a function".into())])),
        ),
    ] {
        let result = wait(client.wait_for_donation(arg, options.map(JsCast::unchecked_into))).await;
        assert_eq!(code(result), "invalid_argument");
    }
}

/// Resolves on the next `sessionchange` of `client` with `[reason, session]`.
fn next_change(client: &fundraising_client::FundraisingClient) -> Promise {
    let mut listener = None;
    let promise = Promise::new(&mut |resolve, _| {
        let mut resolve = Some(resolve);
        let callback =
            Closure::<dyn FnMut(web_sys::CustomEvent)>::new(move |event: web_sys::CustomEvent| {
                if let Some(resolve) = resolve.take() {
                    let detail = event.detail();
                    let change = Array::of2(&field(&detail, "reason"), &field(&detail, "session"));
                    resolve.call1(&JsValue::NULL, &change).unwrap();
                }
            });
        listener = Some(
            callback
                .into_js_value()
                .unchecked_into::<js_sys::Function>(),
        );
    });
    client.add_event_listener("sessionchange", &listener.unwrap());
    promise
}

#[wasm_bindgen_test]
async fn session_changes_are_events_and_a_sign_out_reaches_the_other_tab() {
    let here = signing_client();
    let other_tab = signing_client();
    let authorize = here
        .prepare_redirect(&fundraising_client::SignInOptions::default())
        .unwrap();
    let callback = mint(&authorize, "allow").await;

    let changed = next_change(&here);
    let picked_up = next_change(&other_tab);
    wait(here.handle_callback(Some(callback)))
        .await
        .expect("signed in");
    let change = Array::from(&JsFuture::from(changed).await.unwrap());
    assert_eq!(change.get(0), "signin");
    assert_eq!(text(&change.get(1), "profile.name"), "Demo Fundraiser");

    // The other tab picks the sign-in up through the companion's session.
    let change = Array::from(&JsFuture::from(picked_up).await.unwrap());
    assert_eq!(change.get(0), "signin");
    assert_eq!(text(&change.get(1), "profile.name"), "Demo Fundraiser");
    assert!(!other_tab.session().unwrap().is_null());

    // A sign-out here signs the other tab out.
    let changed = next_change(&here);
    let signed_out = next_change(&other_tab);
    wait(here.sign_out()).await.expect("signed out");
    let change = Array::from(&JsFuture::from(changed).await.unwrap());
    assert_eq!(change.get(0), "signout");
    assert!(change.get(1).is_null());
    let change = Array::from(&JsFuture::from(signed_out).await.unwrap());
    assert_eq!(change.get(0), "signout");
    assert!(other_tab.session().unwrap().is_null());
}
