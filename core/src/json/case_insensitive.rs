//! A deserializer over a parsed [`Value`] that matches struct field names ASCII
//! case-insensitively and treats `null` struct members as absent.

use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Unexpected,
    Visitor,
};
use serde_json::{Map, Value};

/// Wraps a [`Value`]; nested values are wrapped again as they are visited.
pub(crate) struct CaseInsensitive(pub(crate) Value);

fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (_, Some(i), _) => Unexpected::Signed(i),
            (_, _, Some(f)) => Unexpected::Float(f),
            _ => Unexpected::Other("number"),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// Renames members to the struct's own field names and drops `null` members.
/// When two members fold to the same field, the first non-null one (in map order) wins.
fn struct_entries(
    map: Map<String, Value>,
    fields: &'static [&'static str],
) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = Vec::with_capacity(map.len());
    for (key, value) in map {
        if value.is_null() {
            continue;
        }
        let name = fields
            .iter()
            .find(|f| f.eq_ignore_ascii_case(&key))
            .map_or(key, |f| (*f).to_owned());
        if out.iter().any(|(k, _)| *k == name) {
            continue;
        }
        out.push((name, value));
    }
    out
}

impl<'de> Deserializer<'de> for CaseInsensitive {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Object(map) => visitor.visit_map(Entries::new(map.into_iter().collect())),
            Value::Array(items) => visitor.visit_seq(Items(items.into_iter())),
            other => other.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(CaseInsensitive(other)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Object(map) => visitor.visit_map(Entries::new(struct_entries(map, fields))),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier ignored_any
    }
}

/// Map access over already-renamed members.
struct Entries {
    iter: std::vec::IntoIter<(String, Value)>,
    value: Option<Value>,
}

impl Entries {
    fn new(entries: Vec<(String, Value)>) -> Self {
        Entries {
            iter: entries.into_iter(),
            value: None,
        }
    }
}

impl<'de> MapAccess<'de> for Entries {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        match self.iter.next() {
            Some((key, value)) => {
                self.value = Some(value);
                let key: de::value::StringDeserializer<serde_json::Error> = key.into_deserializer();
                seed.deserialize(key).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(CaseInsensitive(value)),
            None => Err(de::Error::custom("map value requested before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// Sequence access wrapping each item.
struct Items(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Items {
    type Error = serde_json::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        match self.0.next() {
            Some(value) => seed.deserialize(CaseInsensitive(value)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}
