//! The retry policy of reads (docs/api.md's retry table), the timeout of each request and
//! cancelling, on the test clock: the backoffs are `300 · 2^n` ms scaled by the jitter (half,
//! with the service's random 0).

use fundraising_client::model::{Event, EventType};
use fundraising_client::{code, ClientOptions, Error};

use super::memory::{run, Reply, Service};
use super::{campaign, client, serve};

#[test]
fn a_read_is_retried_after_502_503_504_with_exponential_backoff() {
    for status in [502, 503, 504] {
        let (service, client) = serve([Reply::status(status), Reply::status(status), campaign()]);
        let found = run(&service, client.campaign("spring-appeal")).unwrap();
        assert_eq!(found.short_name, "spring-appeal");
        assert_eq!(service.times(), [0.0, 150.0, 450.0], "{status}");
    }
}

#[test]
fn network_errors_are_retried_like_502() {
    let (service, client) = serve([Reply::Network, Reply::Network, campaign()]);
    run(&service, client.campaign("spring-appeal")).unwrap();
    assert_eq!(service.times(), [0.0, 150.0, 450.0]);
}

#[test]
fn after_two_retries_the_last_failure_is_the_answer() {
    let (service, client) = serve(std::iter::repeat_n(Reply::status(503), 3));
    let e = run(&service, client.campaign("spring-appeal")).unwrap_err();
    assert_eq!((e.code(), e.status()), (code::HTTP_ERROR, Some(503)));
    assert_eq!(service.seen().len(), 3);

    let (service, client) = serve([Reply::Network, Reply::Network, Reply::Network]);
    let e = run(&service, client.campaign("spring-appeal")).unwrap_err();
    assert_eq!(e.code(), code::NETWORK_ERROR);
    assert!(matches!(e, Error::Network(ref cause) if cause.name() == "TypeError"));
    assert_eq!(service.seen().len(), 3);
}

#[test]
fn other_statuses_are_answers_and_never_retried() {
    for status in [400, 401, 404, 413, 429, 500, 501] {
        let (service, client) = serve([Reply::json(status, r#"{"errorMessage": "no"}"#)]);
        let e = run(&service, client.campaign("spring-appeal")).unwrap_err();
        assert_eq!(e.status(), Some(status));
        assert_eq!(service.seen().len(), 1, "{status}");
        assert_eq!(service.clock().elapsed(), 0.0);
    }
}

#[test]
fn retry_after_in_seconds_sets_the_wait_for_429_and_503() {
    for status in [429, 503] {
        let (service, client) = serve([
            Reply::status(status).retry_after("2"),
            Reply::status(status).retry_after("10"),
            campaign(),
        ]);
        run(&service, client.campaign("spring-appeal")).unwrap();
        assert_eq!(service.times(), [0.0, 2_000.0, 12_000.0], "{status}");
    }
}

#[test]
fn retry_after_as_an_http_date_is_read_against_the_clock() {
    // The clock starts at 2023-11-14T22:13:20Z: 5 s later, and a date already past.
    let (service, client) = serve([
        Reply::status(429).retry_after("Tue, 14 Nov 2023 22:13:25 GMT"),
        Reply::status(503).retry_after("Tue, 14 Nov 2023 22:00:00 GMT"),
        campaign(),
    ]);
    run(&service, client.campaign("spring-appeal")).unwrap();
    assert_eq!(service.times(), [0.0, 5_000.0, 5_000.0]);
}

#[test]
fn a_retry_after_beyond_ten_seconds_fails_at_once() {
    for (status, value) in [
        (429, "11"),
        (503, "60"),
        (429, "Tue, 14 Nov 2023 23:00:00 GMT"),
    ] {
        let (service, client) = serve([Reply::status(status).retry_after(value)]);
        let e = run(&service, client.campaign("spring-appeal")).unwrap_err();
        assert_eq!(e.status(), Some(status));
        assert_eq!(service.seen().len(), 1, "{status} {value}");
        assert_eq!(service.clock().elapsed(), 0.0);
    }
}

#[test]
fn event_creation_is_never_retried() {
    let (service, client) = serve([Reply::status(503)]);
    let event = Event::new("Riverside 10k", EventType::RunningMarathons);
    let e = run(&service, client.create_event(&event)).unwrap_err();
    assert_eq!(e.status(), Some(503));
    assert_eq!(service.seen().len(), 1);

    let (service, client) = serve([Reply::Network]);
    let e = run(&service, client.create_event(&event)).unwrap_err();
    assert_eq!(e.code(), code::NETWORK_ERROR);
    assert_eq!(service.seen().len(), 1);
}

#[test]
fn a_request_times_out_on_the_clock_and_is_cancelled() {
    let service = Service::new([Reply::Silent]);
    let client = fundraising_client::Client::with_transport(
        ClientOptions::new("app", super::BASE).timeout(std::time::Duration::from_millis(2_500)),
        service.clone(),
    )
    .unwrap();
    let e = run(&service, client.campaign("spring-appeal")).unwrap_err();
    assert_eq!(e.code(), code::TIMEOUT);
    assert_eq!(service.clock().elapsed(), 2_500.0);
    // A timeout is not retried; the exchange was dropped, and no timer is left behind.
    let seen = service.seen();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].cancelled);
    assert_eq!(service.clock().timers(), 0);
}

#[test]
fn an_answer_before_the_timeout_is_the_answer() {
    let service = Service::new([campaign().after(9_999.0)]);
    let client = client(&service);
    run(&service, client.campaign("spring-appeal")).unwrap();
    assert_eq!(service.clock().elapsed(), 9_999.0);
    assert!(!service.seen()[0].cancelled);
    assert_eq!(service.clock().timers(), 0);
}

#[test]
fn the_default_timeout_is_ten_seconds_for_each_attempt() {
    let (service, client) = serve([Reply::Silent]);
    let e = run(&service, client.campaign("spring-appeal")).unwrap_err();
    assert_eq!(e.code(), code::TIMEOUT);
    assert_eq!(service.clock().elapsed(), 10_000.0);
}

#[test]
fn dropping_a_call_cancels_its_request_and_its_backoff() {
    use std::future::Future;
    use std::task::{Context, Waker};

    let (service, client) = serve([Reply::Silent]);
    {
        let mut call = Box::pin(client.campaign("spring-appeal"));
        assert!(call
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
            .is_pending());
        assert_eq!(service.seen().len(), 1);
    }
    assert!(service.seen()[0].cancelled);
    assert_eq!(service.clock().timers(), 0);

    // Dropped while it waits to retry: no timer stays, no second request is made.
    let (service, client) = serve([Reply::status(503)]);
    {
        let mut call = Box::pin(client.campaign("spring-appeal"));
        assert!(call
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
            .is_pending());
        assert_eq!(service.clock().timers(), 1);
    }
    assert_eq!(service.clock().timers(), 0);
    assert_eq!(service.seen().len(), 1);
}
