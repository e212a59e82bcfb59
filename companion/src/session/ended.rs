//! Sessions ended by a sign-out. The cookie is sealed and self-contained, so a copy of it
//! (taken before the sign-out, or before the last rotation) would still open: each session
//! carries an id of its own ([`SessionData::sid`](super::SessionData::sid)), kept across
//! rotations, and a sign-out records that id as ended. Every request with a session cookie is
//! checked against the record first: in this instance's memory, and with `--redis-url` in
//! Redis, so that every instance sees the sign-out from its next request on.
//!
//! A record lives as long as a cookie of the session could still open ([`RECORD_LIFETIME`],
//! the lifetime sealed into every cookie); Redis holds the SHA-256 of the id only. In memory
//! at most [`MAX_LOCAL_ENDED`] are kept (the oldest forgotten first; with Redis they are
//! still found there).

use super::shared_flight::{retried, REDIS_TIMEOUT};
use crate::clock::Clock;
use crate::metrics::{CallOutcome, Metrics};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, RedisResult};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

/// Prefix of the Redis keys recording ended sessions.
pub const ENDED_PREFIX: &str = "fundraising-companion:ended:";
/// How long an ended session is remembered: as long as any cookie of it opens (the lifetime
/// sealed into each cookie when it is set).
pub const RECORD_LIFETIME: Duration = Duration::from_secs(super::cookie::MAX_AGE_SECONDS);
/// Most ended sessions one instance remembers in memory.
pub const MAX_LOCAL_ENDED: usize = 100_000;

/// The store could not be asked (Redis did not answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreUnavailable;

#[derive(Default)]
struct Local {
    until: HashMap<String, Instant>,
    order: VecDeque<String>,
}

/// The record of ended sessions: this instance's, and Redis's with `--redis-url`.
pub struct EndedSessions {
    local: Mutex<Local>,
    redis: Option<ConnectionManager>,
    metrics: Option<Arc<Metrics>>,
    clock: Clock,
}

fn digest(sid: &str) -> String {
    Sha256::digest(sid.as_bytes())
        .iter()
        .fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

impl EndedSessions {
    /// The record; `redis_url` shares it with every instance using that Redis (no connection
    /// is made yet).
    pub fn new(
        redis_url: Option<&str>,
        metrics: Option<Arc<Metrics>>,
        clock: Clock,
    ) -> Result<Self, redis::RedisError> {
        let redis = match redis_url {
            None => None,
            Some(url) => {
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(REDIS_TIMEOUT))
                    .set_response_timeout(Some(REDIS_TIMEOUT))
                    .set_number_of_retries(1)
                    .set_min_delay(Duration::from_millis(50))
                    .set_max_delay(Duration::from_millis(200));
                Some(ConnectionManager::new_lazy_with_config(
                    Client::open(url)?,
                    config,
                )?)
            }
        };
        Ok(Self {
            local: Mutex::default(),
            redis,
            metrics,
            clock,
        })
    }

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

    fn remember(&self, name: String) {
        let mut local = self.local.lock().unwrap_or_else(|e| e.into_inner());
        let now = self.clock.now();
        if local
            .until
            .insert(name.clone(), now + RECORD_LIFETIME)
            .is_none()
        {
            local.order.push_back(name);
        }
        while local.order.len() > MAX_LOCAL_ENDED {
            if let Some(oldest) = local.order.pop_front() {
                local.until.remove(&oldest);
            }
        }
    }

    fn known_here(&self, name: &str) -> bool {
        let local = self.local.lock().unwrap_or_else(|e| e.into_inner());
        local
            .until
            .get(name)
            .is_some_and(|until| *until > self.clock.now())
    }

    /// Records the session `sid` as ended, here and (with Redis) for every instance. Fails
    /// only when Redis does not take it; this instance remembers it either way.
    pub async fn end(&self, sid: &str) -> Result<(), StoreUnavailable> {
        let name = digest(sid);
        self.remember(name.clone());
        let Some(redis) = &self.redis else {
            return Ok(());
        };
        let key = format!("{ENDED_PREFIX}{name}");
        let set: RedisResult<()> = retried(|| async {
            let mut redis = redis.clone();
            redis::cmd("SET")
                .arg(&key)
                .arg(1)
                .arg("PX")
                .arg(RECORD_LIFETIME.as_millis() as u64)
                .query_async(&mut redis)
                .await
        })
        .await;
        self.count("end_session", &set);
        set.map_err(|e| {
            tracing::error!(error = %e, "a sign-out could not be recorded in Redis");
            StoreUnavailable
        })
    }

    /// Whether the session `sid` was ended, on this instance or (with Redis) any other.
    pub async fn is_ended(&self, sid: &str) -> Result<bool, StoreUnavailable> {
        let name = digest(sid);
        if self.known_here(&name) {
            return Ok(true);
        }
        let Some(redis) = &self.redis else {
            return Ok(false);
        };
        let key = format!("{ENDED_PREFIX}{name}");
        let found: RedisResult<bool> = retried(|| async {
            let mut redis = redis.clone();
            redis::cmd("EXISTS").arg(&key).query_async(&mut redis).await
        })
        .await;
        self.count("ended_session", &found);
        match found {
            Ok(true) => {
                self.remember(name);
                Ok(true)
            }
            Ok(false) => Ok(false),
            Err(e) => {
                tracing::error!(error = %e, "session store (Redis) unavailable");
                Err(StoreUnavailable)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_ended_session_is_known_here_and_the_record_is_bounded() {
        let ended = EndedSessions::new(None, None, Clock::default()).unwrap();
        assert_eq!(ended.is_ended("s1").await, Ok(false));
        ended.end("s1").await.unwrap();
        assert_eq!(ended.is_ended("s1").await, Ok(true));
        assert_eq!(ended.is_ended("s2").await, Ok(false));
        for i in 0..MAX_LOCAL_ENDED {
            ended.end(&format!("x{i}")).await.unwrap();
        }
        {
            let local = ended.local.lock().unwrap();
            assert_eq!(local.until.len(), MAX_LOCAL_ENDED);
            assert_eq!(local.order.len(), MAX_LOCAL_ENDED);
        }
        // The oldest went first.
        assert_eq!(ended.is_ended("s1").await, Ok(false));
        assert_eq!(ended.is_ended("x1").await, Ok(true));
    }

    #[test]
    fn redis_holds_a_digest_of_the_id_only() {
        let name = digest("sid-secret");
        assert!(!name.contains("sid-secret"));
        assert_eq!(name.len(), 64);
    }
}
