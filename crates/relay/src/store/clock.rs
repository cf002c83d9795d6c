//! One clock per deployment. Every "now" a row stores and every "is it due?" is read from the
//! store's [`Clock`]: on SQLite (one process) the process clock; on PostgreSQL the process clock
//! corrected by an offset measured against the database's `clock_timestamp()`, so replicas whose
//! own clocks drift still agree on when an elicitation is due.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use crate::time::process_now_ms;

/// The deployment's clock: the process clock plus an offset (0 unless measured). Clones share
/// the offset, so a re-measurement reaches every holder.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    offset_ms: Arc<AtomicI64>,
}

impl Clock {
    /// Milliseconds since the Unix epoch by the deployment's clock.
    pub fn now_ms(&self) -> i64 {
        process_now_ms().saturating_add(self.offset_ms())
    }

    /// How far the deployment's clock is ahead of this process's (negative: behind).
    pub fn offset_ms(&self) -> i64 {
        self.offset_ms.load(Ordering::Relaxed)
    }

    /// Adopts a newly measured offset.
    pub(crate) fn set_offset_ms(&self, offset_ms: i64) {
        self.offset_ms.store(offset_ms, Ordering::Relaxed);
    }
}

/// One reading of the database's clock: the process clock when the query was sent, the
/// database's answer, and the process clock when the answer arrived (all ms since the epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockReading {
    /// The process clock before sending.
    pub sent_ms: i64,
    /// The database's clock as it answered.
    pub database_ms: i64,
    /// The process clock after the answer.
    pub received_ms: i64,
}

impl ClockReading {
    /// How long the query took there and back; negative when the process clock stepped back.
    fn round_trip_ms(&self) -> i64 {
        self.received_ms.saturating_sub(self.sent_ms)
    }

    /// The database's clock minus the process clock, taking the database to have answered at
    /// the midpoint of the round trip (the error is at most half the round trip).
    fn offset_ms(&self) -> i64 {
        let midpoint = self.sent_ms.saturating_add(self.round_trip_ms() / 2);
        self.database_ms.saturating_sub(midpoint)
    }
}

/// The offset told by the reading with the shortest round trip (the least uncertain); `None`
/// without a usable reading (none, or only ones where the process clock stepped back).
pub fn measured_offset_ms(readings: &[ClockReading]) -> Option<i64> {
    readings
        .iter()
        .filter(|reading| reading.round_trip_ms() >= 0)
        .min_by_key(|reading| reading.round_trip_ms())
        .map(ClockReading::offset_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(sent_ms: i64, database_ms: i64, received_ms: i64) -> ClockReading {
        ClockReading {
            sent_ms,
            database_ms,
            received_ms,
        }
    }

    #[test]
    fn the_database_is_taken_to_answer_at_the_midpoint_of_the_round_trip() {
        // Sent at 1000, answered 10 ms later: the database's 1005 is the process's midpoint.
        assert_eq!(measured_offset_ms(&[reading(1_000, 1_005, 1_010)]), Some(0));
        // A database an hour ahead, and one a second behind.
        assert_eq!(
            measured_offset_ms(&[reading(1_000, 3_601_005, 1_010)]),
            Some(3_600_000)
        );
        assert_eq!(
            measured_offset_ms(&[reading(10_000, 9_002, 10_004)]),
            Some(-1_000)
        );
    }

    #[test]
    fn the_shortest_round_trip_wins() {
        let slow = reading(1_000, 1_900, 2_000); // says +400, give or take 500
        let fast = reading(5_000, 5_102, 5_004); // says +100, give or take 2
        assert_eq!(measured_offset_ms(&[slow, fast]), Some(100));
        assert_eq!(measured_offset_ms(&[fast, slow]), Some(100));
    }

    #[test]
    fn no_usable_reading_measures_nothing() {
        assert_eq!(measured_offset_ms(&[]), None);
        // The process clock stepped back during the query: the reading says nothing.
        assert_eq!(measured_offset_ms(&[reading(2_000, 1_500, 1_000)]), None);
        assert_eq!(
            measured_offset_ms(&[reading(2_000, 1_500, 1_000), reading(0, 7, 2)]),
            Some(6)
        );
    }

    #[test]
    fn extreme_readings_saturate_instead_of_overflowing() {
        assert_eq!(
            measured_offset_ms(&[reading(i64::MIN, i64::MAX, i64::MIN)]),
            Some(i64::MAX)
        );
        assert!(measured_offset_ms(&[reading(0, i64::MIN, i64::MAX)]).is_some());
    }

    #[test]
    fn clones_share_the_measured_offset() {
        let clock = Clock::default();
        let held_elsewhere = clock.clone();
        assert_eq!(held_elsewhere.offset_ms(), 0);
        clock.set_offset_ms(3_600_000);
        assert_eq!(held_elsewhere.offset_ms(), 3_600_000);
        let difference = held_elsewhere.now_ms() - process_now_ms();
        assert!(
            (3_599_000..=3_600_000).contains(&difference),
            "{difference}"
        );
    }
}
