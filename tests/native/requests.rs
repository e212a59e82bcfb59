//! The requests the client makes, each built from its entry in core's operation table: method,
//! address (under `{base_url}/{appId}/v1`, or a BFF companion's `/api`), query, body and
//! headers; arguments refused before anything is sent.

use fundraising_client::http::Method;
use fundraising_client::model::{Event, EventType};
use fundraising_client::{code, Client, ClientOptions, ServiceDate};
use fundraising_core::operation::{self, PathValue};

use super::memory::{run, Reply, Service};
use super::{campaign, fixture, serve};

/// The address of `path` (below the service's prefix) for the application `app` at the tests'
/// base address.
fn service_url(path: &str) -> String {
    ["http://127.0.0.1:9/app/v1", path].concat()
}

#[test]
fn each_operation_is_sent_as_its_table_entry_says() {
    let pages = fixture("event-pages").to_string();
    let (service, client) = serve([
        campaign(),
        Reply::json(200, fixture("donation").to_string()),
        Reply::json(201, fixture("event-created").to_string()),
        Reply::json(200, pages),
    ]);
    run(&service, async {
        client.campaign("spring appeal/2").await.unwrap();
        client.donation("order-2024-0001").await.unwrap();
        let event = Event::new("Riverside 10k", EventType::RunningMarathons)
            .start_date(ServiceDate::from_millis(1_893_456_000_000));
        assert_eq!(client.create_event(&event).await.unwrap().id, 4711);
        client.event_pages(-7, Some(2), Some(100)).await.unwrap();
    });
    let seen = service.seen();
    let expected = [
        (
            Method::Get,
            operation::CAMPAIGN.path_with(&[PathValue::Text("spring appeal/2")]),
            "",
        ),
        (
            Method::Get,
            operation::DONATION.path_with(&[PathValue::Text("order-2024-0001")]),
            "",
        ),
        (Method::Post, operation::CREATE_EVENT.path_with(&[]), ""),
        (
            Method::Get,
            operation::PAGES.path_with(&[PathValue::Integer(-7)]),
            "?page=2&pagesize=100",
        ),
    ];
    assert_eq!(seen.len(), expected.len());
    for (seen, (method, path, query)) in seen.iter().zip(expected) {
        assert_eq!(seen.method, method);
        assert_eq!(
            seen.url,
            [service_url(&path.unwrap()).as_str(), query].concat()
        );
        assert_eq!(
            (seen.bearer.as_deref(), seen.credentials, seen.csrf),
            (None, false, false)
        );
    }
    // One encoded segment: a `/` or a space never changes the path.
    assert!(
        seen[0].url.ends_with("/spring%20appeal%2F2"),
        "{}",
        seen[0].url
    );
    // The event's dates as the service reads them, and no id.
    let body = seen[2].body.as_deref().unwrap();
    assert!(body.contains(r#""\/Date(1893456000000+0000)\/""#), "{body}");
    let sent: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(sent["name"], "Riverside 10k");
    assert!(seen
        .iter()
        .filter(|s| s.method == Method::Get)
        .all(|s| s.body.is_none()));
}

#[test]
fn pages_without_a_page_or_size_send_no_query() {
    let (service, client) = serve([Reply::json(200, fixture("event-pages").to_string())]);
    run(&service, client.event_pages(4711, None, None)).unwrap();
    let path = operation::PAGES
        .path_with(&[PathValue::Integer(4711)])
        .unwrap();
    assert_eq!(service.seen()[0].url, service_url(&path));
}

#[test]
fn bad_arguments_are_refused_before_anything_is_sent() {
    let (service, client) = serve([]);
    run(&service, async {
        let invalid = |e: fundraising_client::Error, field: &str| {
            assert_eq!(e.code(), code::INVALID_ARGUMENT);
            assert!(e.to_string().contains(field), "{e}");
        };
        invalid(client.campaign("  ").await.unwrap_err(), "short_name");
        invalid(client.donation("").await.unwrap_err(), "reference");
        invalid(
            client.event_pages(1, Some(0), None).await.unwrap_err(),
            "page",
        );
        invalid(
            client.event_pages(1, None, Some(101)).await.unwrap_err(),
            "page_size",
        );
        let nameless = Event::new("", EventType::RunningMarathons);
        invalid(client.create_event(&nameless).await.unwrap_err(), "name");
    });
    assert!(service.seen().is_empty());
}

#[test]
fn bad_options_are_refused_by_name() {
    let service = Service::new([]);
    let refused = |options: ClientOptions| {
        Client::with_transport(options, service.clone())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        refused(ClientOptions::new("app", "not a URL")),
        "invalid base_url: must be an absolute URL"
    );
    assert_eq!(
        refused(ClientOptions::new("app", "ftp://127.0.0.1/")),
        "invalid base_url: must be an http or https URL"
    );
    assert_eq!(
        refused(ClientOptions::new(" ", "http://127.0.0.1/")),
        "invalid app_id: must not be empty"
    );
    let mut bff = ClientOptions::new("app", "http://127.0.0.1/");
    bff.bff = true;
    assert_eq!(refused(bff), "invalid companion_url: is needed in BFF mode");
}

/// A client in BFF mode through the companion at `http://127.0.0.1:7/`.
fn bff_client(service: &Service) -> Client<Service> {
    let mut options =
        ClientOptions::new("app", "http://127.0.0.1:9").companion_url("http://127.0.0.1:7/");
    options.bff = true;
    Client::with_transport(options, service.clone()).unwrap()
}

#[test]
fn in_bff_mode_calls_go_through_the_companion_with_its_cookie_and_csrf_header() {
    let service = Service::new([Reply::status(503), campaign()]);
    let client = bff_client(&service);
    run(&service, client.campaign("spring-appeal")).unwrap();
    let path = operation::CAMPAIGN
        .path_with(&[PathValue::Text("spring-appeal")])
        .unwrap();
    let seen = service.seen();
    // Retried as directly; the page never holds a token.
    assert_eq!(service.times(), [0.0, 150.0]);
    for seen in &seen {
        assert_eq!(seen.url, ["http://127.0.0.1:7/api", path.as_str()].concat());
        assert_eq!(
            (seen.bearer.as_deref(), seen.credentials, seen.csrf),
            (None, true, true)
        );
    }
}

#[test]
fn in_bff_mode_an_ended_session_is_the_companions_401() {
    let service = Service::new([Reply::json(
        401,
        r#"{"error": "session_expired", "message": "sign in again"}"#,
    )]);
    let client = bff_client(&service);
    let e = run(&service, client.campaign("spring-appeal")).unwrap_err();
    assert_eq!(e.status(), Some(401));
    assert_eq!(service.seen().len(), 1);
}
