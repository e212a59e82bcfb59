//! The service's member-name rule, as core implements it once for every tree (natively here, in
//! the browser over `JSON.parse`, where tests/decode_differential.rs runs this corpus too):
//! `json::member` gives exactly what the rule says for every name a model looks up: the member
//! of exactly that name unless it is null, else the first non-null member whose name equals it
//! ignoring ASCII case, in the order the members were sent.
#![no_main]

use fundraising_core::json::member;
use fundraising_core::model::{Campaign, Donation, Event, EventCreated, EventPages};
use fundraising_core::shape::{Kind, Model, Shape};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// The rule as the spec states it, the reference `member` is checked against: the member of
/// exactly that name unless it is null, else the first non-null member whose name equals it
/// ignoring ASCII case.
fn member_as_stated(node: &Value, name: &str) -> Option<Value> {
    let object = node.as_object()?;
    match object.get(name) {
        Some(v) if !v.is_null() => Some(v.clone()),
        _ => object
            .iter()
            .find(|(k, v)| k.eq_ignore_ascii_case(name) && !v.is_null())
            .map(|(_, v)| v.clone()),
    }
}

/// Every member name the models look up, nested models included.
fn names(shape: &'static Shape, out: &mut Vec<&'static str>) {
    for field in shape.fields {
        if !out.contains(&field.name) {
            out.push(field.name);
        }
        let mut kind = &field.kind;
        while let Kind::List(item) = kind {
            kind = item;
        }
        if let Kind::Struct(inner) = kind {
            names(inner, out);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let mut looked_up = Vec::new();
    for shape in [
        Campaign::SHAPE,
        Donation::SHAPE,
        Event::SHAPE,
        EventCreated::SHAPE,
        EventPages::SHAPE,
    ] {
        names(shape, &mut looked_up);
    }
    // An array is a list of objects; anything else is one node.
    let nodes: Vec<Value> = match value {
        Value::Array(items) => items,
        other => vec![other],
    };
    for node in &nodes {
        for name in &looked_up {
            assert_eq!(
                member(node, name),
                member_as_stated(node, name),
                "{name} of {node}"
            );
        }
    }
});
