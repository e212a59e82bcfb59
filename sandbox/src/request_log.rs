//! The log of recent requests that tests read (`GET /_sandbox/requests`): what was asked and
//! answered, never a secret. It keeps method, path, the query's parameter names (not their
//! values), status, time, duration, the application, the endpoint, the grant type of token
//! requests and the fault met; never a header, a body, a token, a code, a password or a
//! cookie. It holds the last [`MAX_LOGGED_REQUESTS`] requests.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use serde::Serialize;

use crate::faults::{Endpoint, Listener};

/// Most requests the log keeps; the oldest goes first.
pub const MAX_LOGGED_REQUESTS: usize = 1000;
/// Longest path kept, in bytes (longer ones are cut).
const MAX_PATH_BYTES: usize = 256;
/// Most query parameter names kept per request.
const MAX_QUERY_NAMES: usize = 32;

/// One request, as the log keeps it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct LoggedRequest {
    /// Its number: ascending, never reused (`since` in the query takes those after one).
    pub id: u64,
    /// When it came, in milliseconds since the epoch on the sandbox's clock.
    pub at_ms: i64,
    /// `api` or `identity`.
    pub listener: Listener,
    /// The method.
    pub method: String,
    /// The path (never a query).
    pub path: String,
    /// The names of the query's parameters, in order.
    pub query: Vec<String>,
    /// The status answered; `null` when no answer went out (a fault dropped the connection,
    /// or the client went away first).
    pub status: Option<u16>,
    /// Time to the answer's head, in milliseconds.
    pub duration_ms: u64,
    /// The application it named, when known.
    pub app_id: Option<String>,
    /// The endpoint, when it is one.
    pub endpoint: Option<Endpoint>,
    /// `authorization_code` or `refresh_token`, on the token endpoint.
    pub grant_type: Option<String>,
    /// The id of the fault it met, if any.
    pub fault: Option<u64>,
}

impl LoggedRequest {
    /// A log entry for a request (its id is given when it is recorded): the path cut to 256
    /// bytes, and only the names of the query's parameters.
    pub fn new(listener: Listener, method: &str, path: &str, query: Option<&str>) -> Self {
        let mut end = path.len().min(MAX_PATH_BYTES);
        while !path.is_char_boundary(end) {
            end -= 1;
        }
        let query = query
            .unwrap_or("")
            .split('&')
            .filter(|pair| !pair.is_empty())
            .filter_map(|pair| {
                let name = pair.split('=').next()?;
                let name = percent_encoding::percent_decode_str(&name.replace('+', " "))
                    .decode_utf8_lossy()
                    .into_owned();
                Some(name.chars().take(64).collect())
            })
            .take(MAX_QUERY_NAMES)
            .collect();
        Self {
            id: 0,
            at_ms: 0,
            listener,
            method: method.to_owned(),
            path: path[..end].to_owned(),
            query,
            status: None,
            duration_ms: 0,
            app_id: None,
            endpoint: None,
            grant_type: None,
            fault: None,
        }
    }
}

/// Which entries a reader wants.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogFilter {
    /// Only those after this id.
    pub since: Option<u64>,
    /// Only this listener (`api` or `identity`).
    pub listener: Option<String>,
    /// Only this endpoint.
    pub endpoint: Option<String>,
    /// Only this application.
    pub app_id: Option<String>,
    /// Only this path.
    pub path: Option<String>,
    /// Only this method.
    pub method: Option<String>,
}

impl LogFilter {
    fn accepts(&self, entry: &LoggedRequest) -> bool {
        let listener = match entry.listener {
            Listener::Api => "api",
            Listener::Identity => "identity",
        };
        self.since.is_none_or(|s| entry.id > s)
            && self.listener.as_deref().is_none_or(|l| l == listener)
            && self
                .endpoint
                .as_deref()
                .is_none_or(|e| entry.endpoint.is_some_and(|x| x.name() == e))
            && self
                .app_id
                .as_deref()
                .is_none_or(|a| entry.app_id.as_deref() == Some(a))
            && self.path.as_deref().is_none_or(|p| entry.path == p)
            && self
                .method
                .as_deref()
                .is_none_or(|m| entry.method.eq_ignore_ascii_case(m))
    }
}

#[derive(Debug, Default)]
struct Inner {
    entries: VecDeque<LoggedRequest>,
    last_id: u64,
}

/// The last [`MAX_LOGGED_REQUESTS`] requests of both listeners.
#[derive(Debug, Default)]
pub struct RequestLog {
    inner: Mutex<Inner>,
}

impl RequestLog {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a request, giving it the next id; the oldest entry goes beyond the bound.
    pub fn record(&self, mut entry: LoggedRequest) {
        let mut inner = self.lock();
        inner.last_id += 1;
        entry.id = inner.last_id;
        inner.entries.push_back(entry);
        while inner.entries.len() > MAX_LOGGED_REQUESTS {
            inner.entries.pop_front();
        }
    }

    /// The entries `filter` accepts, oldest first, and the id of the last request recorded.
    pub fn read(&self, filter: &LogFilter) -> (Vec<LoggedRequest>, u64) {
        let inner = self.lock();
        let entries = inner
            .entries
            .iter()
            .filter(|e| filter.accepts(e))
            .cloned()
            .collect();
        (entries, inner.last_id)
    }

    /// Forgets every entry (ids go on from where they were).
    pub fn clear(&self) -> usize {
        std::mem::take(&mut self.lock().entries).len()
    }
}
