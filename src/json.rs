//! Trees made by the platform's `JSON.parse`, read for core's rules (core's [`JsonNode`]: the
//! member-name rule, error bodies, and, in the JS layer, the model decoder). This module only
//! reads JS values; every rule stays in core. The package carries no JSON parser of its own.

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use fundraising_core::json::JsonNode;
use fundraising_core::service_error::parse_error_body_with;
use fundraising_core::ServiceError;
use js_sys::{Array, JsString, Object};
use wasm_bindgen::prelude::*;

use crate::Error;

#[wasm_bindgen]
extern "C" {
    /// `JSON.parse` of a JS string (an answer's body, never copied into Rust).
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn parse_js(text: &JsString) -> Result<JsValue, JsValue>;

    /// An object of a `JSON.parse` result.
    #[wasm_bindgen(extends = Object)]
    type Parsed;

    /// `object[key]`: a plain property read, with no exception handling around it (reading a
    /// member of a `JSON.parse` result cannot throw).
    #[wasm_bindgen(method, structural, indexing_getter)]
    fn get(this: &Parsed, key: &JsValue) -> JsValue;

    /// An object's member names (`Object.keys`).
    #[wasm_bindgen(extends = Array)]
    type Keys;

    #[wasm_bindgen(js_namespace = Object, js_name = keys)]
    fn keys_of(object: &JsValue) -> Keys;

    /// `keys.join(separator)` with a JS string (js-sys's takes a Rust `&str`, copied into JS at
    /// every call).
    #[wasm_bindgen(method)]
    fn join(this: &Keys, separator: &JsString) -> JsString;
}

/// An answer's body parsed by the platform's `JSON.parse`.
#[cfg_attr(not(any(feature = "signin", feature = "js")), allow(dead_code))]
pub(crate) fn parse_body(body: &JsString) -> Result<JsValue, Error> {
    parse_js(body).map_err(|_| Error::decode("the answer is not JSON"))
}

/// The service's error answer (`status`, `body`) by core's rules.
pub(crate) fn service_error(status: u16, body: &str) -> ServiceError {
    parse_error_body_with(status, body, |text| {
        js_sys::JSON::parse(text).ok().map(Node::new)
    })
}

/// A node of a `JSON.parse` result. What is asked of a node more than once is read from JS
/// once: whether it is an object, and its member names.
pub(crate) struct Node {
    value: JsValue,
    object: OnceCell<bool>,
    names: OnceCell<Option<Names>>,
}

/// An object's member names: `Object.keys` (to read the members with) and the names joined
/// with `"\0"` (compared with another object's in JS, without a copy into Rust).
#[derive(Clone)]
pub(crate) struct Names(Rc<(Keys, JsString)>);

impl PartialEq for Names {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0) || JsValue::from(&self.0 .1) == JsValue::from(&other.0 .1)
    }
}

/// Member names as JS strings, made once, keyed by the address and length of the
/// `&'static str` (every name core looks up is one), and where the next lookup starts.
struct NameTable {
    made: Vec<((usize, usize), JsValue)>,
    next: usize,
}

thread_local! {
    /// `"\0"` as a JS string.
    static SEPARATOR: JsString = JsString::from("\0");

    /// The JS strings of the member names core looks up.
    static NAMES: RefCell<NameTable> =
        const { RefCell::new(NameTable { made: Vec::new(), next: 0 }) };
}

/// Calls `f` with `name` as a JS string, made once per name (lent, not cloned: a clone of a JS
/// value is a call into JS and a slot of the externref table). A shape's members are looked up
/// in the same order for every object of it, so the search starts just after the last one found.
fn with_js_name<T>(name: &'static str, f: impl FnOnce(&JsValue) -> T) -> T {
    let key = (name.as_ptr() as usize, name.len());
    NAMES.with(|names| {
        let NameTable { made, next } = &mut *names.borrow_mut();
        let count = made.len();
        let found = (0..count)
            .map(|i| (*next + i) % count)
            .find(|&i| made[i].0 == key);
        let index = found.unwrap_or_else(|| {
            made.push((key, JsValue::from_str(name)));
            count
        });
        *next = index + 1;
        f(&made[index].1)
    })
}

impl Node {
    pub(crate) fn new(value: JsValue) -> Self {
        Node {
            value,
            object: OnceCell::new(),
            names: OnceCell::new(),
        }
    }

    /// The JS value.
    #[cfg(feature = "js")]
    pub(crate) fn value(&self) -> &JsValue {
        &self.value
    }
}

impl JsonNode for Node {
    type Names = Names;

    fn string(&self) -> Option<String> {
        self.value.as_string()
    }

    fn number(&self) -> Option<f64> {
        self.value.as_f64()
    }

    fn number_text(&self) -> Option<String> {
        self.value.as_f64()?;
        self.value
            .unchecked_ref::<js_sys::Number>()
            .to_string_with_radix(10)
            .ok()
            .map(String::from)
    }

    fn boolean(&self) -> Option<bool> {
        self.value.as_bool()
    }

    fn is_object(&self) -> bool {
        *self
            .object
            .get_or_init(|| self.value.is_object() && !Array::is_array(&self.value))
    }

    fn is_null(&self) -> bool {
        self.value.loose_eq(&JsValue::NULL)
    }

    fn items(&self) -> Option<Vec<Self>> {
        Array::is_array(&self.value)
            .then(|| Array::from(&self.value).iter().map(Node::new).collect())
    }

    /// `JSON.parse` makes no `undefined` member: `undefined` is an absent one.
    fn get(&self, name: &'static str) -> Option<Self> {
        if !self.is_object() {
            return None;
        }
        let object = self.value.unchecked_ref::<Parsed>();
        let value = with_js_name(name, |js| object.get(js));
        (!value.is_undefined()).then(|| Node::new(value))
    }

    fn names(&self) -> Option<Names> {
        self.names
            .get_or_init(|| {
                self.is_object().then(|| {
                    let keys = keys_of(&self.value);
                    let joined = SEPARATOR.with(|separator| keys.join(separator));
                    Names(Rc::new((keys, joined)))
                })
            })
            .clone()
    }

    fn name_list(names: &Names) -> Vec<String> {
        names
            .0
             .0
            .iter()
            .map(|key| key.as_string().unwrap_or_default())
            .collect()
    }

    fn value_at(&self, names: &Names, index: usize) -> Option<Self> {
        let key = names.0 .0.get(u32::try_from(index).ok()?);
        if key.is_undefined() || !self.is_object() {
            return None;
        }
        Some(Node::new(self.value.unchecked_ref::<Parsed>().get(&key)))
    }
}
