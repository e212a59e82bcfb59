//! fundraising-serve: the one serving loop of the companion and of the sandbox's two
//! listeners, so that slow or idle clients cannot starve them.
//!
//! [`serve`] runs an axum [`Router`](axum::Router) on a bound listener with hyper's HTTP/1
//! connection builder and the [`Limits`]: a header-read timeout (hyper's own, with tokio's
//! timer), a cap on the request head (hyper's buffer, answered `431`), an idle timeout on
//! every socket read and write, a request timeout (tower's), a cap on open connections (the
//! listener stops accepting at the cap) and graceful shutdown with a deadline after which the
//! remaining connections are closed. A request hyper refuses before any handler sees it is
//! logged (target `fundraising_serve::refused`). [`ListenerFlags`] declares the limits as
//! command-line flags once, for every server. [`shutdown_signal`] is the Ctrl-C / SIGTERM future both
//! binaries pass to it.
//!
//! [`serve_on`] is the same loop with each connection served on one of several
//! single-threaded runtimes ([`ConnectionThreads`]) instead of on the runtime that accepts: a
//! connection's requests then never hop between threads (the companion serves this way).

mod flags;
mod idle;
mod limits;
mod server;
mod signal;
mod threads;

pub use flags::{LimitEnv, ListenerFlags};
pub use limits::{
    Limits, DEFAULT_HEADER_READ_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_HEADER_BYTES, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_SHUTDOWN_TIMEOUT_MS,
    MAX_MAX_HEADER_BYTES, MIN_MAX_HEADER_BYTES,
};
pub use server::{serve, serve_on};
pub use signal::shutdown_signal;
pub use threads::ConnectionThreads;
