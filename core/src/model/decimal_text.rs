//! Lenient text fields: the spec says "decimal as text" (or an id as text); accept a JSON
//! number as well and keep its textual form.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

fn to_text<E: serde::de::Error>(value: Value) -> Result<Option<String>, E> {
    match value {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        Value::Number(n) => Ok(Some(n.to_string())),
        other => Err(E::custom(format!(
            "expected a string or a number, found {other}"
        ))),
    }
}

/// A string field that may arrive as a JSON number.
pub(crate) fn text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    to_text(Value::deserialize(deserializer)?).map(Option::unwrap_or_default)
}

/// An optional string field that may arrive as a JSON number.
pub(crate) fn opt_text<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    to_text(Value::deserialize(deserializer)?)
}
