//! The JS build: core's decoder makes the JS face's result of the `JSON.parse` tree itself. The
//! members a model keeps stay where they are, dates become `Date`s, other casings are renamed,
//! unknown members are dropped and missing ones added with their defaults: edits, carried out
//! in one call.

use fundraising_core::json::{decode_tree, Build, JsonNode, Made};
use fundraising_core::shape::Shape;
use js_sys::{Array, JsString};
use wasm_bindgen::prelude::*;

use super::edits::{Edits, Out, Target};
use crate::json::parse_body;
use crate::json::tree::{Node, Place};
use crate::Error;

#[wasm_bindgen(module = "/src/json/tape.js")]
extern "C" {
    /// Carries out the edits (see `tape.js`) and returns the value `result` names.
    fn apply(edits: &[f64], made: Vec<JsValue>, arrays: &Array, result: &[f64]) -> JsValue;
}

/// An answer's body decoded as `shape` by core's decoder (one copy for every model): the plain
/// JS object JS receives, made of its `JSON.parse` tree.
pub(crate) fn decode_body(body: &JsString, shape: &'static Shape) -> Result<JsValue, Error> {
    let node = Node::new(parse_body(body)?);
    if !node.readable() {
        return Err(Error::decode("a number or nesting out of range"));
    }
    let mut edits = Edits::default();
    let out = decode_tree(&node, shape, &mut edits).map_err(Error::Decode)?;
    if edits.records.is_empty() && matches!(out, Out::Tree(Place::Root)) {
        return Ok(node.tree.root.clone());
    }
    let result = out.encode();
    Ok(apply(
        &edits.records,
        edits.made,
        &node.tree.arrays,
        &result,
    ))
}

impl Build<Node> for Edits {
    type Out = Out;

    fn keep(&mut self, node: &Node) -> Out {
        Out::Tree(node.place)
    }

    fn whole(&mut self, node: &Node, _: i64) -> Out {
        self.keep(node)
    }

    fn make(&mut self, value: Made<'_>) -> Out {
        match value {
            Made::Null => Out::Null,
            Made::Bool(b) => Out::Bool(b),
            Made::Number(n) => Out::Number(n),
            Made::Integer(n) => Out::Number(n as f64),
            Made::Text(text) => Out::Made(self.made(JsValue::from_str(text))),
            Made::Date(date) => Out::Date(date.millis as f64),
            Made::EmptyList => self.new_array(&[]),
        }
    }

    /// The object of the tree, edited: a field whose value is its own member of the same name
    /// stays; any other is set; members no field names are deleted. A missing member's default
    /// is a new object.
    fn object(&mut self, node: Option<&Node>, shape: &'static Shape, values: Vec<Out>) -> Out {
        let Some((node, c)) = node.and_then(|node| Some((node, node.container()?))) else {
            let n = self.new_object();
            for (i, value) in values.into_iter().enumerate() {
                self.field(Target::New(n), shape, i, value);
            }
            return Out::New(n);
        };
        let fit = node.fit(shape).map(|fit| &fit.member_of_field);
        for (i, value) in values.into_iter().enumerate() {
            let own = fit.and_then(|fit| fit[i]);
            if !matches!(value, Out::Tree(Place::Member(of, at)) if of == c && Some(at) == own) {
                self.field(Target::Tree(c), shape, i, value);
            }
        }
        // The members no field has the exact name of.
        let fields = fit.map_or(&[][..], |fit| fit);
        let members = node.names().map_or(0, |names| names.as_ref().len());
        if fields.iter().flatten().count() < members {
            for key in (0..members as u32).filter(|key| !fields.contains(&Some(*key))) {
                self.delete(c, key);
            }
        }
        Out::Tree(node.place)
    }

    /// The array of the tree when its items are its own, in their places; else a new one.
    fn list(&mut self, node: &Node, items: Vec<Out>) -> Out {
        let c = node.container();
        let own = items.iter().enumerate().all(|(i, item)| {
            matches!(item, Out::Tree(Place::Member(of, at)) if Some(*of) == c && *at as usize == i)
        });
        match own && c.is_some() {
            true => Out::Tree(node.place),
            false => self.new_array(&items),
        }
    }
}
