//! Failures of the typed API in a browser: invalid arguments and options refused before any
//! request, 404 with the service's message, cancelling by dropping a future (the browser closes
//! the connection) and the browser's own error behind a network failure. The retry policy, its
//! backoff and `Retry-After`, and timeouts are tested natively (tests/native/), and against the
//! sandbox's faults in tests/faults.rs.
#![cfg(target_arch = "wasm32")]

mod common;

use std::time::Duration;

use common::*;
use fundraising_client::model::{Event, EventType};
use fundraising_client::{code, Client, ClientOptions, Error, ScriptError, ServiceDate};
use futures_util::future::{select, Either};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn invalid(result: Result<impl std::fmt::Debug, Error>, what: &str) -> String {
    match result {
        Err(e) => {
            assert_eq!(e.code(), code::INVALID_ARGUMENT, "{what}: {e}");
            assert_eq!(e.status(), None, "{what}");
            assert!(!e.to_string().is_empty());
            e.to_string()
        }
        Ok(v) => panic!("{what}: expected invalid_argument, got {v:?}"),
    }
}

fn walk(name: &str) -> Event {
    Event::new(name, EventType::Walks)
}

#[wasm_bindgen_test]
async fn every_invalid_argument_is_refused_before_any_request() {
    let key = unique_key("invalid");
    let client = client_for(&faulty_base_url(&key, 0, 0));
    let day = |n: i64| ServiceDate::from_millis(BASE_MS + n * DAY_MS);

    invalid(
        client.event_pages(1001, None, Some(101)).await,
        "pageSize over 100",
    );
    invalid(
        client.event_pages(1001, None, Some(0)).await,
        "pageSize under 1",
    );
    invalid(
        client.event_pages(1001, Some(0), None).await,
        "page under 1",
    );
    invalid(client.campaign("").await, "empty shortName");
    invalid(client.campaign("   ").await, "blank shortName");
    invalid(client.donation("").await, "empty reference");
    let message = invalid(client.create_event(&walk("")).await, "event without name");
    assert!(message.starts_with("invalid name: "), "{message}");
    invalid(client.create_event(&walk(" ")).await, "blank name");
    let untyped = Event::new("A walk", "");
    let message = invalid(client.create_event(&untyped).await, "no event_type");
    assert!(message.starts_with("invalid event_type: "), "{message}");
    let early = walk("A walk").start_date(day(1)).completion_date(day(0));
    let message = invalid(client.create_event(&early).await, "start after completion");
    assert!(
        message.starts_with("invalid completion_date: "),
        "{message}"
    );
    let late = walk("A walk").completion_date(day(2)).expiry_date(day(0));
    invalid(client.create_event(&late).await, "completed after expiry");
    let message = invalid(
        client.event_pages(1001, None, Some(101)).await,
        "page size named",
    );
    assert_eq!(
        message,
        "invalid page_size: must be between 1 and 100, got 101"
    );
    invalid(
        client.event_pages_stream(1001, Some(101)),
        "stream pageSize 101",
    );
    invalid(
        client.event_pages_stream(1001, Some(0)),
        "stream pageSize 0",
    );

    // Not one request reached the (counting) proxy.
    assert_eq!(requests_seen(&key).await, 0.0);
    // ...which does count: a valid call is one request.
    client.campaign("demo-campaign").await.expect("valid call");
    assert_eq!(requests_seen(&key).await, 1.0);
}

#[wasm_bindgen_test]
fn bad_options_are_refused_naming_the_option_by_its_rust_name() {
    let refused = |options: ClientOptions, option: &str| {
        let message = invalid(Client::new(options), option);
        assert!(
            message.starts_with(&["invalid ", option, ": "].concat()),
            "{option}: {message}"
        );
    };
    refused(ClientOptions::new("demo-app", ""), "base_url");
    refused(ClientOptions::new("demo-app", "/api"), "base_url");
    refused(
        ClientOptions::new("demo-app", "ftp://example.org"),
        "base_url",
    );
    refused(ClientOptions::new("", BASE_URL), "app_id");
    refused(
        ClientOptions::new("demo-app", BASE_URL).timeout(Duration::ZERO),
        "timeout",
    );
    refused(
        ClientOptions::new("demo-app", BASE_URL).bff(true),
        "companion_url",
    );
    // A client without sign-in settings makes resource calls, and names what sign-in lacks.
    #[cfg(feature = "signin")]
    {
        let client = client_for(BASE_URL);
        let message = invalid(
            client.prepare_redirect(&Default::default()),
            "sign-in without settings",
        );
        assert!(message.starts_with("invalid auth_url: "), "{message}");
        let message = invalid(
            signing_client().prepare_redirect(
                &fundraising_client::SignInOptions::default().return_path("https://evil.example/"),
            ),
            "a return path off the site",
        );
        assert!(message.starts_with("invalid return_path: "), "{message}");
    }
}

#[wasm_bindgen_test]
async fn unknown_campaign_and_donation_are_not_found_with_the_service_message() {
    let client = client_for(BASE_URL);
    let e = client.campaign("no-such-campaign").await.expect_err("404");
    assert_eq!((e.code(), e.status()), (code::NOT_FOUND, Some(404)));
    match &e {
        Error::NotFound(answer) => {
            assert_eq!(answer.status, 404);
            assert_eq!(
                answer.message,
                r#"No campaign has the short name "no-such-campaign"."#
            );
        }
        other => panic!("{other:?}"),
    }
    // One message, from the service's answer, and the service's error id when it sends one.
    assert_eq!(
        e.to_string(),
        r#"HTTP 404: No campaign has the short name "no-such-campaign"."#
    );
    assert_eq!(e.service_error().map(|s| s.status), Some(404));
    let e = client.donation("no-such-ref").await.expect_err("404");
    assert_eq!((e.code(), e.status()), (code::NOT_FOUND, Some(404)));
    assert!(e.to_string().starts_with("HTTP 404: "), "{e}");
}

#[wasm_bindgen_test]
async fn dropping_a_future_aborts_its_request() {
    let key = unique_key("drop");
    let client = client_for(&hanging_base_url(&key));
    {
        let call = Box::pin(client.campaign("demo-campaign"));
        let arrived = Box::pin(until(5_000.0, "the request never arrived", || async {
            hang_state(&key).await.0
        }));
        // The request reaches the helper, which never answers; then the call is dropped.
        match select(call, arrived).await {
            Either::Left((result, _)) => panic!("the hanging call settled: {result:?}"),
            Either::Right(((), call)) => drop(call),
        }
    }
    // Dropping aborted the fetch: the browser closed its connection.
    until(
        5_000.0,
        "the dropped request's connection stayed open",
        || async { hang_state(&key).await.1 },
    )
    .await;

    // A page stream dropped with a request in flight aborts it too.
    let key = unique_key("drop-stream");
    let client = client_for(&hanging_base_url(&key));
    let mut pages = client.event_pages_stream(1001, None).unwrap();
    {
        use futures_util::StreamExt;
        let next = Box::pin(pages.next());
        let arrived = Box::pin(until(5_000.0, "the page request never arrived", || async {
            hang_state(&key).await.0
        }));
        assert!(matches!(select(next, arrived).await, Either::Right(_)));
    }
    drop(pages);
    until(
        5_000.0,
        "the dropped stream's request stayed open",
        || async { hang_state(&key).await.1 },
    )
    .await;
}

#[wasm_bindgen_test]
async fn a_network_error_keeps_the_browsers_error_as_its_source() {
    let e = client_for("http://127.0.0.1:9")
        .campaign("demo-campaign")
        .await
        .expect_err("network");
    let thrown = std::error::Error::source(&e)
        .and_then(|cause| cause.downcast_ref::<ScriptError>())
        .unwrap_or_else(|| panic!("no ScriptError behind {e}"));
    // Every engine rejects a fetch that cannot connect with a TypeError, in its own words.
    assert_eq!(thrown.name(), "TypeError", "{thrown}");
    assert!(!thrown.message().is_empty(), "{thrown}");
    assert_eq!(e.to_string(), "network error");
}
