//! Validation of caller input before a request is made (and by the sandbox on arrival).
//! Numbers are taken as `f64`, the type JS numbers arrive as; non-integers are refused.

use crate::encoding::{decimal, signed_decimal};
use crate::model::Event;
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

/// An integer in `min..=max`, or [`Error::InvalidArgument`] naming `field`.
fn integer_in(field: &str, value: f64, min: i64, max: i64) -> Result<i64, Error> {
    if !value.is_finite() || value.fract() != 0.0 {
        return Err(Error::invalid_argument(
            field,
            ["must be a whole number, got ", &number_text(value)].concat(),
        ));
    }
    // Every integer of i32 range, and these bounds, are exact in f64.
    if value < min as f64 || value > max as f64 {
        return Err(Error::invalid_argument(
            field,
            [
                "must be between ",
                &signed_decimal(min),
                " and ",
                &signed_decimal(max),
                ", got ",
                &number_text(value),
            ]
            .concat(),
        ));
    }
    Ok(value as i64)
}

/// The page number: a whole number ≥ 1 (and at most `i32::MAX`).
pub fn page(value: f64) -> Result<u32, Error> {
    integer_in("page", value, 1, i64::from(i32::MAX)).map(|v| v as u32)
}

/// The page size: a whole number from 1 to [`MAX_PAGE_SIZE`].
pub fn page_size(value: f64) -> Result<u32, Error> {
    integer_in("pageSize", value, 1, i64::from(MAX_PAGE_SIZE)).map(|v| v as u32)
}

/// An event id: a whole number that fits a signed 32-bit integer.
pub fn event_id(value: f64) -> Result<i32, Error> {
    integer_in("eventId", value, i64::from(i32::MIN), i64::from(i32::MAX)).map(|v| v as i32)
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

/// An event to create: `name` and `eventType` not blank; `startDate` ≤ `completionDate` ≤
/// `expiryDate` for the dates given (`startDate` ≤ `expiryDate` too when `completionDate` is absent).
pub fn event(event: &Event) -> Result<(), Error> {
    if event.name.trim().is_empty() {
        return Err(Error::invalid_argument("name", "must not be empty"));
    }
    if event.event_type.as_str().trim().is_empty() {
        return Err(Error::invalid_argument("eventType", "must not be empty"));
    }
    let order: [(&str, Option<ServiceDate>); 3] = [
        ("startDate", event.start_date),
        ("completionDate", event.completion_date),
        ("expiryDate", event.expiry_date),
    ];
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
        let err = page(1.5).unwrap_err().to_string();
        assert_eq!(err, "invalid page: must be a whole number, got 1.5");
        let err = event_id(-3_000_000_000.0).unwrap_err().to_string();
        assert_eq!(
            err,
            "invalid eventId: must be between -2147483648 and 2147483647, got -3000000000"
        );
    }

    #[test]
    fn page_and_page_size() {
        assert_eq!(page(1.0).unwrap(), 1);
        assert_eq!(page(2_147_483_647.0).unwrap(), i32::MAX as u32);
        for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY, 2_147_483_648.0] {
            assert_eq!(field_of(page(bad)), "page", "{bad}");
        }
        assert_eq!(page_size(1.0).unwrap(), 1);
        assert_eq!(page_size(100.0).unwrap(), 100);
        for bad in [0.0, 101.0, 50.5, -3.0, f64::NAN] {
            assert_eq!(field_of(page_size(bad)), "pageSize", "{bad}");
        }
        let err = page_size(101.0).unwrap_err();
        assert_eq!(err.code(), "invalid_argument");
        assert!(err.to_string().contains("between 1 and 100"), "{err}");
    }

    #[test]
    fn event_ids_fit_32_bits() {
        assert_eq!(event_id(2_147_483_647.0).unwrap(), i32::MAX);
        assert_eq!(event_id(-2_147_483_648.0).unwrap(), i32::MIN);
        assert_eq!(event_id(42.0).unwrap(), 42);
        for bad in [
            2_147_483_648.0,
            -2_147_483_649.0,
            1e300,
            0.1,
            f64::NEG_INFINITY,
        ] {
            assert_eq!(field_of(event_id(bad)), "eventId", "{bad}");
        }
    }

    #[test]
    fn numbers_from_text() {
        assert_eq!(parse_number("page", " 3 ").unwrap(), 3.0);
        assert_eq!(field_of(parse_number("page", "three")), "page");
        assert_eq!(field_of(parse_number("page", "NaN")), "page");
        assert_eq!(field_of(path_segment("shortName", "  ")), "shortName");
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
                "eventType",
            ),
            (
                Event {
                    event_type: " ".into(),
                    ..good()
                },
                "eventType",
            ),
            (
                Event {
                    completion_date: Some(ServiceDate::from_millis(999)),
                    ..good()
                },
                "completionDate",
            ),
            (
                Event {
                    expiry_date: Some(ServiceDate::from_millis(1_999)),
                    ..good()
                },
                "expiryDate",
            ),
            (
                Event {
                    completion_date: None,
                    expiry_date: Some(ServiceDate::from_millis(500)),
                    ..good()
                },
                "expiryDate",
            ),
        ];
        for (e, field) in cases {
            assert_eq!(field_of(event(&e)), field, "{e:?}");
        }
    }
}
