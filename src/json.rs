//! JS values read for core's rules: a `JSON.parse` tree, an options object, a companion's
//! answer (core's [`JsonNode`]: the member-name rule, error bodies, the tree reader of options
//! and answers, and, in the JS layer, the model decoder, which makes its results here too with
//! [`Build`]). This module only reads and edits JS values; every rule stays in core. The
//! package carries no JSON parser of its own.
//!
//! A value is read in one call (`src/json.js`'s `scan`): every object and array it reaches, with
//! the kind of each of their values and the value of each number. A value itself crosses into
//! Rust only when a rule needs it (a date's text), and member names once per distinct list. The
//! decoder's result is the tree itself, edited in one more call: the members a model keeps stay
//! where they are, dates become `Date`s, other casings are renamed, unknown members dropped.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use fundraising_core::json::JsonNode;
use fundraising_core::shape::Shape;
use js_sys::{Array, JsString};
use wasm_bindgen::prelude::*;

use crate::Error;

#[wasm_bindgen(module = "/src/json.js")]
extern "C" {
    /// Reads `root` and the objects and arrays it reaches (see `src/json.js`): the tape.
    fn scan(root: &JsValue, containers: &Array, values: &Array, keys: &Array) -> Vec<f64>;
    /// The string or number `values[c][i]` as text.
    fn text(values: &Array, c: u32, i: u32) -> String;

}

#[wasm_bindgen]
extern "C" {
    /// `JSON.parse` of a JS string (an answer's body, never copied into Rust).
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn parse_js(text: &JsString) -> Result<JsValue, JsValue>;
}

/// An answer's body parsed by the platform's `JSON.parse`.
#[cfg_attr(not(any(feature = "signin", feature = "js")), allow(dead_code))]
pub(crate) fn parse_body(body: &JsString) -> Result<JsValue, Error> {
    parse_js(body).map_err(|_| Error::decode("the answer is not JSON"))
}

cfg_requests! {
    /// The service's error answer (`status`, `body`) by core's rules.
    pub(crate) fn service_error(status: u16, body: &str) -> fundraising_core::ServiceError {
        fundraising_core::service_error::parse_error_body_with(status, body, |text| {
            js_sys::JSON::parse(text).ok().map(Node::new)
        })
    }
}

/// What a value is, as `src/json.js` tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Absent,
    Null,
    False,
    True,
    Number,
    String,
    Array,
    Object,
    Other,
}

impl Kind {
    fn of(code: f64) -> Kind {
        match code as u8 {
            0 => Kind::Absent,
            1 => Kind::Null,
            2 => Kind::False,
            3 => Kind::True,
            4 => Kind::Number,
            5 => Kind::String,
            6 => Kind::Array,
            7 => Kind::Object,
            _ => Kind::Other,
        }
    }
}

/// A value read by `scan`: its tape, and the JS arrays the tape's ids point into.
pub(crate) struct Tree {
    root: JsValue,
    tape: Vec<f64>,
    // Edited by the JS layer's decoder (a build with the JS face and an operation).
    #[cfg_attr(
        not(all(
            feature = "js",
            any(
                feature = "campaign",
                feature = "donation",
                feature = "events",
                feature = "pages"
            )
        )),
        allow(dead_code)
    )]
    containers: Array,
    values: Array,
    keys: Array,
    /// Each distinct list of member names, copied into Rust when first asked for.
    names: RefCell<Vec<Option<Rc<NameList>>>>,
    /// Where the last member lookup by name found it: the objects of a list have their
    /// members in the same order, so the next lookup usually finds it just after.
    next: Cell<usize>,
}

/// One distinct list of member names, and how it meets each shape asked about (the objects of
/// a list share their names, so that is worked out once per list).
pub(crate) struct NameList {
    names: Vec<String>,
    fits: RefCell<Vec<Rc<Fit>>>,
}

/// How a list of member names meets a shape: for each field, the member of exactly its name;
/// for each member, whether a field has its name.
struct Fit {
    shape: *const Shape,
    member_of_field: Vec<Option<u32>>,
    #[cfg_attr(
        not(all(
            feature = "js",
            any(
                feature = "campaign",
                feature = "donation",
                feature = "events",
                feature = "pages"
            )
        )),
        allow(dead_code)
    )]
    is_field: Vec<bool>,
}

impl Tree {
    fn read(root: JsValue) -> Tree {
        let (containers, values, keys) = (Array::new(), Array::new(), Array::new());
        let tape = scan(&root, &containers, &values, &keys);
        Tree {
            root,
            tape,
            containers,
            values,
            keys,
            names: RefCell::new(Vec::new()),
            next: Cell::new(0),
        }
    }

    /// Where container `c`'s entry starts.
    fn entry(&self, c: u32) -> usize {
        self.tape.get(3 + c as usize).map_or(0, |&at| at as usize)
    }

    /// The id of container `c`'s names (`None` for an array).
    fn names_id(&self, c: u32) -> Option<usize> {
        let id = *self.tape.get(self.entry(c))?;
        (id >= 0.0).then_some(id as usize)
    }

    /// How many values container `c` holds.
    fn len(&self, c: u32) -> usize {
        self.tape.get(self.entry(c) + 1).map_or(0, |&n| n as usize)
    }

    /// Kind and payload of value `i` of container `c`.
    fn told(&self, c: u32, i: usize) -> Option<(Kind, f64)> {
        let at = self.entry(c) + 2 + 2 * i;
        Some((Kind::of(*self.tape.get(at)?), *self.tape.get(at + 1)?))
    }

    /// Container `c`'s member names, as Rust strings (copied once per distinct list).
    fn names_of(&self, c: u32) -> Option<Names> {
        let id = self.names_id(c)?;
        let mut names = self.names.borrow_mut();
        if names.len() <= id {
            names.resize(id + 1, None);
        }
        let list = names[id]
            .get_or_insert_with(|| {
                let keys: Array = self.keys.get(c).unchecked_into();
                Rc::new(NameList {
                    names: keys
                        .iter()
                        .map(|k| k.as_string().unwrap_or_default())
                        .collect(),
                    fits: RefCell::new(Vec::new()),
                })
            })
            .clone();
        Some(Names { list })
    }
}

impl NameList {
    /// How these names meet `shape`.
    fn fit(&self, shape: &'static Shape) -> Rc<Fit> {
        let mut fits = self.fits.borrow_mut();
        if let Some(fit) = fits.iter().find(|fit| std::ptr::eq(fit.shape, shape)) {
            return fit.clone();
        }
        let names = &self.names;
        let fit = Rc::new(Fit {
            shape,
            member_of_field: shape
                .fields
                .iter()
                .map(|f| names.iter().position(|n| n == f.name).map(|i| i as u32))
                .collect(),
            is_field: names
                .iter()
                .map(|n| shape.fields.iter().any(|f| f.name == n))
                .collect(),
        });
        fits.push(fit.clone());
        fit
    }
}

/// An object's member names (one list for every object with the same names).
#[derive(Clone)]
pub(crate) struct Names {
    list: Rc<NameList>,
}

impl PartialEq for Names {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.list, &other.list) || self.list.names == other.list.names
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
    tree: Rc<Tree>,
    place: Place,
    kind: Kind,
    /// A number's value, or a container's id.
    payload: f64,
    /// An object's member names, once asked for.
    names: std::cell::OnceCell<Option<Names>>,
}

impl Node {
    pub(crate) fn new(value: JsValue) -> Self {
        let tree = Tree::read(value);
        let kind = Kind::of(tree.tape.first().copied().unwrap_or(0.0));
        let payload = tree.tape.get(1).copied().unwrap_or(0.0);
        Node {
            tree: Rc::new(tree),
            place: Place::Root,
            kind,
            payload,
            names: std::cell::OnceCell::new(),
        }
    }

    /// Value `index` of container `c`.
    fn member(&self, c: u32, index: usize) -> Option<Node> {
        let (kind, payload) = self.tree.told(c, index)?;
        Some(Node {
            tree: self.tree.clone(),
            place: Place::Member(c, index as u32),
            kind,
            payload,
            names: std::cell::OnceCell::new(),
        })
    }

    /// An object's member names.
    fn own_names(&self) -> Option<&Names> {
        self.names
            .get_or_init(|| match self.kind {
                Kind::Object => self.tree.names_of(self.container()?),
                _ => None,
            })
            .as_ref()
    }

    /// The container id of an object or an array.
    fn container(&self) -> Option<u32> {
        matches!(self.kind, Kind::Object | Kind::Array).then_some(self.payload as u32)
    }

    /// A string's or a number's text (a call into JavaScript for a member).
    fn text(&self) -> Option<String> {
        match self.place {
            Place::Root => self.tree.root.as_string().or_else(|| {
                self.tree
                    .root
                    .as_f64()
                    .map(|_| String::from(js_sys::JsString::from(self.tree.root.clone())))
            }),
            Place::Member(c, i) => Some(text(&self.tree.values, c, i)),
        }
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
        if self.kind != Kind::Array {
            return None;
        }
        let c = self.container()?;
        Some(
            (0..self.tree.len(c))
                .filter_map(|i| self.member(c, i))
                .collect(),
        )
    }

    /// `undefined` members (not in `JSON.parse` results) are absent.
    fn get(&self, name: &'static str) -> Option<Self> {
        if self.kind != Kind::Object {
            return None;
        }
        let c = self.container()?;
        let names = self.own_names()?;
        let names = &names.list.names;
        let count = names.len();
        let start = self.tree.next.get();
        let index = (0..count)
            .map(|i| (start + i) % count)
            .find(|&i| names[i] == name)?;
        self.tree.next.set(index + 1);
        self.member(c, index)
            .filter(|member| member.kind != Kind::Absent)
    }

    fn names(&self) -> Option<Names> {
        self.own_names().cloned()
    }

    fn get_field(&self, shape: &'static Shape, index: usize) -> Option<Self> {
        let fit = self.own_names()?.list.fit(shape);
        let place = (*fit.member_of_field.get(index)?)?;
        self.member(self.container()?, place as usize)
            .filter(|member| member.kind != Kind::Absent)
    }

    fn name_list(names: &Names) -> Vec<String> {
        names.list.names.clone()
    }

    fn value_at(&self, names: &Names, index: usize) -> Option<Self> {
        let c = self.container()?;
        // Only this object's own names (equal to `names`) index its values.
        if self.own_names()? != names {
            return None;
        }
        self.member(c, index)
    }
}

#[cfg(all(
    feature = "js",
    any(
        feature = "campaign",
        feature = "donation",
        feature = "events",
        feature = "pages"
    )
))]
pub(crate) use build::decode_js;

/// The decoder's result made of the tree itself (the JS layer's fast path).
#[cfg(all(
    feature = "js",
    any(
        feature = "campaign",
        feature = "donation",
        feature = "events",
        feature = "pages"
    )
))]
mod build {
    use std::cell::RefCell;

    use fundraising_core::json::{decode_tree, Build};
    use fundraising_core::shape::Shape;
    use fundraising_core::ServiceDate;
    use js_sys::Array;
    use wasm_bindgen::prelude::*;

    use super::{Node, Place};
    use crate::Error;

    #[wasm_bindgen(module = "/src/json.js")]
    extern "C" {
        /// Carries out the edits (see `src/json.js`) and returns the value `result` names.
        fn apply(
            edits: &[f64],
            made: Vec<JsValue>,
            containers: &Array,
            values: &Array,
            keys: &Array,
            field_names: &Array,
            result: &[f64],
        ) -> JsValue;
    }

    /// A value of the result: one of the tree, where it is (an object or an array of the tree
    /// stands for itself, edited), or one the edits make.
    pub(crate) enum Out {
        Tree(Place),
        Null,
        Bool(bool),
        Number(f64),
        Date(f64),
        Made(u32),
        New(u32),
    }

    /// The edits of one decoding, and the values made in Rust that they name.
    #[derive(Default)]
    struct Edits {
        records: Vec<f64>,
        made: Vec<JsValue>,
        fresh: u32,
    }

    thread_local! {
        static EDITS: RefCell<Edits> = RefCell::new(Edits::default());

        /// Every field name of every shape decoded so far, as one JS array, and where each
        /// shape's names start in it (by the address of the shape).
        static FIELD_NAMES: (Array, RefCell<Vec<(usize, u32)>>) = (Array::new(), RefCell::new(Vec::new()));
    }

    /// Where `shape`'s field names start in `FIELD_NAMES`.
    fn field_names(shape: &'static Shape) -> u32 {
        let key = shape as *const Shape as usize;
        FIELD_NAMES.with(|(names, starts)| {
            let mut starts = starts.borrow_mut();
            if let Some(&(_, at)) = starts.iter().find(|(k, _)| *k == key) {
                return at;
            }
            let at = names.length();
            for field in shape.fields {
                names.push(&JsValue::from_str(field.name));
            }
            starts.push((key, at));
            at
        })
    }

    impl Out {
        /// The value as a record's three numbers (see `src/json.js`'s `apply`).
        fn encode(&self, tree_container: impl Fn(Place) -> Option<(u32, u32)>) -> [f64; 3] {
            match *self {
                Out::Tree(place) => match tree_container(place) {
                    Some((c, i)) => [1.0, f64::from(c), f64::from(i)],
                    None => [9.0, 0.0, 0.0],
                },
                Out::Null => [2.0, 0.0, 0.0],
                Out::Bool(false) => [3.0, 0.0, 0.0],
                Out::Bool(true) => [4.0, 0.0, 0.0],
                Out::Number(n) => [5.0, n, 0.0],
                Out::Date(ms) => [6.0, ms, 0.0],
                Out::Made(k) => [7.0, f64::from(k), 0.0],
                Out::New(n) => [8.0, f64::from(n), 0.0],
            }
        }
    }

    /// A value's position in the tree's arrays: `None` for the root (container 0).
    fn position(place: Place) -> Option<(u32, u32)> {
        match place {
            Place::Root => None,
            Place::Member(c, i) => Some((c, i)),
        }
    }

    fn record(records: &mut Vec<f64>, op: f64, target: f64, at: f64, value: [f64; 3]) {
        records.extend_from_slice(&[op, target, at, value[0], value[1], value[2]]);
    }

    impl Build for Node {
        type Out = Out;

        fn keep(&self) -> Out {
            Out::Tree(self.place)
        }

        fn whole(&self, _n: i64) -> Out {
            self.keep()
        }

        fn new_null() -> Out {
            Out::Null
        }

        fn new_text(text: &str) -> Out {
            EDITS.with(|edits| {
                let mut edits = edits.borrow_mut();
                edits.made.push(JsValue::from_str(text));
                Out::Made(edits.made.len() as u32 - 1)
            })
        }

        fn new_number(n: f64) -> Out {
            Out::Number(n)
        }

        fn new_integer(n: i64) -> Out {
            Out::Number(n as f64)
        }

        fn new_boolean(b: bool) -> Out {
            Out::Bool(b)
        }

        fn new_date(date: ServiceDate) -> Out {
            Out::Date(date.millis as f64)
        }

        /// The object of the tree, edited: a field whose value is its own member of the same
        /// name stays; any other is set; members no field names are deleted. A missing member's
        /// default is a new object.
        fn new_object(node: Option<&Node>, shape: &'static Shape, values: Vec<Out>) -> Out {
            let names = field_names(shape);
            let object = node.and_then(|node| Some((node, node.container()?)));
            let own = object.and_then(|(node, _)| node.own_names().cloned());
            EDITS.with(|edits| {
                let mut edits = edits.borrow_mut();
                let Edits { records, fresh, .. } = &mut *edits;
                let target = match object {
                    Some((_, c)) => f64::from(c),
                    None => {
                        *fresh += 1;
                        record(records, 3.0, f64::from(*fresh - 1), 0.0, [0.0; 3]);
                        -f64::from(*fresh)
                    }
                };
                let fit = own.as_ref().map(|own| own.list.fit(shape));
                let fit = fit.as_deref();
                for (i, value) in values.iter().enumerate() {
                    let stays = match (value, fit, object) {
                        (Out::Tree(Place::Member(c, index)), Some(fit), Some((_, object))) => {
                            *c == object && fit.member_of_field[i] == Some(*index)
                        }
                        _ => false,
                    };
                    if !stays {
                        let at = f64::from(names + i as u32);
                        record(records, 1.0, target, at, value.encode(position));
                    }
                }
                if let (Some(fit), Some((_, c))) = (fit, object) {
                    for (index, is_field) in fit.is_field.iter().enumerate() {
                        if !is_field {
                            record(records, 2.0, f64::from(c), index as f64, [0.0; 3]);
                        }
                    }
                }
                match object {
                    Some((node, _)) => Out::Tree(node.place),
                    None => Out::New(*fresh - 1),
                }
            })
        }

        /// The array of the tree when its items are its own, in their places; else a new one.
        fn new_list(node: &Node, items: Vec<Out>) -> Out {
            let container = node.container();
            let own = items.iter().enumerate().all(|(i, item)| {
                matches!(item, Out::Tree(Place::Member(c, index))
                    if Some(*c) == container && *index as usize == i)
            });
            if own && container.is_some() {
                return Out::Tree(node.place);
            }
            EDITS.with(|edits| {
                let mut edits = edits.borrow_mut();
                let Edits { records, fresh, .. } = &mut *edits;
                *fresh += 1;
                let n = *fresh - 1;
                record(records, 4.0, f64::from(n), items.len() as f64, [0.0; 3]);
                for (i, item) in items.iter().enumerate() {
                    record(
                        records,
                        5.0,
                        -f64::from(n + 1),
                        i as f64,
                        item.encode(position),
                    );
                }
                Out::New(n)
            })
        }

        fn new_empty_list() -> Out {
            EDITS.with(|edits| {
                let mut edits = edits.borrow_mut();
                let Edits { records, fresh, .. } = &mut *edits;
                *fresh += 1;
                record(records, 4.0, f64::from(*fresh - 1), 0.0, [0.0; 3]);
                Out::New(*fresh - 1)
            })
        }
    }

    /// `value` decoded as `shape` by core's decoder: the plain JS object JS receives, made of
    /// the tree itself.
    pub(crate) fn decode_js(value: JsValue, shape: &'static Shape) -> Result<JsValue, Error> {
        let node = Node::new(value);
        EDITS.with(|edits| *edits.borrow_mut() = Edits::default());
        let out = decode_tree(&node, shape).map_err(Error::Decode);
        let Edits { records, made, .. } = EDITS.with(|edits| edits.take());
        let result = out?.encode(position);
        if records.is_empty() && matches!(result[0] as u8, 9) {
            return Ok(node.tree.root.clone());
        }
        let tree = &node.tree;
        FIELD_NAMES.with(|(names, _)| {
            Ok(apply(
                &records,
                made,
                &tree.containers,
                &tree.values,
                &tree.keys,
                names,
                &result,
            ))
        })
    }
}
