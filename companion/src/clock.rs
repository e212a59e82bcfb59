//! The clock the companion's time-bound rules read: the grace window of a rotated refresh
//! token, and the expiry sealed into an outcome shared through Redis.
//!
//! It is the system's clock, plus an offset that only tests move ([`Clock::advance`]): a test
//! of a window then takes no wall-clock time and depends on no timing of the machine.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::time::Instant;

/// A clock shared by everything built from one [`Settings`](crate::Settings): cloning it
/// shares the offset.
#[derive(Clone, Default)]
pub struct Clock {
    /// How far ahead of the system's clock it is, in milliseconds.
    ahead_ms: Arc<AtomicU64>,
}

impl Clock {
    fn ahead(&self) -> Duration {
        Duration::from_millis(self.ahead_ms.load(Ordering::Relaxed))
    }

    /// The monotonic time now (tokio's, so paused test runtimes move it too).
    pub fn now(&self) -> Instant {
        Instant::now() + self.ahead()
    }

    /// Milliseconds since the Unix epoch now (what instances sharing Redis compare).
    pub fn unix_ms(&self) -> i64 {
        let now = SystemTime::now() + self.ahead();
        now.duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0)
    }

    /// Moves the clock, and every clone of it, `by` ahead. For tests: the rules that read it
    /// then see that much more time gone by.
    pub fn advance(&self, by: Duration) {
        let ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.ahead_ms.fetch_add(ms, Ordering::Relaxed);
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Clock")
            .field("ahead", &self.ahead())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_advanced_clock_is_ahead_in_every_clone() {
        let clock = Clock::default();
        let copy = clock.clone();
        let (before, before_ms) = (copy.now(), copy.unix_ms());
        clock.advance(Duration::from_secs(5));
        assert!(copy.now() >= before + Duration::from_secs(5));
        assert!(copy.unix_ms() >= before_ms + 5_000);
    }
}
