//! The edit encoder: what the JS face's builder decides, as records of six numbers that
//! `src/json/tape.js`'s `apply` carries out in one call, and the JS values made in Rust they
//! name (strings: canonical spellings, a number's text, field names).

use fundraising_core::shape::Shape;
use wasm_bindgen::prelude::*;

use crate::json::codes::codes;
use crate::json::tree::Place;

codes! {
    /// What a record does: set a field, delete a member, make an object or an array, set an
    /// item.
    enum Op { Field = 1, Delete = 2, NewObject = 3, NewArray = 4, Item = 5, }
}

codes! {
    /// What a value named in a record is: a member of the tree, a constant, a number, a date
    /// (of milliseconds), a value made in Rust, a new container, a container of the tree.
    enum Tag { Member = 1, Null = 2, False = 3, True = 4, Number = 5, Date = 6, Made = 7, New = 8, Container = 9, }
}

/// A value of the result: one of the tree, where it is (an object or an array of the tree
/// stands for itself, edited), or one the edits make.
#[derive(Clone, Copy)]
pub(crate) enum Out {
    Tree(Place),
    Null,
    Bool(bool),
    Number(f64),
    Date(f64),
    Made(u32),
    New(u32),
}

impl Out {
    /// The value as a record names it: its tag and two operands.
    pub(crate) fn encode(self) -> [f64; 3] {
        let (tag, a, b) = match self {
            Out::Tree(Place::Member(c, i)) => (Tag::Member, c, i),
            // The root of a decoded answer is an object: container 0.
            Out::Tree(Place::Root) => (Tag::Container, 0, 0),
            Out::Null => (Tag::Null, 0, 0),
            Out::Bool(false) => (Tag::False, 0, 0),
            Out::Bool(true) => (Tag::True, 0, 0),
            Out::Number(n) => return [Tag::Number.code(), n, 0.0],
            Out::Date(ms) => return [Tag::Date.code(), ms, 0.0],
            Out::Made(k) => (Tag::Made, k, 0),
            Out::New(n) => (Tag::New, n, 0),
        };
        [tag.code(), f64::from(a), f64::from(b)]
    }
}

/// Where a field is set: a container of the tree, or a new object.
#[derive(Clone, Copy)]
pub(crate) enum Target {
    Tree(u32),
    New(u32),
}

/// The edits of one decoding: the records, the values made in Rust they name, how many new
/// containers they make, and where each shape's field names are among the made values (by the
/// shape's name).
#[derive(Default)]
pub(crate) struct Edits {
    pub(crate) records: Vec<f64>,
    pub(crate) made: Vec<JsValue>,
    fresh: u32,
    names: Vec<(&'static str, u32)>,
}

impl Edits {
    fn record(&mut self, op: Op, a: f64, b: f64, [tag, x, y]: [f64; 3]) {
        self.records.extend([op.code(), a, b, tag, x, y]);
    }

    /// `value`, made in Rust, as a value the records can name.
    pub(crate) fn made(&mut self, value: JsValue) -> u32 {
        self.made.push(value);
        self.made.len() as u32 - 1
    }

    /// Field `i` of `shape` set to `value` on `to`.
    pub(crate) fn field(&mut self, to: Target, shape: &'static Shape, i: usize, value: Out) {
        let start = match self.names.iter().find(|(name, _)| *name == shape.name) {
            Some(&(_, start)) => start,
            None => {
                let start = self.made.len() as u32;
                let names = shape.fields.iter().map(|f| JsValue::from_str(f.name));
                self.made.extend(names);
                self.names.push((shape.name, start));
                start
            }
        };
        let to = match to {
            Target::Tree(c) => f64::from(c),
            Target::New(n) => -f64::from(n + 1),
        };
        let name = f64::from(start + i as u32);
        self.record(Op::Field, to, name, value.encode());
    }

    /// Member `key` of container `c` deleted.
    pub(crate) fn delete(&mut self, c: u32, key: u32) {
        self.record(Op::Delete, f64::from(c), f64::from(key), [0.0; 3]);
    }

    /// A new, empty object.
    pub(crate) fn new_object(&mut self) -> u32 {
        self.fresh += 1;
        self.record(Op::NewObject, f64::from(self.fresh - 1), 0.0, [0.0; 3]);
        self.fresh - 1
    }

    /// A new array of `items`.
    pub(crate) fn new_array(&mut self, items: &[Out]) -> Out {
        let n = self.fresh;
        self.fresh += 1;
        self.record(Op::NewArray, f64::from(n), items.len() as f64, [0.0; 3]);
        for (i, item) in items.iter().enumerate() {
            self.record(Op::Item, -f64::from(n + 1), i as f64, item.encode());
        }
        Out::New(n)
    }
}

#[cfg(test)]
mod tests {
    use super::{Op, Tag};

    #[test]
    fn tape_js_declares_the_ops_and_tags_rust_writes() {
        for table in [Op::JS, Tag::JS] {
            assert!(
                include_str!("../../json/tape.js").contains(table),
                "src/json/tape.js must declare, as src/js/decode/edits.rs does:\n{table}"
            );
        }
    }
}
