//! The Redis commands of a flight: reading its entry, claiming it, taking a stale one, giving
//! up a claim whose answer was lost, and `PING`; each counted in the metrics.

use super::store::{retried, RECONCILE_FIRST, RECONCILE_MAX};
use super::{store_error, FlightError, SharedFlight};
use redis::RedisResult;
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::time::Instant;

impl<T: Serialize + DeserializeOwned + Send + Sync + 'static> SharedFlight<T> {
    pub(super) async fn get(&self, name: &str) -> Result<Option<String>, FlightError> {
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
    pub(super) async fn try_claim(
        &self,
        name: &str,
        pending: &str,
    ) -> Result<Option<String>, FlightError> {
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
    pub(super) async fn take_stale(
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
}
