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
//! Outcomes are sealed with the cookie key by the `cookie` crate's private jar (AES-256-GCM,
//! the entry's name bound as associated data) together with an absolute expiry: Redis never
//! holds a token in the clear, an entry cannot be moved under another key, and an entry
//! written back after it expired is refused on read (Redis's TTL is not trusted alone).
//! Waiters poll the entry until a deadline.
//!
//! A successful call whose outcome cannot be stored (Redis went away during the call) is
//! still the caller's answer; the outcome is kept in memory, answered to this instance's late
//! requests for the same key meanwhile, and stored as soon as Redis answers again (for at
//! most [`RECONCILE_WINDOW`]). A command that fails because the connection dropped (Redis
//! restarted) is sent once more, on the connection the manager makes anew.

use super::key::CookieKey;
use super::single_flight::Part;
use crate::metrics::{CallOutcome, Metrics};
use ::cookie::{Cookie, CookieJar};
use rand::RngCore;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, RedisResult, Script};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::time::Instant;

/// Prefix of every Redis key the companion writes.
pub const KEY_PREFIX: &str = "fundraising-companion:flight:";
/// Time to open a connection to Redis, and to wait for each answer.
pub const REDIS_TIMEOUT: Duration = Duration::from_millis(1000);
/// How long a non-kept outcome (a failure) stays for the requests that waited for it.
const FAILURE_TTL: Duration = Duration::from_secs(5);
/// First and longest pause between two reads of a running flight.
const POLL_FIRST: Duration = Duration::from_millis(5);
const POLL_MAX: Duration = Duration::from_millis(40);
/// How long a successful outcome that could not be stored in Redis is kept in memory, from
/// the end of its call, to be stored once Redis answers again. Each is stored with a full
/// grace period from then on.
pub const RECONCILE_WINDOW: Duration = Duration::from_secs(300);
/// Most outcomes waiting to be stored; beyond it the oldest is given up (logged).
pub const MAX_UNSTORED: usize = 10_000;
/// First and longest pause between two attempts to store the outcomes kept in memory.
const RECONCILE_FIRST: Duration = Duration::from_millis(100);
const RECONCILE_MAX: Duration = Duration::from_secs(2);

/// Takes the entry when it is absent, holds a failure or a given-up claim; otherwise answers
/// what it holds. A claim that was given up before it arrived (`R:` with its own flight) does
/// not take the entry.
const CLAIM: &str = r"
local v = redis.call('GET', KEYS[1])
if v == 'R' .. string.sub(ARGV[1], 2) then
  return v
end
local tag = v and string.sub(v, 1, 2)
if (not v) or tag == 'F:' or tag == 'R:' then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return false
end
return v
";

/// Gives up the claim `ARGV[1]` (`P:<flight>`) whose answer was lost: removes it if it landed;
/// if the entry is empty, leaves `R:<flight>` for `ARGV[2]` ms so that the claim, should it
/// land later, takes nothing. Anything else (another claim, an outcome) is left alone.
const RELEASE: &str = r"
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
if not v then
  redis.call('SET', KEYS[1], 'R' .. string.sub(ARGV[1], 2), 'PX', ARGV[2])
  return 2
end
return 0
";

/// Takes the entry if it still holds `ARGV[1]` (an outcome past its sealed expiry), or
/// holds `ARGV[2]` already (the same command, sent again after a dropped connection).
const TAKE_STALE: &str = r"
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] or v == ARGV[2] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
";

/// Stores an outcome unless another instance claimed the entry since (its claim lapsed).
const PUBLISH: &str = r"
local v = redis.call('GET', KEYS[1])
if (not v) or v == ARGV[1] or v == ARGV[2] then
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
    /// A claim given up: as good as empty.
    Released,
}

fn parse(value: &str) -> Option<Entry> {
    let (tag, rest) = value.split_at_checked(2)?;
    match tag {
        "P:" => Some(Entry::Pending(rest.to_owned())),
        "R:" => Some(Entry::Released),
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

/// Milliseconds since the Unix epoch (the sealed expiry is absolute: instances share it).
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// What a sealed value holds: the outcome and when it stops being valid.
#[derive(Deserialize)]
struct Sealed<T> {
    /// Expiry, milliseconds since the Unix epoch.
    exp: i64,
    /// The outcome.
    v: T,
}

/// An opened entry: still valid, or past its sealed expiry.
#[derive(Debug, PartialEq, Eq)]
enum Opened<T> {
    Fresh(T),
    Stale,
}

/// Seals `json` (an outcome's JSON) for the entry `name`, valid until `exp_ms`.
fn seal(key: &CookieKey, name: &str, json: &str, exp_ms: i64) -> String {
    let text = format!("{{\"exp\":{exp_ms},\"v\":{json}}}");
    let mut jar = CookieJar::new();
    jar.private_mut(key.key())
        .add(Cookie::new(name.to_owned(), text));
    jar.get(name)
        .map(|c| c.value().to_owned())
        .unwrap_or_default()
}

/// Opens a value sealed by [`seal`] for `name`; `None` if it does not open.
fn open<T: DeserializeOwned>(key: &CookieKey, name: &str, sealed: &str) -> Option<Opened<T>> {
    let opened = CookieJar::new()
        .private(key.key())
        .decrypt(Cookie::new(name.to_owned(), sealed.to_owned()))?;
    let sealed: Sealed<T> = serde_json::from_str(opened.value()).ok()?;
    Some(if sealed.exp > now_ms() {
        Opened::Fresh(sealed.v)
    } else {
        Opened::Stale
    })
}

/// Runs `command`, and once more if it failed because the connection dropped (Redis
/// restarted): the connection manager then makes a new connection, which the second attempt
/// waits for. A timeout is not repeated.
async fn retried<T, F, Fut>(command: F) -> RedisResult<T>
where
    F: Fn() -> Fut,
    Fut: Future<Output = RedisResult<T>>,
{
    match command().await {
        Err(e) if (e.is_unrecoverable_error() || e.is_io_error()) && !e.is_timeout() => {
            tracing::debug!(error = %e, "Redis connection lost; sending the command again");
            command().await
        }
        other => other,
    }
}

/// A successful outcome that could not be stored yet.
#[derive(Debug, Clone)]
struct Unstored {
    /// The claim the entry held for its flight.
    claim: String,
    flight: String,
    /// The outcome's JSON.
    json: String,
    /// Given up after this.
    until: Instant,
}

/// The outcomes kept in memory while Redis cannot take them.
#[derive(Default)]
struct Backlog {
    entries: Mutex<HashMap<String, Unstored>>,
    /// Whether a task is storing them.
    reconciling: AtomicBool,
}

impl Backlog {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Unstored>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The outcome kept for the entry `name`, if any and still within its window.
    fn get(&self, name: &str) -> Option<String> {
        let mut entries = self.lock();
        let now = Instant::now();
        entries.retain(|_, u| u.until > now);
        entries.get(name).map(|u| u.json.clone())
    }

    fn len(&self) -> usize {
        self.lock().len()
    }
}

/// What stores outcomes in Redis (the claimed flight's task and the reconciler use it).
#[derive(Clone)]
struct Store {
    redis: ConnectionManager,
    key: CookieKey,
    grace: Duration,
    publish: Script,
    backlog: Arc<Backlog>,
    metrics: Option<Arc<Metrics>>,
}

impl Store {
    /// Counts a Redis command's outcome (`operation`: what it was for).
    fn count<T>(&self, operation: &'static str, result: &RedisResult<T>) {
        if let Some(metrics) = &self.metrics {
            let outcome = match result {
                Ok(_) => CallOutcome::Ok,
                Err(e) if e.is_timeout() => CallOutcome::Timeout,
                Err(_) => CallOutcome::Error,
            };
            metrics.redis(operation, outcome);
        }
    }

    /// Stores `json` under `name` (tagged `tag` for `flight`) for `ttl`, sealed with an expiry
    /// `ttl` from now, unless another instance claimed the entry since. `Ok(false)` then.
    async fn publish(
        &self,
        name: &str,
        claim: &str,
        tag: &str,
        flight: &str,
        json: &str,
        ttl: Duration,
    ) -> RedisResult<bool> {
        let sealed = seal(&self.key, name, json, now_ms() + ttl.as_millis() as i64);
        let value = format!("{tag}:{flight}:{sealed}");
        let stored: RedisResult<i64> = retried(|| async {
            let mut redis = self.redis.clone();
            self.publish
                .key(name)
                .arg(claim)
                .arg(&value)
                .arg(ttl.as_millis() as u64)
                .invoke_async(&mut redis)
                .await
        })
        .await;
        self.count("publish", &stored);
        Ok(stored? == 1)
    }

    /// Stores the outcome of a flight (kept: for the grace period; else briefly, for its
    /// waiters). A kept outcome that cannot be stored stays in memory, to be stored when
    /// Redis is back: the call happened, and its outcome (a rotated refresh token) must reach
    /// the requests still carrying the old one, or they would present a used token.
    async fn store(&self, name: &str, claim: &str, flight: &str, json: String, kept: bool) {
        let (tag, ttl) = if kept {
            ("D", self.grace)
        } else {
            ("F", FAILURE_TTL)
        };
        match self.publish(name, claim, tag, flight, &json, ttl).await {
            Ok(true) => {}
            Ok(false) => tracing::warn!("a shared refresh outlived its claim; outcome not stored"),
            Err(e) if kept => {
                tracing::error!(
                    error = %e,
                    "session store (Redis) unavailable: a refresh succeeded but could not be \
                     shared; it is answered, kept, and shared once Redis is back"
                );
                self.keep(name, claim, flight, json);
            }
            Err(e) => tracing::error!(
                error = %e,
                "session store (Redis) unavailable: a refresh failure was not shared"
            ),
        }
    }

    /// Keeps an outcome Redis could not take, and starts storing the backlog.
    fn keep(&self, name: &str, claim: &str, flight: &str, json: String) {
        {
            let mut entries = self.backlog.lock();
            if entries.len() >= MAX_UNSTORED && !entries.contains_key(name) {
                let oldest = entries
                    .iter()
                    .min_by_key(|(_, u)| u.until)
                    .map(|(n, _)| n.clone());
                if let Some(oldest) = oldest {
                    entries.remove(&oldest);
                    tracing::warn!("too many refreshes wait for Redis; the oldest is given up");
                }
            }
            entries.insert(
                name.to_owned(),
                Unstored {
                    claim: claim.to_owned(),
                    flight: flight.to_owned(),
                    json,
                    until: Instant::now() + RECONCILE_WINDOW,
                },
            );
        }
        if !self.backlog.reconciling.swap(true, Ordering::SeqCst) {
            tokio::spawn(self.clone().reconcile());
        }
    }

    /// Stores the backlog once Redis answers again, retrying with a growing pause; ends when
    /// the backlog is empty (stored, or given up after [`RECONCILE_WINDOW`]).
    async fn reconcile(self) {
        let mut pause = RECONCILE_FIRST;
        loop {
            tokio::time::sleep(pause).await;
            let pending: Vec<(String, Unstored)> = {
                let mut entries = self.backlog.lock();
                let now = Instant::now();
                entries.retain(|_, u| u.until > now);
                entries
                    .iter()
                    .map(|(n, u)| (n.clone(), u.clone()))
                    .collect()
            };
            if pending.is_empty() {
                self.backlog.reconciling.store(false, Ordering::SeqCst);
                // An outcome kept meanwhile restarts the task unless this one goes on.
                if self.backlog.len() == 0 || self.backlog.reconciling.swap(true, Ordering::SeqCst)
                {
                    return;
                }
                continue;
            }
            pause = RECONCILE_FIRST;
            for (name, unstored) in pending {
                let stored = self
                    .publish(
                        &name,
                        &unstored.claim,
                        "D",
                        &unstored.flight,
                        &unstored.json,
                        self.grace,
                    )
                    .await;
                match stored {
                    Ok(stored) => {
                        self.backlog.lock().remove(&name);
                        if stored {
                            tracing::info!(
                                "session store (Redis) back: a kept refresh is shared now"
                            );
                        } else {
                            tracing::warn!(
                                "session store (Redis) back, but another instance claimed a kept refresh's entry"
                            );
                        }
                    }
                    Err(_) => {
                        pause = (pause * 2).min(RECONCILE_MAX);
                        break;
                    }
                }
            }
        }
    }
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
    /// in `metrics`.
    pub fn new(
        url: &str,
        key: CookieKey,
        grace: Duration,
        lock: Duration,
        keep: fn(&T) -> bool,
        metrics: Option<Arc<Metrics>>,
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
        open(&self.store.key, name, sealed).ok_or_else(|| {
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

    async fn get(&self, name: &str) -> Result<Option<String>, FlightError> {
        let got = retried(|| async {
            let mut redis = self.store.redis.clone();
            redis::cmd("GET").arg(name).query_async(&mut redis).await
        })
        .await;
        self.store.count("get", &got);
        got.map_err(store_error)
    }

    /// Whether Redis answers `PING` (within [`REDIS_TIMEOUT`]).
    pub async fn ping(&self) -> bool {
        let pong: RedisResult<String> = retried(|| async {
            let mut redis = self.store.redis.clone();
            redis::cmd("PING").query_async(&mut redis).await
        })
        .await;
        self.store.count("ping", &pong);
        pong.is_ok()
    }

    /// Gives up the claim `pending` of the entry `name`, whose answer was lost: the command
    /// may still be carried out once Redis answers again, and must not leave a claim that
    /// nobody runs (the next refresh of the session would wait until it lapses). Sent at once
    /// and then again with a growing pause until Redis answers, within the claim's lifetime.
    fn give_up(&self, name: String, pending: String) {
        let (store, release, lock) = (self.store.clone(), self.release.clone(), self.lock);
        tokio::spawn(async move {
            let until = Instant::now() + lock;
            let mut pause = RECONCILE_FIRST;
            loop {
                let mut redis = store.redis.clone();
                let released: RedisResult<i64> = release
                    .key(&name)
                    .arg(&pending)
                    .arg(lock.as_millis() as u64)
                    .invoke_async(&mut redis)
                    .await;
                store.count("release", &released);
                match released {
                    Ok(1) => {
                        tracing::info!("a claim whose answer Redis lost was given up");
                        return;
                    }
                    Ok(_) => return,
                    Err(_) if Instant::now() + pause < until => {
                        tokio::time::sleep(pause).await;
                        pause = (pause * 2).min(RECONCILE_MAX);
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "a claim whose answer Redis lost could not be given up; it lapses");
                        return;
                    }
                }
            }
        });
    }

    /// `None` when this caller took the claim `pending`, else what the entry holds. When the
    /// answer does not come, the claim is given up (see [`Self::give_up`]).
    async fn try_claim(&self, name: &str, pending: &str) -> Result<Option<String>, FlightError> {
        let held: RedisResult<Option<String>> = retried(|| async {
            let mut redis = self.store.redis.clone();
            self.claim
                .key(name)
                .arg(pending)
                .arg(self.lock.as_millis() as u64)
                .invoke_async(&mut redis)
                .await
        })
        .await;
        self.store.count("claim", &held);
        if held.is_err() {
            self.give_up(name.to_owned(), pending.to_owned());
        }
        let held = held.map_err(store_error)?;
        // Our own claim, when the command was sent again after a dropped answer.
        Ok(held.filter(|held| held != pending))
    }

    /// Replaces `stale` (an outcome past its sealed expiry) with the claim `pending`; false if
    /// the entry changed meanwhile.
    async fn take_stale(
        &self,
        name: &str,
        stale: &str,
        pending: &str,
    ) -> Result<bool, FlightError> {
        let taken: RedisResult<i64> = retried(|| async {
            let mut redis = self.store.redis.clone();
            self.take_stale
                .key(name)
                .arg(stale)
                .arg(pending)
                .arg(self.lock.as_millis() as u64)
                .invoke_async(&mut redis)
                .await
        })
        .await;
        self.store.count("take_stale", &taken);
        Ok(taken.map_err(store_error)? == 1)
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
    fn entries_parse() {
        assert!(matches!(parse("P:ab"), Some(Entry::Pending(f)) if f == "ab"));
        assert!(matches!(parse("D:ab:x:y"), Some(Entry::Done(s)) if s == "x:y"));
        assert!(matches!(parse("F:ab:z"), Some(Entry::Failed(f, s)) if f == "ab" && s == "z"));
        assert!(matches!(parse("R:ab"), Some(Entry::Released)));
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

    #[test]
    fn outcomes_are_sealed_with_their_expiry_and_bound_to_their_entry() {
        let key = CookieKey::random();
        let later = now_ms() + 60_000;
        let sealed = seal(&key, "a", r#""rt-42""#, later);
        assert!(!sealed.contains("rt-42"));
        assert_eq!(
            open::<String>(&key, "a", &sealed),
            Some(Opened::Fresh("rt-42".to_owned()))
        );
        assert_eq!(open::<String>(&key, "b", &sealed), None, "another entry");
        assert_eq!(
            open::<String>(&CookieKey::random(), "a", &sealed),
            None,
            "another key"
        );
        // Past its expiry the outcome is stale, whatever Redis's TTL says.
        let past = seal(&key, "a", r#""rt-42""#, now_ms() - 1);
        assert_eq!(open::<String>(&key, "a", &past), Some(Opened::Stale));
        // The expiry is inside the seal: a changed byte does not open.
        let mut tampered = past.into_bytes();
        let i = tampered.len() / 2;
        tampered[i] = if tampered[i] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert_eq!(open::<String>(&key, "a", &tampered), None);
    }
}
