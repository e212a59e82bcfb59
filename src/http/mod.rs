//! HTTP over the platform's `fetch`: one request with timeout and abort, and the retry policy.

mod early;
mod fetch;

pub(crate) use fetch::{send, HttpRequest, HttpResponse, Method};

cfg_operations! {
    mod retry;
    pub(crate) use retry::send_with_retry;
}
