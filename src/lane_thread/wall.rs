//! When a journal line gives the wall-clock time of its `t` (journal.md,
//! "Wall-clock time"): lane time goes on from the journal's last `t` at a
//! start, so the journal must say where it stands against the wall clock.

use std::time::{Duration, Instant};

use super::LaneRunner;
use crate::lane::{Event, Millis, Stamped};
use crate::wall::WallTime;
use crate::wall_clock::{wall_now, zone_now};

/// How far the wall clock may move from what the journal says before a
/// line gives it again (it was set: NTP's first sync on a Pi without a
/// clock battery, a technician's `date`).
const STEP_MS: i64 = 1000;

impl LaneRunner {
    /// The wall-clock time the line of lane time `t` gives: the first line
    /// this run writes into a journal (`fresh`: a journal just created, or
    /// none written since the start), and a line where the wall clock has
    /// moved more than a second from the journal's own (only at the speed
    /// of real time: a faster lane's wall clock is its lane time).
    pub(super) fn wall_for(&self, t: Millis, fresh: bool) -> Option<WallTime> {
        let lane_now = self.real.t(Instant::now());
        let behind = i64::try_from(lane_now.saturating_sub(t)).unwrap_or(i64::MAX);
        let wall = WallTime(wall_now().0.saturating_sub(behind));
        if fresh || !self.wall_given {
            return Some(wall);
        }
        if self.settings.speed != 1.0 {
            return None;
        }
        match self.replay.wall_clock().at(t) {
            Some(said) if (said.0 - wall.0).abs() <= STEP_MS => None,
            _ => Some(wall),
        }
    }
}

impl LaneRunner {
    /// The wall-clock times a run of lines written together gives
    /// ([`LaneRunner::wall_for`]): once a line of them gives it, those
    /// after it are a moment later and need not.
    pub(super) fn walls_for(&self, run: &[Stamped<Event>]) -> Vec<Option<WallTime>> {
        let mut given = false;
        run.iter()
            .map(|e| {
                let wall = (!given).then(|| self.wall_for(e.t, false)).flatten();
                given |= wall.is_some();
                wall
            })
            .collect()
    }
}

/// How long the system's time zone, as the panel is told it, is kept
/// before it is read again.
const ZONE_FOR: Duration = Duration::from_secs(60);

/// The system's time zone for the panel's times of day (`time_zone` in
/// `/api/lane`), read at most once a minute.
#[derive(Default)]
pub(super) struct Zone(Option<(Instant, serde_json::Value)>);

impl Zone {
    pub(super) fn now(&mut self) -> serde_json::Value {
        let now = Instant::now();
        match &self.0 {
            Some((read, zone)) if now.duration_since(*read) < ZONE_FOR => zone.clone(),
            _ => {
                let zone = zone_now();
                self.0 = Some((now, zone.clone()));
                zone
            }
        }
    }
}
