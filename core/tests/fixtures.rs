//! Golden fixtures in `tests/fixtures/` (written from the spec's field lists): each is decoded
//! and checked field by field, then encoded back in the service's shape.

use std::collections::BTreeSet;

use fundraising_core::json::{self, campaign_to_service_json, event_pages_to_service_json};
use fundraising_core::model::{
    Campaign, CampaignStatus, Donation, DonationSource, DonationStatus, EventCreated, EventPages,
    PageStatus,
};
use fundraising_core::service_error::parse_error_body;
use fundraising_core::ServiceDate;
use serde_json::{json, Value};

const CAMPAIGN: &str = include_str!("../../tests/fixtures/campaign.json");
const DONATION: &str = include_str!("../../tests/fixtures/donation.json");
const EVENT_CREATED: &str = include_str!("../../tests/fixtures/event-created.json");
const EVENT_PAGES: &str = include_str!("../../tests/fixtures/event-pages.json");
const ERROR_BODIES: &str = include_str!("../../tests/fixtures/error-bodies.json");

fn date(millis: i64, offset: i16) -> Option<ServiceDate> {
    Some(ServiceDate {
        millis,
        offset_minutes: Some(offset),
    })
}

fn keys(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .expect("an object")
        .keys()
        .cloned()
        .collect()
}

#[test]
fn campaign_in_pascal_case() {
    let c: Campaign = json::decode(CAMPAIGN).unwrap();
    assert_eq!(c.campaign_guid, "6c0cbe6e-3b6c-4a52-9f1d-0c2a5c8b1e7a");
    assert_eq!(c.short_name, "spring-appeal");
    assert_eq!(c.title.as_deref(), Some("Spring Appeal"));
    assert_eq!(c.summary, "Help us plant 10,000 trees this spring.");
    assert_eq!(c.story, "<p>Every tree counts.</p>");
    assert_eq!(c.start_date, date(1743761607553, 0));
    assert_eq!(c.end_date, None);
    assert_eq!(c.branding_guid, None);
    assert_eq!(c.offline_amount, 250.5);
    assert_eq!(c.offline_amount_updated, None);
    assert_eq!(c.currency.currency_code, "GBP");
    assert_eq!(c.currency.currency_symbol, "£");
    assert_eq!(c.status, CampaignStatus::Active);
    assert_eq!(c.landing_page_url, None);
    assert_eq!(c.event_registration_link, None);
    assert_eq!(
        c.thank_you_message.as_deref(),
        Some("Thank you for your support!")
    );
    assert_eq!(c.target_amount, 10000.0);
    assert_eq!(
        c.charities,
        Some(json!([{"Id": 2050, "Name": "Tree Friends"}]))
    );
    assert_eq!(c.fundraising, None);
    assert_eq!(c.error_message, None);
    let s = &c.donation_summary;
    assert_eq!(s.direct_donation_amount, 1200.75);
    assert_eq!(s.direct_donation_gift_aid, 300.19);
    assert_eq!(s.fundraiser_raised_amount, 845.0);
    assert_eq!(s.number_of_direct_donations, 42);
    assert_eq!(s.number_of_fundraiser_donations, 17);
    assert_eq!(s.offline_amount_updated, None);
    assert_eq!(s.total_amount, 2296.25);
    assert_eq!(s.total_gift_aid, 511.44);
    assert_eq!(s.total_number_of_donations, 59);
    assert_eq!(s.offline_amount, 250.5);
}

#[test]
fn campaign_encodes_back_to_the_service_shape() {
    let fixture: Value = serde_json::from_str(CAMPAIGN).unwrap();
    let c: Campaign = json::decode(CAMPAIGN).unwrap();
    let service = campaign_to_service_json(&c);
    let mut expected_keys = keys(&fixture);
    expected_keys.remove("SomethingNew");
    assert_eq!(keys(&service), expected_keys);
    assert_eq!(keys(&service["Currency"]), keys(&fixture["Currency"]));
    assert_eq!(
        keys(&service["DonationSummary"]),
        keys(&fixture["DonationSummary"])
    );
    assert_eq!(service["DonationSummary"]["offlineAmount"], json!(250.5));
    let text = json::to_service_text(&service);
    assert!(
        text.contains(r#""StartDate":"\/Date(1743761607553+0000)\/""#),
        "{text}"
    );
    assert_eq!(json::decode::<Campaign>(&text).unwrap(), c);
    // The JS-facing shape is camelCase.
    let js = serde_json::to_value(&c).unwrap();
    assert_eq!(js["donationSummary"]["totalAmount"], json!(2296.25));
    assert_eq!(js["currency"]["currencyCode"], json!("GBP"));
}

#[test]
fn donation() {
    let d: Donation = json::decode(DONATION).unwrap();
    assert_eq!(d.id, 1234567);
    assert_eq!(d.donation_ref.as_deref(), Some("RCPT-0042"));
    assert_eq!(
        d.image.as_deref(),
        Some("https://images.example/donor/heart.png")
    );
    assert_eq!(d.has_image, Some(true));
    assert_eq!(d.donation_date, date(1743761607553, 60).unwrap());
    assert_eq!(d.donor_display_name, "Sam Donor");
    assert_eq!(d.message.as_deref(), Some("Good luck with the run!"));
    assert_eq!(d.estimated_tax_reclaim, 2.5);
    assert_eq!(d.amount, "10.00");
    assert_eq!(d.donor_real_name.as_deref(), Some("Samantha Donor"));
    assert_eq!(d.third_party_reference, "order-2024-0001");
    assert_eq!(d.status, DonationStatus::Accepted);
    assert_eq!(d.source, DonationSource::DirectDonations);
    assert_eq!(d.currency_code, "GBP");
    assert_eq!(d.donor_local_amount, "11.75");
    assert_eq!(d.donor_local_currency_code, "EUR");
    assert_eq!(d.error_message, None);

    let fixture: Value = serde_json::from_str(DONATION).unwrap();
    let encoded = serde_json::to_value(&d).unwrap();
    let mut expected_keys = keys(&fixture);
    expected_keys.remove("charityId");
    assert_eq!(keys(&encoded), expected_keys);
    // What the fixture's `"\/Date(..+0100)\/"` decodes to (JSON's `\/` is `/`), in UTC.
    assert_eq!(encoded["donationDate"], json!("/Date(1743761607553+0000)/"));
    assert_eq!(
        json::decode::<Donation>(&encoded.to_string()).unwrap().id,
        d.id
    );
}

#[test]
fn event_created() {
    let r: EventCreated = json::decode(EVENT_CREATED).unwrap();
    assert_eq!(r.id, 4711);
    let next = r.next.clone().expect("next");
    assert_eq!(next.rel, "http://127.0.0.1:8081/demo-app/v1/event/4711");
    assert_eq!(next.uri, "http://127.0.0.1:8081/demo-app/v1/event/4711");
    assert_eq!(next.r#type, "application/json");
    assert_eq!(r.error_message, None);
    assert_eq!(r.error, None);
    let encoded = serde_json::to_value(&r).unwrap();
    assert_eq!(encoded["next"]["type"], json!("application/json"));
}

#[test]
fn event_pages_with_in_memory_person_and_negative_dates() {
    let p: EventPages = json::decode(EVENT_PAGES).unwrap();
    assert_eq!(p.event_id, 4711);
    assert_eq!(p.total_fundraising_pages, 2);
    assert_eq!(p.total_pages, 1);
    assert_eq!(p.total_raised, 150.25);
    assert_eq!(p.error_message, None);
    assert_eq!(p.fundraising_pages.len(), 2);

    let a = &p.fundraising_pages[0];
    assert_eq!(a.campaign_guid, None);
    assert_eq!(a.company_appeal_id, 0);
    assert_eq!(a.created_date, date(1743761607553, 0));
    assert_eq!(a.currency_code.as_deref(), Some("GBP"));
    assert_eq!(a.currency_symbol.as_deref(), Some("£"));
    assert_eq!(a.design_id, 3);
    assert_eq!(a.domain, "fundraising.example");
    assert_eq!(a.event_id, 4711);
    assert_eq!(a.event_name, "Town 10k");
    assert_eq!(a.gift_aid_plus_supplement, 12.5);
    assert_eq!(a.images, Some(json!([])));
    let person = a.in_memory_person.as_ref().expect("inMemoryPerson");
    assert_eq!(person.first_name, "Ada");
    assert_eq!(person.last_name, "Lovelace");
    assert_eq!(person.person_id, 99);
    assert_eq!(person.relation_ship, None);
    assert_eq!(Some(person.date_of_birth), date(-4852137600000, 0));
    assert_eq!(Some(person.date_of_death), date(-3694723200000, -90));
    assert_eq!(a.legacy_id, None);
    assert_eq!(a.offline_donations, 20.0);
    assert_eq!(
        a.page_guid.as_deref(),
        Some("0a8e5c2d-4b1f-4e6a-9d3c-7f2b1a0e9c8d")
    );
    assert_eq!(a.page_id, 880001);
    assert_eq!(
        a.page_images,
        ["/images/pages/880001/1.jpg", "/images/pages/880001/2.jpg"]
    );
    assert_eq!(a.page_owner, None);
    assert_eq!(a.page_owner_guid, None);
    assert_eq!(a.page_short_name, "ada-runs");
    assert_eq!(a.page_status, PageStatus::Active);
    assert_eq!(a.page_title, "Ada runs the 10k");
    assert_eq!(a.raised_amount, 150.25);
    assert_eq!(a.target_amount, 500.0);
    assert_eq!(a.total_raised_online, 130.25);
    assert_eq!(a.updated_date, None);
    assert_eq!(a.sms_code, "ADAR50");
    assert_eq!(a.charity_id, 2050);

    let b = &p.fundraising_pages[1];
    assert_eq!(
        b.campaign_guid.as_deref(),
        Some("6c0cbe6e-3b6c-4a52-9f1d-0c2a5c8b1e7a")
    );
    assert_eq!(b.company_appeal_id, 12);
    assert_eq!(b.created_date, date(-62135596800000, 0));
    assert_eq!(b.currency_code, None);
    assert_eq!(
        b.images,
        Some(json!([{"url": "/img/a.png", "caption": "Start line"}]))
    );
    assert_eq!(b.in_memory_person, None);
    assert_eq!(b.legacy_id, Some(json!(5150)));
    assert_eq!(b.page_owner, Some(json!({"name": "Bo"})));
    assert_eq!(
        b.page_owner_guid,
        Some(json!("b0b0b0b0-0000-4000-8000-000000000000"))
    );
    assert!(b.page_images.is_empty());
    assert_eq!(b.page_status, PageStatus::Other("Suspended".into()));
    assert_eq!(b.updated_date, date(1743761607553, -300));
    assert_eq!(b.sms_code, "");
}

#[test]
fn event_pages_encode_back_to_the_service_shape() {
    let fixture: Value = serde_json::from_str(EVENT_PAGES).unwrap();
    let p: EventPages = json::decode(EVENT_PAGES).unwrap();
    let service = event_pages_to_service_json(&p);
    assert_eq!(keys(&service), keys(&fixture));
    for i in 0..2 {
        assert_eq!(
            keys(&service["fundraisingPages"][i]),
            keys(&fixture["fundraisingPages"][i])
        );
    }
    assert_eq!(
        keys(&service["fundraisingPages"][0]["inMemoryPerson"]),
        keys(&fixture["fundraisingPages"][0]["inMemoryPerson"])
    );
    // Dates are written in UTC (+0000); everything else survives the round trip.
    let again: EventPages = json::decode(&json::to_service_text(&service)).unwrap();
    assert_eq!(event_pages_to_service_json(&again), service);
    let person = again.fundraising_pages[0]
        .in_memory_person
        .as_ref()
        .unwrap();
    assert_eq!(person.date_of_death.millis, -3694723200000);
    assert_eq!(person.date_of_death.offset_minutes, Some(0));
    assert_eq!(
        again.fundraising_pages[1].page_status,
        PageStatus::Other("Suspended".into())
    );
}

#[test]
fn error_bodies() {
    let cases: Vec<Value> = serde_json::from_str(ERROR_BODIES).unwrap();
    assert_eq!(cases.len(), 6);
    for case in cases {
        let status = case["status"].as_u64().unwrap() as u16;
        let e = parse_error_body(status, case["body"].as_str().unwrap());
        assert_eq!(e.status, status, "{case}");
        assert_eq!(e.id.as_deref(), case["id"].as_str(), "{case}");
        assert_eq!(e.message, case["message"].as_str().unwrap(), "{case}");
    }
}
