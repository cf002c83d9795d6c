//! Time as the relay counts it: milliseconds since the Unix epoch in an `i64`, and durations
//! turned into such milliseconds without overflowing. The deployment's clock, which corrects
//! this process's, is the store's [`Clock`](crate::store::Clock).

use std::time::{Duration, SystemTime};

/// Milliseconds since the Unix epoch by this process's clock.
pub use koder_elicitation_relay_protocol::now_ms as process_now_ms;

/// `duration` in whole milliseconds, [`i64::MAX`] when it is longer than that holds.
pub fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// The instant `unix_ms` milliseconds after the Unix epoch (a time before it counts from the
/// epoch forward, as no clock the relay reads is that far back).
pub fn system_time(unix_ms: i64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_millis(unix_ms.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millis_saturate_instead_of_wrapping() {
        assert_eq!(millis(Duration::from_millis(1_500)), 1_500);
        assert_eq!(millis(Duration::from_secs(u64::MAX)), i64::MAX);
    }

    #[test]
    fn unix_milliseconds_become_the_same_instant() {
        let instant = system_time(1_700_000_000_123);
        let since = instant.duration_since(SystemTime::UNIX_EPOCH).unwrap();
        assert_eq!(millis(since), 1_700_000_000_123);
    }
}
