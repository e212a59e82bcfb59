//! A parsed JSON tree, as core's rules read it: `serde_json::Value` natively, the result of
//! `JSON.parse` in the browser. A tree only supplies plain reads (a value, a member by its exact
//! name, the member names, the member at a position); the rules (the service's member-name
//! rule, error bodies, model decoding) are written once, here, over this trait.

use std::cell::RefCell;

use serde_json::Value;

use crate::shape::Shape;

/// Read access to one node of a parsed JSON tree.
pub trait JsonNode: Sized {
    /// An object's member names, in a form that is cheap to compare with another object's: two
    /// equal values must list the same names in the same order.
    type Names: PartialEq;

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
    /// The names of `names`, in the object's order.
    fn name_list(names: &Self::Names) -> Vec<String>;
    /// The value of the member at `index` of `names` (this object's own names).
    fn value_at(&self, names: &Self::Names, index: usize) -> Option<Self>;

    /// The member `name` as the service's casing rules read it (see [`member`]).
    fn member(&self, name: &'static str) -> Option<Self> {
        member(self, name, &Casings::default())
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
/// `casings` remembers the names of the last object asked about: the objects of a list usually
/// have the same names, and then only the first one's are read (in the browser, a copy of each
/// name). Reuse one [`Casings`] across the objects of one document.
///
/// ```
/// use fundraising_core::json::{member, Casings, JsonNode};
/// let casings = Casings::default();
/// let a = serde_json::json!({"Title": "A", "title": null});
/// let b = serde_json::json!({"Title": "B", "title": null});
/// assert_eq!(member(&a, "title", &casings), Some(serde_json::json!("A")));
/// assert_eq!(member(&b, "title", &casings), Some(serde_json::json!("B")));
/// assert_eq!(member(&b, "summary", &casings), None);
/// ```
pub fn member<N: JsonNode>(node: &N, name: &'static str, casings: &Casings<N::Names>) -> Option<N> {
    member_with(node, name, node.get(name), casings)
}

/// [`member`] of field `index` of `shape` (the exact name looked up with
/// [`JsonNode::get_field`]).
pub fn field_member<N: JsonNode>(
    node: &N,
    shape: &'static Shape,
    index: usize,
    casings: &Casings<N::Names>,
) -> Option<N> {
    let name = shape.fields.get(index)?.name;
    member_with(node, name, node.get_field(shape, index), casings)
}

/// The rule of [`member`], `exact` being the member of exactly that name.
fn member_with<N: JsonNode>(
    node: &N,
    name: &'static str,
    exact: Option<N>,
    casings: &Casings<N::Names>,
) -> Option<N> {
    if let Some(value) = exact {
        if !value.is_null() {
            return Some(value);
        }
    }
    let names = node.names()?;
    let mut known = casings.0.borrow_mut();
    let known = match &mut *known {
        Some(known) if known.names == names => known,
        slot => slot.insert(Known {
            list: N::name_list(&names),
            names,
        }),
    };
    // Read by the remembered names, which equal this object's own.
    let Known { names, list } = known;
    list.iter()
        .enumerate()
        .filter(|(_, other)| other.as_str() != name && other.eq_ignore_ascii_case(name))
        .find_map(|(index, _)| node.value_at(names, index).filter(|value| !value.is_null()))
}

/// The rule [`member`] applies, as the spec states it and without any memory: the reference
/// the unit tests and the `member_names` fuzz target check [`member`] against.
#[doc(hidden)]
pub fn member_as_stated(node: &Value, name: &str) -> Option<Value> {
    let object = node.as_object()?;
    match object.get(name) {
        Some(v) if !v.is_null() => Some(v.clone()),
        _ => object
            .iter()
            .find(|(k, v)| k.eq_ignore_ascii_case(name) && !v.is_null())
            .map(|(_, v)| v.clone()),
    }
}

/// What [`member`] remembers of the last object's names (see there).
pub struct Casings<Names>(RefCell<Option<Known<Names>>>);

impl<Names> Default for Casings<Names> {
    fn default() -> Self {
        Casings(RefCell::new(None))
    }
}

/// One object's names: as the tree compares them, and as text to compare casings with.
struct Known<Names> {
    names: Names,
    list: Vec<String>,
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

    fn name_list(names: &Vec<String>) -> Vec<String> {
        names.clone()
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
        let casings = Casings::default();
        let node = json!({"a": 1, "TITLE": null, "Title": "x", "title": null});
        assert_eq!(member(&node, "title", &casings), Some(json!("x")));
        // Members keep the order they were sent in, as `JSON.parse` keeps them: `Title` comes
        // before `TiTlE`.
        let node = json!({"TITLE": null, "Title": "x", "title": null, "TiTlE": "y"});
        assert_eq!(member(&node, "title", &casings), Some(json!("x")));
        assert_eq!(member_as_stated(&node, "title"), Some(json!("x")));
        let node: Value = serde_json::from_str(r#"{"TiTlE": "y", "Title": "x"}"#).unwrap();
        assert_eq!(member(&node, "title", &casings), Some(json!("y")));
        let node = json!({"a": 1});
        assert_eq!(member(&node, "a", &casings), Some(json!(1)));
        assert_eq!(member(&node, "b", &casings), None);
        let null_only = json!({"title": null, "TITLE": null});
        assert_eq!(member(&null_only, "title", &casings), None);
        assert_eq!(member(&json!([1]), "title", &casings), None);
        assert_eq!(member(&json!("title"), "title", &casings), None);
    }

    #[test]
    fn remembered_casings_never_answer_for_an_object_with_other_names() {
        let casings = Casings::default();
        let objects = [
            json!({"pageTitle": null, "PageTitle": "A"}),
            json!({"pageTitle": null, "PageTitle": "B"}),
            json!({"pageTitle": null}),
            json!({"PAGETITLE": "D"}),
            json!({"pageTitle": null, "PageTitle": "E"}),
            json!({"pageTitle": null, "PageTitle": null, "pagetitle": "F"}),
        ];
        for _ in 0..2 {
            for object in &objects {
                for name in ["pageTitle", "smsCode"] {
                    assert_eq!(
                        member(object, name, &casings),
                        member_as_stated(object, name),
                        "{object} {name}"
                    );
                }
            }
        }
    }
}
