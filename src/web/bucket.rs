//! A keyed token bucket: each key may take a burst of tries at once, then
//! one more per period, in a table of bounded size. The login rate of
//! [`super::limit`] keys it by the client's address.
//!
//! Kept as the generic cell rate algorithm: each key holds one instant,
//! when its bucket is full again (its "theoretical arrival time"). A try at
//! `now` adds one period to it (counted from `now` if it was already past):
//! it is taken while that stays within `burst` periods of `now`, else
//! refused with the time until it would be. A key whose bucket is full
//! again holds nothing worth keeping and is the first forgotten.
//!
//! Time is given by the caller (`now`), so tests drive it by hand.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::{Duration, Instant};

/// Per-key buckets of `burst` tries, refilled one per `period`, for at most
/// `kept` keys.
#[derive(Debug)]
pub struct KeyedBucket<K> {
    burst: u32,
    period: Duration,
    kept: usize,
    /// Each key's instant of a full bucket.
    full_at: HashMap<K, Instant>,
}

impl<K: Eq + Hash + Clone> KeyedBucket<K> {
    /// `burst` tries at once (at least one), one more each `period`, for at
    /// most `kept` keys (at least one).
    pub fn new(burst: u32, period: Duration, kept: usize) -> KeyedBucket<K> {
        KeyedBucket {
            burst: burst.max(1),
            period,
            kept: kept.max(1),
            full_at: HashMap::new(),
        }
    }

    /// One try by `key` at `now`: `Ok` when taken, else how long until
    /// one would be.
    ///
    /// A key not yet in a full table makes room: the keys whose bucket is
    /// full again are forgotten, then, while the table is still full, the
    /// one whose bucket fills soonest (it has the least left to refill:
    /// forgetting it gives away the least).
    pub fn try_take(&mut self, key: &K, now: Instant) -> Result<(), Duration> {
        let full_at = match self.full_at.get(key) {
            Some(at) => *at,
            None => {
                self.make_room(now);
                now
            }
        };
        let next = full_at.max(now) + self.period;
        let allowance = self.period.saturating_mul(self.burst);
        let ahead = next.saturating_duration_since(now);
        if ahead > allowance {
            return Err(ahead - allowance);
        }
        self.full_at.insert(key.clone(), next);
        Ok(())
    }

    fn make_room(&mut self, now: Instant) {
        if self.full_at.len() < self.kept {
            return;
        }
        self.full_at.retain(|_, at| *at > now);
        while self.full_at.len() >= self.kept {
            let soonest = self
                .full_at
                .iter()
                .min_by_key(|(_, at)| **at)
                .map(|(k, _)| k.clone());
            let Some(k) = soonest else { break };
            self.full_at.remove(&k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PERIOD: Duration = Duration::from_secs(2);

    #[test]
    fn a_burst_then_one_per_period_and_the_wait_until_the_next() {
        let mut b = KeyedBucket::new(5, PERIOD, 16);
        let t0 = Instant::now();
        for _ in 0..5 {
            assert_eq!(b.try_take(&1, t0), Ok(()));
        }
        assert_eq!(b.try_take(&1, t0), Err(PERIOD), "the 6th waits a period");
        let t1 = t0 + Duration::from_millis(500);
        assert_eq!(b.try_take(&1, t1), Err(Duration::from_millis(1500)));
        // A refused try costs nothing: after the period, one more.
        let t2 = t0 + PERIOD;
        assert_eq!(b.try_take(&1, t2), Ok(()));
        assert_eq!(b.try_take(&1, t2), Err(PERIOD));
        // Another key has its own burst.
        for _ in 0..5 {
            assert_eq!(b.try_take(&2, t2), Ok(()));
        }
        // Quiet for the whole refill: the full burst again, no more.
        let t3 = t2 + PERIOD * 5;
        for _ in 0..5 {
            assert_eq!(b.try_take(&1, t3), Ok(()));
        }
        assert!(b.try_take(&1, t3).is_err());
        // Half the refill: half the burst.
        let t4 = t3 + PERIOD * 2;
        assert_eq!(b.try_take(&1, t4), Ok(()));
        assert_eq!(b.try_take(&1, t4), Ok(()));
        assert!(b.try_take(&1, t4).is_err());
    }

    #[test]
    fn the_table_is_bounded_forgetting_the_full_then_the_soonest_full() {
        let mut b = KeyedBucket::new(5, PERIOD, 4);
        let t0 = Instant::now();
        // Key 0 used its burst; keys 1 to 3 one try each, later.
        for _ in 0..5 {
            b.try_take(&0, t0).unwrap();
        }
        assert!(b.try_take(&0, t0).is_err());
        for k in 1..4 {
            b.try_take(&k, t0 + Duration::from_millis(k)).unwrap();
        }
        assert_eq!(b.full_at.len(), 4);
        // A fifth key: the one that fills soonest (key 1) goes, not key 0.
        b.try_take(&4, t0).unwrap();
        assert_eq!(b.full_at.len(), 4);
        assert!(b.try_take(&0, t0).is_err(), "the spent bucket is kept");
        assert!(!b.full_at.contains_key(&1));
        // Once every bucket is full again, a new key forgets them all.
        let later = t0 + PERIOD * 10;
        b.try_take(&9, later).unwrap();
        assert_eq!(b.full_at.len(), 1);
        for k in 100..200 {
            let _ = b.try_take(&k, later);
            assert!(b.full_at.len() <= 4);
        }
    }
}
