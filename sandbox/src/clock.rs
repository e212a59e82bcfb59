//! Wall clock that tests can move forward.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The sandbox's clock: system time plus an offset that [`Clock::advance`] increases.
///
/// Clones share the offset, so a test can keep one and move the sandbox's time.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    offset_ms: Arc<AtomicI64>,
}

impl Clock {
    /// Milliseconds since the Unix epoch.
    pub fn now_millis(&self) -> i64 {
        let system = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        system.saturating_add(self.offset_ms.load(Ordering::SeqCst))
    }

    /// Seconds since the Unix epoch.
    pub fn now_secs(&self) -> i64 {
        self.now_millis().div_euclid(1000)
    }

    /// Moves this clock (and all its clones) forward.
    pub fn advance(&self, by: Duration) {
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.offset_ms.fetch_add(ms, Ordering::SeqCst);
    }
}
