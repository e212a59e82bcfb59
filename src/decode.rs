//! Turns the service's JSON into the JS results, shaped by the models of `fundraising-core`.
//!
//! `build.rs` reads core's model types and writes their shapes (`schema.rs`): each field's JS
//! (camelCase) name, its kind, and whether it is optional (`Option`: absent or `null` gives
//! `null`), defaulted (`#[serde(default)]`) or required. Decoding follows core's `json`
//! rules: member names match ASCII case-insensitively, `null` counts as absent, unknown
//! members are dropped; dates go through [`ServiceDate::parse`] into JS `Date`s and enum
//! values through the core enum's `from_wire`. The JSON itself is parsed by the platform, so
//! no per-model deserializer is compiled into the package.

use fundraising_core::ServiceDate;
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::js_object::{parse_json, set};
use crate::Error;

include!(concat!(env!("OUT_DIR"), "/schema.rs"));

/// The kind of a field.
pub(crate) enum Kind {
    /// A string.
    Text,
    /// A decimal kept as text; a JSON number is accepted and kept as its text.
    TextNumber,
    /// Any number.
    Number,
    /// A whole number.
    Integer,
    /// `true` or `false`.
    Bool,
    /// A `\/Date(ms±hhmm)\/` string, returned as a JS `Date`.
    Date,
    /// An object whose shape the spec does not show: passed through as sent.
    Unknown,
    /// An enumeration: the value in the spec's spelling (unknown values as sent).
    Enum(fn(&str) -> String),
    /// A nested model.
    Struct(&'static Shape),
    /// An array of the kind.
    List(&'static Kind),
}

/// Whether a field may be missing.
pub(crate) enum Presence {
    /// Absent or `null` is an error.
    Required,
    /// Absent or `null` gives the kind's default (`""`, `0`, `false`, `[]`, .NET's minimum date, ...).
    Default,
    /// Absent or `null` gives `null`.
    Optional,
}

/// One field of a model.
pub(crate) struct Field {
    pub name: &'static str,
    pub kind: Kind,
    pub presence: Presence,
}

/// A model: its name (for messages) and fields.
pub(crate) struct Shape {
    pub name: &'static str,
    pub fields: &'static [Field],
}

/// The JSON text `body` as the JS value of `shape`.
pub(crate) fn decode(body: &str, shape: &'static Shape) -> Result<JsValue, Error> {
    object(&parse_json(body)?, shape)
}

fn bad(shape: &str, field: &str, why: &str) -> Error {
    Error::Decode([shape, ".", field, ": ", why].concat())
}

fn object(value: &JsValue, shape: &Shape) -> Result<JsValue, Error> {
    if !value.is_object() || Array::is_array(value) {
        return Err(Error::Decode([shape.name, ": expected an object"].concat()));
    }
    let keys: Vec<JsValue> = Object::keys(value.unchecked_ref::<Object>())
        .iter()
        .collect();
    let out = Object::new();
    for field in shape.fields {
        let found = keys
            .iter()
            .filter(|key| {
                key.as_string()
                    .is_some_and(|k| k.eq_ignore_ascii_case(field.name))
            })
            .map(|key| Reflect::get(value, key).unwrap_or(JsValue::NULL))
            .find(|member| !member.is_null() && !member.is_undefined());
        let converted = match (found, &field.presence) {
            (Some(member), _) => convert(&member, &field.kind, shape.name, field.name)?,
            (None, Presence::Optional) => JsValue::NULL,
            (None, Presence::Default) => default(&field.kind)?,
            (None, Presence::Required) => return Err(bad(shape.name, field.name, "missing")),
        };
        set(&out, field.name, &converted);
    }
    Ok(out.into())
}

fn convert(value: &JsValue, kind: &Kind, shape: &str, field: &str) -> Result<JsValue, Error> {
    let text = || {
        value
            .as_string()
            .ok_or_else(|| bad(shape, field, "expected a string"))
    };
    Ok(match kind {
        Kind::Text => text()?.into(),
        Kind::TextNumber if value.as_f64().is_some() => value
            .unchecked_ref::<js_sys::Number>()
            .to_string_with_radix(10)
            .map_err(|_| bad(shape, field, "expected a number"))?
            .into(),
        Kind::TextNumber => text()?.into(),
        Kind::Number => value
            .as_f64()
            .ok_or_else(|| bad(shape, field, "expected a number"))?
            .into(),
        Kind::Integer => value
            .as_f64()
            .filter(|n| n.fract() == 0.0)
            .ok_or_else(|| bad(shape, field, "expected a whole number"))?
            .into(),
        Kind::Bool => value
            .as_bool()
            .ok_or_else(|| bad(shape, field, "expected true or false"))?
            .into(),
        Kind::Date => date(ServiceDate::parse(&text()?)?),
        Kind::Unknown => value.clone(),
        Kind::Enum(canonical) => canonical(&text()?).into(),
        Kind::Struct(inner) => object(value, inner)?,
        Kind::List(item) => {
            if !Array::is_array(value) {
                return Err(bad(shape, field, "expected an array"));
            }
            Array::from(value)
                .iter()
                .map(|v| convert(&v, item, shape, field))
                .collect::<Result<Array, Error>>()?
                .into()
        }
    })
}

fn default(kind: &Kind) -> Result<JsValue, Error> {
    Ok(match kind {
        Kind::Text | Kind::TextNumber => JsValue::from_str(""),
        Kind::Number | Kind::Integer => JsValue::from_f64(0.0),
        Kind::Bool => JsValue::FALSE,
        Kind::Date => date(ServiceDate::default()),
        Kind::Unknown => JsValue::NULL,
        Kind::Enum(canonical) => canonical("").into(),
        Kind::Struct(inner) => object(&Object::new(), inner)?,
        Kind::List(_) => Array::new().into(),
    })
}

/// A JS `Date` at the date's UTC milliseconds.
pub(crate) fn date(date: ServiceDate) -> JsValue {
    js_sys::Date::new(&JsValue::from_f64(date.millis as f64)).into()
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::*;
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

    fn decode_error(body: &str, shape: &'static Shape) -> String {
        match decode(body, shape) {
            Err(e @ Error::Decode(_)) => e.to_string(),
            other => panic!("expected a decode error, got {other:?}"),
        }
    }

    #[wasm_bindgen_test]
    fn pascal_case_campaign_fixture_becomes_camel_case() {
        let c = decode(include_str!("../tests/fixtures/campaign.json"), &CAMPAIGN).unwrap();
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
        let d = decode(include_str!("../tests/fixtures/donation.json"), &DONATION).unwrap();
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
        let p = decode(
            include_str!("../tests/fixtures/event-pages.json"),
            &EVENT_PAGES,
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
        let d = decode(
            r#"{"ID": 7, "STATUS": "accepted", "source": "Carrier pigeon", "amount": 25.5,
                "donationRef": null, "donorDisplayName": null}"#,
            &DONATION,
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
            decode_error(r#"{"status": "Accepted"}"#, &DONATION).contains("Donation.id: missing")
        );
        assert!(decode_error(r#"{"id": 1.5}"#, &DONATION).contains("whole number"));
        assert!(decode_error(r#"{"id": "7"}"#, &DONATION).contains("Donation.id"));
        assert!(
            decode_error(r#"{"id": 1, "donationDate": "yesterday"}"#, &DONATION)
                .contains("yesterday")
        );
        assert!(decode_error(r#"[1, 2]"#, &DONATION).contains("expected an object"));
        assert!(decode_error("not json", &DONATION).contains("not JSON"));
        assert!(
            decode_error(r#"{"eventId": 1, "fundraisingPages": {}}"#, &EVENT_PAGES)
                .contains("array")
        );
    }
}
