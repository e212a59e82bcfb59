//! What the companion knows of the request it is serving, wherever in its handling it is: the
//! request id, its place in the trace, and the time spent waiting for upstream calls.
//!
//! The request middleware makes one per request and runs the handler inside it (a tokio
//! task-local); the upstream clients read it to pass the ids on, and add their time to it.
//! Work handed to another task (a refresh flight) carries it over with [`scope`].

use super::traceparent::TraceParent;
use rand::RngCore;
use std::fmt::Write as _;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The request id header, read from the request (when usable), answered back and passed on.
pub const REQUEST_ID: &str = "x-request-id";
/// Longest request id taken from a client; a longer one is replaced.
pub const MAX_REQUEST_ID: usize = 128;

/// The request being served.
#[derive(Debug)]
pub struct RequestContext {
    /// The request id: the client's `X-Request-Id` when it is usable, else a new one.
    pub request_id: String,
    /// The companion's span of this request: the incoming trace (or a new one), a span id of
    /// its own.
    pub trace: TraceParent,
    /// Time spent in upstream calls, in microseconds.
    upstream_us: AtomicU64,
}

tokio::task_local! {
    static CURRENT: Arc<RequestContext>;
}

/// Whether a client's request id can be logged and passed on as it is: 1 to
/// [`MAX_REQUEST_ID`] visible ASCII characters (no spaces, no quotes, no backslash), so that it
/// cannot break a log line or a header.
pub fn usable_request_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_REQUEST_ID
        && id
            .bytes()
            .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
}

/// A new request id: 16 random bytes in hex.
pub fn new_request_id() -> String {
    let mut bytes = [0u8; 16];
    rand::thread_rng().fill_bytes(&mut bytes);
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

impl RequestContext {
    /// The context of a request whose `X-Request-Id` is `request_id` (absent or unusable: a
    /// new id is made) and whose span is `trace`.
    pub fn new(request_id: Option<&str>, trace: TraceParent) -> Self {
        let request_id = match request_id {
            Some(id) if usable_request_id(id) => id.to_owned(),
            _ => new_request_id(),
        };
        Self {
            request_id,
            trace,
            upstream_us: AtomicU64::new(0),
        }
    }

    /// Adds the time of one upstream call.
    pub fn add_upstream(&self, took: Duration) {
        self.upstream_us
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
    }

    /// Time spent in upstream calls so far.
    pub fn upstream(&self) -> Duration {
        Duration::from_micros(self.upstream_us.load(Ordering::Relaxed))
    }
}

/// The request being served by this task, if any.
pub fn current() -> Option<Arc<RequestContext>> {
    CURRENT.try_with(Arc::clone).ok()
}

/// Runs `future` as part of the request `context`.
pub fn scope<F: Future>(
    context: Arc<RequestContext>,
    future: F,
) -> impl Future<Output = F::Output> {
    CURRENT.scope(context, future)
}

/// Runs `future` as part of the current request, if any (for work handed to another task).
pub fn carry<F: Future>(future: F) -> impl Future<Output = F::Output> {
    let context = current();
    async move {
        match context {
            Some(context) => CURRENT.scope(context, future).await,
            None => future.await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clients_request_id_is_kept_only_when_it_is_safe_to_log_and_pass_on() {
        assert_eq!(
            RequestContext::new(Some("abc-123_X.y"), TraceParent::new_root()).request_id,
            "abc-123_X.y"
        );
        for bad in [
            "",
            "with space",
            "quote\"",
            "back\\slash",
            "new\nline",
            &"a".repeat(129),
        ] {
            let made = RequestContext::new(Some(bad), TraceParent::new_root()).request_id;
            assert_ne!(made, bad);
            assert_eq!(made.len(), 32);
        }
    }
}
