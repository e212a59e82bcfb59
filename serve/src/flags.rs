//! The listener limits as command-line flags, one declaration for every server: each binary
//! flattens [`ListenerFlags`] into its own flags (`#[command(flatten)]`), with environment
//! variables under its own prefix ([`limit_env!`](crate::limit_env)).

use crate::limits::{
    Limits, DEFAULT_HEADER_READ_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_HEADER_BYTES, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_SHUTDOWN_TIMEOUT_MS,
    MAX_MAX_HEADER_BYTES, MIN_MAX_HEADER_BYTES,
};
use std::fmt::Debug;
use std::marker::PhantomData;

/// The environment variables of a server's limit flags (made by [`limit_env!`](crate::limit_env)).
pub trait LimitEnv: Debug + Clone + Send + Sync + 'static {
    /// Of `--header-read-timeout-ms`.
    const HEADER_READ_TIMEOUT_MS: &'static str;
    /// Of `--idle-timeout-ms`.
    const IDLE_TIMEOUT_MS: &'static str;
    /// Of `--request-timeout-ms`.
    const REQUEST_TIMEOUT_MS: &'static str;
    /// Of `--max-connections`.
    const MAX_CONNECTIONS: &'static str;
    /// Of `--max-header-bytes`.
    const MAX_HEADER_BYTES: &'static str;
    /// Of `--drain-timeout-ms`.
    const DRAIN_TIMEOUT_MS: &'static str;
}

/// Declares a [`LimitEnv`] whose variables are `PREFIX_HEADER_READ_TIMEOUT_MS`, ...:
///
/// ```
/// fundraising_serve::limit_env!(
///     /// The companion's variables.
///     pub CompanionEnv, "COMPANION"
/// );
/// use fundraising_serve::LimitEnv;
/// assert_eq!(CompanionEnv::MAX_HEADER_BYTES, "COMPANION_MAX_HEADER_BYTES");
/// ```
#[macro_export]
macro_rules! limit_env {
    ($(#[$meta:meta])* $vis:vis $name:ident, $prefix:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone)]
        $vis struct $name;

        impl $crate::LimitEnv for $name {
            const HEADER_READ_TIMEOUT_MS: &'static str = concat!($prefix, "_HEADER_READ_TIMEOUT_MS");
            const IDLE_TIMEOUT_MS: &'static str = concat!($prefix, "_IDLE_TIMEOUT_MS");
            const REQUEST_TIMEOUT_MS: &'static str = concat!($prefix, "_REQUEST_TIMEOUT_MS");
            const MAX_CONNECTIONS: &'static str = concat!($prefix, "_MAX_CONNECTIONS");
            const MAX_HEADER_BYTES: &'static str = concat!($prefix, "_MAX_HEADER_BYTES");
            const DRAIN_TIMEOUT_MS: &'static str = concat!($prefix, "_DRAIN_TIMEOUT_MS");
        }
    };
}

/// The listener-limit flags of a server, each also an environment variable named by `E`.
#[derive(Debug, Clone, clap::Args)]
pub struct ListenerFlags<E: LimitEnv> {
    /// Time a client has to send a whole request head (also the wait for the next request on a
    /// kept-alive connection), in milliseconds; then the connection is closed.
    #[arg(long, env = E::HEADER_READ_TIMEOUT_MS, default_value_t = DEFAULT_HEADER_READ_TIMEOUT_MS)]
    pub header_read_timeout_ms: u64,
    /// Time a socket read or write may wait without progress (a stalled body, a client that
    /// stops reading, a request taking longer), in milliseconds; then the connection is closed.
    #[arg(long, env = E::IDLE_TIMEOUT_MS, default_value_t = DEFAULT_IDLE_TIMEOUT_MS)]
    pub idle_timeout_ms: u64,
    /// Time from a request's head to its answer's head (the body read included), in
    /// milliseconds; then the connection is closed without an answer.
    #[arg(long, env = E::REQUEST_TIMEOUT_MS, default_value_t = DEFAULT_REQUEST_TIMEOUT_MS)]
    pub request_timeout_ms: u64,
    /// Open connections at most, on each listener; at the cap new clients wait until one closes.
    #[arg(long, env = E::MAX_CONNECTIONS, default_value_t = DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Largest request head (request line and headers) in bytes, 8192 to 65536; a longer one
    /// is answered 431 and its connection closed. Bounds what a client makes the server buffer.
    #[arg(
        long,
        env = E::MAX_HEADER_BYTES,
        default_value_t = DEFAULT_MAX_HEADER_BYTES as u64,
        value_parser = clap::value_parser!(u64).range(MIN_MAX_HEADER_BYTES as u64..=MAX_MAX_HEADER_BYTES as u64)
    )]
    pub max_header_bytes: u64,
    /// On SIGTERM or Ctrl-C the server drains: its listeners close, and requests in flight get
    /// this long to finish (in milliseconds); connections still open then are closed and the
    /// process exits 0.
    #[arg(
        long = "drain-timeout-ms",
        visible_alias = "drain-timeout",
        alias = "shutdown-timeout-ms",
        env = E::DRAIN_TIMEOUT_MS,
        default_value_t = DEFAULT_SHUTDOWN_TIMEOUT_MS
    )]
    pub drain_timeout_ms: u64,
    #[arg(skip)]
    _env: PhantomData<E>,
}

impl<E: LimitEnv> ListenerFlags<E> {
    /// The limits these flags give.
    pub fn limits(&self) -> Limits {
        Limits::from_millis(
            self.header_read_timeout_ms,
            self.idle_timeout_ms,
            self.request_timeout_ms,
            self.max_connections,
            self.drain_timeout_ms,
        )
        .with_max_header_bytes(usize::try_from(self.max_header_bytes).unwrap_or(usize::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use std::time::Duration;

    crate::limit_env!(TestEnv, "TEST_SERVER");

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        limits: ListenerFlags<TestEnv>,
    }

    #[test]
    fn flags_give_the_limits_and_name_their_variables() {
        let defaults = Cli::try_parse_from(["server"]).unwrap().limits.limits();
        assert_eq!(defaults, Limits::default());
        let cli = Cli::try_parse_from([
            "server",
            "--header-read-timeout-ms",
            "500",
            "--idle-timeout-ms",
            "2000",
            "--request-timeout-ms",
            "4000",
            "--max-connections",
            "8",
            "--max-header-bytes",
            "16384",
            "--drain-timeout",
            "300",
        ])
        .unwrap();
        let limits = cli.limits.limits();
        assert_eq!(limits.header_read_timeout, Duration::from_millis(500));
        assert_eq!(limits.idle_timeout, Duration::from_millis(2000));
        assert_eq!(limits.request_timeout, Duration::from_millis(4000));
        assert_eq!(limits.max_connections, 8);
        assert_eq!(limits.max_header_bytes, 16384);
        assert_eq!(limits.shutdown_timeout, Duration::from_millis(300));
        for too_far in ["8191", "65537"] {
            assert!(Cli::try_parse_from(["server", "--max-header-bytes", too_far]).is_err());
        }
        let old = Cli::try_parse_from(["server", "--shutdown-timeout-ms", "70"]).unwrap();
        assert_eq!(
            old.limits.limits().shutdown_timeout,
            Duration::from_millis(70)
        );
        let command = <Cli as clap::CommandFactory>::command();
        let envs: Vec<String> = command
            .get_arguments()
            .filter_map(|a| a.get_env())
            .map(|e| e.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            envs,
            [
                "TEST_SERVER_HEADER_READ_TIMEOUT_MS",
                "TEST_SERVER_IDLE_TIMEOUT_MS",
                "TEST_SERVER_REQUEST_TIMEOUT_MS",
                "TEST_SERVER_MAX_CONNECTIONS",
                "TEST_SERVER_MAX_HEADER_BYTES",
                "TEST_SERVER_DRAIN_TIMEOUT_MS",
            ]
        );
    }
}
