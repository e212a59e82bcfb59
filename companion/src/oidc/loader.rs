//! Loading the discovery document once: one attempt at a time (callers meanwhile wait for its
//! outcome), and after a failure none before a backoff has passed (250 ms, doubling to 10 s),
//! so no number of requests makes more calls. Each attempt is logged and, through the upstream
//! client, counted in the metrics (`call="discovery"`).

use super::discovery::ProviderMetadata;
use crate::error::Error;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::Mutex;
use tokio::time::Instant;

/// Pause after the first failed attempt; each further failure doubles it.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// Longest pause between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// The attempts made so far.
#[derive(Debug, Default)]
struct Attempts {
    failures: u32,
    /// No attempt before this (after a failure).
    not_before: Option<Instant>,
}

/// The discovery document, once loaded.
#[derive(Debug, Default)]
pub struct Loader {
    loaded: OnceLock<Arc<ProviderMetadata>>,
    attempts: Mutex<Attempts>,
}

impl Loader {
    /// The document, if it has been loaded (never calls anyone).
    pub fn loaded(&self) -> Option<Arc<ProviderMetadata>> {
        self.loaded.get().cloned()
    }

    /// When the next attempt may be made (`None`: now, or the document is loaded).
    pub async fn next_attempt(&self) -> Option<Instant> {
        if self.loaded.get().is_some() {
            return None;
        }
        self.attempts.lock().await.not_before
    }

    /// The document: loaded already, or by `fetch` now when no attempt runs and no backoff is
    /// pending. A caller arriving during an attempt waits for it; one arriving during a
    /// backoff gets `UpstreamUnavailable` at once, without a call.
    pub async fn get<F, Fut>(&self, fetch: F) -> Result<Arc<ProviderMetadata>, Error>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<ProviderMetadata, Error>>,
    {
        if let Some(metadata) = self.loaded.get() {
            return Ok(metadata.clone());
        }
        let mut attempts = self.attempts.lock().await;
        if let Some(metadata) = self.loaded.get() {
            return Ok(metadata.clone());
        }
        if attempts.not_before.is_some_and(|at| Instant::now() < at) {
            return Err(Error::UpstreamUnavailable);
        }
        match fetch().await {
            Ok(metadata) => {
                tracing::info!(
                    failures = attempts.failures,
                    "the identity server's discovery document is loaded"
                );
                *attempts = Attempts::default();
                Ok(self.loaded.get_or_init(|| Arc::new(metadata)).clone())
            }
            Err(error) => {
                attempts.failures += 1;
                let backoff = backoff(attempts.failures);
                attempts.not_before = Some(Instant::now() + backoff);
                tracing::warn!(
                    failures = attempts.failures,
                    retry_in_ms = backoff.as_millis() as u64,
                    code = error.code(),
                    "the identity server's discovery document could not be loaded"
                );
                Err(error)
            }
        }
    }
}

/// The pause after `failures` failed attempts in a row.
fn backoff(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    (FIRST_BACKOFF * 2u32.pow(doublings)).min(MAX_BACKOFF)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn metadata() -> ProviderMetadata {
        serde_json::from_value(serde_json::json!({
            "issuer": "http://id",
            "token_endpoint": "http://id/token",
            "jwks_uri": "http://id/jwks",
        }))
        .unwrap()
    }

    #[test]
    fn the_backoff_doubles_up_to_ten_seconds() {
        assert_eq!(backoff(1), Duration::from_millis(250));
        assert_eq!(backoff(2), Duration::from_millis(500));
        assert_eq!(backoff(5), Duration::from_secs(4));
        assert_eq!(backoff(7), Duration::from_secs(10));
        assert_eq!(backoff(u32::MAX), Duration::from_secs(10));
    }

    #[tokio::test(start_paused = true)]
    async fn one_attempt_at_a_time_and_none_during_the_backoff() {
        let loader = Arc::new(Loader::default());
        let calls = Arc::new(AtomicUsize::new(0));
        // Many callers at once while an attempt takes a second and fails: one call.
        let failing = |calls: Arc<AtomicUsize>| async move {
            calls.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_secs(1)).await;
            Err::<ProviderMetadata, _>(Error::UpstreamTimeout)
        };
        let waiters: Vec<_> = (0..50)
            .map(|_| {
                let (loader, calls) = (loader.clone(), calls.clone());
                tokio::spawn(async move { loader.get(|| failing(calls)).await })
            })
            .collect();
        for waiter in waiters {
            assert!(waiter.await.unwrap().is_err());
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // During the backoff: no call at all.
        for _ in 0..100 {
            assert!(loader.get(|| failing(calls.clone())).await.is_err());
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert!(loader.next_attempt().await.is_some());
        // After it, the next attempt succeeds and stays.
        tokio::time::advance(Duration::from_millis(251)).await;
        let loaded = loader
            .get(|| async { Ok(metadata()) })
            .await
            .expect("loaded");
        assert_eq!(loaded.issuer, "http://id");
        assert!(loader.loaded().is_some());
        assert!(loader.next_attempt().await.is_none());
        assert!(loader.get(|| failing(calls.clone())).await.is_ok());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}
