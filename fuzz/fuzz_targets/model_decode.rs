//! Model decoding: json::decode of any text into each wire model never panics; a decoded value
//! serialised (camelCase) decodes again to the same value; the campaign and the event pages
//! also survive the service's own shape (PascalCase campaign) that the sandbox writes.
#![no_main]

use fundraising_core::json;
use fundraising_core::model::{
    Campaign, Donation, Event, EventCreated, EventPages, FundraisingPageSummary,
};
use fundraising_core::shape::Model;
use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// JSON values equal up to float rounding (serde_json's default float parsing may differ from
/// the shortest representation it writes by one unit in the last place).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs()),
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn round_trip<T: Model + DeserializeOwned + Serialize>(text: &str) -> Option<T> {
    let value: T = json::decode(text).ok()?;
    let first = serde_json::to_value(&value).expect("a decoded model serialises");
    let again: T = json::decode(&first.to_string())
        .unwrap_or_else(|e| panic!("own output {first} does not decode: {e}"));
    let second = serde_json::to_value(&again).expect("serialises");
    assert!(
        same(&first, &second),
        "round trip changed the value:\n{first}\n{second}"
    );
    Some(value)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(campaign) = round_trip::<Campaign>(text) {
        let service = json::to_service_text(&json::campaign_to_service_json(&campaign));
        let back: Campaign = json::decode(&service)
            .unwrap_or_else(|e| panic!("service shape {service} does not decode: {e}"));
        let (a, b) = (
            serde_json::to_value(&campaign).unwrap(),
            serde_json::to_value(&back).unwrap(),
        );
        assert!(
            same(&a, &b),
            "service shape changed the campaign:\n{a}\n{b}"
        );
    }
    if let Some(pages) = round_trip::<EventPages>(text) {
        let service = json::to_service_text(&json::event_pages_to_service_json(&pages));
        let back: EventPages = json::decode(&service)
            .unwrap_or_else(|e| panic!("service shape {service} does not decode: {e}"));
        let (a, b) = (
            serde_json::to_value(&pages).unwrap(),
            serde_json::to_value(&back).unwrap(),
        );
        assert!(
            same(&a, &b),
            "service shape changed the event pages:\n{a}\n{b}"
        );
    }
    round_trip::<Donation>(text);
    round_trip::<Event>(text);
    round_trip::<EventCreated>(text);
    round_trip::<FundraisingPageSummary>(text);
});
