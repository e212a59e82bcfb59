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
//! Outcomes are sealed with the cookie key by the `cookie` crate's private jar (AES-256-GCM,
//! the entry's name bound as associated data): Redis never holds a token in the clear, and
//! an entry cannot be moved under another key. Waiters poll the entry until a deadline.

use super::key::CookieKey;
use ::cookie::{Cookie, CookieJar};
use rand::RngCore;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Script};
use serde::de::DeserializeOwned;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::future::Future;
use std::marker::PhantomData;
use std::time::{Duration, Instant};

/// Prefix of every Redis key the companion writes.
pub const KEY_PREFIX: &str = "fundraising-companion:flight:";
/// Time to open a connection to Redis, and to wait for each answer.
pub const REDIS_TIMEOUT: Duration = Duration::from_millis(1000);
/// How long a non-kept outcome (a failure) stays for the requests that waited for it.
const FAILURE_TTL: Duration = Duration::from_secs(5);
/// First and longest pause between two reads of a running flight.
const POLL_FIRST: Duration = Duration::from_millis(5);
const POLL_MAX: Duration = Duration::from_millis(40);

/// Takes the entry when it is absent or holds a failure; otherwise answers what it holds.
const CLAIM: &str = r"
local v = redis.call('GET', KEYS[1])
if (not v) or string.sub(v, 1, 2) == 'F:' then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return false
end
return v
";

/// Stores an outcome unless another instance claimed the entry since (its claim lapsed).
const PUBLISH: &str = r"
local v = redis.call('GET', KEYS[1])
if (not v) or v == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
";

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

/// What an entry holds.
enum Entry {
    Pending(String),
    Done(String),
    Failed(String, String),
}

fn parse(value: &str) -> Option<Entry> {
    let (tag, rest) = value.split_at_checked(2)?;
    match tag {
        "P:" => Some(Entry::Pending(rest.to_owned())),
        "D:" | "F:" => {
            let (flight, sealed) = rest.split_once(':')?;
            let (flight, sealed) = (flight.to_owned(), sealed.to_owned());
            Some(if tag == "D:" {
                Entry::Done(sealed)
            } else {
                Entry::Failed(flight, sealed)
            })
        }
        _ => None,
    }
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
    redis: ConnectionManager,
    key: CookieKey,
    grace: Duration,
    lock: Duration,
    keep: fn(&T) -> bool,
    claim: Script,
    publish: Script,
    _outcome: PhantomData<fn() -> T>,
}

impl<T: Serialize + DeserializeOwned + Send + Sync + 'static> SharedFlight<T> {
    /// A group on the Redis at `url` (`redis://[:password@]host:port[/db]` or
    /// `redis+unix:///path`); no connection is made yet, and a lost one is made again.
    /// Outcomes for which `keep` is true are shared for `grace`; a claim lapses after `lock`
    /// (longer than any call can take).
    pub fn new(
        url: &str,
        key: CookieKey,
        grace: Duration,
        lock: Duration,
        keep: fn(&T) -> bool,
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
            redis,
            key,
            grace,
            lock,
            keep,
            claim: Script::new(CLAIM),
            publish: Script::new(PUBLISH),
            _outcome: PhantomData,
        })
    }

    /// The Redis key of `key` (a hash: the key itself never reaches Redis).
    fn entry_name(key: &str) -> String {
        format!("{KEY_PREFIX}{}", hex(&Sha256::digest(key.as_bytes())))
    }

    fn open(&self, name: &str, sealed: &str) -> Result<T, FlightError> {
        let opened = CookieJar::new()
            .private(self.key.key())
            .decrypt(Cookie::new(name.to_owned(), sealed.to_owned()))
            .and_then(|c| serde_json::from_str(c.value()).ok());
        opened.ok_or_else(|| {
            tracing::error!(
                "a shared refresh outcome in Redis does not open: do all instances share one --cookie-key-file?"
            );
            FlightError::StoreUnavailable
        })
    }

    async fn get(&self, name: &str) -> Result<Option<String>, FlightError> {
        let mut redis = self.redis.clone();
        redis::cmd("GET")
            .arg(name)
            .query_async(&mut redis)
            .await
            .map_err(store_error)
    }

    /// `None` when this caller took the claim `pending`, else what the entry holds.
    async fn try_claim(&self, name: &str, pending: &str) -> Result<Option<String>, FlightError> {
        let mut redis = self.redis.clone();
        self.claim
            .key(name)
            .arg(pending)
            .arg(self.lock.as_millis() as u64)
            .invoke_async(&mut redis)
            .await
            .map_err(store_error)
    }

    /// The outcome of the call for `key`: started here with `make` unless one runs on any
    /// instance or recently succeeded. The call runs in its own task, so a caller that goes
    /// away does not cancel it.
    pub async fn run<F, Fut>(&self, key: &str, make: F) -> Result<T, FlightError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T> + Send + 'static,
    {
        let name = Self::entry_name(key);
        let deadline = Instant::now() + self.lock + REDIS_TIMEOUT;
        let mut waiting_on: Option<String> = None;
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
                        None => return self.own(name, pending, flight, make()).await,
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
                Some(Entry::Done(sealed)) => return self.open(&name, &sealed),
                Some(Entry::Failed(flight, sealed)) => {
                    if waiting_on.as_deref() == Some(flight.as_str()) {
                        return self.open(&name, &sealed);
                    }
                    waiting_on = None;
                }
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
        let publisher = Publisher {
            redis: self.redis.clone(),
            key: self.key.clone(),
            publish: self.publish.clone(),
            grace: self.grace,
            keep: self.keep,
        };
        tokio::spawn(async move {
            let outcome = call.await;
            publisher.store(&name, &pending, &flight, &outcome).await;
            outcome
        })
        .await
        .map_err(|_| FlightError::Lost)
    }

    /// The outcome of the flight for `key` if one is running on any instance (then waits for
    /// it) or finished with a kept outcome within the grace period; never starts a call.
    pub async fn joined(&self, key: &str) -> Result<Option<T>, FlightError> {
        let name = Self::entry_name(key);
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
                Some(Entry::Done(sealed)) => return self.open(&name, &sealed).map(Some),
                Some(Entry::Failed(..)) => return Ok(None),
                None => return Err(FlightError::StoreUnavailable),
            }
        }
    }
}

/// Seals `outcome` for the entry `name` with the private jar.
fn seal<T: Serialize>(key: &CookieKey, name: &str, outcome: &T) -> Option<String> {
    let json = serde_json::to_string(outcome).ok()?;
    let mut jar = CookieJar::new();
    jar.private_mut(key.key())
        .add(Cookie::new(name.to_owned(), json));
    jar.get(name).map(|c| c.value().to_owned())
}

/// What the task of a claimed flight needs to store its outcome.
struct Publisher<T> {
    redis: ConnectionManager,
    key: CookieKey,
    publish: Script,
    grace: Duration,
    keep: fn(&T) -> bool,
}

impl<T: Serialize> Publisher<T> {
    /// Stores the outcome of the flight (kept: for the grace period; else briefly, for its
    /// waiters). A failure to store is logged: the call happened, and its outcome (a rotated
    /// refresh token) is still the owner's answer, or the session would be lost.
    async fn store(&self, name: &str, pending: &str, flight: &str, outcome: &T) {
        let (tag, ttl) = if (self.keep)(outcome) {
            ("D", self.grace)
        } else {
            ("F", FAILURE_TTL)
        };
        let Some(sealed) = seal(&self.key, name, outcome) else {
            tracing::error!("a refresh outcome could not be sealed for Redis");
            return;
        };
        let mut redis = self.redis.clone();
        let stored: Result<i64, _> = self
            .publish
            .key(name)
            .arg(pending)
            .arg(format!("{tag}:{flight}:{sealed}"))
            .arg(ttl.as_millis() as u64)
            .invoke_async(&mut redis)
            .await;
        match stored {
            Ok(1) => {}
            Ok(_) => tracing::warn!("a shared refresh outlived its claim; outcome not stored"),
            Err(e) => tracing::error!(
                error = %e,
                "session store (Redis) unavailable: a refresh outcome was not shared"
            ),
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
    fn entries_parse() {
        assert!(matches!(parse("P:ab"), Some(Entry::Pending(f)) if f == "ab"));
        assert!(matches!(parse("D:ab:x:y"), Some(Entry::Done(s)) if s == "x:y"));
        assert!(matches!(parse("F:ab:z"), Some(Entry::Failed(f, s)) if f == "ab" && s == "z"));
        assert!(parse("D:nocolon").is_none());
        assert!(parse("X:ab").is_none());
        assert!(parse("").is_none());
    }

    #[test]
    fn entry_names_hide_the_key() {
        let name = SharedFlight::<u32>::entry_name("rt-secret");
        assert!(name.starts_with(KEY_PREFIX));
        assert!(!name.contains("rt-secret"));
        assert_eq!(name.len(), KEY_PREFIX.len() + 64);
    }

    #[tokio::test]
    async fn outcomes_are_sealed_and_bound_to_their_entry() {
        let key = CookieKey::random();
        let group = SharedFlight::<String>::new(
            "redis://127.0.0.1:1",
            key,
            Duration::from_secs(1),
            Duration::from_secs(1),
            |_| true,
        )
        .unwrap();
        let sealed = seal(&group.key, "a", &"rt-42".to_owned()).unwrap();
        assert!(!sealed.contains("rt-42"));
        assert_eq!(group.open("a", &sealed).unwrap(), "rt-42");
        assert_eq!(group.open("b", &sealed), Err(FlightError::StoreUnavailable));
        let other = SharedFlight::<String>::new(
            "redis://127.0.0.1:1",
            CookieKey::random(),
            Duration::from_secs(1),
            Duration::from_secs(1),
            |_| true,
        )
        .unwrap();
        assert_eq!(other.open("a", &sealed), Err(FlightError::StoreUnavailable));
    }
}
