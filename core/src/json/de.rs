//! Any `Deserialize` type read from a parsed JSON tree ([`JsonNode`]): natively a
//! `serde_json::Value`, in the browser a `JSON.parse` result or a plain JavaScript object
//! (options, the companion's answers). It reads the tree as serde_json reads JSON text: `null`
//! is unit and `None`, whole numbers are integers, objects are maps and structs, arrays are
//! sequences, strings name unit variants.
//!
//! Its errors name where they happened (`options.pageSize: invalid type: a string, expected
//! f64`) and describe a wrong value by its kind only: they never quote the value (a secret
//! stays out of messages) and never format a number (the browser package carries no float
//! formatting).

use std::fmt;

use serde::de::{self, DeserializeOwned, IntoDeserializer, Unexpected, Visitor};

use super::node::JsonNode;
use crate::encoding::decimal;
use crate::Error;

/// Reads `T` from `node`; when it does not fit, the error says where and why (it converts into
/// [`Error::Decode`]).
///
/// ```
/// use std::collections::BTreeMap;
/// use fundraising_core::json::from_node;
/// let tree = serde_json::json!({"a": [1, 2], "b": []});
/// let read: BTreeMap<String, Vec<u8>> = from_node(&tree).unwrap();
/// assert_eq!(read["a"], [1, 2]);
/// let wrong = from_node::<BTreeMap<String, Vec<u8>>, _>(&serde_json::json!({"a": ["x"]}));
/// assert_eq!(wrong.unwrap_err().to_string(), "a[0]: invalid type: a string, expected u8");
/// ```
pub fn from_node<T: DeserializeOwned, N: JsonNode>(node: &N) -> Result<T, DeError> {
    T::deserialize(Tree(node))
}

/// What went wrong, and where: the path of member names and indexes to the value
/// (`scopes[1]`, `nested.x`), empty at the top.
#[derive(Debug)]
pub struct DeError {
    place: String,
    reason: String,
}

impl DeError {
    fn new(reason: String) -> Self {
        DeError {
            place: String::new(),
            reason,
        }
    }

    /// Where: the path to the value (`scopes[1]`, `nested.x`), empty at the top.
    pub fn place(&self) -> &str {
        &self.place
    }

    /// Why, without where.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The error of a value inside `place` (a member name, or an index as `[n]`).
    #[inline(never)]
    fn inside(mut self, place: &str) -> Self {
        let join = if self.place.is_empty() || self.place.starts_with('[') {
            ""
        } else {
            "."
        };
        self.place = [place, join, &self.place].concat();
        self
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.place.is_empty() {
            f.write_str(&self.place)?;
            f.write_str(": ")?;
        }
        f.write_str(&self.reason)
    }
}

impl std::error::Error for DeError {}

impl From<DeError> for Error {
    fn from(e: DeError) -> Self {
        Error::Decode {
            message: e.to_string(),
        }
    }
}

/// A value described by its kind, never by its contents.
fn kind(unexpected: &Unexpected<'_>) -> &'static str {
    match unexpected {
        Unexpected::Bool(_) => "a boolean",
        Unexpected::Unsigned(_) | Unexpected::Signed(_) | Unexpected::Float(_) => "a number",
        Unexpected::Char(_) | Unexpected::Str(_) | Unexpected::Bytes(_) => "a string",
        Unexpected::Unit | Unexpected::Option => "null",
        Unexpected::Seq => "an array",
        Unexpected::Map => "an object",
        _ => "another value",
    }
}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        DeError::new(message.to_string())
    }

    fn invalid_type(unexpected: Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        DeError::new(
            [
                "invalid type: ",
                kind(&unexpected),
                ", expected ",
                &expected.to_string(),
            ]
            .concat(),
        )
    }

    fn invalid_value(unexpected: Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        DeError::new(
            [
                "invalid value: ",
                kind(&unexpected),
                ", expected ",
                &expected.to_string(),
            ]
            .concat(),
        )
    }
}

/// A node as a serde `Deserializer`. Each `deserialize_*` asks the node for the one kind of
/// value it reads and refuses any other through [`Tree::invalid`], which is not generic: the
/// code for one visitor stays small.
struct Tree<'a, N>(&'a N);

/// Whole numbers JavaScript and JSON carry exactly: those of magnitude below 2^53.
const SAFE: f64 = 9_007_199_254_740_992.0;

impl<N: JsonNode> Tree<'_, N> {
    /// The node's kind, as an error's message says it.
    fn kind(&self) -> &'static str {
        let node = self.0;
        if node.is_null() {
            "null"
        } else if node.boolean().is_some() {
            "a boolean"
        } else if node.number().is_some() {
            "a number"
        } else if node.string().is_some() {
            "a string"
        } else if node.items().is_some() {
            "an array"
        } else if node.is_object() {
            "an object"
        } else {
            "another value"
        }
    }

    /// The node is not what `expected` reads.
    #[inline(never)]
    fn invalid(&self, expected: &dyn de::Expected) -> DeError {
        DeError::new(
            [
                "invalid type: ",
                self.kind(),
                ", expected ",
                &expected.to_string(),
            ]
            .concat(),
        )
    }

    /// A whole number of the node, exactly (below 2^53 in magnitude).
    fn whole(&self) -> Option<f64> {
        self.0
            .number()
            .filter(|n| n.fract() == 0.0 && n.abs() < SAFE)
    }

    /// The members of an object, in its own order.
    fn members(&self) -> Option<Members<'_, N>> {
        Some(Members {
            node: self.0,
            names: self.0.names()?,
            next: 0,
            current: String::new(),
        })
    }

    /// The items of an array.
    fn items(&self) -> Option<Items<N>> {
        Some(Items {
            items: self.0.items()?.into_iter(),
            index: 0,
        })
    }
}

impl<'de, N: JsonNode> de::Deserializer<'de> for Tree<'_, N> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let node = self.0;
        if node.is_null() {
            return visitor.visit_unit();
        }
        if let Some(b) = node.boolean() {
            return visitor.visit_bool(b);
        }
        if let Some(n) = self.whole() {
            return self.deserialize_integer(n, visitor);
        }
        if let Some(n) = node.number() {
            return visitor.visit_f64(n);
        }
        if let Some(s) = node.string() {
            return visitor.visit_string(s);
        }
        if let Some(items) = self.items() {
            return visitor.visit_seq(items);
        }
        match self.members() {
            Some(members) => visitor.visit_map(members),
            None => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0.boolean() {
            Some(b) => visitor.visit_bool(b),
            None => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.whole() {
            Some(n) => self.deserialize_integer(n, visitor),
            None => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0.number() {
            Some(n) => visitor.visit_f64(n),
            None => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0.string() {
            Some(s) => visitor.visit_string(s),
            None => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if self.0.is_null() {
            visitor.visit_unit()
        } else {
            Err(self.invalid(&visitor))
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.items() {
            Some(items) => visitor.visit_seq(items),
            None => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.members() {
            Some(members) => visitor.visit_map(members),
            None => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if self.0.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.0.string() {
            Some(variant) => visitor.visit_enum(variant.into_deserializer()),
            None => Err(self.invalid(&"a string naming the variant")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        // Not read: a member nobody asked for may be any JavaScript value.
        visitor.visit_unit()
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_map(visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_unit(visitor)
    }

    serde::forward_to_deserialize_any! { i128 u128 bytes byte_buf }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_f64(visitor)
    }
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_string(visitor)
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_string(visitor)
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_string(visitor)
    }
}

impl<N: JsonNode> Tree<'_, N> {
    /// A whole number as serde_json gives it: `u64` from 0 up, `i64` below.
    fn deserialize_integer<'de, V: Visitor<'de>>(
        &self,
        n: f64,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        if n >= 0.0 {
            visitor.visit_u64(n as u64)
        } else {
            visitor.visit_i64(n as i64)
        }
    }
}

/// The items of an array.
struct Items<N> {
    items: std::vec::IntoIter<N>,
    index: u64,
}

impl<'de, N: JsonNode> de::SeqAccess<'de> for Items<N> {
    type Error = DeError;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let Some(item) = self.items.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        seed.deserialize(Tree(&item))
            .map(Some)
            .map_err(|e| e.inside(&["[", &decimal(index), "]"].concat()))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// The members of an object, in its own order.
struct Members<'a, N: JsonNode> {
    node: &'a N,
    names: N::Names,
    next: usize,
    /// The name of the member whose value is read next.
    current: String,
}

impl<N: JsonNode> Members<'_, N> {
    /// The value of the member whose name was read last (an absent one, `undefined` in
    /// JavaScript, reads as `null`).
    fn value(&mut self) -> Result<N, DeError> {
        let index = self.next;
        self.next += 1;
        self.node
            .value_at(&self.names, index)
            .ok_or_else(|| DeError::new(["no value for ", &self.current].concat()))
    }
}

impl<'de, N: JsonNode> de::MapAccess<'de> for Members<'_, N> {
    type Error = DeError;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some(name) = self.names.as_ref().get(self.next) else {
            return Ok(None);
        };
        self.current.clone_from(name);
        let key: de::value::StrDeserializer<'_, DeError> = name.as_str().into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, DeError> {
        let value = self.value()?;
        seed.deserialize(Tree(&value))
            .map_err(|e| e.inside(&self.current))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.names.as_ref().len() - self.next)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::{json, Value};

    use super::*;
    use crate::companion::{ErrorBody, SessionStatus, TokenAnswer};

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Options {
        app_id: String,
        page_size: Option<f64>,
        scopes: Option<Vec<String>>,
        bff: Option<bool>,
        kind: Option<Kind>,
        #[serde(default)]
        nested: BTreeMap<String, i64>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    enum Kind {
        Walk,
        Run,
    }

    /// Reads `value` both ways: by this deserializer and by serde_json's own.
    fn both<T: DeserializeOwned + PartialEq + fmt::Debug>(value: Value) -> Result<T, String> {
        let ours = from_node::<T, _>(&value).map_err(|e| e.to_string());
        let theirs = serde_json::from_value::<T>(value.clone());
        assert_eq!(ours.is_ok(), theirs.is_ok(), "{value}: {ours:?}");
        if let (Ok(a), Ok(b)) = (&ours, &theirs) {
            assert_eq!(a, b, "{value}");
        }
        ours
    }

    #[test]
    fn reads_what_serde_json_reads() {
        let read: Options = both(json!({
            "appId": "demo", "pageSize": 100, "scopes": ["a", "b"], "bff": true,
            "kind": "Run", "nested": {"x": -3}, "unknown": {"deep": [1, {}]}
        }))
        .unwrap();
        assert_eq!(read.page_size, Some(100.0));
        assert_eq!(read.kind, Some(Kind::Run));
        let read: Options = both(json!({"appId": "a", "pageSize": null, "bff": null})).unwrap();
        assert_eq!((read.page_size, read.bff), (None, None));
        both::<Options>(json!({"pageSize": 1})).unwrap_err();
        both::<Vec<Option<f64>>>(json!([1.5, null, -2])).unwrap();
        both::<(u8, String)>(json!([7, "x"])).unwrap();
        both::<u8>(json!(300)).unwrap_err();
        both::<i32>(json!(1.5)).unwrap_err();
        both::<bool>(json!(null)).unwrap_err();
        both::<()>(json!(null)).unwrap();
        both::<i64>(json!(-9_007_199_254_740_991_i64)).unwrap();
        both::<u32>(json!(-1)).unwrap_err();
        both::<f64>(json!(0.1)).unwrap();
        both::<String>(json!(5)).unwrap_err();
        both::<Kind>(json!("Fly")).unwrap_err();
    }

    #[test]
    fn reads_the_companions_answers() {
        let answer: TokenAnswer = from_node(&json!({
            "accessToken": "t", "tokenType": "Bearer", "expiresIn": 3600,
            "expiresAt": 1_700_000_000_000_i64, "scope": null,
            "profile": {"sub": "u", "name": "Ann", "email": null}
        }))
        .unwrap();
        assert_eq!(answer.expires_at, 1_700_000_000_000);
        assert_eq!(answer.profile.name.as_deref(), Some("Ann"));
        let status: SessionStatus = from_node(&json!({"active": false})).unwrap();
        assert_eq!(status, SessionStatus::inactive());
        let body: ErrorBody = from_node(&json!({"error": "e", "message": "m"})).unwrap();
        assert_eq!(body.error, "e");
    }

    #[test]
    fn errors_say_where_and_describe_values_by_kind_only() {
        let message = |value: Value| from_node::<Options, _>(&value).unwrap_err().to_string();
        assert_eq!(
            message(json!({"appId": "a", "pageSize": "secret"})),
            "pageSize: invalid type: a string, expected f64"
        );
        assert_eq!(
            message(json!({"appId": 3.25})),
            "appId: invalid type: a number, expected a string"
        );
        assert_eq!(
            message(json!({"appId": "a", "scopes": ["x", 2]})),
            "scopes[1]: invalid type: a number, expected a string"
        );
        assert_eq!(
            message(json!({"appId": "a", "nested": {"x": "y"}})),
            "nested.x: invalid type: a string, expected i64"
        );
        assert_eq!(message(json!({})), "missing field `appId`");
        assert_eq!(
            message(json!("x")),
            "invalid type: a string, expected struct Options"
        );
        assert_eq!(
            message(json!([1])),
            "invalid type: an array, expected struct Options"
        );
    }
}
