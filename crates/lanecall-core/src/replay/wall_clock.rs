//! The wall clock of a lane's time, as a replay reads it from the
//! journal's `wall` fields.
//!
//! Lane time `t` is one monotonic clock for the lane's day: it does not
//! follow the wall clock across a restart (it goes on from the journal's
//! last `t`) nor when the wall clock is stepped. [`WallClock`] keeps the
//! points where the two were read together and gives the wall time of any
//! lane time from the latest point at or before it.

use crate::lane::Millis;
use crate::wall::WallTime;

/// How many points a [`WallClock`] keeps: a lane's day has a few restarts
/// and clock steps; past this the oldest point is forgotten (its lane
/// times then read by the next one).
pub const MAX_POINTS: usize = 64;

/// Lane time to wall time, from the points where both were read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WallClock {
    /// `(t, wall)`, `t` ascending.
    points: Vec<(Millis, WallTime)>,
}

impl WallClock {
    /// Lane time `t` was wall time `wall`. A point at a `t` below the last
    /// one's is ignored (lane time never goes back); at the same `t` it
    /// replaces it.
    pub fn read(&mut self, t: Millis, wall: WallTime) {
        match self.points.last_mut() {
            Some(last) if t < last.0 => return,
            Some(last) if t == last.0 => {
                last.1 = wall;
                return;
            }
            _ => {}
        }
        if self.points.len() == MAX_POINTS {
            self.points.remove(0);
        }
        self.points.push((t, wall));
    }

    /// The wall time of lane time `t`: from the latest point at or before
    /// it (the first point for a `t` before every point); `None` with no
    /// point.
    pub fn at(&self, t: Millis) -> Option<WallTime> {
        let i = self.points.partition_point(|p| p.0 <= t);
        let (pt, wall) = *self.points.get(i.saturating_sub(1))?;
        let ms = i64::try_from(t).unwrap_or(i64::MAX) - i64::try_from(pt).unwrap_or(i64::MAX);
        Some(WallTime(wall.0.saturating_add(ms)))
    }

    pub fn points(&self) -> &[(Millis, WallTime)] {
        &self.points
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lane_time_reads_the_latest_point_before_it() {
        let mut c = WallClock::default();
        assert_eq!(c.at(5), None);
        c.read(1000, WallTime(10_000));
        // A restart: lane time went on from 61 000 while 10 minutes passed.
        c.read(61_000, WallTime(670_000));
        assert_eq!(c.at(0), Some(WallTime(9_000)));
        assert_eq!(c.at(60_999), Some(WallTime(69_999)));
        assert_eq!(c.at(61_000), Some(WallTime(670_000)));
        assert_eq!(c.at(62_500), Some(WallTime(671_500)));
        // Never back; the same `t` corrects its point.
        c.read(60_000, WallTime(0));
        c.read(61_000, WallTime(680_000));
        assert_eq!(
            c.points(),
            &[(1000, WallTime(10_000)), (61_000, WallTime(680_000))]
        );
        for k in 0..MAX_POINTS as u64 {
            c.read(100_000 + k, WallTime(0));
        }
        assert_eq!(c.points().len(), MAX_POINTS);
        assert_eq!(c.points()[0].0, 100_000);
    }
}
