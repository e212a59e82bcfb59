//! The error-body parser never fails and never panics, whatever the status and body: it keeps
//! the status, and its message is never empty (the reason phrase stands in for an empty body).
#![no_main]

use fundraising_core::service_error::parse_error_body;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let status = u16::from_le_bytes(*head);
    let body = String::from_utf8_lossy(rest);
    let error = parse_error_body(status, &body);
    assert_eq!(error.status, status);
    let _ = error.to_string();
});
