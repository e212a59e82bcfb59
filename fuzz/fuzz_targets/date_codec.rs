//! The `\/Date(ms±hhmm)\/` codec: parsing any text never panics; whatever parses encodes back
//! to a wire form that parses to the same instant (also through serde as a JSON string); and
//! every i64 within `MAX_MILLIS` of the epoch survives from_millis -> to_wire -> parse, while
//! one beyond it is refused as `InvalidDate`.
#![no_main]

use fundraising_core::date::MAX_MILLIS;
use fundraising_core::{Error, ServiceDate};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(date) = ServiceDate::parse(text) {
            let wire = date.to_wire();
            let back = ServiceDate::parse(&wire).expect("to_wire output parses");
            assert_eq!(back.millis, date.millis, "{text:?} -> {wire:?}");
            assert_eq!(back.offset_minutes, Some(0));
            let json = serde_json::to_string(&date).expect("serialises");
            let de: ServiceDate = serde_json::from_str(&json).expect("own JSON deserialises");
            assert_eq!(de.millis, date.millis, "{json}");
        }
        // The same text inside a JSON string goes through the serde path too.
        let quoted = serde_json::to_string(text).expect("a str serialises");
        let _ = serde_json::from_str::<ServiceDate>(&quoted);
    }
    if let Some(bytes) = data.get(..8) {
        let mut raw = [0u8; 8];
        raw.copy_from_slice(bytes);
        let millis = i64::from_le_bytes(raw);
        let wire = ServiceDate::from_millis(millis).to_wire();
        let in_range = millis.unsigned_abs() <= MAX_MILLIS as u64;
        match (ServiceDate::parse(&wire), in_range) {
            (Ok(back), true) => assert_eq!(back.millis, millis, "{wire}"),
            (Err(Error::InvalidDate { .. }), false) => {}
            (other, _) => panic!("{wire} (within the range: {in_range}): {other:?}"),
        }
    }
});
