//! The browser's decoding path held equal to core's native one. Generated service answers for
//! every model (every casing the member-name rule accepts, shuffled, unknown, null, absent and
//! duplicated members, nested models, dates in every form, decimals as numbers and as text,
//! huge and non-finite numbers, unicode, empty and long lists, wrong types, bodies that are not
//! JSON) go through the packed npm package in Node (`tests/differential/peer.mjs`: the real
//! `getCampaign`, `getDonationByReference`, `createEvent` and `getEventPages`, `fetch` answering
//! the body) and through `fundraising_core::json::decode`, which the typed Rust API calls. The
//! results must be equal, and a refusal must carry the same code.
//!
//! It needs the built package (`make pkg`) and Node, so it is ignored by a plain `cargo test`;
//! `scripts/test.sh` runs it after building the package:
//!
//! ```sh
//! cargo test --test decode_differential -- --ignored
//! ```
//!
//! - `DIFF_ANSWERS` (default 10,000): how many answers to generate; `DIFF_SEED`: the seed (else
//!   a fresh one, printed on failure); `PKG_DIR` (default `pkg`): the package to load.
//! - A failing answer is shrunk to a small one and written to
//!   `tests/fixtures/decode-differential/`, which every run replays first: commit it.
//! - The fuzz corpora of `model_decode` and `member_names` (`fuzz/seeds`, `fuzz/regressions`,
//!   and `fuzz/corpus` or `bench/work/corpus` when a fuzz run left one) go through both paths
//!   too.
//! - Two differences are known, kept out of the generated answers and pinned
//!   ([`the_two_known_differences`]).
#![cfg(not(target_arch = "wasm32"))]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use fundraising_core::model::{Campaign, Donation, EventCreated, EventPages};
use fundraising_core::shape::{Field, Kind, Model, Shape};
use fundraising_core::ServiceDate;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde::Serialize;
use serde_json::{json, Value};

/// The package's method that decodes an answer, and the model it decodes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Call {
    Campaign,
    Donation,
    Created,
    Pages,
}

const CALLS: [Call; 4] = [Call::Campaign, Call::Donation, Call::Created, Call::Pages];

impl Call {
    fn name(self) -> &'static str {
        match self {
            Call::Campaign => "campaign",
            Call::Donation => "donation",
            Call::Created => "created",
            Call::Pages => "pages",
        }
    }

    fn shape(self) -> &'static Shape {
        match self {
            Call::Campaign => Campaign::SHAPE,
            Call::Donation => Donation::SHAPE,
            Call::Created => EventCreated::SHAPE,
            Call::Pages => EventPages::SHAPE,
        }
    }

    /// What the typed Rust API makes of `body`: the model as JSON, or the code of its error.
    fn native(self, body: &str) -> Result<Value, String> {
        match self {
            Call::Campaign => native::<Campaign>(body),
            Call::Donation => native::<Donation>(body),
            Call::Created => native::<EventCreated>(body),
            Call::Pages => native::<EventPages>(body),
        }
    }
}

fn native<M: Model + DeserializeOwned + Serialize>(body: &str) -> Result<Value, String> {
    // Both faces read the body with `Response.text()`, which drops a leading byte order mark.
    let text = body.strip_prefix('\u{feff}').unwrap_or(body);
    match fundraising_core::json::decode::<M>(text) {
        Ok(model) => {
            let value = serde_json::to_value(&model).expect("a model serialises");
            Ok(carried(value, &Kind::Struct(M::SHAPE)))
        }
        Err(e) => Err(fundraising_client::Error::from(e).code().to_owned()),
    }
}

/// A model's JSON in the form the peer writes JS results in: dates as `{"$date": ms}`.
fn carried(value: Value, kind: &Kind) -> Value {
    match (kind, value) {
        (Kind::Date, Value::String(text)) => {
            let date = ServiceDate::parse_json_string(&text).expect("a serialised date");
            json!({ "$date": date.millis })
        }
        (Kind::Struct(shape), Value::Object(mut members)) => {
            for field in shape.fields {
                if let Some(v) = members.remove(field.name) {
                    members.insert(field.name.to_owned(), carried(v, &field.kind));
                }
            }
            Value::Object(members)
        }
        (Kind::List(item), Value::Array(items)) => {
            Value::Array(items.into_iter().map(|v| carried(v, item)).collect())
        }
        (_, value) => value,
    }
}

/// Equal JSON, numbers by value (JS has one kind of number: `1`, `1.0` and `-0` are `0`'s
/// and `1`'s; every number here is a double).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// `None` when both paths agree on `body`, else what each made of it.
fn differs(call: Call, body: &str, browser: &Value) -> Option<String> {
    let native = call.native(body);
    let agree = match (&native, browser.get("ok"), browser.get("err")) {
        (Ok(n), Some(b), _) => same(n, b),
        (Err(code), None, Some(b)) => b == code.as_str(),
        _ => false,
    };
    (!agree).then(|| {
        let native = match native {
            Ok(v) => json!({ "ok": v }),
            Err(code) => json!({ "err": code }),
        };
        format!("native:  {native}\nbrowser: {browser}")
    })
}

// ---------------------------------------------------------------------------------------------
// The package in Node.

struct Peer {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Peer {
    fn start() -> Peer {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let pkg = root.join(std::env::var("PKG_DIR").unwrap_or_else(|_| "pkg".into()));
        assert!(
            pkg.join("fundraising_client_bg.wasm").exists(),
            "{} holds no package: run `make pkg` first",
            pkg.display()
        );
        let mut child = Command::new("node")
            .arg(root.join("tests/differential/peer.mjs"))
            .arg(&pkg)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node (20 or newer) on PATH");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Peer {
            child,
            input,
            output,
        }
    }

    /// The browser path's results for `answers`, in their order.
    fn decode(&mut self, answers: &[(Call, String)]) -> Vec<Value> {
        let mut lines = String::new();
        for (call, body) in answers {
            lines.push_str(&json!({ "call": call.name(), "body": body }).to_string());
            lines.push('\n');
        }
        lines.push('\n');
        self.input
            .write_all(lines.as_bytes())
            .expect("write to node");
        self.input.flush().expect("flush");
        answers
            .iter()
            .map(|_| {
                let mut line = String::new();
                let n = self.output.read_line(&mut line).expect("read from node");
                assert!(n > 0, "the Node peer stopped (see its output above)");
                // A member of unknown shape passes through at any depth.
                let mut reader = serde_json::Deserializer::from_str(&line);
                reader.disable_recursion_limit();
                Value::deserialize(&mut reader).unwrap_or_else(|e| panic!("{e}: {line}"))
            })
            .collect()
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------------
// Answers.

/// A JSON text, as the generator writes it: numbers and strings keep the form they are written
/// in (`1.0`, `1E+2`, `"\/Date(5)\/"`, `"\u00e9"`), objects may repeat a name.
#[derive(Clone, Debug)]
enum J {
    Null,
    Bool(bool),
    Num(String),
    Str(Text),
    Arr(Vec<J>),
    Obj(Vec<(Text, J)>),
    /// Text as it is: a body that is not JSON, or deep nesting.
    Raw(String),
}

/// A string, and how its characters are written.
#[derive(Clone, Debug)]
struct Text(String, Escape);

#[derive(Clone, Copy, Debug)]
enum Escape {
    /// Only what JSON requires.
    Plain,
    /// Also every `/` as `\/`, as the service writes.
    Slashes,
    /// Also every character beyond ASCII as `\uXXXX` (pairs for the astral ones).
    Unicode,
    /// Every character as `\uXXXX`.
    All,
}

impl J {
    fn write(&self, out: &mut String, pretty: bool) {
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Num(n) | J::Raw(n) => out.push_str(n),
            J::Str(text) => text.write(out),
            J::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(if pretty { ", " } else { "," });
                    }
                    item.write(out, pretty);
                }
                out.push(']');
            }
            J::Obj(members) => {
                out.push('{');
                for (i, (name, value)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    if pretty {
                        out.push_str("\n  ");
                    }
                    name.write(out);
                    out.push_str(if pretty { ": " } else { ":" });
                    value.write(out, pretty);
                }
                out.push_str(if pretty && !members.is_empty() {
                    "\n}"
                } else {
                    "}"
                });
            }
        }
    }
}

impl Text {
    fn write(&self, out: &mut String) {
        let Text(text, escape) = self;
        out.push('"');
        for c in text.chars() {
            let all = matches!(escape, Escape::All);
            match c {
                '"' if !all => out.push_str("\\\""),
                '\\' if !all => out.push_str("\\\\"),
                '/' if matches!(escape, Escape::Slashes) => out.push_str("\\/"),
                '\n' if !all => out.push_str("\\n"),
                c if all
                    || (c as u32) < 0x20
                    || (!c.is_ascii() && matches!(escape, Escape::Unicode)) =>
                {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
}

fn text(s: impl Into<String>) -> Text {
    Text(s.into(), Escape::Plain)
}

fn escape() -> impl Strategy<Value = Escape> {
    prop_oneof![
        6 => Just(Escape::Plain),
        2 => Just(Escape::Slashes),
        1 => Just(Escape::Unicode),
        1 => Just(Escape::All),
    ]
}

/// Characters that test a decoder: accents, scripts, astral, combining marks, direction and
/// width controls, the byte order mark, escapes JSON requires.
const ODD: &[char] = &[
    'é',
    'ß',
    'İ',
    'ı',
    'K',
    '日',
    '本',
    'ü',
    '😀',
    '🎗',
    '\u{0301}',
    '\u{202e}',
    '\u{200b}',
    '\u{feff}',
    '\u{fffd}',
    '\u{10ffff}',
    '\0',
    '\u{1f}',
    '\n',
    '\t',
    '"',
    '\\',
    '/',
    '\u{2028}',
];

fn any_string() -> BoxedStrategy<String> {
    prop_oneof![
        6 => "[a-zA-Z0-9 _.-]{0,12}",
        2 => "\\PC{0,8}",
        2 => vec(prop::sample::select(ODD), 0..8).prop_map(|cs| cs.into_iter().collect()),
        1 => (1usize..1500).prop_map(|n| "Lorem ipsum € 😀 ".repeat(n / 10 + 1)),
    ]
    .boxed()
}

fn string() -> BoxedStrategy<J> {
    (any_string(), escape())
        .prop_map(|(s, e)| J::Str(Text(s, e)))
        .boxed()
}

/// Numbers as the service and others write them, the edges of doubles and of JavaScript's
/// safe integers, and numbers beyond a double's range (`JSON.parse` makes them `Infinity`).
fn number() -> BoxedStrategy<String> {
    prop_oneof![
        4 => any::<i32>().prop_map(|n| n.to_string()),
        2 => any::<i64>().prop_map(|n| n.to_string()),
        2 => (-100_000i64..100_000, 0u32..4).prop_map(|(n, places)| {
            let scale = 10i64.pow(places);
            let sign = if n < 0 { "-" } else { "" };
            let n = n.unsigned_abs();
            match places {
                0 => format!("{sign}{n}"),
                _ => format!("{sign}{}.{:0w$}", n / scale as u64, n % scale as u64, w = places as usize),
            }
        }),
        2 => any::<f64>().prop_filter("finite", |n| n.is_finite()).prop_flat_map(|n| {
            prop_oneof![Just(format!("{n}")), Just(format!("{n:e}")), Just(format!("{n:E}"))]
        }),
        3 => prop::sample::select(&[
            "0", "-0", "0.0", "-0.0", "1.0", "1E+2", "1e2", "2e-1", "1e21", "1e-7", "123e-20",
            "0.1", "0.30000000000000004", "1.7976931348623157e308", "1e308", "5e-324", "1e-400",
            "1e309", "-1e400", "1e99999", "9007199254740991", "9007199254740993",
            "-9007199254740993", "12345678901234567890", "123456789012345678901234567890",
            "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967296", "1.5",
            "100.00", "1e0",
        ][..]).prop_map(str::to_owned),
    ]
    .boxed()
}

fn num() -> BoxedStrategy<J> {
    number().prop_map(J::Num).boxed()
}

/// A date's text in every form: the service's `\/Date(ms±hhmm)\/` (as JSON's `\/` escape or
/// with literal backslashes), `/Date(..)/`, `Date(..)`, negative and extreme milliseconds,
/// offsets, and malformed ones.
fn date() -> BoxedStrategy<J> {
    let millis = prop_oneof![
        6 => (-4_000_000_000_000i64..4_000_000_000_000).prop_map(|n| n.to_string()),
        2 => any::<i64>().prop_map(|n| n.to_string()),
        3 => prop::sample::select(&[
            "-62135596800000", "0", "-0", "1743761607553", "253402300799999",
            "8640000000000000", "8640000000000001", "-8640000000000000", "-8640000000000001",
            "9007199254740993", "9223372036854775807", "-9223372036854775808",
            "9223372036854775808", "99999999999999999999", "", "-", "+5", "0005", " 5", "5 ",
            "5a", "1e3", "1.5",
        ][..]).prop_map(str::to_owned),
    ];
    let offset = prop::sample::select(
        &[
            "", "", "", "+0000", "+0000", "+0100", "-0500", "+0530", "-1200", "+1400", "+2359",
            "+9999", "+01:00", "+1", "+00000", "Z", "-", "+", "+abcd", "--0100",
        ][..],
    );
    let form = prop::sample::select(
        &[
            ("/Date(", ")/"),
            ("/Date(", ")/"),
            ("\\/Date(", ")\\/"),
            ("Date(", ")"),
            ("/Date(", ")"),
            ("Date(", ")/"),
            ("/date(", ")/"),
            ("/Date[", "]/"),
            ("", ""),
        ][..],
    );
    prop_oneof![
        10 => (form, millis, offset, escape()).prop_map(|((open, close), ms, offset, e)| {
            J::Str(Text([open, &ms, offset, close].concat(), e))
        }),
        1 => string(),
    ]
    .boxed()
}

/// Words the open enumerations know (any casing is theirs), and some they do not.
const WORDS: &[&str] = &[
    "Accepted",
    "Rejected",
    "Cancelled",
    "Refunded",
    "Pending",
    "DirectDonations",
    "SponsorshipDonations",
    "Ipdd",
    "Sms",
    "Active",
    "Running_Marathons",
    "Walks",
    "OtherCelebration",
    "Inactive",
    "Carrier pigeon",
    "",
];

/// Another casing of `name`, as the member-name rule accepts any (ASCII case only).
fn casing(name: &'static str) -> BoxedStrategy<String> {
    prop_oneof![
        6 => Just(name.to_owned()),
        2 => Just(name[..1].to_ascii_uppercase() + &name[1..]),
        1 => Just(name.to_ascii_lowercase()),
        1 => Just(name.to_ascii_uppercase()),
        2 => vec(any::<bool>(), name.len()).prop_map(move |flips| {
            name.chars()
                .zip(flips)
                .map(|(c, up)| if up { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() })
                .collect()
        }),
    ]
    .boxed()
}

fn enum_text() -> BoxedStrategy<J> {
    prop_oneof![
        3 => (prop::sample::select(WORDS), any::<u64>()).prop_map(|(word, bits)| {
            let s = word
                .chars()
                .enumerate()
                .map(|(i, c)| if bits >> (i % 64) & 1 == 1 { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() })
                .collect::<String>();
            J::Str(text(if bits % 3 == 0 { word.to_owned() } else { s }))
        }),
        1 => string(),
    ]
    .boxed()
}

/// Any JSON value (members of unknown shape, wrong types), `depth` levels deep at most.
fn any_json(depth: u32) -> BoxedStrategy<J> {
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        num(),
        string(),
        date(),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    prop_oneof![
        6 => leaf,
        1 => vec(any_json(depth - 1), 0..4).prop_map(J::Arr),
        1 => vec((any_string(), escape(), any_json(depth - 1)), 0..4)
            .prop_map(|members| {
                let mut members: Vec<_> = members.into_iter().map(|(k, e, v)| (Text(k, e), v)).collect();
                hide_nothing(&mut members);
                J::Obj(members)
            }),
        // Nesting around the depth JSON readers stop at.
        1 => (120usize..135, any::<bool>()).prop_map(|(n, arrays)| {
            let (open, close) = if arrays { ("[", "]") } else { ("{\"a\":", "}") };
            J::Raw(open.repeat(n) + "1" + &close.repeat(n))
        }),
    ]
    .boxed()
}

/// A value of the kind a field holds (mostly right, sometimes of another type).
fn value(kind: &'static Kind, depth: u32) -> BoxedStrategy<J> {
    let right = match kind {
        Kind::Text => string(),
        Kind::DecimalText => {
            prop_oneof![num(), number().prop_map(|n| J::Str(text(n))), string(),].boxed()
        }
        Kind::Number | Kind::Int64 => num(),
        Kind::Int32 => prop_oneof![
            3 => any::<i32>().prop_map(|n| J::Num(n.to_string())),
            1 => num(),
        ]
        .boxed(),
        Kind::Bool => any::<bool>().prop_map(J::Bool).boxed(),
        Kind::Date => date(),
        Kind::Free => any_json(3),
        Kind::Enum(_) => enum_text(),
        Kind::Struct(shape) => object(shape, depth + 1),
        Kind::List(item) => prop_oneof![
            40 => vec(value(item, depth + 1), 0..4),
            1 => vec(value(item, depth + 1), 20..110),
        ]
        .prop_map(J::Arr)
        .boxed(),
    };
    prop_oneof![12 => right, 1 => any_json(1)].boxed()
}

/// The members one field is sent as: none, `null`, a value, or two casings of it.
fn members(field: &'static Field, depth: u32) -> BoxedStrategy<Vec<(Text, J)>> {
    let name = field.name;
    let one = |v: BoxedStrategy<J>| {
        (casing(name), escape(), v)
            .prop_map(|(n, e, v)| vec![(Text(n, e), v)])
            .boxed()
    };
    let null = || Just(J::Null).boxed();
    prop_oneof![
        3 => Just(Vec::new()),
        2 => one(null()),
        12 => one(value(&field.kind, depth)),
        2 => (one(prop_oneof![null(), value(&field.kind, depth)].boxed()), one(value(&field.kind, depth)))
            .prop_map(|(mut a, b)| { a.extend(b); a }),
    ]
    .boxed()
}

/// Members no field has: names of every sort, and names that differ from a field's by more
/// than ASCII case (`tıtle`, `TİTLE`, `title `).
fn unknown_name() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "[a-zA-Z]{1,12}",
        2 => "\\PC{1,6}",
        2 => prop::sample::select(&[
            "__proto__", "constructor", "toString", "hasOwnProperty", "0", "12", "-1", "",
            "tıtle", "TİTLE", "title ", " id", "ıd", "İD", "pageTıtle", "ſhortName",
        ][..]).prop_map(str::to_owned),
    ]
    .boxed()
}

fn object(shape: &'static Shape, depth: u32) -> BoxedStrategy<J> {
    if depth > 4 {
        return Just(J::Obj(Vec::new())).boxed();
    }
    let fields: Vec<_> = shape.fields.iter().map(|f| members(f, depth)).collect();
    let unknown = vec((unknown_name(), escape(), any_json(2)), 0..3);
    // Shuffled by a sort key per member, which shrinks to the fields' own order.
    let keys = vec(0u8..8, 64);
    (fields, unknown, keys)
        .prop_map(|(fields, unknown, keys)| {
            let mut all: Vec<(Text, J)> = fields.into_iter().flatten().collect();
            all.extend(unknown.into_iter().map(|(n, e, v)| (Text(n, e), v)));
            let mut keyed: Vec<_> = all.into_iter().enumerate().collect();
            keyed.sort_by_key(|(i, _)| keys[i % keys.len()]);
            let mut members: Vec<(Text, J)> = keyed.into_iter().map(|(_, m)| m).collect();
            hide_nothing(&mut members);
            J::Obj(members)
        })
        .boxed()
}

/// The second known difference, kept out (see [`the_two_known_differences`]): a value that
/// serde_json refuses before a repeated member name is made `null`.
fn hide_nothing(members: &mut [(Text, J)]) {
    fn refused(j: &J) -> bool {
        match j {
            J::Raw(text) => text.starts_with(['[', '{']),
            J::Num(n) => n.parse::<f64>().is_ok_and(f64::is_infinite),
            J::Arr(items) => items.iter().any(refused),
            J::Obj(members) => members.iter().any(|(_, v)| refused(v)),
            _ => false,
        }
    }
    for i in 0..members.len() {
        let repeated = members[i + 1..].iter().any(|(k, _)| k.0 == members[i].0 .0);
        if repeated && refused(&members[i].1) {
            members[i].1 = J::Null;
        }
    }
}

/// A body that is not the model's object: another JSON value, or not JSON at all.
fn not_an_object() -> BoxedStrategy<J> {
    prop_oneof![
        2 => any_json(2),
        1 => prop::sample::select(&[
            "", " ", "not json", "{", "}", "{\"id\": 1,}", "[1,]", "{\"id\": 1} x", "{\"id\" 1}",
            "\u{feff}{\"id\": 1, \"eventId\": 1, \"campaignGuid\": \"g\", \"shortName\": \"s\"}",
            "{\"id\": 1, \"id\": 2, \"eventId\": 3}", "NaN", "Infinity", "{\"id\": NaN}",
            "{\"id\": 01}", "{'id': 1}", "{\"id\": 1}\u{0}", "\"\\ud800\"", "{\"id\":1e400}",
        ][..]).prop_map(|s| J::Raw(s.to_owned())),
    ]
    .boxed()
}

/// One answer: which call, its body, and whether it is written with whitespace.
fn answer() -> BoxedStrategy<(Call, J, bool)> {
    let of = |call: Call| {
        prop_oneof![
            24 => object(call.shape(), 0),
            1 => not_an_object(),
        ]
        .prop_map(move |body| (call, body))
    };
    let calls = prop_oneof![
        of(Call::Campaign),
        of(Call::Donation),
        of(Call::Created),
        of(Call::Pages)
    ];
    (calls, any::<bool>())
        .prop_map(|((call, body), pretty)| (call, body, pretty))
        .boxed()
}

fn body(j: &J, pretty: bool) -> String {
    let mut out = String::new();
    j.write(&mut out, pretty);
    out
}

// ---------------------------------------------------------------------------------------------
// The runs.

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/decode-differential")
}

/// Every answer of a folder's files, each decoded as every call (files that are not UTF-8 are
/// skipped: both faces read text).
fn corpus(folder: &Path, calls: &mut Vec<(String, Call, String)>, wrap: bool) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(text) = String::from_utf8(std::fs::read(entry.path()).unwrap_or_default()) else {
            continue;
        };
        let name = entry.path().display().to_string();
        for call in CALLS {
            calls.push((name.clone(), call, text.clone()));
        }
        // The member-name corpus holds lists of objects read in turn: as a page list too.
        if wrap && text.trim_start().starts_with('[') {
            let pages = format!("{{\"eventId\": 1, \"fundraisingPages\": {text}}}");
            calls.push((name, Call::Pages, pages));
        }
    }
}

fn check_all(peer: &mut Peer, answers: Vec<(String, Call, String)>) -> usize {
    let mut failures = Vec::new();
    for chunk in answers.chunks(200) {
        let sent: Vec<(Call, String)> = chunk.iter().map(|(_, c, b)| (*c, b.clone())).collect();
        for ((source, call, body), browser) in chunk.iter().zip(peer.decode(&sent)) {
            if let Some(why) = differs(*call, body, &browser) {
                failures.push(format!("{source} as {call:?}: {body}\n{why}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} answer(s) decode differently:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    answers.len()
}

#[test]
#[ignore = "needs the built package (make pkg) and Node: scripts/test.sh runs it"]
fn the_browser_path_decodes_every_answer_as_core_does() {
    let mut peer = Peer::start();

    // The failing answers found before, and the fuzz corpora.
    let mut known = Vec::new();
    if let Ok(entries) = std::fs::read_dir(fixtures()) {
        for entry in entries.flatten() {
            let fixture: Value =
                serde_json::from_slice(&std::fs::read(entry.path()).unwrap()).unwrap();
            let call = CALLS
                .into_iter()
                .find(|c| fixture["call"] == c.name())
                .expect("a fixture's call");
            let body = fixture["body"].as_str().expect("a fixture's body");
            known.push((entry.path().display().to_string(), call, body.to_owned()));
        }
    }
    for target in ["model_decode", "member_names"] {
        // `make bench` fuzzes into bench/work/corpus; `cargo fuzz run` into fuzz/corpus.
        for folder in [
            "fuzz/seeds",
            "fuzz/regressions",
            "fuzz/corpus",
            "bench/work/corpus",
        ] {
            let folder = root().join(folder).join(target);
            corpus(&folder, &mut known, target == "member_names");
        }
    }
    let replayed = check_all(&mut peer, known);
    the_two_known_differences(&mut peer);

    let count: usize = std::env::var("DIFF_ANSWERS")
        .ok()
        .map(|n| {
            n.replace('_', "")
                .parse()
                .expect("DIFF_ANSWERS is a number")
        })
        .unwrap_or(10_000);
    let seed: u64 = match std::env::var("DIFF_SEED") {
        Ok(seed) => seed.parse().expect("DIFF_SEED is a number"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64),
    };
    eprintln!("decode differential: seed {seed}, {count} answers, {replayed} replayed");
    let mut seed_bytes = [0u8; 32];
    for (i, chunk) in seed_bytes.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(
            &(seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)).to_le_bytes(),
        );
    }
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let strategy = answer();

    let mut done = 0;
    let (mut generating, mut decoding) = (Duration::ZERO, Duration::ZERO);
    while done < count {
        let n = (count - done).min(250);
        let start = Instant::now();
        let trees: Vec<_> = (0..n)
            .map(|_| strategy.new_tree(&mut runner).expect("a generated answer"))
            .collect();
        let sent: Vec<(Call, String)> = trees
            .iter()
            .map(|t| {
                let (call, j, pretty) = t.current();
                (call, body(&j, pretty))
            })
            .collect();
        generating += start.elapsed();
        let start = Instant::now();
        let results = peer.decode(&sent);
        decoding += start.elapsed();
        for (i, browser) in results.iter().enumerate() {
            let (call, answer) = &sent[i];
            if differs(*call, answer, browser).is_none() {
                continue;
            }
            let mut tree = trees.into_iter().nth(i).expect("the tree");
            let (call, answer, why) = shrink(&mut peer, &mut tree);
            let file = fixtures().join(format!("{}-{seed}-{}.json", call.name(), done + i));
            std::fs::create_dir_all(fixtures()).expect("the fixtures' folder");
            let fixture = json!({ "call": call.name(), "seed": seed, "body": answer });
            std::fs::write(
                &file,
                serde_json::to_string_pretty(&fixture).unwrap() + "\n",
            )
            .expect("write the fixture");
            panic!(
                "answer {} of seed {seed} (DIFF_SEED={seed} reruns it) decodes differently as \
                 {call:?}, shrunk to:\n{answer}\n{why}\nkept as {}: commit it",
                done + i,
                file.display()
            );
        }
        done += n;
    }
    eprintln!(
        "decode differential: {count} answers equal (generated in {:.1} s; the package and core \
         decoded them in {:.1} s)",
        generating.as_secs_f64(),
        decoding.as_secs_f64()
    );
}

/// What the paths do differently, on input no service sends, pinned so that a change on either
/// side is seen; the generator writes neither:
/// - a lone surrogate escape (`"\ud800"`, which RFC 8259 §8.2 calls unpredictable): serde_json
///   refuses the text, `JSON.parse` makes a string JS can hold, and the package keeps it
///   (checking every string of every answer would cost every answer's decoding);
/// - a repeated member name (RFC 8259 §4: unpredictable too) whose earlier value serde_json
///   refuses (a number beyond a double's range, nesting too deep): `JSON.parse` keeps the last
///   value and never shows the package the earlier one.
fn the_two_known_differences(peer: &mut Peer) {
    let lone = r#"{"id": 1, "message": "\ud800"}"#;
    let repeated = r#"{"id": 1, "message": 1e400, "message": "hi"}"#;
    for body in [lone, repeated] {
        assert_eq!(Call::Donation.native(body), Err("decode_error".to_owned()));
    }
    let sent = [
        (Call::Donation, lone.to_owned()),
        (Call::Donation, repeated.to_owned()),
    ];
    let browser = peer.decode(&sent);
    let lone_kept = json!({ "$illFormed": [0xd800] });
    assert_eq!(browser[0]["ok"]["message"], lone_kept, "{}", browser[0]);
    assert_eq!(browser[1]["ok"]["message"], "hi", "{}", browser[1]);
}

/// The smallest answer proptest's shrinking finds that still decodes differently.
fn shrink(
    peer: &mut Peer,
    tree: &mut impl ValueTree<Value = (Call, J, bool)>,
) -> (Call, String, String) {
    let mut failing = |(call, j, pretty): (Call, J, bool)| {
        let answer = body(&j, pretty);
        let browser = peer.decode(&[(call, answer.clone())]).remove(0);
        differs(call, &answer, &browser).map(|why| (call, answer, why))
    };
    let mut smallest = failing(tree.current()).expect("the failing answer fails again");
    let mut steps = 0;
    if tree.simplify() {
        while steps < 5000 {
            steps += 1;
            match failing(tree.current()) {
                Some(found) => {
                    smallest = found;
                    if !tree.simplify() {
                        break;
                    }
                }
                None => {
                    if !tree.complicate() {
                        break;
                    }
                }
            }
        }
    }
    smallest
}
