//! One upstream call per key across every instance, through Redis (`--redis-url`).
//!
//! Each key (a refresh token) has one Redis entry, named by the SHA-256 of the key:
//!
//! - `P:<flight>` while a call runs: the claim, taken with an atomic script (`SET ... PX`
//!   when the entry is absent or holds a failure), lapsing after `lock` if its instance dies;
//! - `D:<flight>:<sealed outcome>` for `grace` after a call whose outcome is kept (a
//!   successful refresh): every instance answers it to requests still carrying that key;
//! - `F:<flight>:<sealed outcome>` for a few seconds after any other outcome: given to the
//!   requests that waited for that very flight, while a newcomer claims the key again (so a
//!   failure is retried by the next caller, as in [`super::SingleFlight`]).
//!
//! - `R:<flight>` after a claim whose answer was lost (Redis stalled past the answer timeout):
//!   the claim is given up at once, so that a claim Redis carries out late, once it wakes,
//!   leaves nothing that would make the next refresh wait for a flight nobody runs.
//!
//! Outcomes are sealed with the cookie key together with an absolute expiry ([`seal`]).
//! Waiters poll the entry until a deadline.
//!
//! A successful call whose outcome cannot be stored (Redis went away during the call) is
//! still the caller's answer; the outcome is kept in memory, answered to this instance's late
//! requests for the same key meanwhile, and stored as soon as Redis answers again (for at
//! most [`RECONCILE_WINDOW`]). A command that fails because the connection dropped (Redis
//! restarted) is sent once more, on the connection the manager makes anew.

mod commands;
mod entry;
mod seal;
mod store;

use crate::clock::Clock;
use crate::metrics::Metrics;
use crate::session::key::CookieKey;
use crate::session::single_flight::Part;
use entry::{parse, Entry, CLAIM, PUBLISH, RELEASE, TAKE_STALE};
use rand::RngCore;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Script};
use seal::{open, Opened};
use serde::de::DeserializeOwned;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;
use store::Store;
use tokio::time::Instant;

pub(crate) use store::retried;
pub use store::{MAX_UNSTORED, RECONCILE_WINDOW};

/// Prefix of every Redis key the companion writes.
pub const KEY_PREFIX: &str = "fundraising-companion:flight:";
/// Time to open a connection to Redis, and to wait for each answer.
pub const REDIS_TIMEOUT: Duration = Duration::from_millis(1000);
/// First and longest pause between two reads of a running flight.
const POLL_FIRST: Duration = Duration::from_millis(5);
const POLL_MAX: Duration = Duration::from_millis(40);

/// Why a shared flight gave no outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FlightError {
    /// Redis could not be reached, did not answer in time, or held an entry this instance
    /// cannot open (another cookie key).
    #[error("the session store (Redis) is unavailable")]
    StoreUnavailable,
    /// The flight another instance runs did not end within the deadline.
    #[error("the shared refresh did not finish in time")]
    TimedOut,
    /// The task running the call died.
    #[error("the refresh task died")]
    Lost,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Runs at most one call per key at a time across every instance sharing one Redis and one
/// cookie key; callers arriving while it runs, or within the grace period after a kept
/// outcome, get that outcome. The Redis counterpart of [`super::SingleFlight`].
pub struct SharedFlight<T> {
    store: Store,
    lock: Duration,
    keep: fn(&T) -> bool,
    claim: Script,
    take_stale: Script,
    release: Script,
    _outcome: PhantomData<fn() -> T>,
}

impl<T: Serialize + DeserializeOwned + Send + Sync + 'static> SharedFlight<T> {
    /// A group on the Redis at `url` (`redis://[:password@]host:port[/db]` or
    /// `redis+unix:///path`); no connection is made yet, and a lost one is made again.
    /// Outcomes for which `keep` is true are shared for `grace` (from the end of the call);
    /// a claim lapses after `lock` (longer than any call can take). Redis commands are counted
    /// in `metrics`; sealed expiries are counted on `clock`.
    pub fn new(
        url: &str,
        key: CookieKey,
        grace: Duration,
        lock: Duration,
        keep: fn(&T) -> bool,
        metrics: Option<Arc<Metrics>>,
        clock: Clock,
    ) -> Result<Self, redis::RedisError> {
        let client = Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(REDIS_TIMEOUT))
            .set_response_timeout(Some(REDIS_TIMEOUT))
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(200));
        let redis = ConnectionManager::new_lazy_with_config(client, config)?;
        Ok(Self {
            store: Store {
                redis,
                key,
                grace,
                publish: Script::new(PUBLISH),
                backlog: Arc::default(),
                metrics,
                clock,
            },
            lock,
            keep,
            claim: Script::new(CLAIM),
            take_stale: Script::new(TAKE_STALE),
            release: Script::new(RELEASE),
            _outcome: PhantomData,
        })
    }

    /// The Redis key of `key` (a hash: the key itself never reaches Redis).
    fn entry_name(key: &str) -> String {
        format!("{KEY_PREFIX}{}", hex(&Sha256::digest(key.as_bytes())))
    }

    /// How many successful outcomes wait in memory for Redis to take them.
    pub fn unstored(&self) -> usize {
        self.store.backlog.len()
    }

    fn open(&self, name: &str, sealed: &str) -> Result<Opened<T>, FlightError> {
        open(&self.store.key, name, sealed, self.store.clock.unix_ms()).ok_or_else(|| {
            tracing::error!(
                "a shared refresh outcome in Redis does not open: do all instances share one --cookie-key-file?"
            );
            FlightError::StoreUnavailable
        })
    }

    /// The outcome kept in memory for `name` while Redis could not take it.
    fn kept(&self, name: &str) -> Option<T> {
        let json = self.store.backlog.get(name)?;
        serde_json::from_str(&json).ok()
    }

    /// The outcome of the call for `key`: started here with `make` unless one runs on any
    /// instance or recently succeeded. The call runs in its own task, so a caller that goes
    /// away does not cancel it. Also says how this caller took part.
    pub async fn run<F, Fut>(&self, key: &str, make: F) -> Result<(T, Part), FlightError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T> + Send + 'static,
    {
        let name = Self::entry_name(key);
        if let Some(kept) = self.kept(&name) {
            // This instance ran the flight while Redis could not store its outcome.
            return Ok((kept, Part::Late));
        }
        let deadline = Instant::now() + self.lock + REDIS_TIMEOUT;
        let mut waiting_on: Option<String> = None;
        let ran = |outcome: Result<T, FlightError>| outcome.map(|t| (t, Part::Ran));
        let mut pause = POLL_FIRST;
        loop {
            if Instant::now() >= deadline {
                tracing::warn!("a shared refresh did not finish in time");
                return Err(FlightError::TimedOut);
            }
            let held = match waiting_on {
                None => {
                    let flight = new_flight_id();
                    let pending = format!("P:{flight}");
                    match self.try_claim(&name, &pending).await? {
                        None => return ran(self.own(name, pending, flight, make()).await),
                        Some(held) => held,
                    }
                }
                Some(_) => match self.get(&name).await? {
                    Some(held) => held,
                    // The flight's claim lapsed (its instance died): claim it.
                    None => {
                        waiting_on = None;
                        continue;
                    }
                },
            };
            match parse(&held) {
                Some(Entry::Pending(flight)) => {
                    waiting_on = Some(flight);
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(POLL_MAX);
                }
                Some(Entry::Done(sealed)) => match self.open(&name, &sealed)? {
                    Opened::Fresh(outcome) => {
                        let part = if waiting_on.is_some() {
                            Part::Joined
                        } else {
                            Part::Late
                        };
                        return Ok((outcome, part));
                    }
                    Opened::Stale => {
                        // Written back after its expiry (Redis's TTL would have removed it):
                        // never answered. The key is refreshed upstream instead, where a used
                        // refresh token is seen for what it is.
                        tracing::warn!(
                            "a shared refresh outcome past its sealed expiry was refused"
                        );
                        let flight = new_flight_id();
                        let pending = format!("P:{flight}");
                        if self.take_stale(&name, &held, &pending).await? {
                            return ran(self.own(name, pending, flight, make()).await);
                        }
                        waiting_on = None;
                    }
                },
                Some(Entry::Failed(flight, sealed)) => {
                    if waiting_on.as_deref() == Some(flight.as_str()) {
                        if let Opened::Fresh(outcome) = self.open(&name, &sealed)? {
                            return Ok((outcome, Part::Joined));
                        }
                    }
                    waiting_on = None;
                }
                // A given-up claim: the entry is free.
                Some(Entry::Released) => waiting_on = None,
                None => {
                    tracing::error!("a Redis entry of the companion holds an unknown value");
                    return Err(FlightError::StoreUnavailable);
                }
            }
        }
    }

    /// Runs the call this caller claimed, and stores its outcome, in a task of its own: a
    /// caller that goes away cancels neither, so the waiters always get the outcome.
    async fn own<Fut>(
        &self,
        name: String,
        pending: String,
        flight: String,
        call: Fut,
    ) -> Result<T, FlightError>
    where
        Fut: Future<Output = T> + Send + 'static,
    {
        let (store, keep) = (self.store.clone(), self.keep);
        tokio::spawn(async move {
            let outcome = call.await;
            match serde_json::to_string(&outcome) {
                Ok(json) => {
                    store
                        .store(&name, &pending, &flight, json, keep(&outcome))
                        .await
                }
                Err(e) => {
                    tracing::error!(error = %e, "a refresh outcome could not be written for Redis")
                }
            }
            outcome
        })
        .await
        .map_err(|_| FlightError::Lost)
    }

    /// The outcome of the flight for `key` if one is running on any instance (then waits for
    /// it) or finished with a kept outcome within the grace period; never starts a call.
    pub async fn joined(&self, key: &str) -> Result<Option<T>, FlightError> {
        let name = Self::entry_name(key);
        if let Some(kept) = self.kept(&name) {
            return Ok(Some(kept));
        }
        let deadline = Instant::now() + self.lock + REDIS_TIMEOUT;
        let mut pause = POLL_FIRST;
        loop {
            let Some(held) = self.get(&name).await? else {
                return Ok(None);
            };
            match parse(&held) {
                Some(Entry::Pending(_)) => {
                    if Instant::now() >= deadline {
                        return Err(FlightError::TimedOut);
                    }
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(POLL_MAX);
                }
                Some(Entry::Done(sealed)) => {
                    return Ok(match self.open(&name, &sealed)? {
                        Opened::Fresh(outcome) => Some(outcome),
                        Opened::Stale => {
                            tracing::warn!(
                                "a shared refresh outcome past its sealed expiry was refused"
                            );
                            None
                        }
                    })
                }
                Some(Entry::Failed(..)) | Some(Entry::Released) => return Ok(None),
                None => return Err(FlightError::StoreUnavailable),
            }
        }
    }
}

/// A fresh random flight id (tells one claim from the next).
fn new_flight_id() -> String {
    let mut id = [0u8; 16];
    rand::thread_rng().fill_bytes(&mut id);
    hex(&id)
}

fn store_error(e: redis::RedisError) -> FlightError {
    tracing::error!(error = %e, "session store (Redis) unavailable");
    FlightError::StoreUnavailable
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_hide_the_key() {
        let name = SharedFlight::<u32>::entry_name("rt-secret");
        assert!(name.starts_with(KEY_PREFIX));
        assert!(!name.contains("rt-secret"));
        assert_eq!(name.len(), KEY_PREFIX.len() + 64);
    }
}
