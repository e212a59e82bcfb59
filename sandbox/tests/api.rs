//! The resource API through its router.

mod common;

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::*;
use serde_json::Value;

fn get_bearer(uri: &str, token: &str) -> Request<Body> {
    Request::get(uri)
        .header("authorization", format!("Bearer {token}"))
        .body(Body::empty())
        .expect("request")
}

fn post_json(uri: &str, body: &str) -> Request<Body> {
    Request::post(uri)
        .header("content-type", "application/json")
        .body(Body::from(body.to_owned()))
        .expect("request")
}

/// An access token of the demo user for demo-app.
async fn demo_access_token(t: &TestSandbox) -> String {
    let app = t.identity();
    let code = code(&app, &authorize_uri(&[])).await;
    exchange(&app, &code, Some(VERIFIER)).await.json()["access_token"]
        .as_str()
        .expect("access token")
        .to_owned()
}

/// An access token of the second user of [`two_app_config`].
async fn other_user_token(t: &TestSandbox) -> String {
    let app = t.identity();
    let reply = call(&app, get(&authorize_uri(&[]))).await;
    let request = query_of(&reply.location())["request"].clone();
    let logged_in = call(
        &app,
        post_form(
            "/connect/login",
            &[
                ("request", &request),
                ("username", "other@example.org"),
                ("password", "other-password"),
            ],
            None,
        ),
    )
    .await;
    let cookie = cookie_of(&logged_in);
    let allowed = call(
        &app,
        post_form(
            "/connect/consent",
            &[("request", &request), ("allow", "1")],
            Some(&cookie),
        ),
    )
    .await;
    let code = query_of(&allowed.location())["code"].clone();
    exchange(&app, &code, Some(VERIFIER)).await.json()["access_token"]
        .as_str()
        .expect("access token")
        .to_owned()
}

fn assert_json_utf8(reply: &Reply) {
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("application/json; charset=utf-8")
    );
}

#[tokio::test]
async fn campaign_by_short_name_in_pascal_case_with_consistent_totals() {
    let t = open_default();
    let reply = call(
        &t.api(),
        get("/demo-app/v1/campaign/byshortname/demo-campaign"),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_json_utf8(&reply);
    assert!(
        reply.body.contains(r#""StartDate":"\/Date("#),
        "dates in \\/Date()\\/ form: {}",
        reply.body
    );
    let c = reply.json();
    assert_eq!(c["ShortName"], "demo-campaign");
    assert!(c["CampaignGuid"].is_string());
    assert_eq!(c["Currency"]["CurrencyCode"], "GBP");
    assert_eq!(c["TargetAmount"], 10000.0);
    assert_eq!(c["Status"], "Active");
    let s = &c["DonationSummary"];
    let f = |name: &str| s[name].as_f64().unwrap_or_else(|| panic!("{name} in {s}"));
    assert_eq!(
        f("TotalAmount"),
        f("DirectDonationAmount") + f("FundraiserRaisedAmount") + f("offlineAmount")
    );
    assert_eq!(
        f("TotalNumberOfDonations"),
        f("NumberOfDirectDonations") + f("NumberOfFundraiserDonations")
    );
    assert!(f("TotalGiftAid") >= f("DirectDonationGiftAid"));
    assert_eq!(c["OfflineAmount"].as_f64(), Some(f("offlineAmount")));
    assert!(f("TotalAmount") > 0.0 && f("TotalAmount") < 10000.0);
    // Decodes with the core's case-insensitive decoder.
    let typed: fundraising_core::model::Campaign =
        fundraising_core::json::decode(&reply.body).expect("core decodes it");
    assert_eq!(typed.short_name, "demo-campaign");
    assert_eq!(typed.currency.currency_code, "GBP");
}

#[tokio::test]
async fn campaign_fundraiser_total_is_the_sum_of_its_pages() {
    let t = open_default();
    let api = t.api();
    let c = call(&api, get("/demo-app/v1/campaign/byshortname/demo-campaign"))
        .await
        .json();
    let guid = c["CampaignGuid"].clone();
    let mut sum = 0.0;
    for page in 1..=3 {
        let body = call(
            &api,
            get(&format!(
                "/demo-app/v1/event/1001/pages?pagesize=100&page={page}"
            )),
        )
        .await
        .json();
        for p in body["fundraisingPages"].as_array().expect("pages") {
            if p["campaignGuid"] == guid {
                sum += p["raisedAmount"].as_f64().expect("raised");
            }
        }
    }
    assert!(sum > 0.0);
    assert_eq!(
        c["DonationSummary"]["FundraiserRaisedAmount"].as_f64(),
        Some(sum)
    );
}

#[tokio::test]
async fn unknown_campaign_and_unknown_app_are_404_with_error_message() {
    let t = open_default();
    let api = t.api();
    for uri in [
        "/demo-app/v1/campaign/byshortname/no-such-campaign",
        "/other-app/v1/campaign/byshortname/demo-campaign",
        "/other-app/v1/donation/ref/demo-ref-2",
        "/other-app/v1/event/1001/pages",
        "/demo-app/v2/campaign/byshortname/demo-campaign",
        "/nothing",
    ] {
        let reply = call(&api, get(uri)).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{uri}");
        assert_json_utf8(&reply);
        assert!(
            reply.json()["errorMessage"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{uri}"
        );
    }
    let reply = call(
        &api,
        post_json(
            "/other-app/v1/event/",
            r#"{"name":"x","eventType":"Walks"}"#,
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert!(reply.json()["errorMessage"].is_string());
}

#[tokio::test]
async fn anonymous_donation_views() {
    let t = open_default();
    let api = t.api();
    let owned = call(&api, get("/demo-app/v1/donation/ref/demo-ref-1")).await;
    assert_eq!(owned.status, StatusCode::OK);
    assert_json_utf8(&owned);
    let d = owned.json();
    assert_eq!(d["thirdPartyReference"], "demo-ref-1");
    assert!(d["id"].is_i64());
    assert!(d["amount"].is_string());
    assert!(owned.body.contains(r#""donationDate":"\/Date("#));
    for hidden in ["message", "donorRealName", "image", "hasImage"] {
        assert!(d.get(hidden).is_none(), "{hidden} must be absent: {d}");
    }
    let shared = call(&api, get("/demo-app/v1/donation/ref/demo-ref-2"))
        .await
        .json();
    assert!(shared["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(shared["image"]
        .as_str()
        .is_some_and(|m| m.starts_with("https://")));
    assert_eq!(shared["hasImage"], true);
    assert!(shared.get("donorRealName").is_none());
    let missing = call(&api, get("/demo-app/v1/donation/ref/no-such-ref")).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(missing.json()["errorMessage"].is_string());
}

#[tokio::test]
async fn the_page_owner_sees_message_and_real_name_but_no_image_of_an_unshared_message() {
    let t = open_default();
    let token = demo_access_token(&t).await;
    let d = call(
        &t.api(),
        get_bearer("/demo-app/v1/donation/ref/demo-ref-1", &token),
    )
    .await;
    assert_eq!(d.status, StatusCode::OK);
    let d = d.json();
    assert!(d["message"].as_str().is_some_and(|m| !m.is_empty()), "{d}");
    assert!(
        d["donorRealName"].as_str().is_some_and(|m| !m.is_empty()),
        "{d}"
    );
    assert!(d.get("image").is_none());
    assert!(d.get("hasImage").is_none());
    // Not the owner of demo-ref-2's page: shared message, no real name.
    let d2 = call(
        &t.api(),
        get_bearer("/demo-app/v1/donation/ref/demo-ref-2", &token),
    )
    .await
    .json();
    assert!(d2["message"].is_string());
    assert!(d2.get("donorRealName").is_none());
}

#[tokio::test]
async fn another_user_is_not_the_owner() {
    let t = open(two_app_config());
    let token = other_user_token(&t).await;
    let d = call(
        &t.api(),
        get_bearer("/demo-app/v1/donation/ref/demo-ref-1", &token),
    )
    .await;
    assert_eq!(d.status, StatusCode::OK);
    let d = d.json();
    assert!(d.get("message").is_none(), "{d}");
    assert!(d.get("donorRealName").is_none());
}

#[tokio::test]
async fn access_tokens_work_until_they_expire() {
    let t = open_default();
    let token = demo_access_token(&t).await;
    let api = t.api();
    let uri = "/demo-app/v1/donation/ref/demo-ref-1";
    t.sandbox.clock().advance(Duration::from_secs(3590));
    let before = call(&api, get_bearer(uri, &token)).await;
    assert_eq!(before.status, StatusCode::OK);
    assert!(before.json()["donorRealName"].is_string());
    t.sandbox.clock().advance(Duration::from_secs(20));
    let after = call(&api, get_bearer(uri, &token)).await;
    assert_eq!(after.status, StatusCode::UNAUTHORIZED);
    assert!(after.json()["errorMessage"].is_string());
    assert!(after
        .header("www-authenticate")
        .is_some_and(|h| h.contains("invalid_token")));
    let made_up = call(
        &api,
        get_bearer("/demo-app/v1/campaign/byshortname/demo-campaign", "made-up"),
    )
    .await;
    assert_eq!(made_up.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn cors_is_open_including_the_preflight() {
    let t = open_default();
    let api = t.api();
    let preflight = Request::builder()
        .method("OPTIONS")
        .uri("/demo-app/v1/event/")
        .header("origin", "https://partner.example")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization, content-type",
        )
        .body(Body::empty())
        .expect("request");
    let reply = call(&api, preflight).await;
    assert!(reply.status.is_success(), "{:?}", reply.status);
    assert_eq!(
        reply.header("access-control-allow-origin").as_deref(),
        Some("*")
    );
    let headers = reply
        .header("access-control-allow-headers")
        .unwrap_or_default()
        .to_ascii_lowercase();
    assert!(
        headers.contains("authorization") && headers.contains("content-type"),
        "{headers}"
    );
    let methods = reply
        .header("access-control-allow-methods")
        .unwrap_or_default();
    assert!(
        methods.contains("POST") && methods.contains("GET"),
        "{methods}"
    );
    assert!(reply.header("access-control-allow-credentials").is_none());
    let simple = Request::get("/demo-app/v1/campaign/byshortname/demo-campaign")
        .header("origin", "https://partner.example")
        .body(Body::empty())
        .expect("request");
    let reply = call(&api, simple).await;
    assert_eq!(
        reply.header("access-control-allow-origin").as_deref(),
        Some("*")
    );
    let missing = Request::get("/demo-app/v1/donation/ref/none")
        .header("origin", "https://partner.example")
        .body(Body::empty())
        .expect("request");
    let reply = call(&api, missing).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(
        reply.header("access-control-allow-origin").as_deref(),
        Some("*")
    );
}

const GOOD_EVENT: &str = r#"{"name":"Charity Fun Run","description":"5k","id":77,
    "completionDate":"\/Date(1767225600000+0000)\/","expiryDate":"\/Date(1769904000000+0000)\/",
    "startDate":"\/Date(1767222000000+0000)\/","eventType":"Running_Marathons","location":"Leeds","charityId":null}"#;

#[tokio::test]
async fn creating_an_event_answers_201_with_a_link_and_location() {
    let t = open_default();
    let sandbox = t
        .sandbox
        .clone()
        .with_public_base_url("http://api.example:81/");
    let api = fundraising_sandbox::api_app(sandbox);
    for uri in ["/demo-app/v1/event/", "/demo-app/v1/event"] {
        let reply = call(&api, post_json(uri, GOOD_EVENT)).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{uri}: {}", reply.body);
        assert_json_utf8(&reply);
        let body = reply.json();
        let id = body["id"].as_i64().expect("id");
        assert_ne!(id, 77, "the body's id is ignored");
        assert!(id > 1001, "new ids follow the seeded event");
        let expected = format!("http://api.example:81/demo-app/v1/event/{id}");
        assert_eq!(body["next"]["uri"], expected.as_str());
        assert!(body["next"]["rel"].is_string());
        assert!(body["next"]["type"].is_string());
        assert_eq!(reply.header("location").as_deref(), Some(expected.as_str()));
        // A new event has no pages.
        let pages = call(&api, get(&format!("/demo-app/v1/event/{id}/pages"))).await;
        assert_eq!(pages.status, StatusCode::OK);
        let pages = pages.json();
        assert_eq!(pages["eventId"], id);
        assert_eq!(pages["totalFundraisingPages"], 0);
        assert_eq!(pages["totalPages"], 0);
        assert_eq!(pages["totalRaised"], 0.0);
        assert_eq!(pages["fundraisingPages"], serde_json::json!([]));
    }
}

#[tokio::test]
async fn invalid_event_bodies_are_400_with_error_message_and_error_object() {
    let t = open_default();
    let api = t.api();
    for body in [
        r#"{"eventType":"Walks"}"#,
        r#"{"name":"","eventType":"Walks"}"#,
        r#"{"name":"Walk"}"#,
        r#"{"name":"Walk","eventType":""}"#,
        r#"{"name":"Walk","eventType":"Walks","startDate":"2026-01-01"}"#,
        r#"{"name":"Walk","eventType":"Walks","expiryDate":"\/Date(abc)\/"}"#,
        r#"{"name":"Walk","eventType":"Walks","startDate":"\/Date(20+0000)\/","completionDate":"\/Date(10+0000)\/"}"#,
        r#"{"name":"Walk","eventType":"Walks""#,
        "not json",
        "",
        "[1,2]",
    ] {
        let reply = call(&api, post_json("/demo-app/v1/event/", body)).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        assert_json_utf8(&reply);
        let json = reply.json();
        assert!(
            json["errorMessage"].as_str().is_some_and(|m| !m.is_empty()),
            "{body}"
        );
        assert!(json["error"]["id"].is_string(), "{body}: {json}");
        assert!(
            json["error"]["desc"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{body}"
        );
    }
}

#[tokio::test]
async fn fifty_concurrent_creations_get_fifty_distinct_ids() {
    let t = open_default();
    let api = t.api();
    assert!(!format!("{:?}", t.sandbox).contains("demo-secret"));
    let tasks: Vec<_> = (0..50)
        .map(|i| {
            let api = api.clone();
            tokio::spawn(async move {
                let body = format!(r#"{{"name":"Event {i}","eventType":"Walks"}}"#);
                let reply = call(&api, post_json("/demo-app/v1/event/", &body)).await;
                assert_eq!(reply.status, StatusCode::CREATED);
                reply.json()["id"].as_i64().expect("id")
            })
        })
        .collect();
    let mut ids = Vec::new();
    for task in tasks {
        ids.push(task.await.expect("task"));
    }
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 50);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_creations_on_many_threads() {
    let t = open_default();
    let api = t.api();
    let mut set = tokio::task::JoinSet::new();
    for i in 0..50 {
        let api = api.clone();
        set.spawn(async move {
            let body = format!(r#"{{"name":"E{i}","eventType":"Treks"}}"#);
            call(&api, post_json("/demo-app/v1/event/", &body))
                .await
                .json()["id"]
                .as_i64()
                .expect("id")
        });
    }
    let mut ids = std::collections::BTreeSet::new();
    while let Some(id) = set.join_next().await {
        ids.insert(id.expect("task"));
    }
    assert_eq!(ids.len(), 50);
}

#[tokio::test]
async fn events_survive_a_restart() {
    let dir = tempfile::tempdir().expect("dir");
    let open = || {
        fundraising_sandbox::Sandbox::open_with_key(
            fundraising_sandbox::Config::default(),
            dir.path(),
            test_key(),
        )
        .expect("open")
    };
    let first = fundraising_sandbox::api_app(open());
    let reply = call(&first, post_json("/demo-app/v1/event/", GOOD_EVENT)).await;
    let id = reply.json()["id"].as_i64().expect("id");
    drop(first);
    let second = fundraising_sandbox::api_app(open());
    let pages = call(&second, get(&format!("/demo-app/v1/event/{id}/pages"))).await;
    assert_eq!(pages.status, StatusCode::OK);
    let next = call(&second, post_json("/demo-app/v1/event/", GOOD_EVENT))
        .await
        .json()["id"]
        .as_i64()
        .expect("id");
    assert!(next > id, "ids keep growing after a restart");
    // The seed is not written twice.
    let seeded = call(
        &second,
        get("/demo-app/v1/event/1001/pages?pagesize=100&page=3"),
    )
    .await
    .json();
    assert_eq!(seeded["totalFundraisingPages"], 250);
}

fn page_ids(body: &Value) -> Vec<i64> {
    body["fundraisingPages"]
        .as_array()
        .expect("pages")
        .iter()
        .map(|p| p["pageId"].as_i64().expect("pageId"))
        .collect()
}

#[tokio::test]
async fn event_1001_has_250_pages_in_three_pages_of_100() {
    let t = open_default();
    let api = t.api();
    let mut all = Vec::new();
    let mut raised = 0.0;
    let mut total_raised = None;
    for page in 1..=3 {
        let reply = call(
            &api,
            get(&format!(
                "/demo-app/v1/event/1001/pages?page={page}&pagesize=100"
            )),
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_json_utf8(&reply);
        let body = reply.json();
        assert_eq!(body["eventId"], 1001);
        assert_eq!(body["totalFundraisingPages"], 250);
        assert_eq!(body["totalPages"], 3);
        let ids = page_ids(&body);
        assert_eq!(ids.len(), if page == 3 { 50 } else { 100 });
        for p in body["fundraisingPages"].as_array().expect("pages") {
            raised += p["raisedAmount"].as_f64().expect("raised");
        }
        total_raised = body["totalRaised"].as_f64();
        all.extend(ids);
    }
    assert_eq!(total_raised, Some(raised));
    let mut distinct = all.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 250);
    let past = call(
        &api,
        get("/demo-app/v1/event/1001/pages?page=4&pagesize=100"),
    )
    .await
    .json();
    assert_eq!(page_ids(&past), Vec::<i64>::new());
    assert_eq!(past["totalFundraisingPages"], 250);
}

#[tokio::test]
async fn seeded_pages_have_in_memory_people_and_negative_dates() {
    let t = open_default();
    let reply = call(&t.api(), get("/demo-app/v1/event/1001/pages?pagesize=100")).await;
    assert!(
        reply.body.contains(r#""dateOfBirth":"\/Date(-"#),
        "negative date on the wire"
    );
    let body = reply.json();
    let people: Vec<&Value> = body["fundraisingPages"]
        .as_array()
        .expect("pages")
        .iter()
        .filter_map(|p| {
            p["inMemoryPerson"]
                .as_object()
                .map(|_| &p["inMemoryPerson"])
        })
        .collect();
    assert!(!people.is_empty());
    assert!(people.iter().all(|p| p["FirstName"].is_string()));
    let typed: fundraising_core::model::EventPages =
        fundraising_core::json::decode(&reply.body).expect("core decodes it");
    assert!(typed
        .fundraising_pages
        .iter()
        .filter_map(|p| p.in_memory_person.as_ref())
        .any(|p| p.date_of_birth.millis < 0));
    assert!(typed
        .fundraising_pages
        .iter()
        .any(|p| p.created_date.is_some_and(|d| d.millis < 0)));
}

#[tokio::test]
async fn paging_parameters_are_case_insensitive_and_checked() {
    let t = open_default();
    let api = t.api();
    let a = call(&api, get("/demo-app/v1/event/1001/pages?PageSize=7&PAGE=2&orderBy=createdDate&orderDirection=DESCENDING")).await;
    assert_eq!(a.status, StatusCode::OK);
    let a = a.json();
    assert_eq!(page_ids(&a).len(), 7);
    assert_eq!(a["totalPages"], 36);
    let b = call(&api, get("/demo-app/v1/event/1001/pages?pagesize=7&page=2"))
        .await
        .json();
    assert_eq!(page_ids(&a), page_ids(&b));
    let first = call(&api, get("/demo-app/v1/event/1001/pages?pagesize=7"))
        .await
        .json();
    assert_ne!(page_ids(&first), page_ids(&b));
    let defaults = call(&api, get("/demo-app/v1/event/1001/pages"))
        .await
        .json();
    assert_eq!(page_ids(&defaults).len(), 20, "pagesize defaults to 20");
    assert_eq!(defaults["totalPages"], 13);
    assert_eq!(page_ids(&defaults)[..7], page_ids(&first)[..]);
    let max = call(&api, get("/demo-app/v1/event/1001/pages?pagesize=100")).await;
    assert_eq!(max.status, StatusCode::OK);
    for bad in [
        "pagesize=101",
        "pageSize=1000",
        "pagesize=abc",
        "pagesize=0",
        "pagesize=-5",
        "page=0",
        "page=x",
        "page=1.5",
    ] {
        let reply = call(&api, get(&format!("/demo-app/v1/event/1001/pages?{bad}"))).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{bad}");
        assert!(reply.json()["errorMessage"].is_string(), "{bad}");
    }
}

#[tokio::test]
async fn unknown_or_malformed_event_ids() {
    let t = open_default();
    let api = t.api();
    let unknown = call(&api, get("/demo-app/v1/event/999999/pages")).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(unknown.json()["errorMessage"].is_string());
    for bad in ["abc", "4294967296", "1.5"] {
        let reply = call(&api, get(&format!("/demo-app/v1/event/{bad}/pages"))).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{bad}");
        assert!(reply.json()["errorMessage"].is_string());
    }
}

/// Asserts the service's error shape: JSON `errorMessage` (non-empty), and an `error {id, desc}`
/// object when `with_error_object`.
fn assert_error_shape(reply: &Reply, status: StatusCode, with_error_object: bool, what: &str) {
    assert_eq!(reply.status, status, "{what}: {}", reply.body);
    assert_json_utf8(reply);
    let json = reply.json();
    assert!(
        json["errorMessage"].as_str().is_some_and(|m| !m.is_empty()),
        "{what}: {json}"
    );
    if with_error_object {
        assert!(json["error"]["id"].is_string(), "{what}: {json}");
        assert_eq!(json["error"]["desc"], json["errorMessage"], "{what}");
    }
}

fn event_with_date(field: &str, json_value: &str) -> String {
    format!(r#"{{"name":"Walk","eventType":"Walks","{field}":{json_value}}}"#)
}

#[tokio::test]
async fn event_dates_are_read_as_the_service_reads_them_and_errors_name_the_field() {
    let t = open_default();
    let api = t.api();
    for field in ["startDate", "completionDate", "expiryDate"] {
        // The wire form: the JSON text "\/Date(..)\/", whose value is /Date(..)/.
        for good in [
            r#""\/Date(1767222000000+0000)\/""#,
            r#""/Date(1767222000000+0100)/""#,
            r#""\/Date(-5)\/""#,
        ] {
            let reply = call(
                &api,
                post_json("/demo-app/v1/event/", &event_with_date(field, good)),
            )
            .await;
            assert_eq!(
                reply.status,
                StatusCode::CREATED,
                "{field} {good}: {}",
                reply.body
            );
            let id = reply.json()["id"].as_i64().expect("id");
            let stored = t.sandbox.db().event(id).expect("db").expect("stored");
            let date = match field {
                "startDate" => stored.start_date,
                "completionDate" => stored.completion_date,
                _ => stored.expiry_date,
            };
            let expected = if good.contains("-5") {
                -5
            } else {
                1767222000000
            };
            assert_eq!(date.map(|d| d.millis), Some(expected), "{field} {good}");
        }
        // A literal backslash (what a double-escaping client sends), and other forms.
        for bad in [
            r#""\\/Date(1767222000000+0000)\\/""#,
            r#""Date(1767222000000+0000)""#,
            r#""/Date(abc)/""#,
            r#""/Date(1767222000000+2500)/""#,
            r#""2026-01-01T00:00:00Z""#,
            "1767222000000",
            "{}",
        ] {
            let body = event_with_date(field, bad);
            let reply = call(&api, post_json("/demo-app/v1/event/", &body)).await;
            assert_error_shape(&reply, StatusCode::BAD_REQUEST, true, &body);
            let message = reply.json()["errorMessage"].as_str().unwrap().to_owned();
            assert!(message.contains(field), "{body}: {message}");
            assert!(message.contains("request body"), "{body}: {message}");
            assert!(!message.contains("response"), "{body}: {message}");
            assert_eq!(reply.json()["error"]["id"], "invalid_argument", "{body}");
        }
    }
}

#[tokio::test]
async fn event_errors_talk_about_the_request_body() {
    let t = open_default();
    let api = t.api();
    for body in [
        r#"{"eventType":"Walks"}"#,
        r#"{"name":"Walk","eventType":"Walks","charityId":"x"}"#,
        r#"{"name":"Walk","eventType":"Walks""#,
        "[1,2]",
        "",
    ] {
        let reply = call(&api, post_json("/demo-app/v1/event/", body)).await;
        assert_error_shape(&reply, StatusCode::BAD_REQUEST, true, body);
        let message = reply.json()["errorMessage"].as_str().unwrap().to_owned();
        assert!(message.contains("request body"), "{body}: {message}");
        assert!(!message.contains("response"), "{body}: {message}");
    }
    let reply = call(
        &api,
        post_json(
            "/demo-app/v1/event/",
            r#"{"name":"Walk","eventType":"Walks","charityId":"x"}"#,
        ),
    )
    .await;
    assert!(reply.body.contains("charityId"), "{}", reply.body);
}

#[tokio::test]
async fn event_text_fields_have_length_limits() {
    let t = open_default();
    let api = t.api();
    for (field, limit) in fundraising_sandbox::FIELD_LIMITS {
        let at_limit = "é".repeat(limit);
        let mut event = serde_json::json!({"name": "Walk", "eventType": "Walks"});
        event[field] = at_limit.clone().into();
        let reply = call(&api, post_json("/demo-app/v1/event/", &event.to_string())).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{field}: {}", reply.body);
        event[field] = format!("{at_limit}x").into();
        let reply = call(&api, post_json("/demo-app/v1/event/", &event.to_string())).await;
        assert_error_shape(&reply, StatusCode::BAD_REQUEST, true, field);
        assert!(reply.json()["errorMessage"]
            .as_str()
            .unwrap()
            .contains(field));
    }
}

#[tokio::test]
async fn an_oversize_event_body_is_413_in_the_error_shape_and_not_stored() {
    let t = open_default();
    let api = t.api();
    let first = call(&api, post_json("/demo-app/v1/event/", GOOD_EVENT)).await;
    let first_id = first.json()["id"].as_i64().expect("id");
    let limit = fundraising_sandbox::MAX_EVENT_BODY_BYTES;
    let padded = |size: usize| {
        let head = r#"{"name":"Walk","eventType":"Walks","padding":""#;
        let pad = size - head.len() - 2;
        format!("{head}{}\"}}", "a".repeat(pad))
    };
    let at_limit = padded(limit);
    assert_eq!(at_limit.len(), limit);
    let reply = call(&api, post_json("/demo-app/v1/event/", &at_limit)).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    let second_id = reply.json()["id"].as_i64().expect("id");
    assert_eq!(second_id, first_id + 1);
    for size in [limit + 1, 2 * 1024 * 1024] {
        let reply = call(&api, post_json("/demo-app/v1/event/", &padded(size))).await;
        assert_error_shape(&reply, StatusCode::PAYLOAD_TOO_LARGE, true, "oversize");
        assert_eq!(reply.json()["error"]["id"], "body_too_large");
        assert!(t.sandbox.db().event(second_id + 1).expect("db").is_none());
    }
    // Nothing was stored: the next id follows the last accepted one.
    let next = call(&api, post_json("/demo-app/v1/event/", GOOD_EVENT)).await;
    assert_eq!(next.json()["id"].as_i64(), Some(second_id + 1));
}

#[tokio::test]
async fn events_need_a_json_content_type() {
    let t = open_default();
    let api = t.api();
    let with_type = |content_type: Option<&str>| {
        let mut builder = Request::post("/demo-app/v1/event/");
        if let Some(value) = content_type {
            builder = builder.header("content-type", value);
        }
        builder.body(Body::from(GOOD_EVENT)).expect("request")
    };
    for refused in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("application/jsonp"),
    ] {
        let reply = call(&api, with_type(refused)).await;
        assert_error_shape(
            &reply,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            true,
            &format!("{refused:?}"),
        );
    }
    for accepted in ["application/json", "Application/JSON; charset=utf-8"] {
        let reply = call(&api, with_type(Some(accepted))).await;
        assert_eq!(
            reply.status,
            StatusCode::CREATED,
            "{accepted}: {}",
            reply.body
        );
    }
}

#[tokio::test]
async fn every_error_of_the_api_is_in_the_service_shape() {
    let t = open_default();
    let api = t.api();
    let long = format!("/demo-app/v1/campaign/byshortname/{}", "a".repeat(9000));
    let cases: Vec<(Request<Body>, StatusCode, &str)> = vec![
        (get("/nothing/here"), StatusCode::NOT_FOUND, "unknown path"),
        (
            get("/demo-app/v1/event/1001"),
            StatusCode::NOT_FOUND,
            "unknown subpath",
        ),
        (
            get("/demo-app/v1/event/"),
            StatusCode::METHOD_NOT_ALLOWED,
            "GET on event/",
        ),
        (
            Request::delete("/demo-app/v1/campaign/byshortname/demo-campaign")
                .body(Body::empty())
                .unwrap(),
            StatusCode::METHOD_NOT_ALLOWED,
            "DELETE",
        ),
        (get(&long), StatusCode::URI_TOO_LONG, "long URI"),
        (
            get("/demo-app/v1/campaign/byshortname/%FF%FE"),
            StatusCode::BAD_REQUEST,
            "invalid UTF-8 in a segment",
        ),
        (
            get("/demo-app/v1/donation/ref/a%C3"),
            StatusCode::BAD_REQUEST,
            "truncated UTF-8 in a segment",
        ),
        (
            get("/%FF/v1/event/1001/pages"),
            StatusCode::BAD_REQUEST,
            "invalid UTF-8 app id",
        ),
        (
            get("/demo-app/v1/event/abc/pages"),
            StatusCode::BAD_REQUEST,
            "bad event id",
        ),
    ];
    for (request, status, what) in cases {
        let reply = call(&api, request).await;
        assert_error_shape(&reply, status, false, what);
    }
    // The answer under the limit is an ordinary 404.
    let under = format!("/demo-app/v1/campaign/byshortname/{}", "a".repeat(7000));
    assert_eq!(call(&api, get(&under)).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_malformed_authorization_header_is_401_not_anonymous() {
    let t = open_default();
    let token = demo_access_token(&t).await;
    let api = t.api();
    let with_auth = |method: &str, uri: &str, value: axum::http::HeaderValue| {
        Request::builder()
            .method(method)
            .uri(uri)
            .header("authorization", value)
            .header("content-type", "application/json")
            .body(Body::from(if method == "POST" { GOOD_EVENT } else { "" }))
            .expect("request")
    };
    let malformed: Vec<axum::http::HeaderValue> = [
        format!("Bearer{token}"),
        format!("Bearer  {token}"),
        format!("Bearer {token} extra"),
        "Bearer".to_owned(),
        "Bearer ".to_owned(),
        format!("Basic {token}"),
        format!("Token {token}"),
        token.clone(),
        String::new(),
    ]
    .into_iter()
    .map(|v| axum::http::HeaderValue::from_str(&v).expect("header"))
    .chain([axum::http::HeaderValue::from_bytes(b"Bearer \xff\xfe").expect("bytes")])
    .collect();
    let operations = [
        ("GET", "/demo-app/v1/campaign/byshortname/demo-campaign"),
        ("GET", "/demo-app/v1/donation/ref/demo-ref-1"),
        ("POST", "/demo-app/v1/event/"),
        ("GET", "/demo-app/v1/event/1001/pages"),
    ];
    for (method, uri) in operations {
        for value in &malformed {
            let reply = call(&api, with_auth(method, uri, value.clone())).await;
            let what = format!("{method} {uri} with {value:?}");
            assert_error_shape(&reply, StatusCode::UNAUTHORIZED, false, &what);
            assert!(
                reply
                    .header("www-authenticate")
                    .is_some_and(|h| h.starts_with("Bearer")),
                "{what}"
            );
        }
        // The well-formed header still works, scheme in any case.
        for scheme in ["Bearer", "bearer"] {
            let value = axum::http::HeaderValue::from_str(&format!("{scheme} {token}")).unwrap();
            let reply = call(&api, with_auth(method, uri, value)).await;
            assert!(reply.status.is_success(), "{method} {uri}: {}", reply.body);
        }
    }
}

#[tokio::test]
async fn an_access_token_works_only_under_its_own_application() {
    let t = open(two_app_config());
    let token = demo_access_token(&t).await;
    let api = t.api();
    for path in [
        "v1/campaign/byshortname/demo-campaign",
        "v1/donation/ref/demo-ref-1",
        "v1/event/1001/pages",
    ] {
        let own = call(&api, get_bearer(&format!("/demo-app/{path}"), &token)).await;
        assert_eq!(own.status, StatusCode::OK, "{path}: {}", own.body);
        let foreign = call(&api, get_bearer(&format!("/other-app/{path}"), &token)).await;
        assert_error_shape(&foreign, StatusCode::UNAUTHORIZED, false, path);
        assert_eq!(
            foreign.header("www-authenticate").as_deref(),
            Some("Bearer error=\"invalid_token\""),
            "{path}"
        );
        // Without the token the other application's path is open, as anonymous calls are.
        assert_eq!(
            call(&api, get(&format!("/other-app/{path}"))).await.status,
            StatusCode::OK
        );
    }
    let event = Request::post("/other-app/v1/event/")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .body(Body::from(GOOD_EVENT))
        .expect("request");
    assert_eq!(call(&api, event).await.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn cached_pages_answers_equal_fresh_ones_and_follow_page_changes() {
    let t = open_default();
    let api = t.api();
    let uris = [
        "/demo-app/v1/event/1001/pages?pagesize=100",
        "/demo-app/v1/event/1001/pages?page=3&pagesize=100",
        "/demo-app/v1/event/1001/pages?page=3&pagesize=20",
        "/demo-app/v1/event/1001/pages",
        "/demo-app/v1/event/1001/pages?page=99",
    ];
    let fresh = |uri: &'static str| {
        let dir = t.dir.path().to_owned();
        async move {
            // A second sandbox over the same data: its cache is empty, so it builds afresh.
            let other = fundraising_sandbox::Sandbox::open_with_key(
                fundraising_sandbox::Config::default(),
                &dir,
                test_key(),
            )
            .expect("open");
            let reply = call(&fundraising_sandbox::api_app(other), get(uri)).await;
            assert_eq!(reply.status, StatusCode::OK);
            reply
        }
    };
    for uri in uris {
        let first = call(&api, get(uri)).await;
        let cached = call(&api, get(uri)).await;
        let again = fresh(uri).await;
        assert_eq!(first.status, StatusCode::OK);
        assert_eq!(cached.body, first.body, "{uri}");
        assert_eq!(cached.body, again.body, "{uri}");
        assert_eq!(
            cached.headers.get("content-type"),
            again.headers.get("content-type")
        );
    }
    assert_eq!(t.sandbox.db().cached_pages_answers(), uris.len());
    // A new page changes the answers at once.
    let before = call(&api, get(uris[2])).await.json();
    let mut page: fundraising_core::model::FundraisingPageSummary =
        fundraising_core::json::decode_value(&before["fundraisingPages"][0]).expect("summary");
    page.page_id = 1_000_000;
    page.raised_amount = 5.0;
    t.sandbox
        .db()
        .add_page(fundraising_sandbox::DEMO_EVENT_ID, &page)
        .expect("add page");
    for uri in uris {
        let after = call(&api, get(uri)).await;
        assert_eq!(after.json()["totalFundraisingPages"], 251, "{uri}");
        assert_eq!(after.body, fresh(uri).await.body, "{uri}");
    }
    let bounded = fundraising_sandbox::PAGES_CACHE_ENTRIES;
    for page in 1..=(bounded as u32 + 10) {
        let uri = format!("/demo-app/v1/event/1001/pages?page={page}&pagesize=7");
        assert_eq!(call(&api, get(&uri)).await.status, StatusCode::OK);
    }
    assert_eq!(t.sandbox.db().cached_pages_answers(), bounded);
}
