//! The four resource calls against the sandbox, checked field by field against its seed
//! data, and `eventPages` over all 250 pages of event 1001.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use js_sys::{Array, Function, Reflect, Symbol};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn campaign_has_every_field_of_the_seed_in_camel_case() {
    let client = client_for(BASE_URL);
    let c = wait(client.get_campaign("demo-campaign".into(), None))
        .await
        .expect("campaign");
    assert_eq!(
        text(&c, "campaignGuid"),
        "2f0c5a1e-6b7d-4c3e-9a55-0d1e2f3a4b5c"
    );
    assert_eq!(text(&c, "shortName"), "demo-campaign");
    assert_eq!(text(&c, "title"), "Demo Campaign: Clean Water for Everyone");
    assert_eq!(
        text(&c, "summary"),
        "Help us bring clean water to 10,000 people."
    );
    assert_eq!(
        text(&c, "story"),
        "Every pound raised in this demo campaign goes (in the sandbox) to wells and filters."
    );
    assert_eq!(date(&c, "startDate"), BASE_MS - 120.0 * DAY_MS);
    assert_eq!(date(&c, "endDate"), BASE_MS + 240.0 * DAY_MS);
    assert_null(&c, "brandingGuid");
    assert_eq!(number(&c, "offlineAmount"), 250.0);
    assert_null(&c, "offlineAmountUpdated");
    assert_eq!(text(&c, "currency.currencyCode"), "GBP");
    assert_eq!(text(&c, "currency.currencySymbol"), "£");
    assert_eq!(text(&c, "status"), "Active");
    assert_null(&c, "landingPageUrl");
    assert_null(&c, "eventRegistrationLink");
    assert_eq!(
        text(&c, "thankYouMessage"),
        "Thank you for supporting clean water!"
    );
    assert_eq!(number(&c, "targetAmount"), 10_000.0);
    let charities: Array = field(&c, "charities")
        .dyn_into()
        .expect("charities is an array");
    assert_eq!(charities.length(), 1);
    assert_eq!(number(&charities.get(0), "Id"), 2357.0);
    assert_eq!(text(&charities.get(0), "Name"), "Water For All");
    assert_null(&c, "fundraising");
    assert_eq!(number(&c, "donationSummary.directDonationAmount"), 1250.0);
    assert_eq!(number(&c, "donationSummary.directDonationGiftAid"), 187.5);
    assert_eq!(number(&c, "donationSummary.fundraiserRaisedAmount"), 3170.0);
    assert_eq!(number(&c, "donationSummary.numberOfDirectDonations"), 42.0);
    assert_eq!(
        number(&c, "donationSummary.numberOfFundraiserDonations"),
        36.0
    );
    assert_null(&c, "donationSummary.offlineAmountUpdated");
    assert_eq!(number(&c, "donationSummary.totalAmount"), 4670.0);
    assert_eq!(number(&c, "donationSummary.totalGiftAid"), 975.0);
    assert_eq!(number(&c, "donationSummary.totalNumberOfDonations"), 78.0);
    assert_eq!(number(&c, "donationSummary.offlineAmount"), 250.0);
    assert_null(&c, "errorMessage");
    // The service's PascalCase does not leak through.
    assert!(field(&c, "CampaignGuid").is_undefined());
    assert!(field(&c, "DonationSummary").is_undefined());
}

#[wasm_bindgen_test]
async fn donation_on_the_owners_page_hides_message_and_real_name_from_strangers() {
    let client = client_for(BASE_URL);
    let d = wait(client.get_donation_by_reference("demo-ref-1".into(), None))
        .await
        .expect("donation");
    assert_eq!(number(&d, "id"), 5001.0);
    assert_eq!(text(&d, "donationRef"), "DR-5001");
    assert_null(&d, "image");
    assert_null(&d, "hasImage");
    assert_eq!(date(&d, "donationDate"), BASE_MS);
    assert_eq!(text(&d, "donorDisplayName"), "The Smith family");
    assert_null(&d, "message");
    assert_eq!(number(&d, "estimatedTaxReclaim"), 6.25);
    assert_eq!(text(&d, "amount"), "25.00");
    assert_null(&d, "donorRealName");
    assert_eq!(text(&d, "thirdPartyReference"), "demo-ref-1");
    assert_eq!(text(&d, "status"), "Accepted");
    assert_eq!(text(&d, "source"), "DirectDonations");
    assert_eq!(text(&d, "currencyCode"), "GBP");
    assert_eq!(text(&d, "donorLocalAmount"), "25.00");
    assert_eq!(text(&d, "donorLocalCurrencyCode"), "GBP");
    assert_null(&d, "errorMessage");
}

#[wasm_bindgen_test]
async fn donation_with_a_shared_message_carries_message_and_image() {
    let client = client_for(BASE_URL);
    let d = wait(client.get_donation_by_reference("demo-ref-2".into(), None))
        .await
        .expect("donation");
    assert_eq!(number(&d, "id"), 5002.0);
    assert_eq!(text(&d, "donationRef"), "DR-5002");
    assert_eq!(
        text(&d, "image"),
        "https://images.example.org/donations/heart.png"
    );
    assert_eq!(field(&d, "hasImage").as_bool(), Some(true));
    assert_eq!(date(&d, "donationDate"), BASE_MS + 3_600_000.0);
    assert_eq!(text(&d, "donorDisplayName"), "Sam");
    assert_eq!(text(&d, "message"), "Go go go! Proud of you.");
    assert_eq!(number(&d, "estimatedTaxReclaim"), 2.5);
    assert_eq!(text(&d, "amount"), "10.00");
    assert_null(&d, "donorRealName");
    assert_eq!(text(&d, "thirdPartyReference"), "demo-ref-2");
    assert_eq!(text(&d, "status"), "Accepted");
    assert_eq!(text(&d, "source"), "SponsorshipDonations");
    assert_eq!(text(&d, "currencyCode"), "GBP");
    assert_eq!(text(&d, "donorLocalAmount"), "11.80");
    assert_eq!(text(&d, "donorLocalCurrencyCode"), "EUR");
}

#[wasm_bindgen_test]
async fn created_event_is_addressable_and_has_no_pages() {
    let client = client_for(BASE_URL);
    let start = js_sys::Date::new(&JsValue::from_f64(BASE_MS + 400.0 * DAY_MS));
    let end = js_sys::Date::new(&JsValue::from_f64(BASE_MS + 401.0 * DAY_MS));
    let expiry = js_sys::Date::new(&JsValue::from_f64(BASE_MS + 430.0 * DAY_MS));
    let event = object(&[
        ("name", "Browser test walk".into()),
        ("description", "Created by tests/resources.rs".into()),
        ("eventType", "Walks".into()),
        ("location", "Leeds".into()),
        ("startDate", start.into()),
        ("completionDate", end.into()),
        ("expiryDate", expiry.into()),
        ("charityId", JsValue::from_f64(2357.0)),
    ]);
    let created = wait(client.create_event(event, None))
        .await
        .expect("created");
    let id = number(&created, "id");
    assert!(id > 1001.0 && id.fract() == 0.0, "id {id}");
    let uri = [BASE_URL, "/", APP_ID, "/v1/event/", &id.to_string()].concat();
    assert_eq!(text(&created, "next.uri"), uri);
    assert!(!text(&created, "next.type").is_empty());
    assert!(text(&created, "next.rel").contains("event") || !text(&created, "next.rel").is_empty());
    assert_null(&created, "errorMessage");

    let pages = wait(client.get_event_pages(JsValue::from_f64(id), None))
        .await
        .expect("pages");
    assert_eq!(number(&pages, "eventId"), id);
    assert_eq!(number(&pages, "totalFundraisingPages"), 0.0);
    assert_eq!(Array::from(&field(&pages, "fundraisingPages")).length(), 0);
}

#[wasm_bindgen_test]
async fn third_page_of_event_1001_matches_the_seed() {
    let client = client_for(BASE_URL);
    let options = object(&[("page", 3.into()), ("pageSize", 100.into())]);
    let r = wait(client.get_event_pages(1001.into(), Some(options.unchecked_into())))
        .await
        .expect("pages");
    assert_eq!(number(&r, "eventId"), 1001.0);
    assert_eq!(number(&r, "totalFundraisingPages"), 250.0);
    assert_eq!(number(&r, "totalPages"), 3.0);
    assert_eq!(number(&r, "totalRaised"), 62_793.75);
    assert_null(&r, "errorMessage");
    let pages = Array::from(&field(&r, "fundraisingPages"));
    assert_eq!(pages.length(), 50);

    // Page 203 of the seed: an in-memory page with a negative date of birth.
    let p = pages.get(2);
    assert_null(&p, "campaignGuid");
    assert_eq!(number(&p, "companyAppealId"), 0.0);
    assert_eq!(date(&p, "createdDate"), BASE_MS - 97.0 * DAY_MS);
    assert_eq!(text(&p, "currencyCode"), "GBP");
    assert_eq!(text(&p, "currencySymbol"), "£");
    assert_eq!(number(&p, "designId"), 3.0);
    assert_eq!(text(&p, "domain"), "www.example.org");
    assert_eq!(number(&p, "eventId"), 1001.0);
    assert_eq!(text(&p, "eventName"), "Demo City Marathon");
    assert_eq!(number(&p, "giftAidPlusSupplement"), 97.1875);
    assert_eq!(Array::from(&field(&p, "images")).length(), 0);
    assert_eq!(text(&p, "inMemoryPerson.firstName"), "Pat203");
    assert_eq!(text(&p, "inMemoryPerson.lastName"), "Remembered");
    assert_eq!(number(&p, "inMemoryPerson.personId"), 90_203.0);
    assert_null(&p, "inMemoryPerson.relationShip");
    assert_eq!(date(&p, "inMemoryPerson.dateOfBirth"), -391_000_000_000.0);
    assert_eq!(
        date(&p, "inMemoryPerson.dateOfDeath"),
        BASE_MS - 2030.0 * DAY_MS
    );
    assert_null(&p, "legacyId");
    assert_eq!(number(&p, "offlineDonations"), 20.0);
    assert_eq!(text(&p, "pageGuid"), "6d1b6c1e-0000-4000-8000-000000000203");
    assert_eq!(number(&p, "pageId"), 200_203.0);
    let images = Array::from(&field(&p, "pageImages"));
    assert_eq!(images.length(), 1);
    assert_eq!(
        images.get(0).as_string().unwrap(),
        "https://images.example.org/pages/203.jpg"
    );
    assert_null(&p, "pageOwner");
    assert_null(&p, "pageOwnerGuid");
    assert_eq!(text(&p, "pageShortName"), "demo-page-203");
    assert_eq!(text(&p, "pageStatus"), "Active");
    assert_eq!(text(&p, "pageTitle"), "Running the Demo City Marathon #203");
    assert_eq!(number(&p, "raisedAmount"), 408.75);
    assert_eq!(number(&p, "targetAmount"), 1250.0);
    assert_eq!(number(&p, "totalRaisedOnline"), 388.75);
    assert_eq!(date(&p, "updatedDate"), BASE_MS - 203.0 * DAY_MS);
    assert_eq!(text(&p, "smsCode"), "DEMO203");
    assert_eq!(number(&p, "charityId"), 2357.0);

    // Page 201 was imported: .NET's minimum date, negative milliseconds.
    assert_eq!(date(&pages.get(0), "createdDate"), -62_135_596_800_000.0);
    assert_null(&pages.get(0), "inMemoryPerson");
    // Page 225: no updatedDate.
    assert_null(&pages.get(24), "updatedDate");
    // Page 220 belongs to the campaign.
    assert_eq!(
        text(&pages.get(19), "campaignGuid"),
        "2f0c5a1e-6b7d-4c3e-9a55-0d1e2f3a4b5c"
    );
}

#[wasm_bindgen_test]
async fn event_pages_iterates_all_250_pages_in_three_requests() {
    let key = unique_key("iterate");
    let client = client_for(&faulty_base_url(&key, 0, 0));
    let options = object(&[("pageSize", 100.into())]);
    let iterator = client
        .event_pages(1001.into(), Some(options.unchecked_into()))
        .expect("iterator");

    // for await (...) protocol: [Symbol.asyncIterator]() returns the iterator itself.
    let method: Function = Reflect::get(&iterator, &Symbol::async_iterator())
        .unwrap()
        .dyn_into()
        .expect("asyncIterator");
    let same = method.call0(&iterator).unwrap();
    assert!(js_sys::Object::is(&same, &iterator));

    let next: Function = field(&iterator, "next").dyn_into().unwrap();
    let mut ids = Vec::new();
    let mut raised = 0.0;
    loop {
        let step = wait(next.call0(&iterator).unwrap().unchecked_into())
            .await
            .expect("next");
        if field(&step, "done").as_bool() == Some(true) {
            assert!(field(&step, "value").is_undefined());
            break;
        }
        assert_eq!(field(&step, "done").as_bool(), Some(false));
        let page = field(&step, "value");
        ids.push(number(&page, "pageId"));
        raised += number(&page, "raisedAmount");
        assert!(ids.len() <= 250, "more than 250 pages");
    }
    let expected: Vec<f64> = (1..=250).map(|i| 200_000.0 + f64::from(i)).collect();
    assert_eq!(ids, expected);
    assert_eq!(raised, 62_793.75);
    // Three pages of 100, 100 and 50; no request after the last page.
    assert_eq!(requests_seen(&key).await, 3.0);
    // Done stays done.
    let again = wait(next.call0(&iterator).unwrap().unchecked_into())
        .await
        .unwrap();
    assert_eq!(field(&again, "done").as_bool(), Some(true));
}

#[wasm_bindgen_test]
async fn event_dates_travel_as_the_service_writes_them() {
    let key = unique_key("dates");
    let client = client_for(&faulty_base_url(&key, 0, 0));
    let millis = [
        ("startDate", 1_893_456_000_000.0),
        ("completionDate", 1_893_542_400_000.0),
        ("expiryDate", 1_896_134_400_000.0),
    ];
    let mut fields = vec![
        ("name", JsValue::from("Dates on the wire")),
        ("eventType", "Walks".into()),
    ];
    for (name, ms) in millis {
        fields.push((name, js_sys::Date::new(&JsValue::from_f64(ms)).into()));
    }
    // The sandbox reads dates as strictly as the service: a literal backslash is a 400.
    wait(client.create_event(object(&fields), None))
        .await
        .expect("the sandbox accepted every date");
    let sent = body_seen(&key).await;
    for (name, ms) in millis {
        let wire = ["\"", name, "\":\"\\/Date(", &ms.to_string(), "+0000)\\/\""].concat();
        assert!(sent.contains(&wire), "{name}: {wire} not in {sent}");
    }
    assert!(
        !sent.contains("\\\\"),
        "a literal backslash was sent: {sent}"
    );
    // Its value is `/Date(ms+0000)/`, what the service's deserializer reads.
    let value = js_sys::JSON::parse(&sent).unwrap();
    for (name, ms) in millis {
        assert_eq!(
            text(&value, name),
            ["/Date(", &ms.to_string(), "+0000)/"].concat()
        );
    }
}
