//! The JavaScript face of the package, as JS sees it: every method of `FundraisingClient` at
//! least once, `FundraisingError`'s shape, plain objects with `Date`s and `null` for absent
//! values, the options objects, `AbortSignal`s, the `sessionchange` event and the async
//! iterator. (Behaviour is checked through the typed API in the other suites; both faces take
//! one path.) Runs with the `js` feature, as the npm package is built.
#![cfg(target_arch = "wasm32")]

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use common::*;
use fundraising_client::js::{new_donation_reference, FundraisingClient};
use js_sys::{Array, Function, Object, Promise, Reflect, Symbol};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A plain JS object from `(name, value)` pairs.
fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let object = Object::new();
    for (name, value) in fields {
        Reflect::set(&object, &JsValue::from_str(name), value).unwrap();
    }
    object.into()
}

fn opts(fields: &[(&str, JsValue)]) -> Option<Object> {
    Some(object(fields).unchecked_into())
}

fn js_client(fields: &[(&str, JsValue)]) -> Result<FundraisingClient, JsValue> {
    FundraisingClient::new(object(fields))
}

fn resource_client(base_url: &str) -> FundraisingClient {
    js_client(&[("appId", APP_ID.into()), ("baseUrl", base_url.into())]).expect("client")
}

#[cfg(feature = "signin")]
fn js_signing_client() -> FundraisingClient {
    let scopes: Array = ["fundraise", "offline_access", "email"]
        .iter()
        .map(|s| JsValue::from_str(s))
        .collect();
    js_client(&[
        ("appId", APP_ID.into()),
        ("baseUrl", BASE_URL.into()),
        ("authUrl", AUTH_URL.into()),
        ("redirectUri", [COMPANION_URL, "/"].concat().into()),
        ("companionUrl", COMPANION_URL.into()),
        ("scopes", scopes.into()),
    ])
    .expect("client")
}

async fn wait(promise: Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(promise).await
}

fn path(object: &JsValue, path: &str) -> JsValue {
    path.split('.')
        .fold(object.clone(), |value, name| field(&value, name))
}

fn text(object: &JsValue, name: &str) -> String {
    path(object, name)
        .as_string()
        .unwrap_or_else(|| panic!("{name} is not a string: {:?}", path(object, name)))
}

fn millis(object: &JsValue, name: &str) -> f64 {
    path(object, name)
        .dyn_into::<js_sys::Date>()
        .unwrap_or_else(|v| panic!("{name} is not a Date: {v:?}"))
        .get_time()
}

/// `(code, status, message)` of a `FundraisingError`, after checking it is one.
fn error_parts(error: &JsValue) -> (String, JsValue, String) {
    assert!(
        error.is_instance_of::<js_sys::Error>(),
        "not an Error: {error:?}"
    );
    assert_eq!(text(error, "name"), "FundraisingError");
    (
        text(error, "code"),
        field(error, "status"),
        text(error, "message"),
    )
}

fn code(result: Result<JsValue, JsValue>) -> String {
    match result {
        Ok(value) => panic!("expected a rejection, got {value:?}"),
        Err(error) => error_parts(&error).0,
    }
}

fn date(ms: i64) -> JsValue {
    js_sys::Date::new(&JsValue::from_f64(ms as f64)).into()
}

#[wasm_bindgen_test]
fn the_constructor_throws_fundraising_errors_naming_the_option() {
    let (invalid, status, message) = error_parts(
        &js_client(&[("baseUrl", BASE_URL.into())])
            .err()
            .expect("no appId"),
    );
    assert_eq!(invalid, "invalid_argument");
    assert!(status.is_null());
    assert!(message.contains("appId"), "{message}");
    // The engine's checks, too, name the options as JavaScript writes them.
    let relative = js_client(&[("appId", "demo-app".into()), ("baseUrl", "/api".into())])
        .err()
        .expect("relative baseUrl");
    let (_, _, message) = error_parts(&relative);
    assert_eq!(message, "invalid baseUrl: must be an absolute URL");
    for (what, fields) in [
        ("no baseUrl", vec![("appId", "demo-app".into())]),
        (
            "relative baseUrl",
            vec![("appId", "demo-app".into()), ("baseUrl", "/api".into())],
        ),
        (
            "timeoutMs as text",
            vec![
                ("appId", "demo-app".into()),
                ("baseUrl", BASE_URL.into()),
                ("timeoutMs", "1000".into()),
            ],
        ),
        (
            "bff as text",
            vec![
                ("appId", "demo-app".into()),
                ("baseUrl", BASE_URL.into()),
                ("bff", "yes".into()),
            ],
        ),
    ] {
        let e = js_client(&fields).err().unwrap_or_else(|| panic!("{what}"));
        assert_eq!(error_parts(&e).0, "invalid_argument", "{what}");
    }
    let not_an_object = FundraisingClient::new("demo-app".into())
        .err()
        .expect("a string");
    assert_eq!(error_parts(&not_an_object).0, "invalid_argument");
}

#[wasm_bindgen_test]
async fn results_are_plain_objects_with_dates_and_null_for_absent_values() {
    let client = resource_client(BASE_URL);
    let c = wait(client.get_campaign("demo-campaign".into(), None))
        .await
        .expect("campaign");
    assert_eq!(
        Object::get_prototype_of(&c),
        Object::get_prototype_of(&Object::new())
    );
    assert_eq!(text(&c, "shortName"), "demo-campaign");
    assert_eq!(text(&c, "currency.currencyCode"), "GBP");
    assert_eq!(millis(&c, "startDate"), (BASE_MS - 120 * DAY_MS) as f64);
    assert!(
        field(&c, "brandingGuid").is_null(),
        "absent is null, not undefined"
    );
    assert!(field(&c, "fundraising").is_null());
    assert_eq!(
        path(&c, "donationSummary.totalAmount").as_f64(),
        Some(4670.0)
    );
    // The service's PascalCase does not leak through; free members pass through as sent.
    assert!(field(&c, "CampaignGuid").is_undefined());
    let charities = Array::from(&field(&c, "charities"));
    assert_eq!(text(&charities.get(0), "Name"), "Water For All");

    let d = wait(client.get_donation_by_reference("demo-ref-2".into(), None))
        .await
        .expect("donation");
    assert_eq!(millis(&d, "donationDate"), (BASE_MS + 3_600_000) as f64);
    assert_eq!(text(&d, "amount"), "10.00");
    assert!(field(&d, "donorRealName").is_null());
    assert_eq!(field(&d, "hasImage").as_bool(), Some(true));

    let pages = wait(client.get_event_pages(
        1001.into(),
        opts(&[("page", 3.into()), ("pageSize", 100.into())]),
    ))
    .await
    .expect("pages");
    assert_eq!(field(&pages, "totalPages").as_f64(), Some(3.0));
    let list = Array::from(&field(&pages, "fundraisingPages"));
    assert_eq!(list.length(), 50);
    assert_eq!(millis(&list.get(0), "createdDate"), -62_135_596_800_000.0);
    assert!(field(&list.get(24), "updatedDate").is_null());
}

#[wasm_bindgen_test]
async fn failures_reject_with_a_fundraising_error() {
    let client = resource_client(BASE_URL);
    let e = wait(client.get_campaign("no-such-campaign".into(), None))
        .await
        .expect_err("404");
    let (not_found, status, message) = error_parts(&e);
    assert_eq!(not_found, "not_found");
    assert_eq!(status.as_f64(), Some(404.0));
    assert!(message.contains("no-such-campaign"), "{message}");
    // The class is exported for `instanceof`: the error's constructor is it.
    assert_eq!(text(&field(&e, "constructor"), "name"), "FundraisingError");

    // Arguments of the wrong JS type, and options members of the wrong type.
    let n = JsValue::from_f64;
    for (what, promise) in [
        ("shortName a number", client.get_campaign(n(5.0), None)),
        (
            "reference a number",
            client.get_donation_by_reference(n(5.0), None),
        ),
        (
            "eventId a string",
            client.get_event_pages("1001".into(), None),
        ),
        ("eventId NaN", client.get_event_pages(n(f64::NAN), None)),
        (
            "pageSize a string",
            client.get_event_pages(n(1001.0), opts(&[("pageSize", "x".into())])),
        ),
        (
            "page not whole",
            client.get_event_pages(n(1001.0), opts(&[("page", n(1.5))])),
        ),
        (
            "options a string",
            client.get_campaign(
                "demo-campaign".into(),
                Some(JsValue::from("x").unchecked_into()),
            ),
        ),
        (
            "signal not a signal",
            client.get_campaign("demo-campaign".into(), opts(&[("signal", "x".into())])),
        ),
        (
            "event not an object",
            client.create_event("a walk".into(), None),
        ),
        (
            "event date invalid",
            client.create_event(
                object(&[
                    ("name", "A walk".into()),
                    ("eventType", "Walks".into()),
                    ("startDate", js_sys::Date::new(&"nope".into()).into()),
                ]),
                None,
            ),
        ),
        ("reference empty", client.wait_for_donation("".into(), None)),
        (
            "onStatus not a function",
            client.wait_for_donation("r".into(), opts(&[("onStatus", "x".into())])),
        ),
        (
            "timeoutMs negative",
            client.wait_for_donation("r".into(), opts(&[("timeoutMs", n(-1.0))])),
        ),
    ] {
        assert_eq!(code(wait(promise).await), "invalid_argument", "{what}");
    }
    // eventPages throws at once.
    let thrown = client
        .event_pages(n(1001.0), opts(&[("pageSize", n(101.0))]))
        .expect_err("pageSize 101");
    assert_eq!(error_parts(&thrown).0, "invalid_argument");
}

#[wasm_bindgen_test]
async fn create_event_takes_js_dates_and_the_services_own_strings() {
    let key = unique_key("js-dates");
    let client = resource_client(&faulty_base_url(&key, 0, 0));
    let created = wait(client.create_event(
        object(&[
            ("name", "JS dates".into()),
            ("eventType", "Walks".into()),
            ("startDate", date(1_893_456_000_000)),
            ("completionDate", "/Date(1893542400000+0000)/".into()),
        ]),
        None,
    ))
    .await
    .expect("created");
    assert!(field(&created, "id").as_f64().unwrap() > 1001.0);
    let sent = body_seen(&key).await;
    assert!(
        sent.contains(r#""startDate":"\/Date(1893456000000+0000)\/""#),
        "{sent}"
    );
    assert!(
        sent.contains(r#""completionDate":"\/Date(1893542400000+0000)\/""#),
        "{sent}"
    );
}

#[wasm_bindgen_test]
async fn an_abort_signal_rejects_with_aborted() {
    // Already aborted: nothing is sent.
    let key = unique_key("js-abort");
    let client = resource_client(&faulty_base_url(&key, 1, 9));
    let controller = web_sys::AbortController::new().unwrap();
    controller.abort();
    let signal = || opts(&[("signal", controller.signal().into())]);
    assert_eq!(
        code(wait(client.get_campaign("demo-campaign".into(), signal())).await),
        "aborted"
    );
    assert_eq!(requests_seen(&key).await, 0.0);

    // Aborted while waiting to retry (the proxy's 503 says retry after 9 s).
    let controller = web_sys::AbortController::new().unwrap();
    let pending = client.get_campaign(
        "demo-campaign".into(),
        opts(&[("signal", controller.signal().into())]),
    );
    until(5_000.0, "the first request never arrived", || async {
        requests_seen(&key).await >= 1.0
    })
    .await;
    let started = js_sys::Date::now();
    controller.abort();
    assert_eq!(code(wait(pending).await), "aborted");
    assert!(
        js_sys::Date::now() - started < 2000.0,
        "abort was not prompt"
    );
    assert_eq!(requests_seen(&key).await, 1.0);

    // A request in flight: the iterator's next().
    let controller = web_sys::AbortController::new().unwrap();
    let iterator = resource_client(&hanging_base_url(&unique_key("js-abort-next")))
        .event_pages(
            JsValue::from_f64(1001.0),
            opts(&[("signal", controller.signal().into())]),
        )
        .unwrap();
    let next: Function = field(&iterator, "next").dyn_into().unwrap();
    let step = next.call0(&iterator).unwrap();
    pause(100).await;
    controller.abort();
    assert_eq!(code(wait(step.unchecked_into()).await), "aborted");
}

#[wasm_bindgen_test]
async fn event_pages_is_an_async_iterator_that_answers_overlapping_calls_in_turn() {
    let key = unique_key("js-iterate");
    let client = resource_client(&faulty_base_url(&key, 0, 0));
    let iterator = client
        .event_pages(1001.into(), opts(&[("pageSize", 100.into())]))
        .expect("iterator");
    // for await (...) protocol: [Symbol.asyncIterator]() returns the iterator itself.
    let method: Function = Reflect::get(&iterator, &Symbol::async_iterator())
        .unwrap()
        .dyn_into()
        .expect("asyncIterator");
    assert!(Object::is(&method.call0(&iterator).unwrap(), &iterator));

    let next: Function = field(&iterator, "next").dyn_into().unwrap();
    // All 251 calls at once, without awaiting: each gets the next summary, in order.
    let steps: Vec<Promise> = (0..251)
        .map(|_| next.call0(&iterator).unwrap().unchecked_into())
        .collect();
    let mut ids = Vec::new();
    for step in steps {
        let step = wait(step).await.expect("next");
        if field(&step, "done").as_bool() == Some(true) {
            assert!(field(&step, "value").is_undefined());
            break;
        }
        assert_eq!(field(&step, "done").as_bool(), Some(false));
        ids.push(field(&field(&step, "value"), "pageId").as_f64().unwrap());
    }
    let expected: Vec<f64> = (1..=250).map(|i| 200_000.0 + f64::from(i)).collect();
    assert_eq!(ids, expected);
    assert_eq!(requests_seen(&key).await, 3.0);
}

#[wasm_bindgen_test]
async fn wait_for_donation_calls_on_status_with_the_status_and_the_donation() {
    let seen: Rc<RefCell<Vec<String>>> = Rc::default();
    let sink = seen.clone();
    let on_status =
        Closure::<dyn FnMut(String, JsValue)>::new(move |status: String, donation: JsValue| {
            assert_eq!(text(&donation, "status"), status);
            sink.borrow_mut().push(status);
        });
    let client = resource_client(BASE_URL);
    // demo-ref-1 is Accepted: one call, then the donation.
    let donation = wait(client.wait_for_donation(
        "demo-ref-1".into(),
        opts(&[
            ("onStatus", on_status.as_ref().clone()),
            ("timeoutMs", 10_000.into()),
        ]),
    ))
    .await
    .expect("donation");
    assert_eq!(text(&donation, "status"), "Accepted");
    assert_eq!(*seen.borrow(), ["Accepted"]);
}

/// Resolves on the next `sessionchange` of `client` with its event.
#[cfg(feature = "signin")]
fn next_change(client: &FundraisingClient) -> (Promise, Function) {
    let mut listener = None;
    let promise = Promise::new(&mut |resolve, _| {
        let callback = Closure::once_into_js(move |event: JsValue| {
            resolve.call1(&JsValue::NULL, &event).unwrap();
        });
        listener = Some(callback.unchecked_into::<Function>());
    });
    let listener = listener.unwrap();
    client.add_event_listener("sessionchange", &listener);
    (promise, listener)
}

#[cfg(feature = "signin")]
#[wasm_bindgen_test]
async fn sign_in_session_token_events_and_sign_out() {
    let client = js_signing_client();
    assert!(client.session().is_null());
    // Without sign-in settings, both sign-in methods reject (and nothing navigates).
    let plain = resource_client(BASE_URL);
    assert_eq!(
        code(wait(plain.sign_in_with_popup(None)).await),
        "invalid_argument"
    );
    assert_eq!(
        code(wait(plain.sign_in_with_redirect(None)).await),
        "invalid_argument"
    );
    // A bad option is refused before any pop-up opens.
    assert_eq!(
        code(wait(client.sign_in_with_popup(opts(&[("timeoutMs", "soon".into())]))).await),
        "invalid_argument"
    );
    // Not a callback: null.
    let page = [COMPANION_URL, "/?page=2"].concat();
    assert!(wait(client.handle_callback(Some(page)))
        .await
        .unwrap()
        .is_null());

    // A redirect sign-in prepared through the typed API of the same page, finished here.
    let authorize = signing_client()
        .prepare_redirect(&Default::default())
        .unwrap();
    let callback = mint(&authorize, "allow").await;
    let (changed, listener) = next_change(&client);
    let session = wait(client.handle_callback(Some(callback)))
        .await
        .expect("session");
    let token = text(&session, "accessToken");
    assert!(millis(&session, "expiresAt") > js_sys::Date::now());
    assert_eq!(text(&session, "profile.name"), "Demo Fundraiser");
    assert_eq!(text(&client.session(), "accessToken"), token);
    let event = wait(changed).await.unwrap();
    assert!(event.is_instance_of::<web_sys::CustomEvent>());
    assert_eq!(
        event.unchecked_ref::<web_sys::Event>().type_(),
        "sessionchange"
    );
    let detail = field(&event, "detail");
    assert_eq!(text(&detail, "reason"), "signin");
    assert_eq!(text(&detail, "session.profile.email"), "demo@example.org");
    assert!(path(&detail, "session.expiresAt").is_instance_of::<js_sys::Date>());
    client.remove_event_listener("sessionchange", &listener);

    assert_eq!(
        wait(client.get_access_token(None))
            .await
            .unwrap()
            .as_string(),
        Some(token)
    );

    // A removed listener hears nothing; a new one hears the sign-out.
    let heard = Rc::new(RefCell::new(0));
    let count = heard.clone();
    let removed = Closure::<dyn FnMut(JsValue)>::new(move |_| *count.borrow_mut() += 1);
    let removed: Function = removed.into_js_value().unchecked_into();
    client.add_event_listener("sessionchange", &removed);
    client.remove_event_listener("sessionchange", &removed);
    let (changed, _) = next_change(&client);
    assert!(wait(client.sign_out()).await.unwrap().is_undefined());
    let detail = field(&wait(changed).await.unwrap(), "detail");
    assert_eq!(text(&detail, "reason"), "signout");
    assert!(field(&detail, "session").is_null());
    assert!(client.session().is_null());
    assert_eq!(*heard.borrow(), 0);
    assert!(wait(client.get_access_token(None)).await.unwrap().is_null());
}

#[cfg(feature = "signin")]
#[wasm_bindgen_test]
async fn restore_session_and_the_session_state() {
    // Without a companion: signed out from the start, and nothing to restore.
    let plain = resource_client(BASE_URL);
    assert_eq!(plain.session_state(), "signedOut");
    assert!(wait(plain.restore_session()).await.unwrap().is_null());

    wait(js_signing_client().sign_out()).await.unwrap();
    let client = js_signing_client();
    assert_eq!(client.session_state(), "unknown");
    let (changed, listener) = next_change(&client);
    assert!(wait(client.restore_session()).await.unwrap().is_null());
    assert_eq!(client.session_state(), "signedOut");
    let detail = field(&wait(changed).await.unwrap(), "detail");
    assert_eq!(text(&detail, "reason"), "restore");
    assert_eq!(text(&detail, "state"), "signedOut");
    assert!(field(&detail, "session").is_null());
    client.remove_event_listener("sessionchange", &listener);

    let authorize = signing_client()
        .prepare_redirect(&Default::default())
        .unwrap();
    let callback = mint(&authorize, "allow").await;
    let (changed, listener) = next_change(&client);
    wait(client.handle_callback(Some(callback))).await.unwrap();
    let detail = field(&wait(changed).await.unwrap(), "detail");
    assert_eq!(text(&detail, "state"), "signedIn");
    assert_eq!(client.session_state(), "signedIn");
    client.remove_event_listener("sessionchange", &listener);

    // The page again: the session comes back with a fresh token.
    let reloaded = js_signing_client();
    assert_eq!(reloaded.session_state(), "unknown");
    let session = wait(reloaded.restore_session()).await.expect("restored");
    assert_ne!(
        text(&session, "accessToken"),
        text(&client.session(), "accessToken")
    );
    assert_eq!(text(&reloaded.session(), "profile.name"), "Demo Fundraiser");
    assert_eq!(reloaded.session_state(), "signedIn");
    wait(reloaded.sign_out()).await.unwrap();
    assert_eq!(reloaded.session_state(), "signedOut");

    // A companion that cannot be reached: signed out, and the reason.
    let unreachable = js_client(&[
        ("appId", APP_ID.into()),
        ("baseUrl", BASE_URL.into()),
        ("authUrl", AUTH_URL.into()),
        ("redirectUri", [COMPANION_URL, "/"].concat().into()),
        ("companionUrl", "http://127.0.0.1:9".into()),
    ])
    .unwrap();
    assert_eq!(
        code(wait(unreachable.restore_session()).await),
        "network_error"
    );
    assert_eq!(unreachable.session_state(), "signedOut");
}

#[wasm_bindgen_test]
fn new_donation_reference_gives_fresh_guids() {
    let a = new_donation_reference().unwrap();
    let b = new_donation_reference().unwrap();
    assert_ne!(a, b);
    assert_eq!(a.len(), 36);
}
