//! A parsed JSON tree, as core's rules read it: `serde_json::Value` natively, the result of
//! `JSON.parse` in the browser. A tree only supplies plain reads (a value, a member by its exact
//! name, the member names, the member at a position); the rules (the service's member-name
//! rule, error bodies, model decoding) are written once, here, over this trait.

use serde_json::Value;

use crate::shape::Shape;

/// Read access to one node of a parsed JSON tree.
pub trait JsonNode: Sized {
    /// An object's member names in the object's order, in a form that is cheap to hold (in the
    /// browser, one list shared by the objects with the same names) and to compare.
    type Names: PartialEq + AsRef<[String]>;

    /// The text of a JSON string (as is), `None` for anything else.
    fn string(&self) -> Option<String>;
    /// True for a JSON string.
    fn is_string(&self) -> bool {
        self.string().is_some()
    }
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
    /// The member named exactly `name`, `null` included; `None` when there is none or this is
    /// not an object.
    fn get(&self, name: &'static str) -> Option<Self>;
    /// This object's member names; `None` when this is not an object.
    fn names(&self) -> Option<Self::Names>;
    /// The value of the member at `index` of `names` (this object's own names).
    fn value_at(&self, names: &Self::Names, index: usize) -> Option<Self>;

    /// The member `name` as the service's casing rules read it (see [`member`]).
    fn member(&self, name: &'static str) -> Option<Self> {
        member(self, name)
    }

    /// The member named exactly as field `index` of `shape`: [`JsonNode::get`] of its name. A
    /// tree may answer it faster, knowing where the objects of one shape keep that member.
    fn get_field(&self, shape: &'static Shape, index: usize) -> Option<Self> {
        self.get(shape.fields.get(index)?.name)
    }
}

/// The member `name` of `node` as the service's casing rules read it: the member of exactly
/// that name unless it is `null`, else the first non-null member, in the object's own order,
/// whose name equals it ignoring ASCII case. `None` (absent) when there is none, so `null`
/// counts as absent.
///
/// ```
/// use fundraising_core::json::member;
/// let a = serde_json::json!({"TITLE": null, "Title": "A", "title": null});
/// assert_eq!(member(&a, "title"), Some(serde_json::json!("A")));
/// assert_eq!(member(&a, "summary"), None);
/// ```
pub fn member<N: JsonNode>(node: &N, name: &'static str) -> Option<N> {
    member_with(node, name, node.get(name))
}

/// [`member`] of field `index` of `shape` (the exact name looked up with
/// [`JsonNode::get_field`]).
pub fn field_member<N: JsonNode>(node: &N, shape: &'static Shape, index: usize) -> Option<N> {
    let name = shape.fields.get(index)?.name;
    member_with(node, name, node.get_field(shape, index))
}

/// The rule of [`member`], `exact` being the member of exactly that name.
fn member_with<N: JsonNode>(node: &N, name: &'static str, exact: Option<N>) -> Option<N> {
    if let Some(value) = exact.filter(|value| !value.is_null()) {
        return Some(value);
    }
    let names = node.names()?;
    let list = names.as_ref().iter().enumerate();
    list.filter(|(_, other)| other.as_str() != name && other.eq_ignore_ascii_case(name))
        .find_map(|(index, _)| {
            node.value_at(&names, index)
                .filter(|value| !value.is_null())
        })
}

impl JsonNode for Value {
    type Names = Vec<String>;

    fn string(&self) -> Option<String> {
        self.as_str().map(str::to_owned)
    }

    fn number(&self) -> Option<f64> {
        self.as_f64()
    }

    /// The text JavaScript writes for the number (`String(n)` of what `JSON.parse` reads), as
    /// the browser has it: `1.0` is `"1"`, `1e21` is `"1e+21"`.
    fn number_text(&self) -> Option<String> {
        let n = self.as_f64()?;
        Some(ryu_js::Buffer::new().format(n).to_owned())
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

    fn get(&self, name: &'static str) -> Option<Self> {
        self.as_object()?.get(name).cloned()
    }

    fn names(&self) -> Option<Vec<String>> {
        Some(self.as_object()?.keys().cloned().collect())
    }

    fn value_at(&self, names: &Vec<String>, index: usize) -> Option<Self> {
        self.as_object()?.get(names.get(index)?).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn exact_name_first_then_the_first_other_casing_that_is_not_null() {
        let node = json!({"a": 1, "TITLE": null, "Title": "x", "title": null});
        assert_eq!(member(&node, "title"), Some(json!("x")));
        // Members keep the order they were sent in, as `JSON.parse` keeps them.
        let node: Value = serde_json::from_str(r#"{"TiTlE": "y", "Title": "x"}"#).unwrap();
        assert_eq!(member(&node, "title"), Some(json!("y")));
        let node = json!({"a": 1});
        assert_eq!(member(&node, "a"), Some(json!(1)));
        assert_eq!(member(&node, "b"), None);
        let null_only = json!({"title": null, "TITLE": null});
        assert_eq!(member(&null_only, "title"), None);
        assert_eq!(member(&json!([1]), "title"), None);
        assert_eq!(member(&json!("title"), "title"), None);
    }
}
