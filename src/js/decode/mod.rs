//! The JS face's fast path: the service's JSON read by core's one decoder straight from the
//! `JSON.parse` tree into the plain JS object JS receives ([`build`]), with `Date`s for dates,
//! and the tree's own strings, numbers and free-form members passed through as `JSON.parse`
//! made them.

mod build;
mod edits;

use fundraising_core::shape::Model;
use wasm_bindgen::prelude::*;

use crate::http::HttpResponse;
use crate::Error;
use build::decode_body;

/// A 2xx answer's body as the JS result of the model `M`, by core's decoder.
pub(crate) fn decode<M: Model>(answer: &HttpResponse) -> Result<JsValue, Error> {
    decode_body(&answer.body.js(), M::SHAPE)
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::*;
    use fundraising_core::model::{Campaign, Donation, EventPages};
    use fundraising_core::shape::Model;
    use js_sys::{Array, Reflect};
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    fn get(value: &JsValue, path: &str) -> JsValue {
        path.split('.').fold(value.clone(), |v, name| {
            Reflect::get(&v, &JsValue::from_str(name)).unwrap()
        })
    }

    fn millis(value: &JsValue, path: &str) -> f64 {
        get(value, path)
            .dyn_into::<js_sys::Date>()
            .expect("a Date")
            .get_time()
    }

    fn decode_error<M: Model>(body: &str) -> String {
        match decode_body(&body.into(), M::SHAPE) {
            Err(Error::Decode(reason)) => reason.to_string(),
            other => panic!("expected a decode error, got {other:?}"),
        }
    }

    #[wasm_bindgen_test]
    fn pascal_case_campaign_fixture_becomes_camel_case() {
        let c = decode_body(
            &include_str!("../../../tests/fixtures/campaign.json").into(),
            Campaign::SHAPE,
        )
        .unwrap();
        assert_eq!(
            get(&c, "campaignGuid"),
            "6c0cbe6e-3b6c-4a52-9f1d-0c2a5c8b1e7a"
        );
        assert_eq!(get(&c, "shortName"), "spring-appeal");
        assert_eq!(millis(&c, "startDate"), 1_743_761_607_553.0);
        assert!(get(&c, "endDate").is_null());
        assert_eq!(get(&c, "offlineAmount"), 250.5);
        assert_eq!(get(&c, "currency.currencyCode"), "GBP");
        assert_eq!(get(&c, "donationSummary.totalAmount"), 2296.25);
        assert_eq!(get(&c, "donationSummary.offlineAmount"), 250.5);
        assert_eq!(get(&c, "donationSummary.numberOfFundraiserDonations"), 17.0);
        // Objects the spec does not describe pass through as sent.
        assert_eq!(
            get(&c, "charities").dyn_into::<Array>().unwrap().length(),
            1
        );
        // Unknown members are dropped, PascalCase names do not leak.
        assert!(get(&c, "somethingNew").is_undefined());
        assert!(get(&c, "SomethingNew").is_undefined());
        assert!(get(&c, "CampaignGuid").is_undefined());
    }

    #[wasm_bindgen_test]
    fn donation_fixture_keeps_text_amounts_and_the_utc_milliseconds() {
        let d = decode_body(
            &include_str!("../../../tests/fixtures/donation.json").into(),
            Donation::SHAPE,
        )
        .unwrap();
        assert_eq!(get(&d, "id"), 1_234_567.0);
        assert_eq!(get(&d, "amount"), "10.00");
        assert_eq!(get(&d, "donorLocalAmount"), "11.75");
        // The offset (+0100) is informational; the milliseconds are UTC.
        assert_eq!(millis(&d, "donationDate"), 1_743_761_607_553.0);
        assert_eq!(get(&d, "status"), "Accepted");
        assert!(get(&d, "charityId").is_undefined());
    }

    #[wasm_bindgen_test]
    fn event_pages_fixture_with_in_memory_person_and_negative_date() {
        let p = decode_body(
            &include_str!("../../../tests/fixtures/event-pages.json").into(),
            EventPages::SHAPE,
        )
        .unwrap();
        assert_eq!(get(&p, "eventId"), 4711.0);
        let first = get(&p, "fundraisingPages")
            .dyn_into::<Array>()
            .unwrap()
            .get(0);
        assert_eq!(get(&first, "inMemoryPerson.firstName"), "Ada");
        assert_eq!(
            millis(&first, "inMemoryPerson.dateOfBirth"),
            -4_852_137_600_000.0
        );
    }

    #[wasm_bindgen_test]
    fn absent_and_null_fields_get_null_or_their_default() {
        let d = decode_body(
            &r#"{"ID": 7, "STATUS": "accepted", "source": "Carrier pigeon", "amount": 25.5,
                "donationRef": null, "donorDisplayName": null}"#
                .into(),
            Donation::SHAPE,
        )
        .unwrap();
        assert_eq!(get(&d, "id"), 7.0);
        // Enum values: known ones in the spec's spelling, unknown ones as sent.
        assert_eq!(get(&d, "status"), "Accepted");
        assert_eq!(get(&d, "source"), "Carrier pigeon");
        // Decimal-as-text sent as a number keeps its text.
        assert_eq!(get(&d, "amount"), "25.5");
        // Optional: null. Defaulted: the kind's default. Dates: .NET's minimum date.
        assert!(get(&d, "donationRef").is_null());
        assert!(get(&d, "message").is_null());
        assert_eq!(get(&d, "donorDisplayName"), "");
        assert_eq!(get(&d, "estimatedTaxReclaim"), 0.0);
        assert_eq!(millis(&d, "donationDate"), -62_135_596_800_000.0);
        assert_eq!(get(&d, "donorLocalAmount"), "");
    }

    #[wasm_bindgen_test]
    fn a_null_member_gives_way_to_another_casing_and_absent_ones_are_found_in_any() {
        let d = decode_body(
            &r#"{"id": null, "ID": 7, "Amount": "2.50", "donationRef": null, "DONATIONREF": null,
                "message": null, "MESSAGE": "hi", "status": null}"#
                .into(),
            Donation::SHAPE,
        )
        .unwrap();
        // `id` is null and `ID` is not: the service reads 7.
        assert_eq!(get(&d, "id"), 7.0);
        // Only another casing is there.
        assert_eq!(get(&d, "amount"), "2.50");
        // Null in every casing, or null in the only one: absent.
        assert!(get(&d, "donationRef").is_null());
        assert_eq!(get(&d, "message"), "hi");
        assert_eq!(get(&d, "status"), "");
    }

    #[wasm_bindgen_test]
    fn objects_of_a_list_with_the_same_or_other_names_each_get_their_own_casing() {
        let p = decode_body(
            &r#"{"eventId": 1, "fundraisingPages": [
                {"pageId": 1, "pageTitle": null, "PageTitle": "A", "smsCode": null},
                {"pageId": 2, "pageTitle": null, "PageTitle": "B", "smsCode": null},
                {"pageId": 3, "pageTitle": null, "smsCode": "S"},
                {"pageId": 4, "PAGETITLE": "D", "smsCode": null},
                {"pageId": 5, "pageTitle": null, "PageTitle": "E", "smsCode": null},
                {"smsCode": "F", "PageTitle": "F", "pageTitle": null, "pageId": 6},
                {"pageId": 7, "pageTitle": "G", "PageTitle": "X", "smsCode": null}
            ]}"#
            .into(),
            EventPages::SHAPE,
        )
        .unwrap();
        let pages = get(&p, "fundraisingPages").dyn_into::<Array>().unwrap();
        let title = |i: u32| get(&pages.get(i), "pageTitle");
        assert_eq!(title(0), "A");
        assert_eq!(title(1), "B");
        assert_eq!(title(2), "");
        assert_eq!(get(&pages.get(2), "smsCode"), "S");
        assert_eq!(title(3), "D");
        assert_eq!(title(4), "E");
        // The same names in another order, then the first order again.
        assert_eq!(title(5), "F");
        assert_eq!(get(&pages.get(5), "smsCode"), "F");
        assert_eq!(get(&pages.get(5), "pageId"), 6.0);
        assert_eq!(title(6), "G");
        assert_eq!(get(&pages.get(6), "pageId"), 7.0);
    }

    #[wasm_bindgen_test]
    fn wrong_shapes_are_decode_errors() {
        assert!(
            decode_error::<Donation>(r#"{"status": "Accepted"}"#).contains("Donation.id: missing")
        );
        assert!(decode_error::<Donation>(r#"{"id": 1.5}"#).contains("whole number"));
        assert!(decode_error::<Donation>(r#"{"id": "7"}"#).contains("Donation.id"));
        assert!(
            decode_error::<Donation>(r#"{"id": 1, "donationDate": "yesterday"}"#)
                .contains("yesterday")
        );
        assert!(decode_error::<Donation>(r#"[1, 2]"#).contains("expected an object"));
        assert!(decode_error::<Donation>("not json").contains("not JSON"));
        assert!(
            decode_error::<EventPages>(r#"{"eventId": 1, "fundraisingPages": {}}"#)
                .contains("array")
        );
    }
}
