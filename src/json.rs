//! Error bodies read by core's rules over the platform's `JSON.parse` (the same tree core's
//! model decoder reads), so the package carries no JSON parser of its own.

use fundraising_core::service_error::parse_error_body_with;
use fundraising_core::ServiceError;

use crate::convert::Node;

/// The service's error answer (`status`, `body`) by core's rules.
pub(crate) fn service_error(status: u16, body: &str) -> ServiceError {
    parse_error_body_with(status, body, |text| {
        js_sys::JSON::parse(text).ok().map(Node::new)
    })
}
