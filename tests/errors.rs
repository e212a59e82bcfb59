//! Failures: invalid arguments refused before any request, 404 with the service's message,
//! retries of reads after 503 (and none of createEvent), abort, and the error class itself.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use js_sys::Object;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn opts(fields: &[(&str, JsValue)]) -> Option<Object> {
    Some(object(fields).unchecked_into())
}

fn date(ms: f64) -> JsValue {
    js_sys::Date::new(&JsValue::from_f64(ms)).into()
}

#[wasm_bindgen_test]
async fn every_invalid_argument_is_refused_before_any_request() {
    let key = unique_key("invalid");
    let client = client_for(&faulty_base_url(&key, 0, 0));
    let n = JsValue::from_f64;
    let cases = vec![
        (
            "pageSize over 100",
            client.get_event_pages(n(1001.0), opts(&[("pageSize", n(101.0))])),
        ),
        (
            "pageSize under 1",
            client.get_event_pages(n(1001.0), opts(&[("pageSize", n(0.0))])),
        ),
        (
            "pageSize not whole",
            client.get_event_pages(n(1001.0), opts(&[("pageSize", n(10.5))])),
        ),
        (
            "page under 1",
            client.get_event_pages(n(1001.0), opts(&[("page", n(0.0))])),
        ),
        (
            "page negative",
            client.get_event_pages(n(1001.0), opts(&[("page", n(-2.0))])),
        ),
        ("empty shortName", client.get_campaign("".into(), None)),
        ("blank shortName", client.get_campaign("   ".into(), None)),
        ("shortName not a string", client.get_campaign(n(5.0), None)),
        (
            "empty reference",
            client.get_donation_by_reference("".into(), None),
        ),
        (
            "eventId over 32 bits",
            client.get_event_pages(n(2_147_483_648.0), None),
        ),
        (
            "eventId under 32 bits",
            client.get_event_pages(n(-2_147_483_649.0), None),
        ),
        ("eventId not whole", client.get_event_pages(n(1001.5), None)),
        ("eventId NaN", client.get_event_pages(n(f64::NAN), None)),
        (
            "eventId a string",
            client.get_event_pages("1001".into(), None),
        ),
        (
            "event without name",
            client.create_event(object(&[("eventType", "Walks".into())]), None),
        ),
        (
            "event with blank name",
            client.create_event(
                object(&[("name", " ".into()), ("eventType", "Walks".into())]),
                None,
            ),
        ),
        (
            "event without eventType",
            client.create_event(object(&[("name", "A walk".into())]), None),
        ),
        (
            "event starting after completion",
            client.create_event(
                object(&[
                    ("name", "A walk".into()),
                    ("eventType", "Walks".into()),
                    ("startDate", date(BASE_MS + DAY_MS)),
                    ("completionDate", date(BASE_MS)),
                ]),
                None,
            ),
        ),
        (
            "event completed after expiry",
            client.create_event(
                object(&[
                    ("name", "A walk".into()),
                    ("eventType", "Walks".into()),
                    ("completionDate", date(BASE_MS + 2.0 * DAY_MS)),
                    ("expiryDate", date(BASE_MS)),
                ]),
                None,
            ),
        ),
        (
            "event not an object",
            client.create_event("a walk".into(), None),
        ),
    ];
    for (name, promise) in cases {
        match wait(promise).await {
            Ok(v) => panic!("{name}: expected invalid_argument, got {v:?}"),
            Err(e) => {
                let (code, status, message) = error_parts(&e);
                assert_eq!(code, "invalid_argument", "{name}: {message}");
                assert!(status.is_null(), "{name}: status {status:?}");
                assert!(!message.is_empty());
            }
        }
    }
    // eventPages refuses at once, synchronously.
    for (name, size) in [("pageSize 101", 101.0), ("pageSize 0", 0.0)] {
        let thrown = client
            .event_pages(n(1001.0), opts(&[("pageSize", n(size))]))
            .expect_err(name);
        assert_eq!(error_parts(&thrown).0, "invalid_argument", "{name}");
    }
    let thrown = client
        .event_pages(n(4_294_967_296.0), None)
        .expect_err("eventId");
    assert_eq!(error_parts(&thrown).0, "invalid_argument");

    // Not one request reached the (counting) proxy.
    assert_eq!(requests_seen(&key).await, 0.0);
    // ...which does count: a valid call is one request.
    wait(client.get_campaign("demo-campaign".into(), None))
        .await
        .expect("valid call");
    assert_eq!(requests_seen(&key).await, 1.0);
}

#[wasm_bindgen_test]
fn bad_constructor_options_throw_invalid_argument() {
    let missing_base =
        fundraising_client::FundraisingClient::new(object(&[("appId", "demo-app".into())]));
    assert_eq!(
        error_parts(&missing_base.err().expect("no baseUrl")).0,
        "invalid_argument"
    );
    let relative = fundraising_client::FundraisingClient::new(object(&[
        ("appId", "demo-app".into()),
        ("baseUrl", "/api".into()),
    ]));
    assert_eq!(
        error_parts(&relative.err().expect("relative baseUrl")).0,
        "invalid_argument"
    );
    let empty_app = fundraising_client::FundraisingClient::new(object(&[
        ("appId", "".into()),
        ("baseUrl", BASE_URL.into()),
    ]));
    assert_eq!(
        error_parts(&empty_app.err().expect("empty appId")).0,
        "invalid_argument"
    );
    // Every options object is read as one record: a member of the wrong type is refused, and
    // a missing required member is named in the message.
    let wrong_type = fundraising_client::FundraisingClient::new(object(&[
        ("appId", "demo-app".into()),
        ("baseUrl", BASE_URL.into()),
        ("timeoutMs", "1000".into()),
    ]));
    assert_eq!(
        error_parts(&wrong_type.err().expect("timeoutMs as text")).0,
        "invalid_argument"
    );
    let missing_app =
        fundraising_client::FundraisingClient::new(object(&[("baseUrl", BASE_URL.into())]));
    let (code, _, message) = error_parts(&missing_app.err().expect("no appId"));
    assert_eq!(code, "invalid_argument");
    assert!(message.contains("appId"), "{message}");
}

#[wasm_bindgen_test]
async fn unknown_campaign_and_donation_are_not_found_with_the_service_message() {
    let client = client_for(BASE_URL);
    let e = wait(client.get_campaign("no-such-campaign".into(), None))
        .await
        .expect_err("404");
    let (code, status, message) = error_parts(&e);
    assert_eq!(code, "not_found");
    assert_eq!(status.as_f64(), Some(404.0));
    assert!(
        message.contains(r#"No campaign has the short name "no-such-campaign"."#),
        "message: {message}"
    );

    let e = wait(client.get_donation_by_reference("no-such-ref".into(), None))
        .await
        .expect_err("404");
    let (code, status, message) = error_parts(&e);
    assert_eq!(code, "not_found");
    assert_eq!(status.as_f64(), Some(404.0));
    assert!(
        message.len() > "not found (404): ".len(),
        "message: {message}"
    );
}

#[wasm_bindgen_test]
async fn a_read_is_retried_after_503_and_gives_up_after_two_retries() {
    // Two 503s, then the sandbox: the third attempt succeeds.
    let key = unique_key("retry");
    let client = client_for(&faulty_base_url(&key, 2, 0));
    let c = wait(client.get_campaign("demo-campaign".into(), None))
        .await
        .expect("retried");
    assert_eq!(text(&c, "shortName"), "demo-campaign");
    assert_eq!(requests_seen(&key).await, 3.0);

    // Three 503s: two retries, then the 503 is the answer.
    let key = unique_key("retry-give-up");
    let client = client_for(&faulty_base_url(&key, 3, 0));
    let e = wait(client.get_donation_by_reference("demo-ref-2".into(), None))
        .await
        .expect_err("503");
    let (code, status, _) = error_parts(&e);
    assert_eq!(code, "http_error");
    assert_eq!(status.as_f64(), Some(503.0));
    assert_eq!(requests_seen(&key).await, 3.0);
}

#[wasm_bindgen_test]
async fn retry_after_is_honoured() {
    let key = unique_key("retry-after");
    let client = client_for(&faulty_base_url(&key, 1, 1));
    let started = js_sys::Date::now();
    wait(client.get_campaign("demo-campaign".into(), None))
        .await
        .expect("retried");
    let elapsed = js_sys::Date::now() - started;
    assert!(
        elapsed >= 1000.0,
        "waited only {elapsed} ms despite Retry-After: 1"
    );
    assert_eq!(requests_seen(&key).await, 2.0);
}

#[wasm_bindgen_test]
async fn create_event_is_never_retried() {
    let key = unique_key("no-retry");
    let client = client_for(&faulty_base_url(&key, 1, 0));
    let event = object(&[
        ("name", "Never twice".into()),
        ("eventType", "Treks".into()),
    ]);
    let e = wait(client.create_event(event, None))
        .await
        .expect_err("503");
    let (code, status, _) = error_parts(&e);
    assert_eq!(code, "http_error");
    assert_eq!(status.as_f64(), Some(503.0));
    assert_eq!(requests_seen(&key).await, 1.0);
}

#[wasm_bindgen_test]
async fn abort_rejects_with_aborted() {
    // Already aborted: nothing is sent.
    let key = unique_key("abort");
    let client = client_for(&faulty_base_url(&key, 1, 30));
    let controller = web_sys::AbortController::new().unwrap();
    controller.abort();
    let e = wait(client.get_campaign(
        "demo-campaign".into(),
        opts(&[("signal", controller.signal().into())]),
    ))
    .await
    .expect_err("aborted");
    assert_eq!(error_parts(&e).0, "aborted");
    assert_eq!(requests_seen(&key).await, 0.0);

    // Aborted while waiting (the proxy's 503 says retry after 30 s).
    let controller = web_sys::AbortController::new().unwrap();
    let pending = client.get_campaign(
        "demo-campaign".into(),
        opts(&[("signal", controller.signal().into())]),
    );
    let deadline = js_sys::Date::now() + 5000.0;
    while requests_seen(&key).await < 1.0 {
        assert!(
            js_sys::Date::now() < deadline,
            "the first request never arrived"
        );
        pause(20).await;
    }
    let started = js_sys::Date::now();
    controller.abort();
    let e = wait(pending).await.expect_err("aborted");
    assert_eq!(error_parts(&e).0, "aborted");
    assert!(
        js_sys::Date::now() - started < 2000.0,
        "abort was not prompt"
    );
    assert_eq!(requests_seen(&key).await, 1.0);

    // Aborting a request in flight (the iterator's next() too).
    let controller = web_sys::AbortController::new().unwrap();
    let iterator = client_for(BASE_URL)
        .event_pages(
            JsValue::from_f64(1001.0),
            opts(&[("signal", controller.signal().into())]),
        )
        .unwrap();
    let next: js_sys::Function = field(&iterator, "next").dyn_into().unwrap();
    let step = next.call0(&iterator).unwrap();
    controller.abort();
    let e = wait(step.unchecked_into()).await.expect_err("aborted");
    assert_eq!(error_parts(&e).0, "aborted");
}

#[wasm_bindgen_test]
async fn network_failure_is_network_error_after_retries() {
    // Nothing listens on port 9 of loopback.
    let client = client_for("http://127.0.0.1:9");
    let e = wait(client.get_campaign("demo-campaign".into(), None))
        .await
        .expect_err("network");
    let (code, status, _) = error_parts(&e);
    assert_eq!(code, "network_error");
    assert!(status.is_null());
}

#[wasm_bindgen_test]
async fn a_slow_answer_is_a_timeout() {
    let base = [HELPER_URL, "/slow/3000"].concat();
    let client = fundraising_client::FundraisingClient::new(object(&[
        ("appId", APP_ID.into()),
        ("baseUrl", base.into()),
        ("timeoutMs", JsValue::from_f64(300.0)),
    ]))
    .unwrap();
    let started = js_sys::Date::now();
    let e = wait(client.get_campaign("demo-campaign".into(), None))
        .await
        .expect_err("timeout");
    let (code, status, _) = error_parts(&e);
    assert_eq!(code, "timeout");
    assert!(status.is_null());
    // Timeouts are not retried: one wait of about 300 ms, not three.
    assert!(js_sys::Date::now() - started < 2500.0);
}
