//! The wait for a returning donor's donation: polls with backoff (`1000 · 2^n` ms up to 8 s,
//! halved by the jitter) through 404 and `Pending` to a final status, within its deadline on
//! the clock.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use fundraising_client::{code, WaitOptions};

use super::fixture;
use super::memory::{run, Reply};
use super::serve;

/// The donation fixture with `status`.
fn donation(status: &str) -> Reply {
    let mut donation = fixture("donation");
    donation["status"] = status.into();
    Reply::json(200, donation.to_string())
}

#[test]
fn the_wait_polls_through_404_and_pending_to_a_final_status() {
    let (service, client) = serve([
        Reply::status(404),
        Reply::status(404),
        donation("Pending"),
        Reply::status(503),
        donation("Pending"),
        donation("Accepted"),
    ]);
    let statuses = Rc::new(RefCell::new(Vec::new()));
    let options = WaitOptions::default().on_status({
        let statuses = statuses.clone();
        move |d| statuses.borrow_mut().push(d.status.as_str().to_owned())
    });
    let found = run(
        &service,
        client.wait_for_donation("order-2024-0001", options),
    )
    .unwrap();
    assert_eq!(found.status.as_str(), "Accepted");
    // Each new status told once.
    assert_eq!(*statuses.borrow(), ["Pending", "Accepted"]);
    // Polls after 500, 1000, 2000 ms; the 503 is retried by the read's own policy (150 ms)
    // and its answer is the poll's.
    assert_eq!(
        service.times(),
        [0.0, 500.0, 1_500.0, 3_500.0, 3_650.0, 7_650.0]
    );
    assert_eq!(service.left(), 0);
}

#[test]
fn the_wait_ends_with_timeout_at_its_deadline() {
    let (service, client) = serve(std::iter::repeat_n(Reply::status(404), 64));
    let options = WaitOptions::default().timeout(Duration::from_secs(20));
    let e = run(
        &service,
        client.wait_for_donation("order-2024-0001", options),
    )
    .unwrap_err();
    assert_eq!(e.code(), code::TIMEOUT);
    // 500, 1000, 2000, 4000, then 4000 ms between polls; the last wait cut to the deadline.
    assert_eq!(
        service.times(),
        [0.0, 500.0, 1_500.0, 3_500.0, 7_500.0, 11_500.0, 15_500.0, 19_500.0, 20_000.0]
    );
    assert_eq!(service.clock().elapsed(), 20_000.0);
}

#[test]
fn an_error_that_is_not_worth_another_poll_ends_the_wait() {
    let (service, client) = serve([Reply::status(404), Reply::status(400)]);
    let e = run(
        &service,
        client.wait_for_donation("order-2024-0001", WaitOptions::default()),
    )
    .unwrap_err();
    assert_eq!(e.status(), Some(400));
    assert_eq!(service.seen().len(), 2);
}

#[test]
fn a_final_status_at_the_first_poll_ends_the_wait_at_once() {
    let (service, client) = serve([donation("Refunded")]);
    let found = run(
        &service,
        client.wait_for_donation("order-2024-0001", WaitOptions::default()),
    )
    .unwrap();
    assert_eq!(found.status.as_str(), "Refunded");
    assert_eq!(service.clock().elapsed(), 0.0);
}

#[test]
fn a_dropped_wait_polls_no_more_and_leaves_no_timer() {
    use std::future::Future;
    use std::task::{Context, Waker};

    let (service, client) = serve([Reply::status(404)]);
    {
        let mut waiting =
            Box::pin(client.wait_for_donation("order-2024-0001", WaitOptions::default()));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(waiting.as_mut().poll(&mut cx).is_pending());
        // Between two polls: the first answered, the wait's timer set.
        assert_eq!((service.seen().len(), service.clock().timers()), (1, 1));
    }
    assert_eq!((service.seen().len(), service.clock().timers()), (1, 0));
}
