//! Storing a flight's outcome in Redis, and keeping in memory a successful one Redis could not
//! take (the call happened: its rotated refresh token must reach the requests still carrying
//! the old one), to store it as soon as Redis answers again.

use super::seal::seal;
use crate::clock::Clock;
use crate::metrics::{CallOutcome, Metrics};
use crate::session::key::CookieKey;
use redis::aio::ConnectionManager;
use redis::{RedisResult, Script};
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

/// How long a non-kept outcome (a failure) stays for the requests that waited for it.
const FAILURE_TTL: Duration = Duration::from_secs(5);
/// How long a successful outcome that could not be stored in Redis is kept in memory, from
/// the end of its call, to be stored once Redis answers again. Each is stored with a full
/// grace period from then on.
pub const RECONCILE_WINDOW: Duration = Duration::from_secs(300);
/// Most outcomes waiting to be stored; beyond it the oldest is given up (logged).
pub const MAX_UNSTORED: usize = 10_000;
/// First and longest pause between two attempts to store the outcomes kept in memory.
pub(super) const RECONCILE_FIRST: Duration = Duration::from_millis(100);
pub(super) const RECONCILE_MAX: Duration = Duration::from_secs(2);

/// Runs `command`, and once more if it failed because the connection dropped (Redis
/// restarted): the connection manager then makes a new connection, which the second attempt
/// waits for. A timeout is not repeated.
pub(crate) async fn retried<T, F, Fut>(command: F) -> RedisResult<T>
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
pub(super) struct Unstored {
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
pub(super) struct Backlog {
    entries: Mutex<HashMap<String, Unstored>>,
    /// Whether a task is storing them.
    reconciling: AtomicBool,
}

impl Backlog {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Unstored>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The outcome kept for the entry `name`, if any and still within its window.
    pub(super) fn get(&self, name: &str) -> Option<String> {
        let mut entries = self.lock();
        let now = Instant::now();
        entries.retain(|_, u| u.until > now);
        entries.get(name).map(|u| u.json.clone())
    }

    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }
}

/// What stores outcomes in Redis (the claimed flight's task and the reconciler use it).
#[derive(Clone)]
pub(super) struct Store {
    pub(super) redis: ConnectionManager,
    pub(super) key: CookieKey,
    pub(super) grace: Duration,
    pub(super) publish: Script,
    pub(super) backlog: Arc<Backlog>,
    pub(super) metrics: Option<Arc<Metrics>>,
    /// The clock the sealed expiries are counted on.
    pub(super) clock: Clock,
}

impl Store {
    /// Counts a Redis command's outcome (`operation`: what it was for).
    pub(super) fn count<T>(&self, operation: &'static str, result: &RedisResult<T>) {
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
        let sealed = seal(
            &self.key,
            name,
            json,
            self.clock.unix_ms() + ttl.as_millis() as i64,
        );
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
    pub(super) async fn store(
        &self,
        name: &str,
        claim: &str,
        flight: &str,
        json: String,
        kept: bool,
    ) {
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
