//! JSON in the service's shapes: core's one decoder ([`decode_tree`], walked by every part:
//! natively here, in the browser over `JSON.parse`), a serde reader of parsed trees
//! ([`from_node`]), and encoding that writes what the service sends (the sandbox uses it).

mod de;
mod node;
mod service_shape;
mod shaped;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::shape::Model;
use crate::Error;

pub use de::{from_node, DeError};
pub use node::{member, JsonNode};
pub use service_shape::{
    campaign_to_service_json, escape_slashes, event_pages_to_service_json, to_service_text,
};
pub use shaped::{decode_request_tree, decode_tree, Build, Made, Normalised};

/// How deep JSON may nest (arrays and objects in one another, the outermost counted), as core
/// reads it natively (serde_json's limit): a deeper answer is not read, in the browser either.
pub const MAX_DEPTH: usize = 127;

/// Decodes a JSON document into the model `T` by the service's rules (see [`decode_tree`]): field
/// names match ASCII case-insensitively (`CampaignGuid`, `campaignGuid` and `campaignguid` are
/// the same field), unknown fields are ignored and `null` members count as absent.
///
/// ```
/// use fundraising_core::{json, model::CurrencyDto};
/// let c: CurrencyDto = json::decode(r#"{"CurrencyCode":"GBP","CURRENCYSYMBOL":"£","x":1}"#).unwrap();
/// assert_eq!((c.currency_code.as_str(), c.currency_symbol.as_str()), ("GBP", "£"));
/// ```
pub fn decode<T: Model + DeserializeOwned>(text: &str) -> Result<T, Error> {
    let value: Value = serde_json::from_str(text)?;
    decode_value(&value)
}

/// Decodes a request body into `T` as the service reads it: the rules of [`decode`], but
/// dates only as the value `/Date(ms[±hhmm])/` (a literal backslash, or any other form, is
/// an error naming the field). The sandbox reads requests with it.
pub fn decode_request<T: Model + DeserializeOwned>(value: &Value) -> Result<T, Error> {
    let normalized = decode_request_tree(value, T::SHAPE, &mut Normalised)?;
    Ok(serde_json::from_value(normalized)?)
}

/// Like [`decode`], from an already parsed [`Value`].
pub fn decode_value<T: Model + DeserializeOwned>(value: &Value) -> Result<T, Error> {
    let normalized = decode_tree(value, T::SHAPE, &mut Normalised)?;
    Ok(serde_json::from_value(normalized)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Campaign, Donation, DonationStatus, Event, EventCreated};
    use crate::ServiceDate;

    #[test]
    fn field_names_are_case_insensitive_and_unknown_ignored() {
        let d: Donation = decode(
            r#"{"ID": 7, "DonationRef": "r", "amount": "1.50", "STATUS": "accepted",
                "donationdate": "/Date(5+0000)/", "unknownThing": {"a": [1, 2]}}"#,
        )
        .unwrap();
        assert_eq!(d.id, 7);
        assert_eq!(d.donation_ref.as_deref(), Some("r"));
        assert_eq!(d.amount, "1.50");
        assert_eq!(d.status, DonationStatus::Accepted);
        assert_eq!(d.donation_date, ServiceDate::from_millis(5));
    }

    #[test]
    fn max_depth_is_how_deep_serde_json_reads() {
        let nested = |n: usize| "[".repeat(n) + &"]".repeat(n);
        assert!(serde_json::from_str::<Value>(&nested(MAX_DEPTH)).is_ok());
        assert!(serde_json::from_str::<Value>(&nested(MAX_DEPTH + 1)).is_err());
    }

    #[test]
    fn null_is_absent() {
        let d: Donation = decode(
            r#"{"id": 1, "donationRef": null, "amount": null, "donationDate": null,
                "status": null, "hasImage": null}"#,
        )
        .unwrap();
        assert_eq!(d.donation_ref, None);
        assert_eq!(d.amount, "");
        assert_eq!(d.donation_date, ServiceDate::default());
        assert_eq!(d.status.as_str(), "");
        assert_eq!(d.has_image, None);
    }

    #[test]
    fn null_does_not_shadow_a_value_in_other_casing() {
        let d: Donation = decode(r#"{"id": 1, "Message": null, "message": "hi"}"#).unwrap();
        assert_eq!(d.message.as_deref(), Some("hi"));
    }

    #[test]
    fn amount_accepts_a_number() {
        let d: Donation = decode(r#"{"id": 1, "amount": 12.5, "donorLocalAmount": 3}"#).unwrap();
        assert_eq!(
            (d.amount.as_str(), d.donor_local_amount.as_str()),
            ("12.5", "3")
        );
        let err = decode::<Donation>(r#"{"id": 1, "amount": [1]}"#).unwrap_err();
        assert_eq!(err.code(), "decode_error");
    }

    #[test]
    fn required_fields_and_shapes_are_checked() {
        for (bad, what) in [
            (r#"{"amount": "1"}"#, "Donation.id: missing"),
            (
                r#"{"id": "7"}"#,
                "Donation.id: expected a 32-bit whole number",
            ),
            (
                r#"{"id": 4294967296}"#,
                "Donation.id: expected a 32-bit whole number",
            ),
            (
                r#"{"id": 1.5}"#,
                "Donation.id: expected a 32-bit whole number",
            ),
            ("[1, 2]", "Donation: expected an object"),
            (
                r#"{"id": 1, "hasImage": "yes"}"#,
                "Donation.hasImage: expected true or false",
            ),
            (
                r#"{"id": 1, "message": 5}"#,
                "Donation.message: expected a string",
            ),
            ("", "the JSON ends too soon"),
            (r#"{"id": 1, "donationDate": "yesterday"}"#, "invalid date"),
        ] {
            let err = decode::<Donation>(bad).unwrap_err();
            assert_eq!(err.code(), "decode_error", "{bad}");
            assert!(err.to_string().contains(what), "{bad}: {err}");
        }
    }

    #[test]
    fn requests_read_dates_as_strictly_as_the_service() {
        let ok: Event = decode_request(
            &serde_json::json!({"Name": "Run", "startDate": "/Date(5+0100)/", "eventType": "walks"}),
        )
        .unwrap();
        assert_eq!(ok.start_date.unwrap().millis, 5);
        assert_eq!(ok.event_type.as_str(), "Walks");
        for bad in [r"\/Date(5+0000)\/", "Date(5)", "/Date(5+0000)", "soon"] {
            let err = decode_request::<Event>(&serde_json::json!({"startDate": bad})).unwrap_err();
            assert!(
                err.to_string().contains("Event.startDate: invalid date"),
                "{bad}: {err}"
            );
            // An answer of the service is read leniently.
            assert_eq!(
                decode_value::<Event>(&serde_json::json!({"startDate": bad})).is_ok(),
                bad == r"\/Date(5+0000)\/" || bad == "Date(5)"
            );
        }
    }

    #[test]
    fn nested_values_pass_through_untouched() {
        let c: Campaign = decode(
            r#"{"campaignGuid": "g", "shortName": "s", "Charities": [{"Name": null, "ID": 3}]}"#,
        )
        .unwrap();
        assert_eq!(
            c.charities,
            Some(serde_json::json!([{"Name": null, "ID": 3}]))
        );
    }

    #[test]
    fn event_round_trips_through_camel_case() {
        let event = Event {
            name: "Run".into(),
            event_type: "Walks".into(),
            start_date: Some(ServiceDate::from_millis(-10)),
            charity_id: Some(3),
            ..Event::default()
        };
        let text = serde_json::to_string(&event).unwrap();
        assert!(text.contains(r#""eventType":"Walks""#), "{text}");
        assert!(text.contains(r#""charityId":3"#), "{text}");
        assert!(!text.contains(r#""id""#), "{text}");
        let back: Event = decode(&text).unwrap();
        assert_eq!(back, event);
    }

    #[test]
    fn creation_result_with_error_object() {
        let r: EventCreated = decode(
            r#"{"id": 0, "errorMessage": "bad", "Error": {"Id": 12, "Desc": "name missing"}}"#,
        )
        .unwrap();
        let e = r.error.unwrap();
        assert_eq!(e.id.as_deref(), Some("12"));
        assert_eq!(e.desc.as_deref(), Some("name missing"));
        assert_eq!(r.next, None);
    }
}
