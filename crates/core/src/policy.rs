//! The lifecycle rules every surface follows, decided here once: which timeout wins, when a draft
//! outlives its elicitation, when the countdown is announced, when the next timer wakes, and how
//! status polling backs off.

use crate::reply::{CancelSource, Ending};
use crate::session::COUNTDOWN_MS;

/// The timeout when nobody names one: five minutes.
pub const DEFAULT_TIMEOUT_MS: f64 = 300_000.0;
/// Status polling starts at this period.
pub const DEFAULT_POLL_MS: f64 = 2_000.0;
/// Polling never runs faster than this, whatever the host asks.
pub const MIN_POLL_MS: f64 = 100.0;
/// Polling backs off to at most this period.
pub const MAX_POLL_MS: f64 = 30_000.0;
/// The most elicitations shown per server per rolling minute when the host names no limit.
pub const DEFAULT_RATE_LIMIT: u32 = 10;
/// The countdown is spoken when it crosses these marks (seconds), not every second. Lowest first:
/// a countdown first seen below several marks is spoken once, for the lowest.
pub const ANNOUNCE_MARKS: [u64; 2] = [10, 30];

/// The timeout of one elicitation: the caller's option, else the request's own, else the host's
/// setting, else [`DEFAULT_TIMEOUT_MS`]. Only positive, finite values count.
pub fn timeout_ms(option: Option<f64>, request: Option<f64>, host: Option<f64>) -> f64 {
    [option, request, host]
        .into_iter()
        .flatten()
        .find(|ms| ms.is_finite() && *ms > 0.0)
        .unwrap_or(DEFAULT_TIMEOUT_MS)
}

/// The rate limit the host set, or [`DEFAULT_RATE_LIMIT`]; a negative or unreadable value is the
/// default, a huge one is capped.
pub fn rate_limit(host: Option<f64>) -> u32 {
    host.filter(|limit| limit.is_finite() && *limit >= 0.0)
        .map(|limit| limit.min(u32::MAX as f64) as u32)
        .unwrap_or(DEFAULT_RATE_LIMIT)
}

/// Whether what the user typed outlives an elicitation that ended this way. Only a tenant change
/// keeps it: the same elicitation may come back in that exact scope.
pub fn keeps_draft(ending: &Ending) -> bool {
    matches!(ending, Ending::Cancel(CancelSource::Workspace))
}

/// Which countdown seconds get spoken: each mark once, as the countdown crosses it.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Announcements {
    last_mark: Option<u64>,
}

impl Announcements {
    /// Given the seconds now shown (`None` when no countdown shows), the seconds to announce, if
    /// a mark was just crossed. A countdown that goes away resets the marks.
    pub fn on_countdown(&mut self, seconds: Option<u64>) -> Option<u64> {
        let Some(seconds) = seconds else {
            self.last_mark = None;
            return None;
        };
        let crossed = ANNOUNCE_MARKS
            .into_iter()
            .find(|mark| seconds <= *mark && self.last_mark.is_none_or(|last| last > *mark))?;
        self.last_mark = Some(crossed);
        Some(seconds)
    }
}

/// When the one timer of a surface should wake next: the earliest deadline, or while the
/// elicitation on screen shows a countdown, its next whole second, or when its countdown window
/// opens. `front_deadline` is `None` when nothing is on screen (only queued work).
pub fn next_wake(now: f64, earliest_deadline: f64, front_deadline: Option<f64>) -> f64 {
    let Some(front) = front_deadline else {
        return earliest_deadline;
    };
    let left = front - now;
    let wake = if left <= COUNTDOWN_MS {
        // `left % 1000.0` without the float remainder, whose fmod costs the wasm 2 KB of u128
        // division: `left` is at most COUNTDOWN_MS here, so a few exact subtractions do it.
        let mut to_next_second = if left.is_finite() { left } else { f64::NAN };
        while to_next_second >= 1000.0 {
            to_next_second -= 1000.0;
        }
        now + if to_next_second <= 0.0 {
            1000.0
        } else {
            to_next_second
        }
    } else {
        front - COUNTDOWN_MS
    };
    earliest_deadline.min(wake)
}

/// The period of URL-mode status polling: doubles after each failed poll, up to [`MAX_POLL_MS`].
#[derive(Debug, Clone, PartialEq)]
pub struct PollBackoff {
    delay_ms: f64,
}

impl PollBackoff {
    /// Starts at the host's period (or [`DEFAULT_POLL_MS`]), never below [`MIN_POLL_MS`].
    pub fn new(host_ms: Option<f64>) -> PollBackoff {
        let start = host_ms
            .filter(|ms| ms.is_finite() && *ms >= 0.0)
            .unwrap_or(DEFAULT_POLL_MS);
        PollBackoff {
            delay_ms: start.max(MIN_POLL_MS),
        }
    }

    /// How long to wait before the next poll.
    pub fn delay_ms(&self) -> f64 {
        self.delay_ms
    }

    /// A poll failed (network error, non-2xx, unreadable body): wait longer next time.
    pub fn failed(&mut self) {
        self.delay_ms = (self.delay_ms * 2.0).min(MAX_POLL_MS.max(self.delay_ms));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The countdown's next whole second is what `left % 1000.0` gave, for every kind of `left`.
    #[test]
    fn next_wake_matches_the_float_remainder() {
        let by_remainder = |now: f64, front: f64| {
            let left = front - now;
            let to_next_second = left % 1000.0;
            now + if to_next_second <= 0.0 {
                1000.0
            } else {
                to_next_second
            }
        };
        let now = 123_456.789;
        let mut lefts = vec![0.0, -0.0, 1000.0, 30_000.0, -1.0, -2500.0, 999.999, 0.001];
        lefts.extend((0..=60_000).map(|step| f64::from(step) * 0.5 - 1000.0 + 0.3));
        for left in lefts {
            let ours = next_wake(now, f64::INFINITY, Some(now + left));
            let theirs = by_remainder(now, now + left);
            assert_eq!(ours.to_bits(), theirs.to_bits(), "left {left}");
        }
        for (now, front) in [(f64::INFINITY, f64::NEG_INFINITY), (0.0, f64::NAN)] {
            let ours = next_wake(now, 5.0, Some(front));
            let theirs = 5.0_f64.min(by_remainder(now, front));
            assert_eq!(ours.to_bits(), theirs.to_bits(), "now {now} front {front}");
        }
    }

    #[test]
    fn the_callers_timeout_beats_the_requests_which_beats_the_hosts() {
        assert_eq!(timeout_ms(Some(1.0), Some(2.0), Some(3.0)), 1.0);
        assert_eq!(timeout_ms(None, Some(2.0), Some(3.0)), 2.0);
        assert_eq!(timeout_ms(None, None, Some(3.0)), 3.0);
        assert_eq!(timeout_ms(None, None, None), DEFAULT_TIMEOUT_MS);
        assert_eq!(
            timeout_ms(Some(0.0), Some(f64::NAN), Some(-5.0)),
            DEFAULT_TIMEOUT_MS,
            "zero, NaN and negative values are not timeouts"
        );
        assert_eq!(timeout_ms(Some(f64::INFINITY), None, Some(7.0)), 7.0);
    }

    #[test]
    fn the_rate_limit_defaults_and_caps() {
        assert_eq!(rate_limit(None), DEFAULT_RATE_LIMIT);
        assert_eq!(rate_limit(Some(3.0)), 3);
        assert_eq!(rate_limit(Some(0.0)), 0);
        assert_eq!(rate_limit(Some(-1.0)), DEFAULT_RATE_LIMIT);
        assert_eq!(rate_limit(Some(1e300)), u32::MAX);
    }

    #[test]
    fn only_a_tenant_change_keeps_the_draft() {
        assert!(keeps_draft(&Ending::Cancel(CancelSource::Workspace)));
        for ending in [
            Ending::Accept(None),
            Ending::Decline { reason: None },
            Ending::Timeout,
            Ending::Cancel(CancelSource::User),
            Ending::Cancel(CancelSource::Server),
            Ending::Cancel(CancelSource::Detached),
            Ending::Cancel(CancelSource::RateLimit),
        ] {
            assert!(!keeps_draft(&ending), "{ending:?} wipes the draft");
        }
    }

    #[test]
    fn the_countdown_is_announced_at_30_and_10_seconds_once_each() {
        let mut announcements = Announcements::default();
        let spoken: Vec<u64> = [
            None,
            Some(30),
            Some(29),
            Some(11),
            Some(10),
            Some(9),
            Some(1),
        ]
        .into_iter()
        .filter_map(|seconds| announcements.on_countdown(seconds))
        .collect();
        assert_eq!(spoken, vec![30, 10]);
    }

    #[test]
    fn a_countdown_first_seen_late_announces_the_lowest_crossed_mark_once() {
        let mut announcements = Announcements::default();
        assert_eq!(announcements.on_countdown(Some(8)), Some(8));
        assert_eq!(announcements.on_countdown(Some(7)), None);
        // A new elicitation on screen (no countdown for a moment) starts over.
        assert_eq!(announcements.on_countdown(None), None);
        assert_eq!(announcements.on_countdown(Some(25)), Some(25));
        assert_eq!(announcements.on_countdown(Some(10)), Some(10));
    }

    #[test]
    fn the_timer_wakes_at_the_deadline_the_countdown_window_or_the_next_second() {
        // Nothing on screen: only the earliest deadline matters.
        assert_eq!(next_wake(0.0, 5_000.0, None), 5_000.0);
        // On screen, far from its deadline: wake when the countdown window opens.
        assert_eq!(next_wake(0.0, 300_000.0, Some(300_000.0)), 270_000.0);
        // A queued elicitation expiring first still wins.
        assert_eq!(next_wake(0.0, 1_000.0, Some(300_000.0)), 1_000.0);
        // Inside the window: the next whole second of the countdown.
        assert_eq!(next_wake(280_250.0, 300_000.0, Some(300_000.0)), 281_000.0);
        assert_eq!(next_wake(281_000.0, 300_000.0, Some(300_000.0)), 282_000.0);
    }

    #[test]
    fn polling_backs_off_by_doubling_up_to_30_seconds() {
        let mut backoff = PollBackoff::new(None);
        assert_eq!(backoff.delay_ms(), DEFAULT_POLL_MS);
        let mut seen = Vec::new();
        for _ in 0..6 {
            backoff.failed();
            seen.push(backoff.delay_ms());
        }
        assert_eq!(
            seen,
            vec![4_000.0, 8_000.0, 16_000.0, 30_000.0, 30_000.0, 30_000.0]
        );
        assert_eq!(PollBackoff::new(Some(5.0)).delay_ms(), MIN_POLL_MS);
        assert_eq!(PollBackoff::new(Some(f64::NAN)).delay_ms(), DEFAULT_POLL_MS);
        let mut slow = PollBackoff::new(Some(60_000.0));
        slow.failed();
        assert_eq!(
            slow.delay_ms(),
            60_000.0,
            "a slow host period is kept, not shortened"
        );
    }
}
