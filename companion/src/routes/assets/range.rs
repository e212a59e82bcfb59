//! The `Range` header of a `GET` for a static file, read as RFC 9110 §14 says.
//!
//! One byte range is served as `206 Partial Content`. A header the companion does not act on
//! is ignored and the whole file is sent (`200`), as §14.2 allows: a unit other than `bytes`
//! (which a server MUST ignore), a malformed ranges-specifier, or several ranges (the
//! companion sends no `multipart/byteranges`). A last position beyond the file, however many
//! digits it has, is clamped to the file's end (§14.1.2). Only a single range that starts at
//! or past the end, or a suffix of zero bytes, is unsatisfiable (`416`).

/// What to send for a `Range` header, given the selected file's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ranged {
    /// The whole file (`200`): no header, or one that is ignored.
    Whole,
    /// The bytes `first..=last` (`206`).
    Part {
        /// The first byte sent.
        first: u64,
        /// The last byte sent (inclusive, below the length).
        last: u64,
    },
    /// No byte of the file is in the range (`416`).
    Unsatisfiable,
}

/// A decimal position; more digits than a `u64` holds saturate (the position is past any
/// file). `None` unless it is one or more ASCII digits.
fn position(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.parse().unwrap_or(u64::MAX))
}

/// Reads `header` (the value of `Range`) against a file of `len` bytes.
pub fn parse(header: &str, len: u64) -> Ranged {
    let Some((unit, set)) = header.split_once('=') else {
        return Ranged::Whole;
    };
    if !unit.eq_ignore_ascii_case("bytes") {
        return Ranged::Whole;
    }
    // `1#range-spec`: empty list elements (and the spaces around commas) are allowed.
    let mut specs = set.split(',').map(str::trim).filter(|s| !s.is_empty());
    let (Some(spec), None) = (specs.next(), specs.next()) else {
        return Ranged::Whole;
    };
    let Some((first, last)) = spec.split_once('-') else {
        return Ranged::Whole;
    };
    if first.is_empty() {
        // A suffix: the last `n` bytes (the whole file when it is shorter).
        return match position(last) {
            None => Ranged::Whole,
            Some(0) => Ranged::Unsatisfiable,
            Some(_) if len == 0 => Ranged::Unsatisfiable,
            Some(n) => Ranged::Part {
                first: len.saturating_sub(n),
                last: len - 1,
            },
        };
    }
    let Some(first) = position(first) else {
        return Ranged::Whole;
    };
    let last = if last.is_empty() {
        u64::MAX
    } else {
        match position(last) {
            Some(last) if last >= first => last,
            // `first > last` is an invalid range-spec: ignored.
            _ => return Ranged::Whole,
        }
    };
    if first >= len {
        return Ranged::Unsatisfiable;
    }
    Ranged::Part {
        first,
        last: last.min(len - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_byte_range_is_served_and_clamped() {
        assert_eq!(parse("bytes=0-1", 10), Ranged::Part { first: 0, last: 1 });
        assert_eq!(parse("bytes=5-", 10), Ranged::Part { first: 5, last: 9 });
        assert_eq!(parse("bytes=-3", 10), Ranged::Part { first: 7, last: 9 });
        assert_eq!(parse("bytes=-30", 10), Ranged::Part { first: 0, last: 9 });
        assert_eq!(parse("BYTES=2-4", 10), Ranged::Part { first: 2, last: 4 });
        assert_eq!(
            parse("bytes= 2-4 ,", 10),
            Ranged::Part { first: 2, last: 4 }
        );
        // A last position beyond the file, with more digits than any integer: the end.
        assert_eq!(
            parse("bytes=0-99999999999999999999", 10),
            Ranged::Part { first: 0, last: 9 }
        );
        assert_eq!(
            parse("bytes=3-18446744073709551615", 10),
            Ranged::Part { first: 3, last: 9 }
        );
    }

    #[test]
    fn other_units_bad_syntax_and_several_ranges_are_ignored() {
        for header in [
            "items=0-1",
            "bytes",
            "bytes=",
            "bytes=a-b",
            "bytes=5-2",
            "bytes=1-2-3",
            "bytes=-",
            "bytes=0-1,5-9",
            "bytes=+1-2",
            "bytes=1 -2",
        ] {
            assert_eq!(parse(header, 10), Ranged::Whole, "{header}");
        }
    }

    #[test]
    fn only_a_range_outside_the_file_is_unsatisfiable() {
        assert_eq!(parse("bytes=10-", 10), Ranged::Unsatisfiable);
        assert_eq!(parse("bytes=10-20", 10), Ranged::Unsatisfiable);
        assert_eq!(
            parse("bytes=99999999999999999999-", 10),
            Ranged::Unsatisfiable
        );
        assert_eq!(parse("bytes=-0", 10), Ranged::Unsatisfiable);
        assert_eq!(parse("bytes=0-0", 0), Ranged::Unsatisfiable);
        assert_eq!(parse("bytes=-5", 0), Ranged::Unsatisfiable);
    }
}
