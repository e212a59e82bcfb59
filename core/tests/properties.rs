//! Property tests: the date codec round-trips, and no input makes the public parsers panic
//! (the date codec, the callback parser, the error-body parser, model decoding). This is the
//! crate's fuzz target; each property runs `CASES` generated cases. Native only.
#![cfg(not(target_arch = "wasm32"))]

use fundraising_core::authorize::AuthorizeRequest;
use fundraising_core::callback;
use fundraising_core::date::MAX_MILLIS;
use fundraising_core::encoding::{form_decode, form_encode};
use fundraising_core::json::{self, campaign_to_service_json, event_pages_to_service_json};
use fundraising_core::model::{Campaign, Donation, Event, EventCreated, EventPages};
use fundraising_core::service_error::parse_error_body;
use fundraising_core::{validate, Error, ServiceDate};
use proptest::prelude::*;
use serde_json::{Map, Value};

const CASES: u32 = 2048;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: CASES,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Every field name of every model, camelCase, so generated objects hit real fields.
const FIELD_NAMES: &[&str] = &[
    "campaignGuid",
    "shortName",
    "title",
    "summary",
    "story",
    "startDate",
    "endDate",
    "brandingGuid",
    "offlineAmount",
    "offlineAmountUpdated",
    "currency",
    "status",
    "landingPageUrl",
    "eventRegistrationLink",
    "thankYouMessage",
    "targetAmount",
    "charities",
    "fundraising",
    "donationSummary",
    "errorMessage",
    "currencyCode",
    "currencySymbol",
    "directDonationAmount",
    "directDonationGiftAid",
    "fundraiserRaisedAmount",
    "numberOfDirectDonations",
    "numberOfFundraiserDonations",
    "totalAmount",
    "totalGiftAid",
    "totalNumberOfDonations",
    "id",
    "donationRef",
    "image",
    "hasImage",
    "donationDate",
    "donorDisplayName",
    "message",
    "estimatedTaxReclaim",
    "amount",
    "donorRealName",
    "thirdPartyReference",
    "source",
    "donorLocalAmount",
    "donorLocalCurrencyCode",
    "name",
    "description",
    "completionDate",
    "expiryDate",
    "eventType",
    "location",
    "charityId",
    "next",
    "rel",
    "uri",
    "type",
    "error",
    "desc",
    "eventId",
    "fundraisingPages",
    "totalFundraisingPages",
    "totalPages",
    "totalRaised",
    "companyAppealId",
    "createdDate",
    "designId",
    "domain",
    "eventName",
    "giftAidPlusSupplement",
    "images",
    "inMemoryPerson",
    "legacyId",
    "offlineDonations",
    "pageGuid",
    "pageId",
    "pageImages",
    "pageOwner",
    "pageOwnerGuid",
    "pageShortName",
    "pageStatus",
    "pageTitle",
    "raisedAmount",
    "totalRaisedOnline",
    "updatedDate",
    "smsCode",
    "firstName",
    "lastName",
    "personId",
    "relationShip",
    "dateOfBirth",
    "dateOfDeath",
    "errors",
    "error_description",
];

/// A field name in random casing, or an arbitrary key.
fn arb_key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (prop::sample::select(FIELD_NAMES), any::<u64>()).prop_map(|(name, bits)| {
            name.chars()
                .enumerate()
                .map(|(i, c)| {
                    if bits >> (i % 64) & 1 == 1 {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    }
                })
                .collect()
        }),
        1 => ".{0,8}",
    ]
}

/// Date-like text: mostly well-formed, often slightly broken.
fn arb_date_text() -> impl Strategy<Value = String> {
    prop_oneof![
        (any::<i64>(), -1439i16..=1439).prop_map(|(ms, off)| format!(
            "/Date({ms}{}{:02}{:02})/",
            if off < 0 { '-' } else { '+' },
            off.unsigned_abs() / 60,
            off.unsigned_abs() % 60
        )),
        r"(\\?/)?Date\([-+0-9]{0,24}\)(\\?/)?",
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        ".{0,16}".prop_map(Value::String),
        arb_date_text().prop_map(Value::String),
        prop::sample::select(&["Active", "Accepted", "sms", "Walks", "", "10.50"][..])
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((arb_key(), inner), 0..8)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// An object with many model fields, so that decoding often gets far (or succeeds).
fn arb_object() -> impl Strategy<Value = Value> {
    prop::collection::vec((arb_key(), arb_json()), 0..16)
        .prop_map(|entries| Value::Object(entries.into_iter().collect()))
}

const CAMPAIGN: &str = include_str!("../../tests/fixtures/campaign.json");
const DONATION: &str = include_str!("../../tests/fixtures/donation.json");
const EVENT_CREATED: &str = include_str!("../../tests/fixtures/event-created.json");
const EVENT_PAGES: &str = include_str!("../../tests/fixtures/event-pages.json");

/// Members whose values are passed through untouched (shape not shown by the spec).
const PASS_THROUGH: &[&str] = &[
    "charities",
    "fundraising",
    "offlineamountupdated",
    "landingpageurl",
    "eventregistrationlink",
    "images",
    "legacyid",
    "pageowner",
    "pageownerguid",
    "relationship",
];

fn from(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// Re-cases every model member name by the given flips and adds an unknown member holding `junk`.
fn recase<'a>(value: &Value, flips: &mut impl Iterator<Item = &'a bool>, junk: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut out: Map<String, Value> = map
                .iter()
                .map(|(k, v)| {
                    let name: String = k
                        .chars()
                        .map(|c| {
                            if *flips.next().unwrap_or(&false) {
                                c.to_ascii_uppercase()
                            } else {
                                c.to_ascii_lowercase()
                            }
                        })
                        .collect();
                    let inner = if PASS_THROUGH.contains(&k.to_ascii_lowercase().as_str()) {
                        v.clone()
                    } else {
                        recase(v, flips, junk)
                    };
                    (name, inner)
                })
                .collect();
            out.insert("zzUnknownMember".into(), junk.clone());
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| recase(v, flips, junk)).collect()),
        other => other.clone(),
    }
}

fn offset_text(off: i16) -> String {
    format!(
        "{}{:02}{:02}",
        if off < 0 { '-' } else { '+' },
        off.unsigned_abs() / 60,
        off.unsigned_abs() % 60
    )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn date_round_trip(ms in -MAX_MILLIS..=MAX_MILLIS) {
        let d = ServiceDate::from_millis(ms);
        let wire = d.to_wire();
        prop_assert_eq!(ServiceDate::parse(&wire)?, d);
        let json = serde_json::to_string(&d).unwrap();
        prop_assert_eq!(serde_json::from_str::<ServiceDate>(&json).unwrap(), d);
    }

    #[test]
    fn date_parses_every_form_and_offset(ms in -MAX_MILLIS..=MAX_MILLIS, off in -1439i16..=1439, form in 0usize..3, with_offset in any::<bool>()) {
        let offset = if with_offset { offset_text(off) } else { String::new() };
        let inner = format!("{ms}{offset}");
        let text = match form {
            0 => format!(r"\/Date({inner})\/"),
            1 => format!("/Date({inner})/"),
            _ => format!("Date({inner})"),
        };
        let d = ServiceDate::parse(&text)?;
        prop_assert_eq!(d.millis, ms);
        prop_assert_eq!(d.offset_minutes, with_offset.then_some(off));
        prop_assert_eq!(ServiceDate::parse(&d.to_wire())?.millis, ms);
    }

    #[test]
    fn dates_beyond_a_javascript_date_are_invalid(ms in any::<i64>().prop_filter("out of range", |ms| ms.unsigned_abs() > MAX_MILLIS as u64)) {
        prop_assert!(ServiceDate::parse(&ServiceDate::from_millis(ms).to_wire()).is_err());
    }

    #[test]
    fn date_never_panics_and_errors_quote(text in prop_oneof![".*", arb_date_text()]) {
        match ServiceDate::parse(&text) {
            Ok(d) => prop_assert_eq!(ServiceDate::parse(&d.to_wire())?.millis, d.millis),
            Err(Error::InvalidDate { input }) => {
                prop_assert!(text.starts_with(&input));
            }
            Err(other) => prop_assert!(false, "unexpected error {:?}", other),
        }
    }

    #[test]
    fn callback_never_panics(text in prop_oneof![
        ".*",
        r"(https?://[a-z.:0-9]{1,12}/?)?[?#]?([a-z_]{0,18}=[a-zA-Z0-9%+&=#?]{0,12}&?){0,5}",
    ]) {
        match callback::parse(&text) {
            Ok(cb) => prop_assert!(!cb.code.is_empty() && !cb.state.is_empty()),
            Err(e) => prop_assert!(matches!(e.code(), "invalid_callback" | "oauth_error"), "{:?}", e),
        }
    }

    #[test]
    fn callback_returns_what_was_sent(code in ".{1,40}", state in ".{1,40}", form in 0usize..4) {
        let params = format!("code={}&state={}", form_encode(&code), form_encode(&state));
        let text = match form {
            0 => format!("http://127.0.0.1:8080/?{params}"),
            1 => format!("?{params}"),
            2 => format!("#{params}"),
            _ => params,
        };
        let cb = callback::parse(&text)?;
        prop_assert_eq!(cb.code, code);
        prop_assert_eq!(cb.state, state);
    }

    #[test]
    fn error_body_never_panics(status in any::<u16>(), body in prop_oneof![
        ".*".boxed(),
        arb_json().prop_map(|v| v.to_string()).boxed(),
    ]) {
        let e = parse_error_body(status, &body);
        prop_assert_eq!(e.status, status);
        prop_assert!(!e.message.is_empty());
        prop_assert!(e.message.chars().count() <= 1001);
    }

    #[test]
    fn model_decoding_never_panics(value in prop_oneof![arb_object(), arb_json()], text in ".*") {
        let doc = value.to_string();
        for input in [doc.as_str(), text.as_str()] {
            let results = [
                json::decode::<Campaign>(input).err(),
                json::decode::<Donation>(input).err(),
                json::decode::<Event>(input).err(),
                json::decode::<EventCreated>(input).err(),
                json::decode::<EventPages>(input).err(),
            ];
            for err in results.into_iter().flatten() {
                prop_assert_eq!(err.code(), "decode_error");
            }
        }
    }

    #[test]
    fn recased_fixtures_decode_the_same(bits in prop::collection::vec(any::<bool>(), 1..97), junk in arb_json()) {
        let mut flips = bits.iter().cycle();
        let campaign: Campaign = json::decode(CAMPAIGN).unwrap();
        let recased: Campaign = json::decode_value(&recase(&from(CAMPAIGN), &mut flips, &junk))?;
        prop_assert_eq!(&recased, &campaign);
        let service = campaign_to_service_json(&recased);
        let again: Campaign = json::decode(&json::to_service_text(&service))?;
        prop_assert_eq!(campaign_to_service_json(&again), service);

        let donation: Donation = json::decode(DONATION).unwrap();
        prop_assert_eq!(json::decode_value::<Donation>(&recase(&from(DONATION), &mut flips, &junk))?, donation);

        let created: EventCreated = json::decode(EVENT_CREATED).unwrap();
        prop_assert_eq!(json::decode_value::<EventCreated>(&recase(&from(EVENT_CREATED), &mut flips, &junk))?, created);

        let pages: EventPages = json::decode(EVENT_PAGES).unwrap();
        let recased: EventPages = json::decode_value(&recase(&from(EVENT_PAGES), &mut flips, &junk))?;
        prop_assert_eq!(&recased, &pages);
        let service = event_pages_to_service_json(&recased);
        let again: EventPages = json::decode(&json::to_service_text(&service))?;
        prop_assert_eq!(event_pages_to_service_json(&again), service);
    }

    #[test]
    fn form_encoding_round_trips(s in ".*") {
        let enc = form_encode(&s);
        prop_assert!(enc.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~+%".contains(&b)));
        prop_assert_eq!(form_decode(&enc), Some(s));
    }

    #[test]
    fn authorize_url_carries_the_values(client in "[ -~]{1,20}", state in ".{1,30}", nonce in "[0-9a-f-]{1,36}") {
        let req = AuthorizeRequest {
            auth_url: "http://127.0.0.1:8082".into(),
            client_id: client.clone(),
            redirect_uri: "http://127.0.0.1:8080/".into(),
            state: Some(state.clone()),
            nonce: nonce.clone(),
            ..Default::default()
        };
        match req.to_url() {
            Ok(url) => {
                let query = url.strip_prefix("http://127.0.0.1:8082/connect/authorize?").unwrap();
                let pairs: Vec<(String, String)> = query
                    .split('&')
                    .map(|p| {
                        let (k, v) = p.split_once('=').unwrap();
                        (k.to_owned(), form_decode(v).unwrap())
                    })
                    .collect();
                prop_assert_eq!(&pairs[0], &("client_id".to_owned(), client));
                prop_assert_eq!(&pairs[4], &("state".to_owned(), state));
                prop_assert_eq!(&pairs[5], &("nonce".to_owned(), nonce));
            }
            Err(e) => prop_assert!(
                client.trim().is_empty() || state.trim().is_empty() || state.chars().any(char::is_control),
                "{:?}", e
            ),
        }
    }

    #[test]
    fn page_size_accepts_exactly_1_to_100(v in prop_oneof![any::<f64>(), (-5i32..110).prop_map(f64::from)]) {
        let ok = v.fract() == 0.0 && (1.0..=100.0).contains(&v);
        prop_assert_eq!(validate::number::page_size(v).is_ok(), ok, "{}", v);
        if ok {
            prop_assert_eq!(f64::from(validate::number::page_size(v)?), v);
        }
    }

    #[test]
    fn event_id_accepts_exactly_i32(v in prop_oneof![any::<f64>(), any::<i64>().prop_map(|i| i as f64), any::<i32>().prop_map(f64::from)]) {
        let ok = v.fract() == 0.0 && v >= f64::from(i32::MIN) && v <= f64::from(i32::MAX);
        match validate::number::event_id(v) {
            Ok(id) => { prop_assert!(ok); prop_assert_eq!(f64::from(id), v); }
            Err(_) => prop_assert!(!ok, "{}", v),
        }
    }
}

/// `a` and `b` hold the same JSON, numbers compared by value (the tree reader gives whole
/// numbers as integers, whatever form they had).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

proptest! {
    #[test]
    fn the_tree_reader_reads_any_json_as_it_is(value in arb_json()) {
        let read: Value = fundraising_core::json::from_node(&value).unwrap();
        prop_assert!(same_json(&read, &value), "{} read as {}", value, read);
    }

    #[test]
    fn the_tree_reader_agrees_with_serde_json_on_typed_reads(value in arb_json()) {
        type Typed = std::collections::BTreeMap<String, Option<Vec<f64>>>;
        let ours = fundraising_core::json::from_node::<Typed, _>(&value);
        let theirs = serde_json::from_value::<Typed>(value.clone());
        prop_assert_eq!(ours.is_ok(), theirs.is_ok(), "{}", value);
        if let (Ok(a), Ok(b)) = (ours, theirs) {
            prop_assert_eq!(a, b);
        }
    }
}
