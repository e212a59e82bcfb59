//! Validation of caller input before a request is made (and by the sandbox on arrival).
//!
//! Errors name the value by its Rust name (`page_size`, `event_type`); a face that speaks
//! JSON or JavaScript names it as they do with [`Error::with_wire_names`]. Numbers that
//! arrive untyped (JS numbers, query strings) are checked by [`number`].

use crate::encoding::{decimal, signed_decimal};
use crate::model::Event;
use std::ops::RangeInclusive;

use crate::date::MAX_MILLIS;
use crate::{Error, ServiceDate};

/// The largest `pageSize` the service allows.
pub const MAX_PAGE_SIZE: u32 = 100;

/// A number as text for messages, without `f64`'s `Display` (its float-printing machinery
/// alone is about 10 KB of the gzipped browser package): integers exactly, other numbers to
/// six decimals, trailing zeros dropped ("about" when that rounds to a whole number).
fn number_text(value: f64) -> String {
    if !value.is_finite() {
        return "a non-finite number".to_owned();
    }
    if value.abs() >= 9.0e15 {
        return if value > 0.0 {
            "a number above 9e15"
        } else {
            "a number below -9e15"
        }
        .to_owned();
    }
    let sign = if value < 0.0 { "-" } else { "" };
    let whole = value.abs().trunc();
    let micros = ((value.abs() - whole) * 1e6).round() as u64;
    let (whole, micros) = (whole as u64 + micros / 1_000_000, micros % 1_000_000);
    let mut text = [sign, &decimal(whole)].concat();
    if micros == 0 {
        if value.fract() != 0.0 {
            // A fraction lost in the rounding to six decimals.
            text.insert_str(0, "about ");
        }
    } else {
        let fraction = decimal(1_000_000 + micros);
        text.push('.');
        text.push_str(fraction[1..].trim_end_matches('0'));
    }
    text
}

/// The page numbers the service takes: from 1 (the first page) up to `i32::MAX`.
pub const PAGE: RangeInclusive<i64> = 1..=i32::MAX as i64;
/// The page sizes the service takes: 1 to [`MAX_PAGE_SIZE`].
pub const PAGE_SIZE: RangeInclusive<i64> = 1..=MAX_PAGE_SIZE as i64;
/// The event ids the service takes: any signed 32-bit integer.
pub const EVENT_ID: RangeInclusive<i64> = i32::MIN as i64..=i32::MAX as i64;

/// The page number: at least 1 (and at most `i32::MAX`). Errors name `page`.
pub fn page(value: u32) -> Result<u32, Error> {
    // One rule for typed and untyped values: every `u32` is exact in `f64`.
    number::page(f64::from(value))
}

/// The page size: 1 to [`MAX_PAGE_SIZE`]. Errors name `page_size`.
pub fn page_size(value: u32) -> Result<u32, Error> {
    number::page_size(f64::from(value))
}

/// The rules above for numbers that arrive untyped, as JSON, JavaScript and query strings
/// carry them (`f64`): a non-integer is refused as well as a value out of range.
pub mod number {
    use super::{number_text, signed_decimal, RangeInclusive, EVENT_ID, PAGE, PAGE_SIZE};
    use crate::Error;

    /// A whole number in `range`, or [`Error::InvalidArgument`] naming `field`.
    pub fn integer(field: &str, value: f64, range: &RangeInclusive<i64>) -> Result<i64, Error> {
        if !value.is_finite() || value.fract() != 0.0 {
            return Err(Error::invalid_argument(
                field,
                ["must be a whole number, got ", &number_text(value)].concat(),
            ));
        }
        // Every bound of these ranges is exact in f64.
        if value < *range.start() as f64 || value > *range.end() as f64 {
            return Err(Error::invalid_argument(
                field,
                [
                    "must be between ",
                    &signed_decimal(*range.start()),
                    " and ",
                    &signed_decimal(*range.end()),
                    ", got ",
                    &number_text(value),
                ]
                .concat(),
            ));
        }
        Ok(value as i64)
    }

    /// [`page`](super::page) of a number. Errors name `page`.
    pub fn page(value: f64) -> Result<u32, Error> {
        integer("page", value, &PAGE).map(|v| v as u32)
    }

    /// [`page_size`](super::page_size) of a number. Errors name `page_size`.
    pub fn page_size(value: f64) -> Result<u32, Error> {
        integer("page_size", value, &PAGE_SIZE).map(|v| v as u32)
    }

    /// An event id of a number: a whole number that fits a signed 32-bit integer. Errors
    /// name `event_id`.
    pub fn event_id(value: f64) -> Result<i32, Error> {
        integer("event_id", value, &EVENT_ID).map(|v| v as i32)
    }
}

/// Reads a number from text (e.g. a query-string value), for the checks above.
pub fn parse_number(field: &str, text: &str) -> Result<f64, Error> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            Error::invalid_argument(
                field,
                format!("must be a number, got {}", crate::error::Quoted(text)),
            )
        })
}

/// A value used as one path segment (a campaign short name, a third-party reference):
/// must not be empty or blank.
pub fn path_segment(field: &str, value: &str) -> Result<(), Error> {
    if value.trim().is_empty() {
        Err(Error::invalid_argument(field, "must not be empty"))
    } else {
        Ok(())
    }
}

/// An event to create: `name` and `event_type` not blank; each date given within
/// [`MAX_MILLIS`] of the epoch (a date beyond it is one no reader of the wire form accepts);
/// `start_date` ≤ `completion_date` ≤ `expiry_date` for the dates given (`start_date` ≤
/// `expiry_date` too when `completion_date` is absent).
pub fn event(event: &Event) -> Result<(), Error> {
    if event.name.trim().is_empty() {
        return Err(Error::invalid_argument("name", "must not be empty"));
    }
    if event.event_type.as_str().trim().is_empty() {
        return Err(Error::invalid_argument("event_type", "must not be empty"));
    }
    let order: [(&str, Option<ServiceDate>); 3] = [
        ("start_date", event.start_date),
        ("completion_date", event.completion_date),
        ("expiry_date", event.expiry_date),
    ];
    for (name, date) in &order {
        if date.is_some_and(|d| d.millis.unsigned_abs() > MAX_MILLIS as u64) {
            return Err(Error::invalid_argument(
                name,
                "must be within 8,640,000,000,000,000 ms of 1970-01-01 (a JavaScript Date's range)",
            ));
        }
    }
    for (i, (earlier_name, earlier)) in order.iter().enumerate() {
        for (later_name, later) in &order[i + 1..] {
            if let (Some(a), Some(b)) = (earlier, later) {
                if a.millis > b.millis {
                    return Err(Error::invalid_argument(
                        later_name,
                        ["must not be before ", earlier_name].concat(),
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EventType;

    fn field_of(result: Result<impl std::fmt::Debug, Error>) -> String {
        match result {
            Err(Error::InvalidArgument { field, .. }) => field,
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }

    #[test]
    fn numbers_in_messages() {
        for (value, text) in [
            (0.0, "0"),
            (-3.0, "-3"),
            (2_147_483_648.0, "2147483648"),
            (1.5, "1.5"),
            (-50.25, "-50.25"),
            (0.1, "0.1"),
            (2.0000004, "about 2"),
            (9.9999999, "about 10"),
            (-1e-9, "about -0"),
            (1e20, "a number above 9e15"),
            (-1e20, "a number below -9e15"),
            (f64::NAN, "a non-finite number"),
            (f64::NEG_INFINITY, "a non-finite number"),
        ] {
            assert_eq!(number_text(value), text, "{value}");
        }
        let err = number::page(1.5).unwrap_err().to_string();
        assert_eq!(err, "invalid page: must be a whole number, got 1.5");
        let err = number::event_id(-3_000_000_000.0).unwrap_err().to_string();
        assert_eq!(
            err,
            "invalid event_id: must be between -2147483648 and 2147483647, got -3000000000"
        );
        let err = number::event_id(-3_000_000_000.0).unwrap_err();
        assert_eq!(
            err.with_wire_names().to_string(),
            "invalid eventId: must be between -2147483648 and 2147483647, got -3000000000"
        );
    }

    #[test]
    fn page_and_page_size() {
        assert_eq!(number::page(1.0).unwrap(), 1);
        assert_eq!(number::page(2_147_483_647.0).unwrap(), i32::MAX as u32);
        for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY, 2_147_483_648.0] {
            assert_eq!(field_of(number::page(bad)), "page", "{bad}");
        }
        assert_eq!(number::page_size(1.0).unwrap(), 1);
        assert_eq!(number::page_size(100.0).unwrap(), 100);
        for bad in [0.0, 101.0, 50.5, -3.0, f64::NAN] {
            assert_eq!(field_of(number::page_size(bad)), "page_size", "{bad}");
        }
        let err = number::page_size(101.0).unwrap_err();
        assert_eq!(err.code(), "invalid_argument");
        assert!(err.to_string().contains("between 1 and 100"), "{err}");
    }

    #[test]
    fn typed_values_follow_the_same_rules_with_the_same_messages() {
        assert_eq!(page(1).unwrap(), 1);
        assert_eq!(page(i32::MAX as u32).unwrap(), i32::MAX as u32);
        assert_eq!(field_of(page(0)), "page");
        assert_eq!(field_of(page(i32::MAX as u32 + 1)), "page");
        assert_eq!(page_size(100).unwrap(), 100);
        for bad in [0, 101, u32::MAX] {
            assert_eq!(field_of(page_size(bad)), "page_size", "{bad}");
        }
        for value in [0u32, 1, 7, 100, 101, 5000] {
            let typed = page_size(value).map_err(|e| e.to_string());
            let untyped = number::page_size(f64::from(value)).map_err(|e| e.to_string());
            assert_eq!(typed, untyped, "{value}");
        }
    }

    #[test]
    fn event_ids_fit_32_bits() {
        assert_eq!(number::event_id(2_147_483_647.0).unwrap(), i32::MAX);
        assert_eq!(number::event_id(-2_147_483_648.0).unwrap(), i32::MIN);
        assert_eq!(number::event_id(42.0).unwrap(), 42);
        for bad in [
            2_147_483_648.0,
            -2_147_483_649.0,
            1e300,
            0.1,
            f64::NEG_INFINITY,
        ] {
            assert_eq!(field_of(number::event_id(bad)), "event_id", "{bad}");
        }
    }

    #[test]
    fn numbers_from_text() {
        assert_eq!(parse_number("page", " 3 ").unwrap(), 3.0);
        assert_eq!(field_of(parse_number("page", "three")), "page");
        assert_eq!(field_of(parse_number("page", "NaN")), "page");
        assert_eq!(field_of(path_segment("short_name", "  ")), "short_name");
        assert!(path_segment("shortName", "x").is_ok());
    }

    fn good() -> Event {
        Event {
            name: "Town 10k".into(),
            event_type: EventType::RunningMarathons,
            start_date: Some(ServiceDate::from_millis(1_000)),
            completion_date: Some(ServiceDate::from_millis(2_000)),
            expiry_date: Some(ServiceDate::from_millis(3_000)),
            ..Event::default()
        }
    }

    #[test]
    fn events() {
        assert!(event(&good()).is_ok());
        let same_day = Event {
            completion_date: Some(ServiceDate::from_millis(1_000)),
            expiry_date: Some(ServiceDate::from_millis(1_000)),
            ..good()
        };
        assert!(event(&same_day).is_ok());
        assert!(event(&Event {
            event_type: "Marathon".into(),
            start_date: None,
            completion_date: None,
            expiry_date: None,
            ..good()
        })
        .is_ok());
        let cases: Vec<(Event, &str)> = vec![
            (
                Event {
                    name: " ".into(),
                    ..good()
                },
                "name",
            ),
            (
                Event {
                    event_type: EventType::default(),
                    ..good()
                },
                "event_type",
            ),
            (
                Event {
                    event_type: " ".into(),
                    ..good()
                },
                "event_type",
            ),
            (
                Event {
                    completion_date: Some(ServiceDate::from_millis(999)),
                    ..good()
                },
                "completion_date",
            ),
            (
                Event {
                    expiry_date: Some(ServiceDate::from_millis(1_999)),
                    ..good()
                },
                "expiry_date",
            ),
            (
                Event {
                    completion_date: None,
                    expiry_date: Some(ServiceDate::from_millis(500)),
                    ..good()
                },
                "expiry_date",
            ),
        ];
        for (e, field) in cases {
            assert_eq!(field_of(event(&e)), field, "{e:?}");
        }
    }

    #[test]
    fn event_dates_stay_within_what_the_wire_form_can_be_read_back_as() {
        let edge = Event {
            start_date: Some(ServiceDate::from_millis(-MAX_MILLIS)),
            completion_date: None,
            expiry_date: Some(ServiceDate::from_millis(MAX_MILLIS)),
            ..good()
        };
        assert!(event(&edge).is_ok());
        for (beyond, field) in [
            (
                Event {
                    start_date: Some(ServiceDate::from_millis(-MAX_MILLIS - 1)),
                    ..good()
                },
                "start_date",
            ),
            (
                Event {
                    expiry_date: Some(ServiceDate::from_millis(i64::MAX)),
                    ..good()
                },
                "expiry_date",
            ),
            (
                Event {
                    completion_date: Some(ServiceDate::from_millis(i64::MIN)),
                    ..good()
                },
                "completion_date",
            ),
        ] {
            // What would have been sent is a date that parse (and so the sandbox) refuses.
            let date = [
                beyond.start_date,
                beyond.completion_date,
                beyond.expiry_date,
            ]
            .into_iter()
            .flatten()
            .find(|d| d.millis.unsigned_abs() > MAX_MILLIS as u64)
            .expect("a date beyond the range");
            assert!(ServiceDate::parse(&date.to_wire()).is_err());
            assert_eq!(field_of(event(&beyond)), field, "{beyond:?}");
        }
    }
}
