//! Staged donations (`[[staged_donations]]`): the donation return flow over the sandbox's clock.

mod common;

use std::time::Duration;

use axum::http::StatusCode;
use common::*;
use fundraising_sandbox::Config;

const STAGED: &str = r#"
[[applications]]
app_id = "demo-app"
secret = "demo-secret"
home_page = "http://127.0.0.1:8080/"

[[staged_donations]]
reference = "return-accepted"
appears_after_secs = 5
final_after_secs = 20
amount = "12.50"
currency_code = "EUR"
donor_display_name = "Kim"
message = "Well done!"
share_message = true

[[staged_donations]]
reference = "return-rejected"
final_after_secs = 3
final_status = "rejected"
"#;

async fn lookup(t: &TestSandbox, reference: &str) -> Reply {
    call(
        &t.api(),
        get(&format!("/demo-app/v1/donation/ref/{reference}")),
    )
    .await
}

#[tokio::test]
async fn a_staged_donation_is_404_then_pending_then_final() {
    let t = open(Config::from_toml(STAGED).expect("config"));
    let missing = lookup(&t, "return-accepted").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(missing.json()["errorMessage"].is_string());
    let rejected = lookup(&t, "return-rejected").await;
    assert_eq!(rejected.status, StatusCode::OK);
    assert_eq!(rejected.json()["status"], "Pending");

    t.sandbox.clock().advance(Duration::from_millis(4_900));
    assert_eq!(
        lookup(&t, "return-accepted").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        lookup(&t, "return-rejected").await.json()["status"],
        "Rejected"
    );

    t.sandbox.clock().advance(Duration::from_millis(100));
    let pending = lookup(&t, "return-accepted").await;
    assert_eq!(pending.status, StatusCode::OK, "{}", pending.body);
    let json = pending.json();
    assert_eq!(json["status"], "Pending");
    assert_eq!(json["thirdPartyReference"], "return-accepted");
    assert_eq!(json["amount"], "12.50");
    assert_eq!(json["currencyCode"], "EUR");
    assert_eq!(json["message"], "Well done!");
    assert!(json.get("donorRealName").is_none());
    assert!(
        pending.body.contains(r#""donationDate":"\/Date("#),
        "{}",
        pending.body
    );

    t.sandbox.clock().advance(Duration::from_secs(15));
    let accepted = lookup(&t, "return-accepted").await;
    assert_eq!(accepted.json()["status"], "Accepted");
    assert_eq!(accepted.json()["id"], pending.json()["id"]);
    // Core decodes it as a donation.
    let typed: fundraising_core::model::Donation =
        fundraising_core::json::decode(&accepted.body).expect("decodes");
    assert_eq!(
        typed.status,
        fundraising_core::model::DonationStatus::Accepted
    );
}

#[tokio::test]
async fn staged_donations_are_off_by_default_and_the_seed_is_unchanged() {
    assert!(Config::default().staged_donations.is_empty());
    let t = open_default();
    assert_eq!(
        lookup(&t, "return-accepted").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(lookup(&t, "demo-ref-1").await.status, StatusCode::OK);
}

#[test]
fn staged_donations_are_checked_and_capped() {
    let entry = |reference: &str, extra: &str| {
        format!(
            "[[staged_donations]]\nreference = \"{reference}\"\nfinal_after_secs = 10\n{extra}\n"
        )
    };
    for (toml, why) in [
        (entry("", ""), "reference must not be empty"),
        (entry("a", "") + &entry("a", ""), "listed twice"),
        (entry("demo-ref-1", ""), "seeded"),
        (entry("a", "appears_after_secs = 11"), "final_after_secs"),
        (entry("a", "final_status = \"Lost\""), "final_status"),
        (entry("a", "colour = \"red\""), "unknown field"),
    ] {
        let err = Config::from_toml(&toml).expect_err(&toml).to_string();
        assert!(err.contains(why), "{toml}: {err}");
    }
    let max = fundraising_sandbox::MAX_STAGED_DONATIONS;
    let many = |n: usize| {
        (0..n)
            .map(|i| entry(&format!("r{i}"), ""))
            .collect::<String>()
    };
    let config = Config::from_toml(&many(max)).expect("at the cap");
    assert_eq!(config.staged_donations.len(), max);
    let err = Config::from_toml(&many(max + 1)).expect_err("over the cap");
    assert!(err.to_string().contains("at most"), "{err}");
}

fn stage_request(body: &str) -> axum::http::Request<axum::body::Body> {
    axum::http::Request::post(fundraising_sandbox::STAGING_PATH)
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_owned()))
        .expect("request")
}

#[tokio::test]
async fn the_staging_route_is_off_by_default() {
    let t = open_default();
    let reply = call(
        &t.api(),
        stage_request(r#"{"reference":"r","final_after_secs":1}"#),
    )
    .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert!(reply.json()["errorMessage"].is_string());
    assert_eq!(lookup(&t, "r").await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_staging_route_stages_from_now_and_is_bounded() {
    let t = open(Config {
        enable_test_routes: true,
        ..Config::default()
    });
    let api = t.api();
    // Long after the start: times count from when the donation is staged.
    t.sandbox.clock().advance(Duration::from_secs(3600));
    let reply = call(
        &api,
        stage_request(
            r#"{"reference":"late","appears_after_secs":2,"final_after_secs":4,"final_status":"Cancelled"}"#,
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    assert_eq!(reply.json()["thirdPartyReference"], "late");
    assert_eq!(lookup(&t, "late").await.status, StatusCode::NOT_FOUND);
    t.sandbox.clock().advance(Duration::from_secs(2));
    assert_eq!(lookup(&t, "late").await.json()["status"], "Pending");
    t.sandbox.clock().advance(Duration::from_secs(2));
    assert_eq!(lookup(&t, "late").await.json()["status"], "Cancelled");

    for (body, status, id) in [
        (
            r#"{"reference":"late","final_after_secs":1}"#,
            StatusCode::CONFLICT,
            "duplicate_reference",
        ),
        (
            r#"{"reference":"x","appears_after_secs":5,"final_after_secs":1}"#,
            StatusCode::BAD_REQUEST,
            "invalid_argument",
        ),
        (
            r#"{"reference":"x","final_after_secs":1,"colour":"red"}"#,
            StatusCode::BAD_REQUEST,
            "invalid_argument",
        ),
        (
            r#"{"reference":"demo-ref-1","final_after_secs":1}"#,
            StatusCode::BAD_REQUEST,
            "invalid_argument",
        ),
        ("not json", StatusCode::BAD_REQUEST, "invalid_argument"),
    ] {
        let reply = call(&api, stage_request(body)).await;
        assert_eq!(reply.status, status, "{body}: {}", reply.body);
        assert_eq!(reply.json()["error"]["id"], id, "{body}");
    }
    let untyped = axum::http::Request::post(fundraising_sandbox::STAGING_PATH)
        .body(axum::body::Body::from(
            r#"{"reference":"y","final_after_secs":1}"#,
        ))
        .expect("request");
    assert_eq!(
        call(&api, untyped).await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );

    let max = fundraising_sandbox::MAX_STAGED_DONATIONS;
    for i in 1..max {
        let body = format!(r#"{{"reference":"r{i}","final_after_secs":1}}"#);
        let reply = call(&api, stage_request(&body)).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{i}: {}", reply.body);
    }
    let full = call(
        &api,
        stage_request(r#"{"reference":"one-more","final_after_secs":1}"#),
    )
    .await;
    assert_eq!(full.status, StatusCode::CONFLICT, "{}", full.body);
    assert_eq!(full.json()["error"]["id"], "too_many_staged_donations");
    assert_eq!(lookup(&t, "one-more").await.status, StatusCode::NOT_FOUND);
}
