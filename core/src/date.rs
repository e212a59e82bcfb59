//! The service's date codec: `\/Date(<milliseconds since epoch><±hhmm>)\/`.

use std::fmt;

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::Error;

/// A point in time as the service writes it.
///
/// `millis` are UTC milliseconds since 1970-01-01 (negative before); the offset is
/// informational only (`None` when the wire value had none). Serialises as the string the
/// service's JSON decodes to, [`ServiceDate::to_json_string`] (`/Date(<ms>+0000)/`; the
/// service-shaped writer [`crate::json::to_service_text`] escapes it into the wire form);
/// deserialises with [`ServiceDate::parse_json_string`], as strictly as the service does.
///
/// ```
/// use fundraising_core::ServiceDate;
/// let d = ServiceDate::parse(r"\/Date(1743761607553+0100)\/").unwrap();
/// assert_eq!(d.millis, 1743761607553);
/// assert_eq!(d.offset_minutes, Some(60));
/// assert_eq!(d.to_wire(), r"\/Date(1743761607553+0000)\/");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServiceDate {
    /// Milliseconds since the Unix epoch, UTC.
    pub millis: i64,
    /// The offset the service attached, in minutes east of UTC (`+0100` is 60).
    pub offset_minutes: Option<i16>,
}

/// Milliseconds of .NET's `DateTime.MinValue` (0001-01-01), which the service uses for "no date".
pub const DOTNET_MIN_MILLIS: i64 = -62_135_596_800_000;

/// The furthest a date may lie from the epoch, in milliseconds: a JavaScript `Date`'s range
/// (±100,000,000 days), which holds every date the service's `DateTime` can (years 1 to 9999).
/// A date beyond it is invalid in both faces: JavaScript could not hold it.
pub const MAX_MILLIS: i64 = 8_640_000_000_000_000;

/// Longest input quoted back in an error.
const QUOTE_LIMIT: usize = 200;

impl ServiceDate {
    /// A date at `millis` UTC, with offset `+0000`.
    pub fn from_millis(millis: i64) -> Self {
        ServiceDate {
            millis,
            offset_minutes: Some(0),
        }
    }

    /// Parses `\/Date(ms±hhmm)\/`, also without the backslashes (`/Date(..)/`, as a JSON
    /// string value holds it) or without any slashes (`Date(..)`). Milliseconds may be
    /// negative, within [`MAX_MILLIS`] of the epoch; the offset is optional. Anything else is [`Error::InvalidDate`] quoting the input.
    pub fn parse(input: &str) -> Result<Self, Error> {
        Self::parse_inner(input).ok_or_else(|| Error::InvalidDate {
            input: quote(input),
        })
    }

    /// Parses the value of a JSON date string exactly as the service's deserializer reads
    /// it: `/Date(<ms>[±hhmm])/`, the unescaped value of the wire text `"\/Date(..)\/"`.
    /// Stricter than [`ServiceDate::parse`]: a literal backslash, missing slashes or
    /// anything else is [`Error::InvalidDate`]. This is the serde form, and what requests
    /// must carry.
    ///
    /// ```
    /// use fundraising_core::ServiceDate;
    /// assert_eq!(ServiceDate::parse_json_string("/Date(5+0000)/").unwrap().millis, 5);
    /// assert!(ServiceDate::parse_json_string(r"\/Date(5+0000)\/").is_err());
    /// ```
    pub fn parse_json_string(input: &str) -> Result<Self, Error> {
        input
            .strip_prefix("/Date(")
            .and_then(|rest| rest.strip_suffix(")/"))
            .and_then(Self::parse_parts)
            .ok_or_else(|| Error::InvalidDate {
                input: quote(input),
            })
    }

    fn parse_inner(input: &str) -> Option<Self> {
        let inner = [(r"\/Date(", r")\/"), ("/Date(", ")/"), ("Date(", ")")]
            .iter()
            .find_map(|(open, close)| input.strip_prefix(open)?.strip_suffix(close))?;
        Self::parse_parts(inner)
    }

    /// `<ms>[±hhmm]`, the part between the parentheses.
    fn parse_parts(inner: &str) -> Option<Self> {
        // Split the milliseconds from the offset: the offset sign is the first '+' or '-'
        // after the first character (which may be the milliseconds' own minus).
        let split = inner
            .char_indices()
            .skip(1)
            .find(|(_, c)| *c == '+' || *c == '-')
            .map(|(i, _)| i)
            .unwrap_or(inner.len());
        let (ms, offset) = inner.split_at(split);
        let digits = ms.strip_prefix('-').unwrap_or(ms);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let millis: i64 = ms
            .parse()
            .ok()
            .filter(|m: &i64| m.unsigned_abs() <= MAX_MILLIS as u64)?;
        let offset_minutes = if offset.is_empty() {
            None
        } else {
            Some(parse_offset(offset)?)
        };
        Some(ServiceDate {
            millis,
            offset_minutes,
        })
    }

    /// The wire form, always in UTC: `\/Date(<millis>+0000)\/`.
    pub fn to_wire(&self) -> String {
        [
            r"\/Date(",
            &crate::encoding::signed_decimal(self.millis),
            r"+0000)\/",
        ]
        .concat()
    }

    /// The string a JSON decoder reads from the service's `"\/Date(<millis>+0000)\/"`:
    /// `/Date(<millis>+0000)/` (JSON's `\/` escape is a plain `/`). This is the serde form; a
    /// writer that escapes `/` as the service does ([`crate::json::to_service_text`]) turns it
    /// back into the wire form.
    pub fn to_json_string(&self) -> String {
        [
            "/Date(",
            &crate::encoding::signed_decimal(self.millis),
            "+0000)/",
        ]
        .concat()
    }
}

impl ServiceDate {
    /// Like [`ServiceDate::to_json_string`], with the offset the date was sent with
    /// (`/Date(<millis>+0100)/`, or `/Date(<millis>)/` when it had none).
    pub fn to_json_string_as_sent(&self) -> String {
        let millis = crate::encoding::signed_decimal(self.millis);
        let Some(offset) = self.offset_minutes else {
            return ["/Date(", &millis, ")/"].concat();
        };
        let sign = if offset < 0 { "-" } else { "+" };
        let minutes = offset.unsigned_abs();
        let two = |n: u16| {
            [
                char::from(b'0' + (n / 10) as u8),
                char::from(b'0' + (n % 10) as u8),
            ]
        };
        let [h1, h2] = two(minutes / 60);
        let [m1, m2] = two(minutes % 60);
        let offset: String = [h1, h2, m1, m2].iter().collect();
        ["/Date(", &millis, sign, &offset, ")/"].concat()
    }
}

/// Parses `±hhmm` (hours 00–23, minutes 00–59) into minutes.
fn parse_offset(offset: &str) -> Option<i16> {
    let bytes = offset.as_bytes();
    if bytes.len() != 5 || !bytes[1..].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let num = |i: usize| i16::from(bytes[i] - b'0') * 10 + i16::from(bytes[i + 1] - b'0');
    let (hours, minutes) = (num(1), num(3));
    if hours > 23 || minutes > 59 {
        return None;
    }
    let total = hours * 60 + minutes;
    match bytes[0] {
        b'+' => Some(total),
        b'-' => Some(-total),
        _ => None,
    }
}

fn quote(input: &str) -> String {
    input.chars().take(QUOTE_LIMIT).collect()
}

impl Default for ServiceDate {
    /// .NET's minimum date, the service's "no date".
    fn default() -> Self {
        ServiceDate::from_millis(DOTNET_MIN_MILLIS)
    }
}

impl fmt::Display for ServiceDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_wire())
    }
}

impl std::str::FromStr for ServiceDate {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        ServiceDate::parse(s)
    }
}

impl From<ServiceDate> for std::time::SystemTime {
    /// The same instant (the offset is informational and dropped).
    ///
    /// ```
    /// use std::time::{Duration, SystemTime, UNIX_EPOCH};
    /// use fundraising_core::ServiceDate;
    /// let t: SystemTime = ServiceDate::from_millis(-1_500).into();
    /// assert_eq!(UNIX_EPOCH.duration_since(t).unwrap(), Duration::from_millis(1_500));
    /// ```
    fn from(date: ServiceDate) -> Self {
        let magnitude = std::time::Duration::from_millis(date.millis.unsigned_abs());
        if date.millis >= 0 {
            std::time::UNIX_EPOCH + magnitude
        } else {
            std::time::UNIX_EPOCH - magnitude
        }
    }
}

impl TryFrom<std::time::SystemTime> for ServiceDate {
    type Error = Error;

    /// The instant in whole milliseconds (truncated toward the epoch), offset `+0000`;
    /// `invalid_argument` beyond the range of `i64` milliseconds.
    fn try_from(time: std::time::SystemTime) -> Result<Self, Error> {
        let out_of_range = || Error::invalid_argument("date", "out of the range of dates");
        let millis = match time.duration_since(std::time::UNIX_EPOCH) {
            Ok(after) => i64::try_from(after.as_millis()).map_err(|_| out_of_range())?,
            Err(before) => {
                -i64::try_from(before.duration().as_millis()).map_err(|_| out_of_range())?
            }
        };
        Ok(ServiceDate::from_millis(millis))
    }
}

#[cfg(feature = "chrono")]
impl TryFrom<ServiceDate> for chrono::DateTime<chrono::Utc> {
    type Error = Error;

    /// The same instant; `invalid_argument` outside chrono's range of years.
    fn try_from(date: ServiceDate) -> Result<Self, Error> {
        chrono::DateTime::from_timestamp_millis(date.millis)
            .ok_or_else(|| Error::invalid_argument("date", "out of chrono's range of dates"))
    }
}

#[cfg(feature = "chrono")]
impl<Tz: chrono::TimeZone> From<chrono::DateTime<Tz>> for ServiceDate {
    /// The instant in whole milliseconds, offset `+0000`.
    fn from(date: chrono::DateTime<Tz>) -> Self {
        ServiceDate::from_millis(date.timestamp_millis())
    }
}

#[cfg(feature = "time")]
impl TryFrom<ServiceDate> for time::OffsetDateTime {
    type Error = Error;

    /// The same instant, at UTC; `invalid_argument` outside time's range of years.
    fn try_from(date: ServiceDate) -> Result<Self, Error> {
        time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(date.millis) * 1_000_000)
            .map_err(|_| Error::invalid_argument("date", "out of time's range of dates"))
    }
}

#[cfg(feature = "time")]
impl From<time::OffsetDateTime> for ServiceDate {
    /// The instant in whole milliseconds (floored), offset `+0000`.
    fn from(date: time::OffsetDateTime) -> Self {
        // time's range (years -9999 to 9999) is far inside i64 milliseconds.
        ServiceDate::from_millis(date.unix_timestamp_nanos().div_euclid(1_000_000) as i64)
    }
}

impl Serialize for ServiceDate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_json_string())
    }
}

impl<'de> Deserialize<'de> for ServiceDate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DateVisitor;
        impl de::Visitor<'_> for DateVisitor {
            type Value = ServiceDate;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(r"a date string \/Date(<ms>+hhmm)\/")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ServiceDate, E> {
                ServiceDate::parse_json_string(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(DateVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_time_round_trips_on_both_sides_of_the_epoch() {
        for millis in [0, 1, -1, 1_743_761_607_553, DOTNET_MIN_MILLIS] {
            let time: std::time::SystemTime = ServiceDate::from_millis(millis).into();
            assert_eq!(ServiceDate::try_from(time).unwrap().millis, millis);
        }
    }

    #[cfg(feature = "chrono")]
    #[test]
    fn chrono_round_trips() {
        for millis in [0, -1, 1_743_761_607_553, DOTNET_MIN_MILLIS] {
            let date = chrono::DateTime::<chrono::Utc>::try_from(ServiceDate::from_millis(millis))
                .unwrap();
            assert_eq!(date.timestamp_millis(), millis);
            assert_eq!(ServiceDate::from(date).millis, millis);
        }
        assert!(
            chrono::DateTime::<chrono::Utc>::try_from(ServiceDate::from_millis(i64::MAX)).is_err()
        );
    }

    #[cfg(feature = "time")]
    #[test]
    fn time_round_trips() {
        for millis in [0, -1, 1_743_761_607_553, DOTNET_MIN_MILLIS] {
            let date = time::OffsetDateTime::try_from(ServiceDate::from_millis(millis)).unwrap();
            assert_eq!(ServiceDate::from(date).millis, millis);
        }
        assert!(time::OffsetDateTime::try_from(ServiceDate::from_millis(i64::MAX)).is_err());
    }

    #[test]
    fn parses_every_form() {
        let cases = [
            (r"\/Date(1743761607553+0000)\/", 1743761607553, Some(0)),
            ("/Date(1743761607553+0100)/", 1743761607553, Some(60)),
            ("Date(0-0530)", 0, Some(-330)),
            (
                r"\/Date(-62135596800000+0000)\/",
                DOTNET_MIN_MILLIS,
                Some(0),
            ),
            (r"\/Date(-5)\/", -5, None),
            ("/Date(42)/", 42, None),
            ("/Date(-1-2359)/", -1, Some(-1439)),
            ("/Date(8640000000000000)/", MAX_MILLIS, None),
            ("/Date(-8640000000000000)/", -MAX_MILLIS, None),
        ];
        for (input, millis, offset) in cases {
            let d = ServiceDate::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!((d.millis, d.offset_minutes), (millis, offset), "{input}");
        }
    }

    #[test]
    fn rejects_malformed_and_quotes_input() {
        for bad in [
            "",
            "Date()",
            "/Date(-)/",
            "/Date(12+000)/",
            "/Date(12+00000)/",
            "/Date(12+2400)/",
            "/Date(12+0060)/",
            "/Date(1.5)/",
            "/Date(+12)/",
            "/Date(12)",
            r"\/Date(12)/",
            "/Date(99999999999999999999)/",
            // Beyond a JavaScript Date's range.
            "/Date(8640000000000001)/",
            "/Date(-8640000000000001)/",
            "/Date(9223372036854775807)/",
            "/Date(-9223372036854775808)/",
            "/Date(12+0000)/ ",
            "2024-01-01T00:00:00Z",
            "/Date(12 +0000)/",
            "/Date(12+-000)/",
        ] {
            let err = ServiceDate::parse(bad).expect_err(bad);
            assert_eq!(err.code(), "invalid_date");
            assert_eq!(err, Error::InvalidDate { input: bad.into() });
            assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
        }
    }

    #[test]
    fn error_quote_is_bounded() {
        let long = "x".repeat(10_000);
        match ServiceDate::parse(&long) {
            Err(Error::InvalidDate { input }) => assert_eq!(input.len(), QUOTE_LIMIT),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn encodes_in_utc() {
        let d = ServiceDate::parse("/Date(-1000-0800)/").unwrap();
        assert_eq!(d.to_wire(), r"\/Date(-1000+0000)\/");
        assert_eq!(ServiceDate::from_millis(7).to_string(), r"\/Date(7+0000)\/");
        assert_eq!(ServiceDate::default().millis, DOTNET_MIN_MILLIS);
    }

    #[test]
    fn serde_uses_the_string_the_wire_form_decodes_to() {
        let d = ServiceDate::from_millis(1743761607553);
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(json, r#""/Date(1743761607553+0000)/""#);
        assert_eq!(
            crate::json::to_service_text(&serde_json::to_value(d).unwrap()),
            r#""\/Date(1743761607553+0000)\/""#
        );
        let back: ServiceDate = serde_json::from_str(&json).unwrap();
        assert_eq!(back, d);
        // As the service writes it: `\/` is a JSON escape for `/`.
        let wire: ServiceDate = serde_json::from_str(r#""\/Date(5-0100)\/""#).unwrap();
        assert_eq!((wire.millis, wire.offset_minutes), (5, Some(-60)));
        assert!(serde_json::from_str::<ServiceDate>("12").is_err());
        assert!(serde_json::from_str::<ServiceDate>(r#""/Date(x)/""#).is_err());
    }

    #[test]
    fn the_form_as_sent_keeps_the_offset() {
        for text in [
            "/Date(5+0100)/",
            "/Date(-7-0130)/",
            "/Date(9)/",
            "/Date(0+0000)/",
            "/Date(1-2359)/",
        ] {
            let date = ServiceDate::parse(text).unwrap();
            assert_eq!(date.to_json_string_as_sent(), text);
            assert_eq!(ServiceDate::parse_json_string(text).unwrap(), date);
        }
    }

    #[test]
    fn the_serde_form_is_as_strict_as_the_service() {
        for good in [
            "/Date(5+0000)/",
            "/Date(-62135596800000+0000)/",
            "/Date(7-0130)/",
            "/Date(9)/",
        ] {
            assert!(ServiceDate::parse_json_string(good).is_ok(), "{good}");
        }
        // A literal backslash (a double-escaped date), no slashes, or anything else.
        for bad in [
            r"\/Date(5+0000)\/",
            "Date(5)",
            "/Date(5+0000)",
            "/date(5)/",
            "/Date(5+000)/",
            "",
        ] {
            assert_eq!(
                ServiceDate::parse_json_string(bad).unwrap_err().code(),
                "invalid_date",
                "{bad}"
            );
            let json = serde_json::to_string(bad).unwrap();
            assert!(
                serde_json::from_str::<ServiceDate>(&json).is_err(),
                "{json}"
            );
        }
    }
}
