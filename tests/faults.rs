//! The client where the sandbox's faults meet it: each fault gives the documented code, the
//! reads follow docs/api.md's retry table (asserted on the sandbox's request log), event
//! creation is never retried, each id_token a relying party must refuse fails the sign-in with
//! the companion's code, a revoked refresh chain signs the page out with reason `expired` in
//! both modes, and everything works again once the fault has healed. Faults are scoped to a
//! path of the test's own (a fresh event's pages, a staged donation) or counted, so they meet
//! no other test.
#![cfg(target_arch = "wasm32")]

mod common;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use common::*;
use fundraising_client::model::{Event, EventType};
use fundraising_client::{code, Client, ClientOptions, Reason, SessionChange, SignInOptions};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh event of this test's own: its pages' path meets no other test's faults.
async fn own_event(client: &Client) -> (i32, String) {
    let id = client
        .create_event(&Event::new("Faults", EventType::Walks))
        .await
        .expect("created")
        .id;
    (id, format!("/{APP_ID}/v1/event/{id}/pages"))
}

fn fault_on(path: &str, rest: &str) -> String {
    format!(r#"{{"endpoint": "pages", "path": "{path}", {rest}}}"#)
}

#[wasm_bindgen_test]
async fn a_503_on_a_list_is_retried_and_three_give_http_error() {
    let client = client_for(BASE_URL);
    let (id, path) = own_event(&client).await;
    let since = last_logged().await;
    add_fault(&fault_on(&path, r#""status": 503, "times": 1"#)).await;
    let pages = client.event_pages(id, None, None).await.expect("retried");
    assert_eq!(pages.total_fundraising_pages, 0);
    assert_eq!(
        logged(since, &path).await,
        [("GET".into(), 503), ("GET".into(), 200)]
    );

    let since = last_logged().await;
    add_fault(&fault_on(&path, r#""status": 503, "times": 3"#)).await;
    let e = client.event_pages(id, None, None).await.expect_err("503");
    assert_eq!((e.code(), e.status()), (code::HTTP_ERROR, Some(503)));
    assert_eq!(logged(since, &path).await.len(), 3, "two retries");
    // Healed.
    client.event_pages(id, None, None).await.expect("healed");
}

#[wasm_bindgen_test]
async fn a_429_is_retried_after_its_retry_after_up_to_the_cap_only() {
    let client = client_for(BASE_URL);
    let (id, path) = own_event(&client).await;
    let since = last_logged().await;
    add_fault(&fault_on(
        &path,
        r#""status": 429, "retry_after": 1, "times": 1"#,
    ))
    .await;
    let started = js_sys::Date::now();
    client.event_pages(id, None, None).await.expect("retried");
    let waited = js_sys::Date::now() - started;
    assert!(waited >= 1000.0, "waited {waited} ms, not the Retry-After");
    assert_eq!(
        logged(since, &path).await,
        [("GET".into(), 429), ("GET".into(), 200)]
    );

    // Asked to wait longer than 10 s, or not told how long: no retry, 429 at once.
    for rest in [r#""status": 429, "retry_after": 60"#, r#""status": 429"#] {
        let since = last_logged().await;
        let fault = add_fault(&fault_on(&path, rest)).await;
        let started = js_sys::Date::now();
        let e = client.event_pages(id, None, None).await.expect_err("429");
        assert_eq!(
            (e.code(), e.status()),
            (code::HTTP_ERROR, Some(429)),
            "{rest}"
        );
        assert!(js_sys::Date::now() - started < 3000.0, "{rest}: waited");
        assert_eq!(logged(since, &path).await, [("GET".into(), 429)], "{rest}");
        sandbox("DELETE", &format!("/_sandbox/faults/{fault}"), None).await;
    }
    // A 503 asking for more than 10 s is not retried either.
    let since = last_logged().await;
    add_fault(&fault_on(
        &path,
        r#""status": 503, "retry_after": 30, "times": 1"#,
    ))
    .await;
    let e = client.event_pages(id, None, None).await.expect_err("503");
    assert_eq!(e.status(), Some(503));
    assert_eq!(logged(since, &path).await.len(), 1);
}

#[wasm_bindgen_test]
async fn event_creation_is_never_retried_even_when_told_when_to_retry() {
    let client = client_for(BASE_URL);
    let path = format!("/{APP_ID}/v1/event/");
    let since = last_logged().await;
    add_fault(r#"{"endpoint": "create_event", "status": 429, "retry_after": 1, "times": 1}"#).await;
    let e = client
        .create_event(&Event::new("Never twice", EventType::Treks))
        .await
        .expect_err("429");
    assert_eq!((e.code(), e.status()), (code::HTTP_ERROR, Some(429)));
    assert_eq!(logged(since, &path).await, [("POST".into(), 429)]);
}

#[wasm_bindgen_test]
async fn a_dropped_connection_is_a_network_error_retried_until_it_heals() {
    let client = client_for(BASE_URL);
    let (id, path) = own_event(&client).await;
    let since = last_logged().await;
    add_fault(&fault_on(&path, r#""drop": true, "times": 1"#)).await;
    client.event_pages(id, None, None).await.expect("retried");
    assert_eq!(
        logged(since, &path).await,
        [("GET".into(), 0), ("GET".into(), 200)]
    );
    // Dropped until removed: three attempts, then network_error. (A browser sends a request
    // again by itself when a connection closes without an answer, Firefox up to ten times, so
    // each attempt reaches the sandbox at least once.)
    let since = last_logged().await;
    let fault = add_fault(&fault_on(&path, r#""drop": true"#)).await;
    let e = client
        .event_pages(id, None, None)
        .await
        .expect_err("dropped");
    assert_eq!((e.code(), e.status()), (code::NETWORK_ERROR, None));
    let seen = logged(since, &path).await;
    assert!(seen.len() >= 3, "{seen:?}");
    assert!(seen.iter().all(|(_, status)| *status == 0), "{seen:?}");
    sandbox("DELETE", &format!("/_sandbox/faults/{fault}"), None).await;
    client.event_pages(id, None, None).await.expect("healed");
}

#[wasm_bindgen_test]
async fn bodies_that_are_not_the_json_expected() {
    let client = client_for(BASE_URL);
    let (id, path) = own_event(&client).await;
    // A proxy's HTML error page on 502: retried like any 502, then its status.
    let since = last_logged().await;
    add_fault(&fault_on(
        &path,
        r#""status": 502, "body": "html", "times": 3"#,
    ))
    .await;
    let e = client.event_pages(id, None, None).await.expect_err("502");
    assert_eq!((e.code(), e.status()), (code::HTTP_ERROR, Some(502)));
    assert_eq!(logged(since, &path).await.len(), 3);
    // An answer cut short, and an HTML page with 200: decode_error, not retried.
    for rest in [
        r#""body": "truncated", "times": 1"#,
        r#""status": 200, "body": "html", "times": 1"#,
    ] {
        let since = last_logged().await;
        add_fault(&fault_on(&path, rest)).await;
        let e = client
            .event_pages(id, None, None)
            .await
            .expect_err("not JSON");
        assert_eq!(e.code(), code::DECODE_ERROR, "{rest}: {e}");
        assert_eq!(logged(since, &path).await.len(), 1, "{rest}");
    }
    client.event_pages(id, None, None).await.expect("healed");
}

#[wasm_bindgen_test]
async fn an_answer_slower_than_the_time_limit_is_a_timeout_not_retried() {
    let client =
        Client::new(ClientOptions::new(APP_ID, BASE_URL).timeout(Duration::from_millis(400)))
            .expect("client");
    let (id, path) = own_event(&client_for(BASE_URL)).await;
    let since = last_logged().await;
    add_fault(&fault_on(&path, r#""delay_ms": 1500, "times": 1"#)).await;
    let e = client.event_pages(id, None, None).await.expect_err("slow");
    assert_eq!(e.code(), code::TIMEOUT);
    // The sandbox logs the request once the browser has given it up: no answer went out.
    until(3_000.0, "the request was not logged", || async {
        !logged(since, &path).await.is_empty()
    })
    .await;
    assert_eq!(logged(since, &path).await, [("GET".into(), 0)]);
    client.event_pages(id, None, None).await.expect("healed");
}

/// Signs `client` in as the demo user through the sandbox's headless sign-in.
async fn sign_in(client: &Client) -> Result<(), fundraising_client::Error> {
    let authorize = client
        .prepare_redirect(&SignInOptions::default())
        .expect("authorize URL");
    let callback = headless_sign_in(&authorize, "demo@example.org").await;
    client.handle_callback(Some(&callback)).await.map(|_| ())
}

#[wasm_bindgen_test]
async fn each_id_token_a_relying_party_must_refuse_fails_the_sign_in_with_the_companions_code() {
    let client = signing_client();
    client.sign_out().await.expect("a clean start");
    for kind in [
        "unknown_key",
        "alg_none",
        "hs256",
        "wrong_iss",
        "wrong_aud",
        "missing_azp",
        "wrong_azp",
        "expired",
        "wrong_nonce",
    ] {
        add_fault(&format!(
            r#"{{"endpoint": "token", "app_id": "{APP_ID}", "grant_type": "authorization_code", "id_token": "{kind}", "times": 1}}"#
        ))
        .await;
        let e = sign_in(&client).await.expect_err(kind);
        let expected = if kind == "wrong_nonce" {
            "nonce_mismatch"
        } else {
            "id_token_invalid"
        };
        assert_eq!(e.code(), expected, "{kind}: {e}");
        assert_eq!(client.session(), None, "{kind}");
    }
    sign_in(&client).await.expect("healed: signed in");
    assert!(client.session().is_some());
    client.sign_out().await.expect("signed out");
}

fn recorder(
    client: &Client,
) -> (
    Rc<RefCell<Vec<SessionChange>>>,
    fundraising_client::Subscription,
) {
    let seen: Rc<RefCell<Vec<SessionChange>>> = Rc::default();
    let sink = seen.clone();
    let subscription =
        client.on_session_change(move |change| sink.borrow_mut().push(change.clone()));
    (seen, subscription)
}

/// A session whose refresh chain the identity server revoked: the next renewal fails and the
/// page is signed out with reason `expired`, in token-mediating mode and in BFF mode. The
/// access tokens are short-lived (a fault), so the next call renews at once.
#[wasm_bindgen_test]
async fn a_revoked_refresh_chain_signs_the_page_out_as_expired_in_both_modes() {
    for (client, app) in [(signing_client(), APP_ID), (bff_client(), BFF_APP_ID)] {
        client.sign_out().await.expect("a clean start");
        add_fault(&format!(
            r#"{{"endpoint": "token", "app_id": "{app}", "grant_type": "authorization_code", "expires_in": 30, "times": 1}}"#
        ))
        .await;
        sign_in(&client).await.expect("signed in");
        let (changes, _subscription) = recorder(&client);
        let (status, _) = sandbox(
            "POST",
            "/_sandbox/revocations",
            Some(&format!(
                r#"{{"user": "demo@example.org", "app_id": "{app}"}}"#
            )),
        )
        .await;
        assert_eq!(status, 200);
        // The next call needs a renewal, which the companion can no longer make.
        let _ = client.donation("demo-ref-1").await;
        until(5_000.0, "the page was not signed out", || async {
            client.session().is_none()
        })
        .await;
        let reasons: Vec<Reason> = changes.borrow().iter().map(|c| c.reason).collect();
        assert_eq!(reasons, [Reason::Expired], "{app}");
    }
}
