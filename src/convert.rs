//! Every value that crosses between JS and Rust, through serde and serde-wasm-bindgen:
//! arguments and options in ([`from_js`]), sessions and answers out ([`to_js`]), and the
//! service's JSON read by core's one decoder straight into the JS result ([`decode`]).

use std::cell::{Cell, OnceCell, RefCell};

use fundraising_core::json::{DecodeTarget, JsonNode, Shaped};
use fundraising_core::shape::Model;
use fundraising_core::ServiceDate;
use js_sys::{Array, JsString, Object};
use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};
use wasm_bindgen::prelude::*;

use crate::Error;

/// The serializer of every value JS receives: `null` (not `undefined`) for absent values,
/// plain objects for maps.
const TO_JS: serde_wasm_bindgen::Serializer = serde_wasm_bindgen::Serializer::new()
    .serialize_missing_as_null(true)
    .serialize_maps_as_objects(true);

/// The message of a serde-wasm-bindgen error (a JS `Error`).
fn message(error: serde_wasm_bindgen::Error) -> String {
    JsValue::from(error)
        .dyn_into::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_default()
}

/// A JS argument or option as `T`; `invalid_argument` naming `what` when it does not fit.
pub(crate) fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, Error> {
    serde_wasm_bindgen::from_value(value).map_err(|e| invalid_input(what, e))
}

/// `invalid_argument` naming `what`, out of line: one copy for every type [`from_js`] reads.
#[inline(never)]
fn invalid_input(what: &str, error: serde_wasm_bindgen::Error) -> Error {
    Error::InvalidArgument(["invalid ", what, ": ", &message(error)].concat())
}

/// A Rust value as the plain JS object JS receives.
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    value.serialize(&TO_JS).unwrap_or(JsValue::NULL)
}

#[wasm_bindgen]
extern "C" {
    /// `JSON.parse` of a JS string (an answer's body, never copied into Rust).
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn parse_js(text: &js_sys::JsString) -> Result<JsValue, JsValue>;
}

/// A JSON text parsed by the platform's `JSON.parse`.
pub(crate) fn parse_json(text: &str) -> Result<JsValue, Error> {
    js_sys::JSON::parse(text).map_err(|_| Error::Decode("the answer is not JSON".into()))
}

/// An answer's body parsed by the platform's `JSON.parse`.
pub(crate) fn parse_body(body: &js_sys::JsString) -> Result<JsValue, Error> {
    parse_js(body).map_err(|_| Error::Decode("the answer is not JSON".into()))
}

/// A JS value as JSON text, by the platform's `JSON.stringify`.
pub(crate) fn to_json(value: &JsValue) -> String {
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_default()
}

/// The service's JSON answer `body` as the JS result of the model `M`, by core's decoder.
pub(crate) fn decode<M: Model>(body: &js_sys::JsString) -> Result<JsValue, Error> {
    let tree = Node::new(parse_body(body)?);
    Shaped::new(&tree, M::SHAPE)
        .serialize(&TO_JS)
        .map_err(|e| Error::Decode(message(e)))
}

/// A JS `Date` at the date's UTC milliseconds.
pub(crate) fn js_date(date: ServiceDate) -> js_sys::Date {
    js_sys::Date::new(&JsValue::from_f64(date.millis as f64))
}

/// Serializes a date as a JS `Date` (`#[serde(serialize_with = "convert::date")]`).
pub(crate) fn date<S: Serializer>(date: &ServiceDate, serializer: S) -> Result<S::Ok, S::Error> {
    serde_wasm_bindgen::preserve::serialize(&js_date(*date), serializer)
}

/// A node of a `JSON.parse` result, for core's rules. What is asked of a node more than once
/// is read from JS once: whether it is an object, and its member names (fetched in one call,
/// joined, only when a name must be matched ignoring case).
pub(crate) struct Node {
    value: JsValue,
    object: OnceCell<bool>,
    keys: OnceCell<Keys>,
    /// The generation of [`CASINGS`] made from this object's names.
    casings: Cell<Option<u32>>,
}

/// An object's member names, as JS values (to read the members with) and as Rust text: all
/// names in one string, and where each one stands in it.
struct Keys {
    values: Array,
    joined: String,
    spans: Vec<(usize, usize)>,
}

impl Keys {
    fn names(&self) -> impl Iterator<Item = &str> {
        self.spans
            .iter()
            .map(|&(start, end)| &self.joined[start..end])
    }
}

#[wasm_bindgen]
extern "C" {
    /// An object of a `JSON.parse` result.
    #[wasm_bindgen(extends = Object)]
    type Parsed;

    /// `object[key]`: a plain property read, with no exception handling around it (reading a
    /// member of a `JSON.parse` result cannot throw).
    #[wasm_bindgen(method, structural, indexing_getter)]
    fn get(this: &Parsed, key: &JsValue) -> JsValue;

    /// An object's member names, folded (see [`Casings::folded`]).
    #[wasm_bindgen(extends = JsString)]
    type Folded;

    /// `folded.indexOf(search, from)` with a JS string (js-sys's takes a Rust `&str`, copied
    /// into JS at every call).
    #[wasm_bindgen(method, js_name = indexOf)]
    fn index_of(this: &Folded, search: &JsString, from: u32) -> i32;

    /// An object's member names (`Object.keys`).
    #[wasm_bindgen(extends = Array)]
    type Names;

    #[wasm_bindgen(js_namespace = Object, js_name = keys)]
    fn names_of(object: &JsValue) -> Names;

    /// `names.join(separator)` with a JS string, for the same reason.
    #[wasm_bindgen(method)]
    fn join(this: &Names, separator: &JsString) -> JsString;
}

/// A member name as JS strings: as written, and folded (`"\0name\0"`, ASCII lower case) to
/// search an object's folded names with.
#[derive(Clone)]
struct Name {
    exact: JsValue,
    folded: JsString,
}

/// The member names of one object, folded, and how often each name looked up occurs among them
/// ignoring ASCII case. The objects of a list usually have the same names: the next object
/// with the same joined names keeps these, and its lookups need no call into JS.
struct Casings {
    /// The names joined with `"\0"`, to compare the next object's with.
    joined: JsString,
    /// `"\0" + joined.toLowerCase() + "\0"`, searched with [`Name::folded`].
    folded: Folded,
    /// Tells these casings from the ones made before.
    generation: u32,
    /// Per name looked up (its key in [`NAMES`]): 0, 1, or 2 for two or more.
    counts: Vec<((usize, usize), u8)>,
}

/// Member names made into JS strings, keyed by the address and length of the `&'static str`,
/// and where the next lookup starts.
struct NameTable {
    made: Vec<((usize, usize), Name)>,
    next: usize,
}

thread_local! {
    /// `"\0"`, which no member name of the service holds, as a JS string.
    static SEPARATOR: JsString = JsString::from("\0");

    /// What the last object searched for other casings of its member names has.
    static CASINGS: RefCell<Option<Casings>> = const { RefCell::new(None) };

    /// The JS strings of the member names core looks up (every shape's field names and the
    /// error-body names, all `&'static str`), made once, keyed by their address; and where the
    /// last lookup was found.
    static NAMES: RefCell<NameTable> =
        const { RefCell::new(NameTable { made: Vec::new(), next: 0 }) };
}

/// `name` as JS strings, made once per name. A shape's members are looked up in the same order
/// for every object of it, so the search starts just after the last name found.
/// Calls `f` with `name` as JS strings (lent, not cloned: a clone of a JS value is a call into
/// JS and a slot of the externref table, made and dropped for every member read).
fn with_js_name<T>(name: &'static str, f: impl FnOnce(&Name) -> T) -> T {
    let key = (name.as_ptr() as usize, name.len());
    NAMES.with(|names| {
        let NameTable { made: names, next } = &mut *names.borrow_mut();
        let count = names.len();
        let found = (0..count)
            .map(|i| (*next + i) % count)
            .find(|&i| names[i].0 == key);
        let index = found.unwrap_or_else(|| {
            let folded = ["\0", &name.to_ascii_lowercase(), "\0"].concat();
            let name = Name {
                exact: JsValue::from_str(name),
                folded: JsString::from(folded.as_str()),
            };
            names.push((key, name));
            count
        });
        *next = index + 1;
        f(&names[index].1)
    })
}

impl Node {
    pub(crate) fn new(value: JsValue) -> Self {
        Node {
            value,
            object: OnceCell::new(),
            keys: OnceCell::new(),
            casings: Cell::new(None),
        }
    }

    /// How often `name` occurs among this object's member names ignoring ASCII case: 0, 1, or 2
    /// for two or more. The names are joined and folded in JS and searched there (not copied into
    /// Rust), and the answers kept for the next object with the same names.
    fn occurrences(&self, name: &'static str, js: &Name) -> u8 {
        let key = (name.as_ptr() as usize, name.len());
        CASINGS.with(|cell| {
            let mut slot = cell.borrow_mut();
            let synced =
                matches!((&*slot, self.casings.get()), (Some(c), Some(g)) if c.generation == g);
            if !synced {
                let joined = SEPARATOR.with(|separator| names_of(&self.value).join(separator));
                let same =
                    matches!(&*slot, Some(c) if JsValue::from(&c.joined) == JsValue::from(&joined));
                if !same {
                    let generation = slot.as_ref().map_or(0, |c| c.generation.wrapping_add(1));
                    let folded = SEPARATOR.with(|separator| {
                        separator.concat(&joined).concat(separator).to_lower_case()
                    });
                    *slot = Some(Casings {
                        joined,
                        folded: folded.unchecked_into(),
                        generation,
                        counts: Vec::new(),
                    });
                }
            }
            let casings = slot.as_mut().expect("made above");
            self.casings.set(Some(casings.generation));
            if let Some(&(_, count)) = casings.counts.iter().find(|(k, _)| *k == key) {
                return count;
            }
            let count = match u32::try_from(casings.folded.index_of(&js.folded, 0)) {
                Err(_) => 0,
                Ok(first) => 1 + u8::from(casings.folded.index_of(&js.folded, first + 1) >= 0),
            };
            casings.counts.push((key, count));
            count
        })
    }

    fn keys(&self) -> &Keys {
        self.keys.get_or_init(|| {
            let values = Object::keys(self.value.unchecked_ref::<Object>());
            let count = values.length() as usize;
            // One string for every name; names holding the separator are read one by one.
            let mut joined = String::from(values.join("\u{0}"));
            let mut spans = Vec::with_capacity(count);
            let mut start = 0;
            for (i, _) in joined.match_indices('\u{0}') {
                spans.push((start, i));
                start = i + 1;
            }
            if count > 0 {
                spans.push((start, joined.len()));
            }
            if spans.len() != count {
                joined.clear();
                spans.clear();
                for key in values.iter() {
                    let start = joined.len();
                    joined.push_str(&key.as_string().unwrap_or_default());
                    spans.push((start, joined.len()));
                }
            }
            Keys {
                values,
                joined,
                spans,
            }
        })
    }
}

impl JsonNode for Node {
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

    fn exact_member(&self, name: &'static str) -> Option<Self> {
        if !self.is_object() {
            return None;
        }
        let object = self.value.unchecked_ref::<Parsed>();
        let value = with_js_name(name, |js| object.get(&js.exact));
        (!value.loose_eq(&JsValue::NULL)).then(|| Node::new(value))
    }

    fn member_ignoring_case(&self, name: &'static str) -> Option<Self> {
        if !self.is_object() {
            return None;
        }
        let keys = self.keys();
        let object = self.value.unchecked_ref::<Parsed>();
        keys.names()
            .enumerate()
            .filter(|(_, key)| key.eq_ignore_ascii_case(name))
            .map(|(i, _)| object.get(&keys.values.get(i as u32)))
            .find(|value| !value.loose_eq(&JsValue::NULL))
            .map(Node::new)
    }

    /// Core's rule (the exact name unless `null`, else a non-null member equal to it ignoring
    /// case), with the common case fast: a `null` or absent member whose name has no other
    /// casing in the object is absent, which JS tells by searching the folded names.
    fn member(&self, name: &'static str) -> Option<Self> {
        if !self.is_object() {
            return None;
        }
        let object = self.value.unchecked_ref::<Parsed>();
        // The member, or whether another casing of its name is there.
        let found = with_js_name(name, |js| {
            let value = object.get(&js.exact);
            if !value.loose_eq(&JsValue::NULL) {
                return Ok(value);
            }
            // The exact member, when it is there (null), is one of the occurrences.
            let exact = u8::from(!value.is_undefined());
            Err(self.occurrences(name, js) > exact)
        });
        match found {
            Ok(value) => Some(Node::new(value)),
            Err(false) => None,
            Err(true) => self.member_ignoring_case(name),
        }
    }
}

impl DecodeTarget for Node {
    /// The JS string itself, without a copy into Rust and back.
    fn serialize_string<S: Serializer>(&self, serializer: S) -> Option<Result<S::Ok, S::Error>> {
        self.value
            .is_string()
            .then(|| serde_wasm_bindgen::preserve::serialize(&self.value, serializer))
    }

    /// The JS value as `JSON.parse` made it.
    fn serialize_free<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_wasm_bindgen::preserve::serialize(&self.value, serializer)
    }

    /// A JS `Date`.
    fn serialize_date<S: Serializer>(date: ServiceDate, serializer: S) -> Result<S::Ok, S::Error> {
        self::date(&date, serializer)
    }
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::*;
    use fundraising_core::model::{Campaign, Donation, EventPages};
    use js_sys::Reflect;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    fn get(value: &JsValue, path: &str) -> JsValue {
        path.split('.').fold(value.clone(), |v, name| {
            Reflect::get(&v, &JsValue::from_str(name)).unwrap()
        })
    }

    fn millis(value: &JsValue, path: &str) -> f64 {
        get(value, path)
            .dyn_into::<js_sys::Date>()
            .expect("a Date")
            .get_time()
    }

    fn decode_error<M: Model>(body: &str) -> String {
        match decode::<M>(&body.into()) {
            Err(e @ Error::Decode(_)) => e.to_string(),
            other => panic!("expected a decode error, got {other:?}"),
        }
    }

    #[wasm_bindgen_test]
    fn pascal_case_campaign_fixture_becomes_camel_case() {
        let c =
            decode::<Campaign>(&include_str!("../tests/fixtures/campaign.json").into()).unwrap();
        assert_eq!(
            get(&c, "campaignGuid"),
            "6c0cbe6e-3b6c-4a52-9f1d-0c2a5c8b1e7a"
        );
        assert_eq!(get(&c, "shortName"), "spring-appeal");
        assert_eq!(millis(&c, "startDate"), 1_743_761_607_553.0);
        assert!(get(&c, "endDate").is_null());
        assert_eq!(get(&c, "offlineAmount"), 250.5);
        assert_eq!(get(&c, "currency.currencyCode"), "GBP");
        assert_eq!(get(&c, "donationSummary.totalAmount"), 2296.25);
        assert_eq!(get(&c, "donationSummary.offlineAmount"), 250.5);
        assert_eq!(get(&c, "donationSummary.numberOfFundraiserDonations"), 17.0);
        // Objects the spec does not describe pass through as sent.
        assert_eq!(
            get(&c, "charities").dyn_into::<Array>().unwrap().length(),
            1
        );
        // Unknown members are dropped, PascalCase names do not leak.
        assert!(get(&c, "somethingNew").is_undefined());
        assert!(get(&c, "SomethingNew").is_undefined());
        assert!(get(&c, "CampaignGuid").is_undefined());
    }

    #[wasm_bindgen_test]
    fn donation_fixture_keeps_text_amounts_and_the_utc_milliseconds() {
        let d =
            decode::<Donation>(&include_str!("../tests/fixtures/donation.json").into()).unwrap();
        assert_eq!(get(&d, "id"), 1_234_567.0);
        assert_eq!(get(&d, "amount"), "10.00");
        assert_eq!(get(&d, "donorLocalAmount"), "11.75");
        // The offset (+0100) is informational; the milliseconds are UTC.
        assert_eq!(millis(&d, "donationDate"), 1_743_761_607_553.0);
        assert_eq!(get(&d, "status"), "Accepted");
        assert!(get(&d, "charityId").is_undefined());
    }

    #[wasm_bindgen_test]
    fn event_pages_fixture_with_in_memory_person_and_negative_date() {
        let p = decode::<EventPages>(&include_str!("../tests/fixtures/event-pages.json").into())
            .unwrap();
        assert_eq!(get(&p, "eventId"), 4711.0);
        let first = get(&p, "fundraisingPages")
            .dyn_into::<Array>()
            .unwrap()
            .get(0);
        assert_eq!(get(&first, "inMemoryPerson.firstName"), "Ada");
        assert_eq!(
            millis(&first, "inMemoryPerson.dateOfBirth"),
            -4_852_137_600_000.0
        );
    }

    #[wasm_bindgen_test]
    fn absent_and_null_fields_get_null_or_their_default() {
        let d = decode::<Donation>(
            &r#"{"ID": 7, "STATUS": "accepted", "source": "Carrier pigeon", "amount": 25.5,
                "donationRef": null, "donorDisplayName": null}"#
                .into(),
        )
        .unwrap();
        assert_eq!(get(&d, "id"), 7.0);
        // Enum values: known ones in the spec's spelling, unknown ones as sent.
        assert_eq!(get(&d, "status"), "Accepted");
        assert_eq!(get(&d, "source"), "Carrier pigeon");
        // Decimal-as-text sent as a number keeps its text.
        assert_eq!(get(&d, "amount"), "25.5");
        // Optional: null. Defaulted: the kind's default. Dates: .NET's minimum date.
        assert!(get(&d, "donationRef").is_null());
        assert!(get(&d, "message").is_null());
        assert_eq!(get(&d, "donorDisplayName"), "");
        assert_eq!(get(&d, "estimatedTaxReclaim"), 0.0);
        assert_eq!(millis(&d, "donationDate"), -62_135_596_800_000.0);
        assert_eq!(get(&d, "donorLocalAmount"), "");
    }

    #[wasm_bindgen_test]
    fn a_null_member_gives_way_to_another_casing_and_absent_ones_are_found_in_any() {
        let d = decode::<Donation>(
            &r#"{"id": null, "ID": 7, "Amount": "2.50", "donationRef": null, "DONATIONREF": null,
                "message": null, "MESSAGE": "hi", "status": null}"#
                .into(),
        )
        .unwrap();
        // `id` is null and `ID` is not: the service reads 7.
        assert_eq!(get(&d, "id"), 7.0);
        // Only another casing is there.
        assert_eq!(get(&d, "amount"), "2.50");
        // Null in every casing, or null in the only one: absent.
        assert!(get(&d, "donationRef").is_null());
        assert_eq!(get(&d, "message"), "hi");
        assert_eq!(get(&d, "status"), "");
    }

    #[wasm_bindgen_test]
    fn objects_of_a_list_with_the_same_or_other_names_each_get_their_own_casing() {
        let p = decode::<EventPages>(
            &r#"{"eventId": 1, "fundraisingPages": [
                {"pageId": 1, "pageTitle": null, "PageTitle": "A", "smsCode": null},
                {"pageId": 2, "pageTitle": null, "PageTitle": "B", "smsCode": null},
                {"pageId": 3, "pageTitle": null, "smsCode": "S"},
                {"pageId": 4, "PAGETITLE": "D", "smsCode": null},
                {"pageId": 5, "pageTitle": null, "PageTitle": "E", "smsCode": null}
            ]}"#
            .into(),
        )
        .unwrap();
        let pages = get(&p, "fundraisingPages").dyn_into::<Array>().unwrap();
        let title = |i: u32| get(&pages.get(i), "pageTitle");
        assert_eq!(title(0), "A");
        assert_eq!(title(1), "B");
        assert_eq!(title(2), "");
        assert_eq!(get(&pages.get(2), "smsCode"), "S");
        assert_eq!(title(3), "D");
        assert_eq!(title(4), "E");
    }

    #[wasm_bindgen_test]
    fn wrong_shapes_are_decode_errors() {
        assert!(
            decode_error::<Donation>(r#"{"status": "Accepted"}"#).contains("Donation.id: missing")
        );
        assert!(decode_error::<Donation>(r#"{"id": 1.5}"#).contains("whole number"));
        assert!(decode_error::<Donation>(r#"{"id": "7"}"#).contains("Donation.id"));
        assert!(
            decode_error::<Donation>(r#"{"id": 1, "donationDate": "yesterday"}"#)
                .contains("yesterday")
        );
        assert!(decode_error::<Donation>(r#"[1, 2]"#).contains("expected an object"));
        assert!(decode_error::<Donation>("not json").contains("not JSON"));
        assert!(
            decode_error::<EventPages>(r#"{"eventId": 1, "fundraisingPages": {}}"#)
                .contains("array")
        );
    }
}
