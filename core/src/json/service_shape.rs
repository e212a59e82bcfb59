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

/// Writes JSON text with dates escaped as the service escapes them: a date string
/// `\/Date(1+0000)\/` appears as `"\/Date(1+0000)\/"` (JSON's `\/` escape) instead of
/// serde_json's `"\\/Date(1+0000)\\/"`, which would decode with literal backslashes.
pub fn to_service_text(value: &Value) -> String {
    const OPEN: &str = "\"\\\\/Date(";
    const CLOSE: &str = ")\\\\/\"";
    let text = value.to_string();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(OPEN) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let escaped_quote = before.ends_with('\\') || (before.is_empty() && out.ends_with('\\'));
        let body = &from[OPEN.len()..];
        let inner_len = body
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'+' || *b == b'-')
            .count();
        if !escaped_quote && body[inner_len..].starts_with(CLOSE) {
            out.push_str("\"\\/Date(");
            out.push_str(&body[..inner_len]);
            out.push_str(")\\/\"");
            rest = &body[inner_len + CLOSE.len()..];
        } else {
            out.push_str(OPEN);
            rest = body;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ServiceDate;

    #[test]
    fn service_text_escapes_dates_like_the_service() {
        let value = serde_json::json!({
            "d": ServiceDate::from_millis(-5).to_wire(),
            "s": "keep \\/Date(1)\\/ inside text",
            "q": "\"\\/Date(1)\\/",
        });
        let text = to_service_text(&value);
        assert!(text.contains(r#""d":"\/Date(-5+0000)\/""#), "{text}");
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["d"], "/Date(-5+0000)/");
        assert_eq!(back["s"], value["s"]);
        assert_eq!(back["q"], value["q"]);
    }
}
