//! Core's one decoder of the service's JSON: a parsed tree read through a model's
//! [`Shape`], written out through serde's data model.
//!
//! The rules, the same everywhere: member names match ASCII case-insensitively (an exact
//! match first), unknown members are dropped, `null` counts as absent, a missing member gets
//! `null` (optional), its kind's default, or an error (required); dates go through
//! [`ServiceDate::parse`], open enums through their canonical spelling, decimals sent as text
//! keep a JSON number's text, members of unknown shape pass through as sent.
//!
//! [`Shaped`] is a [`Serialize`]: natively `serde_json` turns it into the normalised tree the
//! typed model is read from ([`super::decode`]); in the browser `serde_wasm_bindgen` turns it
//! straight into the plain JS object the caller receives.

use serde::ser::{Error as _, SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use super::node::{member, Casings, DecodeTarget, JsonNode};
use crate::shape::{Field, Kind, Presence, Shape};
use crate::ServiceDate;

/// A tree decoded as `shape`.
pub struct Shaped<'a, N: JsonNode> {
    node: &'a N,
    shape: &'static Shape,
    strict: bool,
    /// What the member-name rule remembers across the objects of this one document.
    casings: Casings<N::Names>,
}

impl<'a, N: DecodeTarget> Shaped<'a, N> {
    /// `node` (which must be an object) read as `shape`, as an answer of the service: dates
    /// in any form [`ServiceDate::parse`] reads.
    pub fn new(node: &'a N, shape: &'static Shape) -> Self {
        Shaped {
            node,
            shape,
            strict: false,
            casings: Casings::default(),
        }
    }

    /// `node` read as `shape`, as the service reads a request: dates only as the value
    /// `/Date(ms[±hhmm])/` ([`ServiceDate::parse_json_string`]).
    pub fn request(node: &'a N, shape: &'static Shape) -> Self {
        Shaped {
            node,
            shape,
            strict: true,
            casings: Casings::default(),
        }
    }
}

impl<N: DecodeTarget> Serialize for Shaped<'_, N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Object {
            node: Some(self.node),
            shape: self.shape,
            strict: self.strict,
            casings: &self.casings,
        }
        .serialize(serializer)
    }
}

/// An object read as `shape` (`node: None`: a missing member with a default).
struct Object<'a, N: JsonNode> {
    node: Option<&'a N>,
    shape: &'static Shape,
    strict: bool,
    casings: &'a Casings<N::Names>,
}

/// A decode error naming the model and field: `Donation.id: missing`.
fn bad<E: serde::ser::Error>(shape: &str, field: &str, why: &str) -> E {
    E::custom([shape, ".", field, ": ", why].concat())
}

impl<N: DecodeTarget> Serialize for Object<'_, N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(node) = self.node {
            if !node.is_object() {
                return Err(S::Error::custom(
                    [self.shape.name, ": expected an object"].concat(),
                ));
            }
        }
        let mut out = serializer.serialize_struct(self.shape.name, self.shape.fields.len())?;
        for field in self.shape.fields {
            let found = self
                .node
                .and_then(|node| member(node, field.name, self.casings));
            out.serialize_field(
                field.name,
                &Member {
                    node: found.as_ref(),
                    field,
                    at: At {
                        shape: self.shape.name,
                        field: field.name,
                        strict: self.strict,
                        casings: self.casings,
                    },
                },
            )?;
        }
        out.end()
    }
}

/// One field's member (`None`: missing).
struct Member<'a, N: JsonNode> {
    node: Option<&'a N>,
    field: &'a Field,
    at: At<'a, N>,
}

impl<N: DecodeTarget> Serialize for Member<'_, N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let field = self.field;
        match (self.node, field.presence) {
            (Some(node), _) => value(node, &field.kind, self.at, serializer),
            (None, Presence::Optional) => serializer.serialize_none(),
            (None, Presence::Default) => default(&field.kind, self.at, serializer),
            (None, Presence::Required) => Err(bad(self.at.shape, field.name, "missing")),
        }
    }
}

/// Where a value stands (model and field, for messages), whether dates are read strictly, and
/// the document's memory of member names.
struct At<'a, N: JsonNode> {
    shape: &'static str,
    field: &'static str,
    strict: bool,
    casings: &'a Casings<N::Names>,
}

impl<N: JsonNode> Clone for At<'_, N> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<N: JsonNode> Copy for At<'_, N> {}

/// One item of a list.
struct Item<'a, N: JsonNode> {
    node: &'a N,
    kind: &'a Kind,
    at: At<'a, N>,
}

impl<N: DecodeTarget> Serialize for Item<'_, N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        value(self.node, self.kind, self.at, serializer)
    }
}

/// Largest whole number JavaScript represents exactly (2^53 - 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

fn whole(node: &impl DecodeTarget, min: f64, max: f64) -> Option<f64> {
    node.number()
        .filter(|n| n.fract() == 0.0 && (min..=max).contains(n))
}

fn value<N: DecodeTarget, S: Serializer>(
    node: &N,
    kind: &Kind,
    at: At<'_, N>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let At {
        shape,
        field,
        strict,
        casings,
    } = at;
    let text = || {
        node.string()
            .ok_or_else(|| bad::<S::Error>(shape, field, "expected a string"))
    };
    let as_string = |serializer: S| {
        node.serialize_string(serializer)
            .unwrap_or_else(|| Err(bad::<S::Error>(shape, field, "expected a string")))
    };
    match kind {
        Kind::Text => as_string(serializer),
        Kind::DecimalText => match node.number_text() {
            Some(number) => serializer.serialize_str(&number),
            None => as_string(serializer),
        },
        Kind::Number => serializer.serialize_f64(
            node.number()
                .ok_or_else(|| bad::<S::Error>(shape, field, "expected a number"))?,
        ),
        Kind::Int32 => serializer.serialize_i32(
            whole(node, f64::from(i32::MIN), f64::from(i32::MAX))
                .ok_or_else(|| bad::<S::Error>(shape, field, "expected a 32-bit whole number"))?
                as i32,
        ),
        Kind::Int64 => serializer.serialize_i64(
            whole(node, -MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)
                .ok_or_else(|| bad::<S::Error>(shape, field, "expected a whole number"))?
                as i64,
        ),
        Kind::Bool => serializer.serialize_bool(
            node.boolean()
                .ok_or_else(|| bad::<S::Error>(shape, field, "expected true or false"))?,
        ),
        Kind::Date => {
            let text = text()?;
            let read = if strict {
                ServiceDate::parse_json_string
            } else {
                ServiceDate::parse
            };
            let date = read(&text).map_err(|_| {
                bad::<S::Error>(shape, field, &["invalid date \"", &text, "\""].concat())
            })?;
            N::serialize_date(date, serializer)
        }
        Kind::Free => node.serialize_free(serializer),
        Kind::Enum(canonical) => {
            let text = text()?;
            serializer.serialize_str(canonical(&text).unwrap_or(&text))
        }
        Kind::Struct(inner) => Object {
            node: Some(node),
            shape: inner,
            strict,
            casings,
        }
        .serialize(serializer),
        Kind::List(item) => {
            let items = node
                .items()
                .ok_or_else(|| bad::<S::Error>(shape, field, "expected an array"))?;
            let mut seq = serializer.serialize_seq(Some(items.len()))?;
            for node in &items {
                seq.serialize_element(&Item {
                    node,
                    kind: item,
                    at,
                })?;
            }
            seq.end()
        }
    }
}

/// The value of a missing member with a default.
fn default<N: DecodeTarget, S: Serializer>(
    kind: &Kind,
    at: At<'_, N>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match kind {
        Kind::Text | Kind::DecimalText => serializer.serialize_str(""),
        Kind::Number => serializer.serialize_f64(0.0),
        Kind::Int32 => serializer.serialize_i32(0),
        Kind::Int64 => serializer.serialize_i64(0),
        Kind::Bool => serializer.serialize_bool(false),
        Kind::Date => N::serialize_date(ServiceDate::default(), serializer),
        Kind::Free => serializer.serialize_none(),
        Kind::Enum(canonical) => serializer.serialize_str(canonical("").unwrap_or("")),
        Kind::Struct(inner) => Object::<N> {
            node: None,
            shape: inner,
            strict: at.strict,
            casings: at.casings,
        }
        .serialize(serializer),
        Kind::List(_) => serializer.serialize_seq(Some(0))?.end(),
    }
}
