//! Core's one decoder of the service's JSON: a parsed tree read through a model's [`Shape`],
//! its result built by the tree's own [`Build`].
//!
//! The rules, the same everywhere: member names match ASCII case-insensitively (an exact
//! match first), unknown members are dropped, `null` counts as absent, a missing member gets
//! `null` (optional), its kind's default, or an error (required); dates go through
//! [`ServiceDate::parse`], open enums through their canonical spelling, decimals sent as text
//! keep a JSON number's text, members of unknown shape pass through as sent.
//!
//! Natively the result is the normalised `serde_json::Value` the typed model is read from
//! ([`super::decode`]); in the browser it is the plain JS object the caller receives, built
//! from the `JSON.parse` tree with the values it already holds.

use super::node::{field_member, Casings, JsonNode};
use crate::shape::{Field, Kind, Presence, Shape};
use crate::{Error, ServiceDate};

/// A tree core's decoder builds its result in: what it makes from the tree's own values and
/// from values it decides (defaults, dates, canonical spellings).
pub trait Build: JsonNode {
    /// A value of the result.
    type Out;

    /// This node, as it is: a string, a number, a boolean, a member of unknown shape.
    fn keep(&self) -> Self::Out;
    /// This node, a whole number `n` (natively an integer; in the browser the number itself).
    fn whole(&self, n: i64) -> Self::Out {
        let _ = self;
        Self::new_integer(n)
    }
    /// `null`.
    fn new_null() -> Self::Out;
    /// A string.
    fn new_text(text: &str) -> Self::Out;
    /// A number.
    fn new_number(n: f64) -> Self::Out;
    /// A whole number.
    fn new_integer(n: i64) -> Self::Out;
    /// `true` or `false`.
    fn new_boolean(b: bool) -> Self::Out;
    /// A date.
    fn new_date(date: ServiceDate) -> Self::Out;
    /// An object of `shape`, its `values` in the order of the shape's fields; `node` is the
    /// object of the tree it was read from (`None`: a missing member with a default). A tree
    /// may make it of `node` itself, the values that are its own members kept where they are.
    fn new_object(node: Option<&Self>, shape: &'static Shape, values: Vec<Self::Out>) -> Self::Out;
    /// An array of `items`, read from the array `node`.
    fn new_list(node: &Self, items: Vec<Self::Out>) -> Self::Out;
    /// An empty array.
    fn new_empty_list() -> Self::Out;
}

/// `node` (which must be an object) decoded as `shape`, as an answer of the service: dates in
/// any form [`ServiceDate::parse`] reads.
pub fn decode_tree<N: Build>(node: &N, shape: &'static Shape) -> Result<N::Out, Error> {
    Decoder::<N>::new(false).object(Some(node), shape)
}

/// `node` decoded as `shape`, as the service reads a request: dates only as the value
/// `/Date(ms[±hhmm])/` ([`ServiceDate::parse_json_string`]).
pub fn decode_request_tree<N: Build>(node: &N, shape: &'static Shape) -> Result<N::Out, Error> {
    Decoder::<N>::new(true).object(Some(node), shape)
}

/// One document's decoding: how dates are read, and what the member-name rule remembers
/// across its objects.
struct Decoder<N: JsonNode> {
    strict: bool,
    casings: Casings<N::Names>,
}

/// A decode error naming the model and field: `Donation.id: missing`.
fn bad(shape: &str, field: &str, why: &str) -> Error {
    Error::Decode {
        message: [shape, ".", field, ": ", why].concat(),
    }
}

/// Largest whole number JavaScript represents exactly (2^53 - 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

impl<N: Build> Decoder<N> {
    fn new(strict: bool) -> Self {
        Decoder {
            strict,
            casings: Casings::default(),
        }
    }

    /// An object read as `shape` (`node: None`: a missing member with a default).
    fn object(&self, node: Option<&N>, shape: &'static Shape) -> Result<N::Out, Error> {
        if let Some(node) = node {
            if !node.is_object() {
                return Err(Error::Decode {
                    message: [shape.name, ": expected an object"].concat(),
                });
            }
        }
        let mut values = Vec::with_capacity(shape.fields.len());
        for (index, field) in shape.fields.iter().enumerate() {
            let found = node.and_then(|node| field_member(node, shape, index, &self.casings));
            values.push(self.field(found.as_ref(), field, shape.name)?);
        }
        Ok(N::new_object(node, shape, values))
    }

    /// One field's member (`None`: missing).
    fn field(&self, node: Option<&N>, field: &Field, shape: &str) -> Result<N::Out, Error> {
        match (node, field.presence) {
            (Some(node), _) => self.value(node, &field.kind, shape, field.name),
            (None, Presence::Optional) => Ok(N::new_null()),
            (None, Presence::Default) => self.default(&field.kind),
            (None, Presence::Required) => Err(bad(shape, field.name, "missing")),
        }
    }

    fn value(&self, node: &N, kind: &Kind, shape: &str, field: &str) -> Result<N::Out, Error> {
        let fail = |why: &str| bad(shape, field, why);
        let whole = |min: f64, max: f64, why: &str| {
            node.number()
                .filter(|n| n.fract() == 0.0 && (min..=max).contains(n))
                .map(|n| node.whole(n as i64))
                .ok_or_else(|| fail(why))
        };
        match kind {
            Kind::Text => match node.is_string() {
                true => Ok(node.keep()),
                false => Err(fail("expected a string")),
            },
            Kind::DecimalText => match node.number_text() {
                Some(number) => Ok(N::new_text(&number)),
                None if node.is_string() => Ok(node.keep()),
                None => Err(fail("expected a string")),
            },
            Kind::Number => match node.number() {
                Some(_) => Ok(node.keep()),
                None => Err(fail("expected a number")),
            },
            Kind::Int32 => whole(
                f64::from(i32::MIN),
                f64::from(i32::MAX),
                "expected a 32-bit whole number",
            ),
            Kind::Int64 => whole(
                -MAX_SAFE_INTEGER,
                MAX_SAFE_INTEGER,
                "expected a whole number",
            ),
            Kind::Bool => match node.boolean() {
                Some(_) => Ok(node.keep()),
                None => Err(fail("expected true or false")),
            },
            Kind::Date => {
                let text = node.string().ok_or_else(|| fail("expected a string"))?;
                let read = if self.strict {
                    ServiceDate::parse_json_string
                } else {
                    ServiceDate::parse
                };
                let date =
                    read(&text).map_err(|_| fail(&["invalid date \"", &text, "\""].concat()))?;
                Ok(N::new_date(date))
            }
            Kind::Free => Ok(node.keep()),
            Kind::Enum(canonical) => {
                let text = node.string().ok_or_else(|| fail("expected a string"))?;
                Ok(match canonical(&text) {
                    Some(spelling) if spelling != text => N::new_text(spelling),
                    _ => node.keep(),
                })
            }
            Kind::Struct(inner) => self.object(Some(node), inner),
            Kind::List(item) => {
                let items = node.items().ok_or_else(|| fail("expected an array"))?;
                let mut out = Vec::with_capacity(items.len());
                for node in &items {
                    out.push(self.value(node, item, shape, field)?);
                }
                Ok(N::new_list(node, out))
            }
        }
    }

    /// The value of a missing member with a default.
    fn default(&self, kind: &Kind) -> Result<N::Out, Error> {
        Ok(match kind {
            Kind::Text | Kind::DecimalText => N::new_text(""),
            Kind::Number => N::new_number(0.0),
            Kind::Int32 | Kind::Int64 => N::new_integer(0),
            Kind::Bool => N::new_boolean(false),
            Kind::Date => N::new_date(ServiceDate::default()),
            Kind::Free => N::new_null(),
            Kind::Enum(canonical) => N::new_text(canonical("").unwrap_or("")),
            Kind::Struct(inner) => return self.object(None, inner),
            Kind::List(_) => N::new_empty_list(),
        })
    }
}
