//! Every value that crosses between JS and Rust, through serde and serde-wasm-bindgen:
//! arguments and options in ([`from_js`]), sessions and answers out ([`to_js`]), and the
//! service's JSON read by core's one decoder straight into the JS result ([`decode`]).

use std::cell::OnceCell;

use fundraising_core::json::{DecodeTarget, JsonNode, Shaped};
use fundraising_core::shape::Model;
use fundraising_core::ServiceDate;
use js_sys::{Array, Object, Reflect};
use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};
use wasm_bindgen::prelude::*;

use crate::Error;

/// The serializer of every value JS receives: `null` (not `undefined`) for absent values,
/// plain objects for maps.
const TO_JS: serde_wasm_bindgen::Serializer = serde_wasm_bindgen::Serializer::new()
    .serialize_missing_as_null(true)
    .serialize_maps_as_objects(true);

/// The message of a serde-wasm-bindgen error (a JS `Error`).
fn message(error: serde_wasm_bindgen::Error) -> String {
    JsValue::from(error)
        .dyn_into::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_default()
}

/// A JS argument or option as `T`; `invalid_argument` naming `what` when it does not fit.
pub(crate) fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, Error> {
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| Error::InvalidArgument(["invalid ", what, ": ", &message(e)].concat()))
}

/// A Rust value as the plain JS object JS receives.
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    value.serialize(&TO_JS).unwrap_or(JsValue::NULL)
}

/// A JSON text parsed by the platform's `JSON.parse`.
pub(crate) fn parse_json(text: &str) -> Result<JsValue, Error> {
    js_sys::JSON::parse(text).map_err(|_| Error::Decode("the answer is not JSON".into()))
}

/// A JS value as JSON text, by the platform's `JSON.stringify`.
pub(crate) fn to_json(value: &JsValue) -> String {
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_default()
}

/// The service's JSON answer `body` as the JS result of the model `M`, by core's decoder.
pub(crate) fn decode<M: Model>(body: &str) -> Result<JsValue, Error> {
    let tree = Node::new(parse_json(body)?);
    Shaped::new(&tree, M::SHAPE)
        .serialize(&TO_JS)
        .map_err(|e| Error::Decode(message(e)))
}

/// A JS `Date` at the date's UTC milliseconds.
pub(crate) fn js_date(date: ServiceDate) -> js_sys::Date {
    js_sys::Date::new(&JsValue::from_f64(date.millis as f64))
}

/// Serializes a date as a JS `Date` (`#[serde(serialize_with = "convert::date")]`).
pub(crate) fn date<S: Serializer>(date: &ServiceDate, serializer: S) -> Result<S::Ok, S::Error> {
    serde_wasm_bindgen::preserve::serialize(&js_date(*date), serializer)
}

/// A node of a `JSON.parse` result, for core's rules. An object's member names are read
/// once, when a name is first looked up ignoring case.
pub(crate) struct Node {
    value: JsValue,
    keys: OnceCell<Vec<(String, JsValue)>>,
}

impl Node {
    pub(crate) fn new(value: JsValue) -> Self {
        Node {
            value,
            keys: OnceCell::new(),
        }
    }

    fn keys(&self) -> &[(String, JsValue)] {
        self.keys.get_or_init(|| {
            Object::keys(self.value.unchecked_ref::<Object>())
                .iter()
                .filter_map(|key| Some((key.as_string()?, key)))
                .collect()
        })
    }
}

impl JsonNode for Node {
    fn string(&self) -> Option<String> {
        self.value.as_string()
    }

    fn number(&self) -> Option<f64> {
        self.value.as_f64()
    }

    fn number_text(&self) -> Option<String> {
        self.value.as_f64()?;
        self.value
            .unchecked_ref::<js_sys::Number>()
            .to_string_with_radix(10)
            .ok()
            .map(String::from)
    }

    fn boolean(&self) -> Option<bool> {
        self.value.as_bool()
    }

    fn is_object(&self) -> bool {
        self.value.is_object() && !Array::is_array(&self.value)
    }

    fn is_null(&self) -> bool {
        self.value.is_null() || self.value.is_undefined()
    }

    fn items(&self) -> Option<Vec<Self>> {
        Array::is_array(&self.value)
            .then(|| Array::from(&self.value).iter().map(Node::new).collect())
    }

    fn exact_member(&self, name: &str) -> Option<Self> {
        if !self.is_object() {
            return None;
        }
        let value = Reflect::get(&self.value, &JsValue::from_str(name)).ok()?;
        (!value.is_undefined()).then(|| Node::new(value))
    }

    fn member_ignoring_case(&self, name: &str) -> Option<Self> {
        if !self.is_object() {
            return None;
        }
        self.keys()
            .iter()
            .filter(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, key)| Reflect::get(&self.value, key).unwrap_or(JsValue::NULL))
            .find(|value| !value.is_null() && !value.is_undefined())
            .map(Node::new)
    }
}

impl DecodeTarget for Node {
    /// The JS value as `JSON.parse` made it.
    fn serialize_free<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_wasm_bindgen::preserve::serialize(&self.value, serializer)
    }

    /// A JS `Date`.
    fn serialize_date<S: Serializer>(date: ServiceDate, serializer: S) -> Result<S::Ok, S::Error> {
        self::date(&date, serializer)
    }
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::*;
    use fundraising_core::model::{Campaign, Donation, EventPages};
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
        match decode::<M>(body) {
            Err(e @ Error::Decode(_)) => e.to_string(),
            other => panic!("expected a decode error, got {other:?}"),
        }
    }

    #[wasm_bindgen_test]
    fn pascal_case_campaign_fixture_becomes_camel_case() {
        let c = decode::<Campaign>(include_str!("../tests/fixtures/campaign.json")).unwrap();
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
        let d = decode::<Donation>(include_str!("../tests/fixtures/donation.json")).unwrap();
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
        let p = decode::<EventPages>(include_str!("../tests/fixtures/event-pages.json")).unwrap();
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
        let d = decode::<Donation>(
            r#"{"ID": 7, "STATUS": "accepted", "source": "Carrier pigeon", "amount": 25.5,
                "donationRef": null, "donorDisplayName": null}"#,
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
