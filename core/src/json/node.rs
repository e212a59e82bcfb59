//! A parsed JSON tree, as core's rules read it: `serde_json::Value` natively, the result of
//! `JSON.parse` in the browser. The rules (error bodies, model decoding) are written once over
//! this trait.

use serde::Serializer;
use serde_json::Value;

use crate::ServiceDate;

/// Read access to one node of a parsed JSON tree.
pub trait JsonNode: Sized {
    /// The text of a JSON string (as is), `None` for anything else.
    fn string(&self) -> Option<String>;
    /// The value of a JSON number, `None` for anything else.
    fn number(&self) -> Option<f64>;
    /// The text of a JSON number, `None` for anything else.
    fn number_text(&self) -> Option<String>;
    /// The value of `true` or `false`, `None` for anything else.
    fn boolean(&self) -> Option<bool>;
    /// True for a JSON object.
    fn is_object(&self) -> bool;
    /// True for `null` (or JavaScript's `undefined`).
    fn is_null(&self) -> bool;
    /// The items of a JSON array, `None` for anything else.
    fn items(&self) -> Option<Vec<Self>>;
    /// The member named exactly `name` unless it is `null`; `None` when there is none, it is
    /// `null`, or this is not an object.
    fn exact_member(&self, name: &'static str) -> Option<Self>;
    /// The first member, in the object's own order, whose name equals `name` ignoring ASCII
    /// case and whose value is not `null`.
    fn member_ignoring_case(&self, name: &'static str) -> Option<Self>;

    /// The member `name` as the service's casing rules read it: the member of exactly that
    /// name unless it is `null`, else the first non-null member whose name equals it ignoring
    /// ASCII case. `None` (absent) when there is none, so `null` counts as absent.
    fn member(&self, name: &'static str) -> Option<Self> {
        self.exact_member(name)
            .or_else(|| self.member_ignoring_case(name))
    }
}

/// A tree that can write what core's decoder passes through: members whose shape the spec
/// does not show (as they are) and dates (as the platform's date value).
pub trait DecodeTarget: JsonNode {
    /// Serializes this node as the string it is, or `None` when it is no string. (In the
    /// browser the JS string passes through without a copy into Rust and back.)
    fn serialize_string<S: Serializer>(&self, serializer: S) -> Option<Result<S::Ok, S::Error>>;
    /// Serializes this node unchanged.
    fn serialize_free<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
    /// Serializes a date read from the tree.
    fn serialize_date<S: Serializer>(date: ServiceDate, serializer: S) -> Result<S::Ok, S::Error>;
}

impl JsonNode for Value {
    fn string(&self) -> Option<String> {
        self.as_str().map(str::to_owned)
    }

    fn number(&self) -> Option<f64> {
        self.as_f64()
    }

    fn number_text(&self) -> Option<String> {
        match self {
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    fn boolean(&self) -> Option<bool> {
        self.as_bool()
    }

    fn is_object(&self) -> bool {
        self.is_object()
    }

    fn is_null(&self) -> bool {
        self.is_null()
    }

    fn items(&self) -> Option<Vec<Self>> {
        self.as_array().cloned()
    }

    fn exact_member(&self, name: &'static str) -> Option<Self> {
        self.as_object()?
            .get(name)
            .filter(|v| !v.is_null())
            .cloned()
    }

    fn member_ignoring_case(&self, name: &'static str) -> Option<Self> {
        self.as_object()?
            .iter()
            .find(|(k, v)| k.eq_ignore_ascii_case(name) && !v.is_null())
            .map(|(_, v)| v.clone())
    }
}

impl DecodeTarget for Value {
    fn serialize_string<S: Serializer>(&self, serializer: S) -> Option<Result<S::Ok, S::Error>> {
        Some(serializer.serialize_str(self.as_str()?))
    }

    fn serialize_free<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(self, serializer)
    }

    /// The date in the serde form of [`ServiceDate`], keeping the offset it was sent with.
    fn serialize_date<S: Serializer>(date: ServiceDate, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&date.to_json_string_as_sent())
    }
}
