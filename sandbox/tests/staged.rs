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
