//! Two lanes configured as the same lane kick each other off: rumqttd
//! drops the older of two connections with one client id, the lane whose
//! connection was dropped connects again, and so on. Noticed here from
//! the logins: a lane's login that connects while a connection of the same
//! login is still open, [`TIMES`] times within [`WINDOW`].

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// How often within [`WINDOW`] makes a duplicate.
pub const TIMES: usize = 3;
/// The window, and the least time between two reports of one lane.
pub const WINDOW: Duration = Duration::from_secs(30);

/// The lanes' logins seen while already connected, and when each lane was
/// last reported.
#[derive(Default)]
pub struct Duplicates {
    seen: HashMap<u32, VecDeque<Instant>>,
    told: HashMap<u32, Instant>,
}

impl Duplicates {
    /// Notes that lane `lane`'s login connected at `now` while a connection
    /// of it was open; whether to report the lane now.
    pub fn note(&mut self, lane: u32, now: Instant) -> bool {
        let seen = self.seen.entry(lane).or_default();
        seen.retain(|t| now.saturating_duration_since(*t) < WINDOW);
        seen.push_back(now);
        while seen.len() > TIMES {
            seen.pop_front();
        }
        if seen.len() < TIMES
            || self
                .told
                .get(&lane)
                .is_some_and(|t| now.saturating_duration_since(*t) < WINDOW)
        {
            return false;
        }
        self.told.insert(lane, now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_times_within_30_s_is_reported_at_most_once_per_30_s() {
        let mut d = Duplicates::default();
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        assert!(!d.note(7, at(0)));
        assert!(!d.note(7, at(10)));
        assert!(!d.note(3, at(11)), "another lane counts apart");
        assert!(d.note(7, at(20)), "the third within 30 s");
        assert!(!d.note(7, at(21)), "told 1 s ago");
        assert!(!d.note(7, at(49)), "told 29 s ago");
        assert!(
            d.note(7, at(50)),
            "30 s since it was told, and 3 within 30 s"
        );
        // Spread out: never 3 within 30 s.
        let mut d = Duplicates::default();
        for s in [0, 16, 32, 48, 64] {
            assert!(!d.note(1, at(s)), "{s}");
        }
    }
}
