//! Exponential backoff with jitter: the waits between retries of a read and between polls
//! of a donation's status.

/// The wait before attempt number `attempt + 1` (0-based): `base_ms · 2^attempt`, at most
/// `cap_ms`, scaled by a jitter in [0.5, 1) from `random` in [0, 1), so clients that failed
/// together do not come back together.
///
/// ```
/// use fundraising_core::backoff::delay_ms;
/// assert_eq!(delay_ms(0, 300.0, 10_000.0, 0.0), 150.0);
/// assert_eq!(delay_ms(2, 300.0, 10_000.0, 0.0), 600.0);
/// assert_eq!(delay_ms(20, 300.0, 10_000.0, 0.0), 5_000.0);
/// ```
pub fn delay_ms(attempt: u32, base_ms: f64, cap_ms: f64, random: f64) -> f64 {
    let exponential = base_ms * f64::from(1u32 << attempt.min(30));
    exponential.min(cap_ms) * (0.5 + random.clamp(0.0, 1.0) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_caps_and_jitters_within_half() {
        let mut last = 0.0;
        for attempt in 0..8 {
            let low = delay_ms(attempt, 1000.0, 8000.0, 0.0);
            let high = delay_ms(attempt, 1000.0, 8000.0, 0.999_999);
            assert!(low >= last, "{attempt}");
            assert!(high < 2.0 * low + 1e-6 && high > low, "{attempt}");
            assert!(high <= 8000.0);
            last = low;
        }
        assert_eq!(delay_ms(u32::MAX, 1.0, 50.0, 0.0), 25.0);
    }
}
