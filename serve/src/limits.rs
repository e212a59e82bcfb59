//! The limits every listener runs with, and their defaults.

use std::time::Duration;

/// Default of [`Limits::header_read_timeout`], in milliseconds (10 s).
pub const DEFAULT_HEADER_READ_TIMEOUT_MS: u64 = 10_000;
/// Default of [`Limits::idle_timeout`], in milliseconds (60 s).
pub const DEFAULT_IDLE_TIMEOUT_MS: u64 = 60_000;
/// Default of [`Limits::request_timeout`], in milliseconds (60 s).
pub const DEFAULT_REQUEST_TIMEOUT_MS: u64 = 60_000;
/// Default of [`Limits::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Default of [`Limits::shutdown_timeout`], in milliseconds (10 s).
pub const DEFAULT_SHUTDOWN_TIMEOUT_MS: u64 = 10_000;
/// Default of [`Limits::max_header_bytes`]: 16 KiB, Node.js's default. A browser's request
/// head, cookies included, is far smaller; 1,000 unfinished heads then hold about 16 MiB.
pub const DEFAULT_MAX_HEADER_BYTES: usize = 16 * 1024;
/// Smallest [`Limits::max_header_bytes`] (hyper reads at least this much at once).
pub const MIN_MAX_HEADER_BYTES: usize = 8 * 1024;
/// Largest [`Limits::max_header_bytes`].
pub const MAX_MAX_HEADER_BYTES: usize = 64 * 1024;

/// How long a client may take, how much of a request head it may send, and how many may be
/// connected at once.
///
/// ```
/// let limits = fundraising_serve::Limits::from_millis(500, 2_000, 5_000, 16, 1_000);
/// assert_eq!(limits.request_timeout, std::time::Duration::from_secs(5));
/// assert_eq!(limits.max_connections, 16);
/// assert_eq!(limits.max_header_bytes, fundraising_serve::DEFAULT_MAX_HEADER_BYTES);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Time to receive a whole request head (request line and headers), counted from when the
    /// server starts waiting for it: on a new connection and between the requests of a
    /// kept-alive one. A connection that sends nothing, or trickles its headers, is closed.
    pub header_read_timeout: Duration,
    /// Time a socket read or write may wait without progress: a request body that stops
    /// arriving, a client that stops reading the answer. The server keeps a read open while a
    /// request is handled (to notice a client that goes away), so this also bounds how long
    /// one request may take.
    pub idle_timeout: Duration,
    /// Time from a request's head to its answer's head, the body read included: a body
    /// trickled slowly enough to beat the idle timeout is still cut here. The connection is
    /// closed without an answer.
    pub request_timeout: Duration,
    /// Open connections at most; at the cap the listener stops accepting until one closes
    /// (waiting clients queue in the kernel's backlog). One HTTP/1 connection carries one
    /// request at a time, so this also caps the requests handled at once.
    pub max_connections: usize,
    /// Largest request head (request line and headers) a connection may send, and so the most
    /// it makes the server buffer; a longer one is answered `431 Request Header Fields Too
    /// Large` and the connection closed. Between [`MIN_MAX_HEADER_BYTES`] and
    /// [`MAX_MAX_HEADER_BYTES`].
    pub max_header_bytes: usize,
    /// After the shutdown signal: time the open connections get to finish their requests;
    /// those still open then are closed.
    pub shutdown_timeout: Duration,
}

impl Limits {
    /// Limits from the flag values (milliseconds); zeros are raised to 1 (ms or connection).
    /// The request head may hold [`DEFAULT_MAX_HEADER_BYTES`].
    pub fn from_millis(
        header_read_timeout_ms: u64,
        idle_timeout_ms: u64,
        request_timeout_ms: u64,
        max_connections: usize,
        shutdown_timeout_ms: u64,
    ) -> Self {
        let ms = |v: u64| Duration::from_millis(v.max(1));
        Self {
            header_read_timeout: ms(header_read_timeout_ms),
            idle_timeout: ms(idle_timeout_ms),
            request_timeout: ms(request_timeout_ms),
            max_connections: max_connections.max(1),
            max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
            shutdown_timeout: ms(shutdown_timeout_ms),
        }
    }

    /// The same limits with request heads of at most `bytes`, kept between
    /// [`MIN_MAX_HEADER_BYTES`] and [`MAX_MAX_HEADER_BYTES`].
    pub fn with_max_header_bytes(mut self, bytes: usize) -> Self {
        self.max_header_bytes = bytes.clamp(MIN_MAX_HEADER_BYTES, MAX_MAX_HEADER_BYTES);
        self
    }

    /// The small limits of a listener only a scraper or a probe calls (a metrics address):
    /// 8 KiB heads, 16 connections, 5 s to send a head, 10 s idle or per request; the
    /// shutdown deadline is this one's.
    pub fn internal(&self) -> Self {
        Self {
            header_read_timeout: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
            max_connections: 16,
            max_header_bytes: MIN_MAX_HEADER_BYTES,
            shutdown_timeout: self.shutdown_timeout,
        }
    }
}

impl Default for Limits {
    /// Header read 10 s, idle 60 s, request 60 s, 1024 connections, 16 KiB heads, shutdown
    /// deadline 10 s.
    fn default() -> Self {
        Self::from_millis(
            DEFAULT_HEADER_READ_TIMEOUT_MS,
            DEFAULT_IDLE_TIMEOUT_MS,
            DEFAULT_REQUEST_TIMEOUT_MS,
            DEFAULT_MAX_CONNECTIONS,
            DEFAULT_SHUTDOWN_TIMEOUT_MS,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_zeros() {
        let limits = Limits::default();
        assert_eq!(limits.header_read_timeout, Duration::from_secs(10));
        assert_eq!(limits.idle_timeout, Duration::from_secs(60));
        assert_eq!(limits.request_timeout, Duration::from_secs(60));
        assert_eq!(limits.max_connections, 1024);
        assert_eq!(limits.max_header_bytes, 16 * 1024);
        assert_eq!(limits.shutdown_timeout, Duration::from_secs(10));
        let raised = Limits::from_millis(0, 0, 0, 0, 0);
        assert_eq!(raised.header_read_timeout, Duration::from_millis(1));
        assert_eq!(raised.max_connections, 1);
        assert_eq!(limits.with_max_header_bytes(1).max_header_bytes, 8 * 1024);
        assert_eq!(
            limits.with_max_header_bytes(1 << 20).max_header_bytes,
            64 * 1024
        );
        let internal = limits.internal();
        assert_eq!(internal.max_connections, 16);
        assert_eq!(internal.max_header_bytes, 8 * 1024);
        assert_eq!(internal.shutdown_timeout, limits.shutdown_timeout);
    }
}
