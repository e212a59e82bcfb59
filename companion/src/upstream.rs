//! The HTTP clients of the upstream calls (identity server, and the resource API in BFF mode):
//! one per serving thread.

use crate::error::Error;
use std::time::Duration;
use thread_local::ThreadLocal;

/// An HTTP client for each thread that uses it, all with the same settings: the upstream
/// timeout, no redirects followed, the companion's user agent.
///
/// A client's pooled connections are served by tasks on the thread that opened them. With one
/// client for every thread, a request served on one thread would often go out on a connection
/// another thread opened, and each upstream call would then wake that thread twice. With a
/// client per thread (the companion serves each connection on one thread, see
/// `fundraising_serve::ConnectionThreads`), a request and its upstream calls stay on one thread.
pub(crate) struct Upstream {
    timeout: Duration,
    /// The client built at start, which proves the settings work; handed out on a thread
    /// whose own client cannot be built.
    first: reqwest::Client,
    per_thread: ThreadLocal<reqwest::Client>,
}

impl Upstream {
    /// Clients with `timeout` on each call (connecting included).
    pub(crate) fn new(timeout: Duration) -> Result<Self, Error> {
        let first = build(timeout)
            .map_err(|e| Error::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self {
            timeout,
            first,
            per_thread: ThreadLocal::new(),
        })
    }

    /// The calling thread's client (built on its first call).
    pub(crate) fn client(&self) -> &reqwest::Client {
        self.per_thread
            .get_or(|| build(self.timeout).unwrap_or_else(|_| self.first.clone()))
    }
}

fn build(timeout: Duration) -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("fundraising-companion/", env!("CARGO_PKG_VERSION")))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_thread_has_its_own_client_and_keeps_it() {
        let upstream = Upstream::new(Duration::from_secs(1)).unwrap();
        let here = upstream.client() as *const reqwest::Client;
        assert_eq!(upstream.client() as *const reqwest::Client, here);
        let there = std::thread::scope(|s| {
            s.spawn(|| upstream.client() as *const reqwest::Client as usize)
                .join()
                .unwrap()
        });
        assert_ne!(there, here as usize);
    }
}
