//! The four resource calls of the typed API against the sandbox, checked field by field
//! against its seed data, and the page stream over all 250 pages of event 1001.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use fundraising_client::model::{
    CampaignStatus, DonationSource, DonationStatus, Event, EventType, PageStatus,
};
use fundraising_client::ServiceDate;
use futures_util::StreamExt;
use serde_json::json;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn at(millis: i64) -> ServiceDate {
    ServiceDate::from_millis(millis)
}

#[wasm_bindgen_test]
async fn campaign_has_every_field_of_the_seed() {
    let c = client_for(BASE_URL)
        .campaign("demo-campaign")
        .await
        .expect("campaign");
    assert_eq!(c.campaign_guid, "2f0c5a1e-6b7d-4c3e-9a55-0d1e2f3a4b5c");
    assert_eq!(c.short_name, "demo-campaign");
    assert_eq!(
        c.title.as_deref(),
        Some("Demo Campaign: Clean Water for Everyone")
    );
    assert_eq!(c.summary, "Help us bring clean water to 10,000 people.");
    assert_eq!(
        c.story,
        "Every pound raised in this demo campaign goes (in the sandbox) to wells and filters."
    );
    assert_eq!(c.start_date.map(|d| d.millis), Some(BASE_MS - 120 * DAY_MS));
    // 31 December 2035: the demo campaign stays open for giving.
    assert_eq!(c.end_date.map(|d| d.millis), Some(2_082_672_000_000));
    assert_eq!(c.branding_guid, None);
    assert_eq!(c.offline_amount, 250.0);
    assert_eq!(c.offline_amount_updated, None);
    assert_eq!(c.currency.currency_code, "GBP");
    assert_eq!(c.currency.currency_symbol, "£");
    assert_eq!(c.status, CampaignStatus::Active);
    assert_eq!(c.landing_page_url, None);
    assert_eq!(c.event_registration_link, None);
    assert_eq!(
        c.thank_you_message.as_deref(),
        Some("Thank you for supporting clean water!")
    );
    assert_eq!(c.target_amount, 10_000.0);
    // Members whose shape the spec does not show pass through as sent.
    assert_eq!(
        c.charities,
        Some(json!([{"Id": 2357, "Name": "Water For All"}]))
    );
    assert_eq!(c.fundraising, None);
    let s = &c.donation_summary;
    assert_eq!(s.direct_donation_amount, 1250.0);
    assert_eq!(s.direct_donation_gift_aid, 187.5);
    assert_eq!(s.fundraiser_raised_amount, 3170.0);
    assert_eq!(s.number_of_direct_donations, 42);
    assert_eq!(s.number_of_fundraiser_donations, 36);
    assert_eq!(s.offline_amount_updated, None);
    assert_eq!(s.total_amount, 4670.0);
    assert_eq!(s.total_gift_aid, 975.0);
    assert_eq!(s.total_number_of_donations, 78);
    assert_eq!(s.offline_amount, 250.0);
    assert_eq!(c.error_message, None);
}

#[wasm_bindgen_test]
async fn donation_on_the_owners_page_hides_message_and_real_name_from_strangers() {
    let d = client_for(BASE_URL)
        .donation("demo-ref-1")
        .await
        .expect("donation");
    assert_eq!(d.id, 5001);
    assert_eq!(d.donation_ref.as_deref(), Some("DR-5001"));
    assert_eq!(d.image, None);
    assert_eq!(d.has_image, None);
    assert_eq!(d.donation_date, at(BASE_MS));
    assert_eq!(d.donor_display_name, "The Smith family");
    assert_eq!(d.message, None);
    assert_eq!(d.estimated_tax_reclaim, 6.25);
    assert_eq!(d.amount, "25.00");
    assert_eq!(d.donor_real_name, None);
    assert_eq!(d.third_party_reference, "demo-ref-1");
    assert_eq!(d.status, DonationStatus::Accepted);
    assert_eq!(d.source, DonationSource::DirectDonations);
    assert_eq!(d.currency_code, "GBP");
    assert_eq!(d.donor_local_amount, "25.00");
    assert_eq!(d.donor_local_currency_code, "GBP");
    assert_eq!(d.error_message, None);
}

#[wasm_bindgen_test]
async fn donation_with_a_shared_message_carries_message_and_image() {
    let d = client_for(BASE_URL)
        .donation("demo-ref-2")
        .await
        .expect("donation");
    assert_eq!(d.id, 5002);
    assert_eq!(d.donation_ref.as_deref(), Some("DR-5002"));
    assert_eq!(
        d.image.as_deref(),
        Some("https://images.example.org/donations/heart.png")
    );
    assert_eq!(d.has_image, Some(true));
    assert_eq!(d.donation_date.millis, BASE_MS + 3_600_000);
    assert_eq!(d.donor_display_name, "Sam");
    assert_eq!(d.message.as_deref(), Some("Go go go! Proud of you."));
    assert_eq!(d.estimated_tax_reclaim, 2.5);
    assert_eq!(d.amount, "10.00");
    assert_eq!(d.donor_real_name, None);
    assert_eq!(d.third_party_reference, "demo-ref-2");
    assert_eq!(d.status, DonationStatus::Accepted);
    assert_eq!(d.source, DonationSource::SponsorshipDonations);
    assert_eq!(d.currency_code, "GBP");
    assert_eq!(d.donor_local_amount, "11.80");
    assert_eq!(d.donor_local_currency_code, "EUR");
}

#[wasm_bindgen_test]
async fn created_event_is_addressable_and_has_no_pages() {
    let client = client_for(BASE_URL);
    let created = client
        .create_event(
            &Event::new("Browser test walk", EventType::Walks)
                .description("Created by tests/resources.rs")
                .location("Leeds")
                .start_date(at(BASE_MS + 400 * DAY_MS))
                .completion_date(at(BASE_MS + 401 * DAY_MS))
                .expiry_date(at(BASE_MS + 430 * DAY_MS))
                .charity_id(2357),
        )
        .await
        .expect("created");
    assert!(created.id > 1001, "id {}", created.id);
    let next = created.next.expect("a link to the event");
    let uri = [BASE_URL, "/", APP_ID, "/v1/event/", &created.id.to_string()].concat();
    assert_eq!(next.uri, uri);
    assert!(!next.r#type.is_empty());
    assert!(!next.rel.is_empty());
    assert_eq!(created.error_message, None);

    let pages = client
        .event_pages(created.id, None, None)
        .await
        .expect("pages");
    assert_eq!(pages.event_id, created.id);
    assert_eq!(pages.total_fundraising_pages, 0);
    assert!(pages.fundraising_pages.is_empty());
}

#[wasm_bindgen_test]
async fn third_page_of_event_1001_matches_the_seed() {
    let r = client_for(BASE_URL)
        .event_pages(1001, Some(3), Some(100))
        .await
        .expect("pages");
    assert_eq!(r.event_id, 1001);
    assert_eq!(r.total_fundraising_pages, 250);
    assert_eq!(r.total_pages, 3);
    assert_eq!(r.total_raised, 62_793.75);
    assert_eq!(r.error_message, None);
    assert_eq!(r.fundraising_pages.len(), 50);

    // Page 203 of the seed: an in-memory page with a negative date of birth.
    let p = &r.fundraising_pages[2];
    assert_eq!(p.campaign_guid, None);
    assert_eq!(p.company_appeal_id, 0);
    assert_eq!(p.created_date, Some(at(BASE_MS - 97 * DAY_MS)));
    assert_eq!(p.currency_code.as_deref(), Some("GBP"));
    assert_eq!(p.currency_symbol.as_deref(), Some("£"));
    assert_eq!(p.design_id, 3);
    assert_eq!(p.domain, "www.example.org");
    assert_eq!(p.event_id, 1001);
    assert_eq!(p.event_name, "Demo City Marathon");
    assert_eq!(p.gift_aid_plus_supplement, 97.1875);
    assert_eq!(p.images, Some(json!([])));
    let person = p.in_memory_person.as_ref().expect("in memory of");
    assert_eq!(person.first_name, "Pat203");
    assert_eq!(person.last_name, "Remembered");
    assert_eq!(person.person_id, 90_203);
    assert_eq!(person.relation_ship, None);
    assert_eq!(person.date_of_birth.millis, -391_000_000_000);
    assert_eq!(person.date_of_death.millis, BASE_MS - 2030 * DAY_MS);
    assert_eq!(p.legacy_id, None);
    assert_eq!(p.offline_donations, 20.0);
    assert_eq!(
        p.page_guid.as_deref(),
        Some("6d1b6c1e-0000-4000-8000-000000000203")
    );
    assert_eq!(p.page_id, 200_203);
    assert_eq!(p.page_images, ["https://images.example.org/pages/203.jpg"]);
    assert_eq!(p.page_owner, None);
    assert_eq!(p.page_owner_guid, None);
    assert_eq!(p.page_short_name, "demo-page-203");
    assert_eq!(p.page_status, PageStatus::Active);
    assert_eq!(p.page_title, "Running the Demo City Marathon #203");
    assert_eq!(p.raised_amount, 408.75);
    assert_eq!(p.target_amount, 1250.0);
    assert_eq!(p.total_raised_online, 388.75);
    assert_eq!(p.updated_date, Some(at(BASE_MS - 203 * DAY_MS)));
    assert_eq!(p.sms_code, "DEMO203");
    assert_eq!(p.charity_id, 2357);

    // Page 201 was imported: .NET's minimum date, negative milliseconds.
    let imported = &r.fundraising_pages[0];
    assert_eq!(
        imported.created_date.map(|d| d.millis),
        Some(-62_135_596_800_000)
    );
    assert_eq!(imported.in_memory_person, None);
    // Page 225: no updatedDate.
    assert_eq!(r.fundraising_pages[24].updated_date, None);
    // Page 220 belongs to the campaign.
    assert_eq!(
        r.fundraising_pages[19].campaign_guid.as_deref(),
        Some("2f0c5a1e-6b7d-4c3e-9a55-0d1e2f3a4b5c")
    );
}

#[wasm_bindgen_test]
async fn the_page_stream_yields_all_250_pages_in_three_requests() {
    let key = unique_key("stream");
    let client = client_for(&faulty_base_url(&key, 0, 0));
    let mut pages = client.event_pages_stream(1001, Some(100)).expect("stream");
    let mut ids = Vec::new();
    let mut raised = 0.0;
    while let Some(page) = pages.next().await {
        let page = page.expect("page");
        ids.push(page.page_id);
        raised += page.raised_amount;
        assert!(ids.len() <= 250, "more than 250 pages");
    }
    let expected: Vec<i64> = (1..=250).map(|i| 200_000 + i).collect();
    assert_eq!(ids, expected);
    assert_eq!(raised, 62_793.75);
    // Three pages of 100, 100 and 50; no request after the last page.
    assert_eq!(requests_seen(&key).await, 3.0);
    // Done stays done.
    assert!(pages.next().await.is_none());
    assert_eq!(requests_seen(&key).await, 3.0);
}

#[wasm_bindgen_test]
async fn event_dates_travel_as_the_service_writes_them() {
    let key = unique_key("dates");
    let client = client_for(&faulty_base_url(&key, 0, 0));
    let millis = [
        ("startDate", 1_893_456_000_000_i64),
        ("completionDate", 1_893_542_400_000),
        ("expiryDate", 1_896_134_400_000),
    ];
    // The sandbox reads dates as strictly as the service: a literal backslash is a 400.
    let mut event = Event::new("Dates on the wire", EventType::Walks)
        .start_date(at(millis[0].1))
        .completion_date(at(millis[1].1))
        .expiry_date(at(millis[2].1));
    // Members the service ignores or only answers with are never sent, even when set.
    event.id = Some(4242);
    event.error_message = Some("set by the caller".into());
    client
        .create_event(&event)
        .await
        .expect("the sandbox accepted every date");
    let sent = body_seen(&key).await;
    for member in ["\"id\"", "errorMessage", "4242", "set by the caller"] {
        assert!(!sent.contains(member), "{member} was sent: {sent}");
    }
    for (name, ms) in millis {
        let wire = ["\"", name, "\":\"\\/Date(", &ms.to_string(), "+0000)\\/\""].concat();
        assert!(sent.contains(&wire), "{name}: {wire} not in {sent}");
    }
    assert!(
        !sent.contains("\\\\"),
        "a literal backslash was sent: {sent}"
    );
    // Its value is `/Date(ms+0000)/`, what the service's deserializer reads.
    let value: serde_json::Value = serde_json::from_str(&sent).unwrap();
    for (name, ms) in millis {
        assert_eq!(value[name], ["/Date(", &ms.to_string(), "+0000)/"].concat());
    }
}

#[wasm_bindgen_test]
fn dates_convert_to_the_platforms_and_back() {
    use fundraising_client::JsDate;
    for millis in [0, -1, BASE_MS, -62_135_596_800_000] {
        let js = at(millis).to_js_date();
        assert_eq!(js.get_time(), millis as f64);
        assert_eq!(ServiceDate::from_js_date(&js).unwrap().millis, millis);
    }
    let invalid = js_sys::Date::new(&"not a date".into());
    assert_eq!(
        ServiceDate::from_js_date(&invalid).unwrap_err().code(),
        "invalid_argument"
    );
    let time: std::time::SystemTime = at(BASE_MS).into();
    assert_eq!(ServiceDate::try_from(time).unwrap().millis, BASE_MS);
}
