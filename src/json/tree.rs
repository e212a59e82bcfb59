//! The tree reader: a JS value read in one call of `tape.js`'s `scan` onto a tape of numbers
//! Rust walks without calling out, and its nodes read through core's [`JsonNode`].

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use fundraising_core::json::{JsonNode, MAX_DEPTH};
use fundraising_core::shape::Shape;
use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::codes::codes;
use super::fit::{Fit, NameList, Names};

#[wasm_bindgen(module = "/src/json/tape.js")]
extern "C" {
    /// Reads `root` and what it reaches into `arrays` (see `tape.js`); returns the tape.
    fn scan(root: &JsValue, arrays: &Array, max_depth: u32) -> Vec<f64>;
    /// The string or number `values[c][i]` as text.
    fn text(arrays: &Array, c: u32, i: u32) -> String;
}

codes! {
    /// What a value is, as `scan` tells it.
    enum Kind { Absent = 0, Null = 1, False = 2, True = 3, Number = 4, String = 5, Array = 6, Object = 7, Other = 8, }
}

/// A value read by `scan`: its tape, and the JS arrays the tape's ids point into
/// (`[containers, values, keys]`).
pub(crate) struct Tree {
    pub(crate) root: JsValue,
    tape: Vec<f64>,
    pub(crate) arrays: Array,
    /// Each distinct list of member names, copied into Rust when first asked for.
    names: RefCell<Vec<Option<Rc<NameList>>>>,
}

impl Tree {
    /// Where container `c`'s entry starts.
    fn entry(&self, c: u32) -> usize {
        self.tape.get(4 + c as usize).map_or(0, |&at| at as usize)
    }

    /// How many values container `c` holds.
    fn len(&self, c: u32) -> usize {
        self.tape.get(self.entry(c) + 1).map_or(0, |&n| n as usize)
    }

    /// Kind and payload of value `i` of container `c`.
    fn told(&self, c: u32, i: usize) -> Option<(Kind, f64)> {
        let at = self.entry(c) + 2 + 2 * i;
        let kind = Kind::of(*self.tape.get(at)?).unwrap_or(Kind::Other);
        Some((kind, *self.tape.get(at + 1)?))
    }

    /// Container `c`'s member names (`None` for an array), copied once per distinct list.
    fn names_of(&self, c: u32) -> Option<Names> {
        let id = *self.tape.get(self.entry(c))?;
        let id = (id >= 0.0).then_some(id as usize)?;
        let mut names = self.names.borrow_mut();
        if names.len() <= id {
            names.resize(id + 1, None);
        }
        let list = names[id].get_or_insert_with(|| {
            let keys: Array = self
                .arrays
                .get(2)
                .unchecked_into::<Array>()
                .get(c)
                .unchecked_into();
            let names = keys.iter().map(|k| k.as_string().unwrap_or_default());
            Rc::new(NameList {
                names: names.collect(),
                fits: RefCell::default(),
            })
        });
        Some(Names { list: list.clone() })
    }
}

/// Where a node is: the root, or value `index` of container `of`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    Root,
    Member(u32, u32),
}

/// A node of a read JS value.
pub(crate) struct Node {
    pub(crate) tree: Rc<Tree>,
    pub(crate) place: Place,
    kind: Kind,
    /// A number's value, or a container's id.
    payload: f64,
    /// An object's member names, once asked for.
    names: OnceCell<Option<Names>>,
    /// How they meet the shape it is read as, once asked for.
    fit: OnceCell<Option<Rc<Fit>>>,
}

impl Node {
    pub(crate) fn new(root: JsValue) -> Self {
        let arrays = Array::new();
        let tape = scan(&root, &arrays, MAX_DEPTH as u32);
        let kind = Kind::of(tape.first().copied().unwrap_or(0.0)).unwrap_or(Kind::Other);
        let payload = tape.get(1).copied().unwrap_or(0.0);
        let tree = Tree {
            root,
            tape,
            arrays,
            names: RefCell::new(Vec::new()),
        };
        Node::at(Rc::new(tree), Place::Root, (kind, payload))
    }

    fn at(tree: Rc<Tree>, place: Place, (kind, payload): (Kind, f64)) -> Node {
        let (names, fit) = (OnceCell::new(), OnceCell::new());
        Node {
            tree,
            place,
            kind,
            payload,
            names,
            fit,
        }
    }

    /// Value `index` of container `c`.
    fn member(&self, c: u32, index: usize) -> Option<Node> {
        let place = Place::Member(c, index as u32);
        Some(Node::at(
            self.tree.clone(),
            place,
            self.tree.told(c, index)?,
        ))
    }

    /// An object's member names.
    fn own_names(&self) -> Option<&Names> {
        (self.names)
            .get_or_init(|| match self.kind {
                Kind::Object => self.tree.names_of(self.container()?),
                _ => None,
            })
            .as_ref()
    }

    /// How this object's names meet `shape` (an object is read as one shape).
    pub(crate) fn fit(&self, shape: &'static Shape) -> Option<&Fit> {
        (self.fit)
            .get_or_init(|| Some(self.own_names()?.list.fit(shape)))
            .as_deref()
    }

    /// The container id of an object or an array.
    pub(crate) fn container(&self) -> Option<u32> {
        matches!(self.kind, Kind::Object | Kind::Array).then_some(self.payload as u32)
    }

    /// A string's or a number's text (a call into JavaScript for a member).
    fn text(&self) -> Option<String> {
        match self.place {
            // A finite number's JSON text is its JS text.
            Place::Root => (self.tree.root.as_string()).or_else(|| {
                let root = &self.tree.root;
                root.as_f64()?;
                js_sys::JSON::stringify(root).ok()?.as_string()
            }),
            Place::Member(c, i) => Some(text(&self.tree.arrays, c, i)),
        }
    }
}

// Asked of answers (the JS face's) and of error bodies (in the browser): only builds that read
// them hold it.
#[cfg(any(
    all(feature = "js", feature = "__operation"),
    all(
        target_arch = "wasm32",
        any(feature = "signin", feature = "__operation")
    )
))]
impl Node {
    /// True when JSON text of this value reads natively too (as serde_json reads it): every
    /// number finite (`JSON.parse` makes `Infinity` of what is beyond a double's range), and
    /// nested at most [`MAX_DEPTH`] deep.
    pub(crate) fn readable(&self) -> bool {
        self.tree.tape.get(3) == Some(&1.0)
    }
}

impl JsonNode for Node {
    type Names = Names;

    fn string(&self) -> Option<String> {
        (self.kind == Kind::String).then(|| self.text()).flatten()
    }

    fn is_string(&self) -> bool {
        self.kind == Kind::String
    }

    fn number(&self) -> Option<f64> {
        (self.kind == Kind::Number).then_some(self.payload)
    }

    fn number_text(&self) -> Option<String> {
        (self.kind == Kind::Number).then(|| self.text()).flatten()
    }

    fn boolean(&self) -> Option<bool> {
        match self.kind {
            Kind::True => Some(true),
            Kind::False => Some(false),
            _ => None,
        }
    }

    fn is_object(&self) -> bool {
        self.kind == Kind::Object
    }

    fn is_null(&self) -> bool {
        matches!(self.kind, Kind::Null | Kind::Absent)
    }

    fn items(&self) -> Option<Vec<Self>> {
        let c = self.container().filter(|_| self.kind == Kind::Array)?;
        Some(
            (0..self.tree.len(c))
                .filter_map(|i| self.member(c, i))
                .collect(),
        )
    }

    /// `undefined` members (not in `JSON.parse` results) are absent.
    fn get(&self, name: &'static str) -> Option<Self> {
        let index = self
            .own_names()?
            .list
            .names
            .iter()
            .position(|n| n == name)?;
        let member = self.member(self.container()?, index)?;
        (member.kind != Kind::Absent).then_some(member)
    }

    fn names(&self) -> Option<Names> {
        self.own_names().cloned()
    }

    fn get_field(&self, shape: &'static Shape, index: usize) -> Option<Self> {
        let place = (*self.fit(shape)?.member_of_field.get(index)?)?;
        let member = self.member(self.container()?, place as usize)?;
        (member.kind != Kind::Absent).then_some(member)
    }

    fn value_at(&self, names: &Names, index: usize) -> Option<Self> {
        // Only this object's own names (equal to `names`) index its values.
        if self.own_names()? != names {
            return None;
        }
        self.member(self.container()?, index)
    }
}

#[cfg(test)]
mod tests {
    use super::Kind;

    #[test]
    fn tape_js_declares_the_kinds_rust_reads() {
        assert!(
            include_str!("tape.js").contains(Kind::JS),
            "src/json/tape.js must declare the kinds as src/json/tree.rs does:\n{}",
            Kind::JS
        );
    }
}
