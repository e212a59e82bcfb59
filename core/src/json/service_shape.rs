//! Encoding in the service's own casing and escaping.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::{Campaign, EventPages};

fn to_value<T: Serialize>(value: &T) -> Value {
    // Our models have string keys only, so this cannot fail; `Null` keeps it total.
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn pascal(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// PascalCases the members of an object, except those named in `keep`.
fn pascal_members(value: &mut Value, keep: &[&str]) {
    if let Value::Object(map) = value {
        let old = std::mem::take(map);
        *map = old
            .into_iter()
            .map(|(k, v)| {
                if keep.contains(&k.as_str()) {
                    (k, v)
                } else {
                    (pascal(&k), v)
                }
            })
            .collect::<Map<String, Value>>();
    }
}

/// The campaign as the service sends it: PascalCase members (`CampaignGuid`,
/// `DonationSummary`, `Currency.CurrencyCode`, ...), with the donation summary's
/// `offlineAmount` left lower-case first. Objects whose shape the spec does not show are
/// written as they are.
pub fn campaign_to_service_json(campaign: &Campaign) -> Value {
    let mut value = to_value(campaign);
    if let Value::Object(map) = &mut value {
        if let Some(currency) = map.get_mut("currency") {
            pascal_members(currency, &[]);
        }
        if let Some(summary) = map.get_mut("donationSummary") {
            pascal_members(summary, &["offlineAmount"]);
        }
    }
    pascal_members(&mut value, &[]);
    value
}

/// The event pages result as the service sends it: camelCase, except the members of each
/// `inMemoryPerson`, which are PascalCase (`FirstName`, `RelationShip`, ...) apart from
/// `dateOfBirth` and `dateOfDeath`.
pub fn event_pages_to_service_json(pages: &EventPages) -> Value {
    let mut value = to_value(pages);
    if let Some(Value::Array(items)) = value.get_mut("fundraisingPages") {
        for item in items {
            if let Some(person) = item.get_mut("inMemoryPerson") {
                pascal_members(person, &["dateOfBirth", "dateOfDeath"]);
            }
        }
    }
    value
}

/// Writes JSON text as the service (a .NET serializer) does: every `/` in a string is
/// escaped as `\/`, so a date, serialised as `/Date(1+0000)/`, appears as
/// `"\/Date(1+0000)\/"`. JSON's structure has no `/` outside strings, and serde_json never
/// writes `\/` itself, so every `/` of the text is a string's own and the escape is exact:
/// the text decodes to the same value, whatever its strings hold.
pub fn to_service_text(value: &Value) -> String {
    escape_slashes(&value.to_string())
}

/// A JSON text as the service's writer puts it: every `/` escaped as `\/`, so a date reads
/// `"\/Date(ms+0000)\/"` (JSON's `\/` is a plain `/`: the value is unchanged). A `/` can only
/// stand inside a JSON string, so this is safe on any JSON text.
///
/// ```
/// let text = fundraising_core::json::escape_slashes(r#"{"startDate":"/Date(5+0000)/"}"#);
/// assert_eq!(text, r#"{"startDate":"\/Date(5+0000)\/"}"#);
/// ```
pub fn escape_slashes(json: &str) -> String {
    json.replace('/', "\\/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ServiceDate;

    #[test]
    fn service_text_escapes_dates_like_the_service() {
        let value = serde_json::json!({
            "d": ServiceDate::from_millis(-5),
            "s": "keep \\/Date(1)\\/ inside text",
            "q": "\"\\/Date(1)\\/",
            "t": "\\/Date(5)\\/",
            "u": "http://x/y",
        });
        let text = to_service_text(&value);
        assert!(text.contains(r#""d":"\/Date(-5+0000)\/""#), "{text}");
        assert!(text.contains(r#""u":"http:\/\/x\/y""#), "{text}");
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["d"], "/Date(-5+0000)/");
        assert_eq!(ServiceDate::parse("/Date(-5+0000)/").unwrap().millis, -5);
        // Strings that merely look like dates, backslashes and all, come back unchanged.
        for key in ["s", "q", "t", "u"] {
            assert_eq!(back[key], value[key], "{key}");
        }
    }

    #[test]
    fn a_campaign_title_that_looks_like_a_date_survives_the_service_writer() {
        // Found by the model_decode fuzz target (fuzz/regressions/model_decode).
        let text = r#"{"campaignGuid":"g","shortName":"s","title":"\\/Date(5)\\/"}"#;
        let campaign: crate::model::Campaign = crate::json::decode(text).unwrap();
        assert_eq!(campaign.title.as_deref(), Some(r"\/Date(5)\/"));
        let written = to_service_text(&campaign_to_service_json(&campaign));
        let back: crate::model::Campaign = crate::json::decode(&written).unwrap();
        assert_eq!(back, campaign);
    }
}
