//! Core's one decoder of the service's JSON: a parsed tree read through a model's [`Shape`],
//! its result made by a [`Build`]er.
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

use std::marker::PhantomData;

use serde_json::Value;

use super::node::{field_member, JsonNode};
use crate::shape::{Field, Kind, Presence, Shape};
use crate::{Error, ServiceDate};

/// A value core's decoder decides (a default, a date, a canonical spelling, a number's text)
/// rather than keeps from the tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Made<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(f64),
    /// A whole number.
    Integer(i64),
    /// A string.
    Text(&'a str),
    /// A date.
    Date(ServiceDate),
    /// An empty array.
    EmptyList,
}

/// What core's decoder builds its result with, from a tree of nodes `N`: the values it keeps
/// from the tree and those it decides. Natively [`Normalised`]; in the browser, the edits that
/// make the `JSON.parse` tree the result.
pub trait Build<N> {
    /// A value of the result.
    type Out;

    /// `node`, as it is: a string, a number, a boolean, a member of unknown shape.
    fn keep(&mut self, node: &N) -> Self::Out;
    /// `node`, a whole number `n` (natively an integer; in the browser the number itself).
    fn whole(&mut self, node: &N, n: i64) -> Self::Out {
        let _ = node;
        self.make(Made::Integer(n))
    }
    /// A value the decoder decided.
    fn make(&mut self, value: Made<'_>) -> Self::Out;
    /// An object of `shape`, its `values` in the order of the shape's fields; `node` is the
    /// object of the tree it was read from (`None`: a missing member with a default). A builder
    /// may make it of `node` itself, the values that are its own members kept where they are.
    fn object(
        &mut self,
        node: Option<&N>,
        shape: &'static Shape,
        values: Vec<Self::Out>,
    ) -> Self::Out;
    /// An array of `items`, read from the array `node`.
    fn list(&mut self, node: &N, items: Vec<Self::Out>) -> Self::Out;
}

/// The native result: the normalised `serde_json::Value` a typed model is read from (camelCase
/// members, dates as their serde form keeping the offset they were sent with).
pub struct Normalised;

impl Build<Value> for Normalised {
    type Out = Value;

    fn keep(&mut self, node: &Value) -> Value {
        node.clone()
    }

    fn make(&mut self, value: Made<'_>) -> Value {
        match value {
            Made::Null => Value::Null,
            Made::Bool(b) => Value::Bool(b),
            Made::Number(n) => Value::from(n),
            Made::Integer(n) => Value::from(n),
            Made::Text(text) => Value::from(text),
            Made::Date(date) => Value::String(date.to_json_string_as_sent()),
            Made::EmptyList => Value::Array(Vec::new()),
        }
    }

    fn object(&mut self, _: Option<&Value>, shape: &'static Shape, values: Vec<Value>) -> Value {
        let members = shape.fields.iter().map(|f| f.name.to_owned()).zip(values);
        Value::Object(members.collect())
    }

    fn list(&mut self, _: &Value, items: Vec<Value>) -> Value {
        Value::Array(items)
    }
}

/// `node` (which must be an object) decoded as `shape`, as an answer of the service: dates in
/// any form [`ServiceDate::parse`] reads. The result is made by `build`.
pub fn decode_tree<N: JsonNode, B: Build<N>>(
    node: &N,
    shape: &'static Shape,
    build: &mut B,
) -> Result<B::Out, Error> {
    Decoder::new(false, build).object(Some(node), shape)
}

/// `node` decoded as `shape`, as the service reads a request: dates only as the value
/// `/Date(ms[±hhmm])/` ([`ServiceDate::parse_json_string`]).
pub fn decode_request_tree<N: JsonNode, B: Build<N>>(
    node: &N,
    shape: &'static Shape,
    build: &mut B,
) -> Result<B::Out, Error> {
    Decoder::new(true, build).object(Some(node), shape)
}

/// One document's decoding: how dates are read, and what builds the result.
struct Decoder<'b, N, B> {
    strict: bool,
    build: &'b mut B,
    node_type: PhantomData<N>,
}

/// A decode error naming the model and field: `Donation.id: missing`.
fn bad(shape: &str, field: &str, why: &str) -> Error {
    Error::Decode {
        message: [shape, ".", field, ": ", why].concat(),
    }
}

/// Largest whole number JavaScript represents exactly (2^53 - 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

impl<'b, N: JsonNode, B: Build<N>> Decoder<'b, N, B> {
    fn new(strict: bool, build: &'b mut B) -> Self {
        let node_type = PhantomData;
        Decoder {
            strict,
            build,
            node_type,
        }
    }

    /// An object read as `shape` (`node: None`: a missing member with a default).
    fn object(&mut self, node: Option<&N>, shape: &'static Shape) -> Result<B::Out, Error> {
        if let Some(node) = node {
            if !node.is_object() {
                return Err(Error::Decode {
                    message: [shape.name, ": expected an object"].concat(),
                });
            }
        }
        let mut values = Vec::with_capacity(shape.fields.len());
        for (index, field) in shape.fields.iter().enumerate() {
            let found = node.and_then(|node| field_member(node, shape, index));
            values.push(self.field(found.as_ref(), field, shape.name)?);
        }
        Ok(self.build.object(node, shape, values))
    }

    /// One field's member (`None`: missing).
    fn field(&mut self, node: Option<&N>, field: &Field, shape: &str) -> Result<B::Out, Error> {
        match (node, field.presence) {
            (Some(node), _) => self.value(node, &field.kind, shape, field.name),
            (None, Presence::Optional) => Ok(self.build.make(Made::Null)),
            (None, Presence::Default) => self.default(&field.kind),
            (None, Presence::Required) => Err(bad(shape, field.name, "missing")),
        }
    }

    fn value(&mut self, node: &N, kind: &Kind, shape: &str, field: &str) -> Result<B::Out, Error> {
        let fail = |why: &str| bad(shape, field, why);
        let whole = |build: &mut B, min: f64, max: f64, why: &str| {
            node.number()
                .filter(|n| n.fract() == 0.0 && (min..=max).contains(n))
                .map(|n| build.whole(node, n as i64))
                .ok_or_else(|| fail(why))
        };
        match kind {
            Kind::Text => match node.is_string() {
                true => Ok(self.build.keep(node)),
                false => Err(fail("expected a string")),
            },
            Kind::DecimalText => match node.number_text() {
                Some(number) => Ok(self.build.make(Made::Text(&number))),
                None if node.is_string() => Ok(self.build.keep(node)),
                None => Err(fail("expected a string")),
            },
            Kind::Number => match node.number() {
                Some(_) => Ok(self.build.keep(node)),
                None => Err(fail("expected a number")),
            },
            Kind::Int32 => whole(
                self.build,
                f64::from(i32::MIN),
                f64::from(i32::MAX),
                "expected a 32-bit whole number",
            ),
            Kind::Int64 => whole(
                self.build,
                -MAX_SAFE_INTEGER,
                MAX_SAFE_INTEGER,
                "expected a whole number",
            ),
            Kind::Bool => match node.boolean() {
                Some(_) => Ok(self.build.keep(node)),
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
                Ok(self.build.make(Made::Date(date)))
            }
            Kind::Free => Ok(self.build.keep(node)),
            Kind::Enum(canonical) => {
                let text = node.string().ok_or_else(|| fail("expected a string"))?;
                Ok(match canonical(&text) {
                    Some(spelling) if spelling != text => self.build.make(Made::Text(spelling)),
                    _ => self.build.keep(node),
                })
            }
            Kind::Struct(inner) => self.object(Some(node), inner),
            Kind::List(item) => {
                let items = node.items().ok_or_else(|| fail("expected an array"))?;
                let mut out = Vec::with_capacity(items.len());
                for node in &items {
                    out.push(self.value(node, item, shape, field)?);
                }
                Ok(self.build.list(node, out))
            }
        }
    }

    /// The value of a missing member with a default.
    fn default(&mut self, kind: &Kind) -> Result<B::Out, Error> {
        let made = match kind {
            Kind::Text | Kind::DecimalText => Made::Text(""),
            Kind::Number => Made::Number(0.0),
            Kind::Int32 | Kind::Int64 => Made::Integer(0),
            Kind::Bool => Made::Bool(false),
            Kind::Date => Made::Date(ServiceDate::default()),
            Kind::Free => Made::Null,
            Kind::Enum(canonical) => Made::Text(canonical("").unwrap_or("")),
            Kind::Struct(inner) => return self.object(None, inner),
            Kind::List(_) => Made::EmptyList,
        };
        Ok(self.build.make(made))
    }
}
