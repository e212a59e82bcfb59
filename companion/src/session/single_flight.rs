//! One upstream call per key at a time: concurrent refreshes of one session share a call.

use crate::clock::Clock;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// A finished call's outcome and when it finished.
type Finished<T> = (T, Instant);

/// How a caller took part in a flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// It started the call.
    Ran,
    /// It waited for a call another caller had started.
    Joined,
    /// It came after the call had ended, within the grace period, and got its outcome.
    Late,
}

struct Flight<T> {
    outcome: watch::Receiver<Option<Finished<T>>>,
}

impl<T> Flight<T> {
    /// Whether the flight is still shared at `now`: running, or finished with a kept outcome
    /// less than `grace` before.
    fn live(&self, now: Instant, grace: Duration, keep: fn(&T) -> bool) -> bool {
        match &*self.outcome.borrow() {
            Some((value, finished)) => {
                keep(value) && now.saturating_duration_since(*finished) < grace
            }
            None => self.outcome.has_changed().is_ok(),
        }
    }
}

/// Runs at most one call per key at a time; callers arriving while it runs, or within the
/// grace period after it succeeded, get its outcome. The grace period lets requests that
/// still carry the just-rotated cookie (other tabs, retries) receive the new tokens instead
/// of presenting a used refresh token; it counts from the end of the call, so a slow identity
/// server does not shorten it. Keys are hashed, so no token is kept in the clear.
pub struct SingleFlight<T> {
    flights: Mutex<HashMap<[u8; 32], Flight<T>>>,
    grace: Duration,
    keep: fn(&T) -> bool,
    clock: Clock,
}

impl<T: Clone + Send + Sync + 'static> SingleFlight<T> {
    /// A new group; finished outcomes for which `keep` is true are shared for `grace`,
    /// the others are forgotten at once (so a failure is retried by the next caller).
    pub fn new(grace: Duration, keep: fn(&T) -> bool) -> Self {
        Self {
            flights: Mutex::new(HashMap::new()),
            grace,
            keep,
            clock: Clock::default(),
        }
    }

    /// The same group, counting its grace period on `clock`.
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The outcome of the call for `key`: started with `make` unless one is running or
    /// recently succeeded. The call runs in its own task, so a caller that goes away does not
    /// cancel it. Also says how this caller took part. `None` only if that task died.
    pub async fn run<F, Fut>(&self, key: &str, make: F) -> Option<(T, Part)>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T> + Send + 'static,
    {
        let hash: [u8; 32] = Sha256::digest(key.as_bytes()).into();
        let (mut outcome, part) = {
            let mut flights = self.flights.lock().unwrap_or_else(|e| e.into_inner());
            let (now, grace, keep) = (self.clock.now(), self.grace, self.keep);
            flights.retain(|_, f| f.live(now, grace, keep));
            match flights.get(&hash) {
                Some(flight) => {
                    let part = if flight.outcome.borrow().is_some() {
                        Part::Late
                    } else {
                        Part::Joined
                    };
                    (flight.outcome.clone(), part)
                }
                None => {
                    let (tx, rx) = watch::channel(None);
                    let fut = make();
                    let clock = self.clock.clone();
                    tokio::spawn(async move {
                        let value = fut.await;
                        let _ = tx.send(Some((value, clock.now())));
                    });
                    flights.insert(
                        hash,
                        Flight {
                            outcome: rx.clone(),
                        },
                    );
                    (rx, Part::Ran)
                }
            }
        };
        let value = outcome.wait_for(|v| v.is_some()).await.ok()?;
        value.as_ref().map(|(value, _)| (value.clone(), part))
    }

    /// The outcome of the flight for `key` if one is running (then waits for it) or finished
    /// successfully within the grace period; never starts a call. Lets a caller follow a
    /// chain of flights (a rotated token that was itself refreshed since) to the newest one.
    pub async fn joined(&self, key: &str) -> Option<T> {
        let hash: [u8; 32] = Sha256::digest(key.as_bytes()).into();
        let mut outcome = {
            let flights = self.flights.lock().unwrap_or_else(|e| e.into_inner());
            let flight = flights.get(&hash)?;
            if !flight.live(self.clock.now(), self.grace, self.keep) {
                return None;
            }
            flight.outcome.clone()
        };
        let value = outcome.wait_for(|v| v.is_some()).await.ok()?;
        value.as_ref().map(|(value, _)| value.clone())
    }

    /// How many flights are remembered (running or within their grace period).
    pub fn len(&self) -> usize {
        self.flights.lock().map(|f| f.len()).unwrap_or(0)
    }

    /// Whether no flight is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[tokio::test]
    async fn concurrent_callers_share_one_call() {
        let group = Arc::new(SingleFlight::<Result<u32, ()>>::new(
            Duration::from_secs(10),
            |v| v.is_ok(),
        ));
        let calls = Arc::new(AtomicUsize::new(0));
        let (release_tx, release_rx) = watch::channel(false);
        let mut handles = Vec::new();
        for _ in 0..8 {
            let (group, calls, mut release) = (group.clone(), calls.clone(), release_rx.clone());
            handles.push(tokio::spawn(async move {
                group
                    .run("token", move || async move {
                        calls.fetch_add(1, Ordering::SeqCst);
                        let _ = release.wait_for(|r| *r).await;
                        Ok(7)
                    })
                    .await
            }));
        }
        tokio::task::yield_now().await;
        release_tx.send(true).unwrap();
        for h in handles {
            assert_eq!(h.await.unwrap().map(|(v, _)| v), Some(Ok(7)));
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // Another key is another call.
        let other = group.run("other", || async { Ok(8) }).await;
        assert_eq!(other, Some((Ok(8), Part::Ran)));
        assert_eq!(group.len(), 2);
    }

    #[tokio::test]
    async fn joined_never_starts_a_call_and_shares_a_kept_outcome() {
        let group = SingleFlight::<Result<u32, ()>>::new(Duration::from_secs(10), |v| v.is_ok());
        assert_eq!(group.joined("k").await, None);
        assert_eq!(
            group.run("k", || async { Ok(1) }).await,
            Some((Ok(1), Part::Ran))
        );
        assert_eq!(group.joined("k").await, Some(Ok(1)));
        assert_eq!(
            group.run("bad", || async { Err(()) }).await,
            Some((Err(()), Part::Ran))
        );
        assert_eq!(group.joined("bad").await, None);
        let short = SingleFlight::<Result<u32, ()>>::new(Duration::ZERO, |v| v.is_ok());
        assert_eq!(
            short.run("k", || async { Ok(1) }).await,
            Some((Ok(1), Part::Ran))
        );
        assert_eq!(short.joined("k").await, None, "past the grace period");
    }

    #[tokio::test]
    async fn failures_are_not_remembered() {
        let group = SingleFlight::<Result<u32, ()>>::new(Duration::from_secs(10), |v| v.is_ok());
        assert_eq!(
            group.run("k", || async { Err(()) }).await,
            Some((Err(()), Part::Ran))
        );
        assert_eq!(
            group.run("k", || async { Ok(1) }).await,
            Some((Ok(1), Part::Ran))
        );
        assert_eq!(
            group.run("k", || async { Ok(2) }).await,
            Some((Ok(1), Part::Late)),
            "a later caller gets the kept outcome"
        );
    }

    /// The grace period counts from the end of the call: a call that took 3 s is still
    /// shared 8 s after it answered, inside a 10 s grace period (counted from its start it
    /// would have ended 1 s earlier), and no longer after the 10 s.
    #[tokio::test(start_paused = true)]
    async fn the_grace_period_counts_from_the_end_of_the_call() {
        let group = SingleFlight::<Result<u32, ()>>::new(Duration::from_secs(10), |v| v.is_ok());
        let slow = group
            .run("k", || async {
                tokio::time::sleep(Duration::from_secs(3)).await;
                Ok(1)
            })
            .await;
        assert_eq!(slow, Some((Ok(1), Part::Ran)));
        tokio::time::advance(Duration::from_secs(8)).await;
        assert_eq!(group.joined("k").await, Some(Ok(1)), "8 s after the answer");
        assert_eq!(
            group.run("k", || async { Ok(2) }).await,
            Some((Ok(1), Part::Late)),
            "no second call within the grace period"
        );
        tokio::time::advance(Duration::from_millis(2001)).await;
        assert_eq!(group.joined("k").await, None, "10 s after the answer");
        assert_eq!(
            group.run("k", || async { Ok(3) }).await,
            Some((Ok(3), Part::Ran))
        );
    }

    /// The grace period is counted on the group's clock: moved past it, the outcome is no
    /// longer shared, with no time spent waiting.
    #[tokio::test]
    async fn the_grace_period_is_counted_on_the_groups_clock() {
        let clock = Clock::default();
        let group = SingleFlight::<Result<u32, ()>>::new(Duration::from_secs(10), |v| v.is_ok())
            .with_clock(clock.clone());
        assert_eq!(
            group.run("k", || async { Ok(1) }).await,
            Some((Ok(1), Part::Ran))
        );
        clock.advance(Duration::from_secs(9));
        assert_eq!(group.joined("k").await, Some(Ok(1)), "9 s on");
        clock.advance(Duration::from_secs(1));
        assert_eq!(group.joined("k").await, None, "10 s on");
    }
}
