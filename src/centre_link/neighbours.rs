//! Adjacent lanes: a neighbour's `delivering`, read from its state, goes
//! to the lane's thread on a change; a neighbour whose busy state is not
//! refreshed within `NEIGHBOUR_TTL`, one that goes offline, and every
//! busy one when the broker is lost, as not busy. [`Neighbours`] decides
//! (time in, changes out); the link sends the changes.

use std::collections::BTreeMap;
use std::time::Instant;

use super::{Link, NEIGHBOUR_TTL};
use crate::lane::Sensor;
use crate::ports::Input;

/// The `delivering` of a lane's state (replay-output.md), this lane's or a
/// neighbour's; false for a state that does not say.
pub(super) fn delivering(state: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct State {
        #[serde(default)]
        delivering: bool,
    }
    serde_json::from_slice::<State>(state).is_ok_and(|s| s.delivering)
}

/// The neighbours' `delivering` as the lane's thread knows it.
pub(super) struct Neighbours {
    /// Each neighbour's `delivering` as last sent to the lane's thread.
    busy: BTreeMap<u32, bool>,
    /// When each busy neighbour is taken as not busy, unless its state
    /// comes again first.
    busy_until: BTreeMap<u32, Instant>,
}

impl Neighbours {
    pub(super) fn new(lanes: &[u32]) -> Neighbours {
        Neighbours {
            busy: lanes.iter().map(|n| (*n, false)).collect(),
            busy_until: BTreeMap::new(),
        }
    }

    /// Lane `lane` said (by its state, or `offline`) whether it is busy,
    /// at `now`: `Some(busy)` when the lane's thread is to be told.
    pub(super) fn heard(&mut self, lane: u32, busy: bool, now: Instant) -> Option<bool> {
        if busy {
            self.busy_until.insert(lane, now + NEIGHBOUR_TTL);
        } else {
            self.busy_until.remove(&lane);
        }
        self.set(lane, busy)
    }

    /// When the next busy neighbour expires.
    pub(super) fn due(&self) -> Option<Instant> {
        self.busy_until.values().min().copied()
    }

    /// Busy neighbours whose state did not come again by `now`: each is
    /// now not busy (to tell the lane's thread).
    pub(super) fn expired(&mut self, now: Instant) -> Vec<u32> {
        let expired: Vec<u32> = (self.busy_until.iter())
            .filter(|(_, until)| **until <= now)
            .map(|(n, _)| *n)
            .collect();
        expired
            .into_iter()
            .filter(|&lane| {
                self.busy_until.remove(&lane);
                tracing::info!(
                    lane,
                    "centre link: no state from the neighbour for {} s: taken as not delivering",
                    NEIGHBOUR_TTL.as_secs()
                );
                self.set(lane, false).is_some()
            })
            .collect()
    }

    /// The broker is lost: every busy neighbour is now not busy (a lane
    /// is never held by a neighbour it cannot see).
    pub(super) fn lost(&mut self) -> Vec<u32> {
        self.busy_until.clear();
        let busy: Vec<u32> = (self.busy.iter())
            .filter(|(_, b)| **b)
            .map(|(n, _)| *n)
            .collect();
        busy.into_iter()
            .filter(|&lane| self.set(lane, false).is_some())
            .collect()
    }

    fn set(&mut self, lane: u32, busy: bool) -> Option<bool> {
        let known = self.busy.get_mut(&lane)?;
        if *known == busy {
            return None;
        }
        *known = busy;
        Some(busy)
    }
}

impl Link {
    /// A neighbour's `delivering`, to the lane's thread.
    async fn tell(&self, lane: u32, busy: bool) {
        let _ = self
            .inputs
            .send(Input::now(Sensor::Neighbour { lane, busy }))
            .await;
    }

    /// A neighbour said whether it is busy.
    pub(super) async fn neighbour(&mut self, lane: u32, busy: bool) {
        let now = tokio::time::Instant::now().into_std();
        if let Some(busy) = self.neighbours.heard(lane, busy, now) {
            self.tell(lane, busy).await;
        }
    }

    /// Busy neighbours whose state did not come again in time: not busy.
    pub(super) async fn neighbours_expired(&mut self) {
        let now = tokio::time::Instant::now().into_std();
        for lane in self.neighbours.expired(now) {
            self.tell(lane, false).await;
        }
    }

    /// The broker is lost: a lane is never held by a neighbour it cannot see.
    pub(super) async fn all_neighbours_clear(&mut self) {
        for lane in self.neighbours.lost() {
            self.tell(lane, false).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A neighbour that says it delivers once and nothing more (its link
    /// lost, say) holds this lane no longer than NEIGHBOUR_TTL; a state
    /// that comes again in time keeps it busy from then on.
    #[test]
    fn a_neighbours_delivering_not_refreshed_expires() {
        let t0 = Instant::now();
        let mut n = Neighbours::new(&[10, 12]);
        assert_eq!(n.heard(10, true, t0), Some(true));
        assert_eq!(n.heard(10, true, t0), None, "the same again is no change");
        assert_eq!(n.heard(11, true, t0), None, "not a neighbour");
        assert_eq!(n.due(), Some(t0 + NEIGHBOUR_TTL));
        let almost = t0 + NEIGHBOUR_TTL - Duration::from_millis(1);
        assert_eq!(n.expired(almost), Vec::<u32>::new());
        // Refreshed just in time: it lasts from the refresh.
        assert_eq!(n.heard(10, true, almost), None);
        assert_eq!(n.expired(t0 + NEIGHBOUR_TTL), Vec::<u32>::new());
        assert_eq!(n.expired(almost + NEIGHBOUR_TTL), [10]);
        assert_eq!(n.due(), None);
        // Not busy now: a later refresh is a change again.
        assert_eq!(n.heard(10, true, almost + NEIGHBOUR_TTL), Some(true));
    }

    /// Offline (not busy) clears it and its expiry; a lost broker clears
    /// every busy one, once.
    #[test]
    fn a_neighbour_offline_or_a_lost_broker_clears_it() {
        let t0 = Instant::now();
        let mut n = Neighbours::new(&[10, 12]);
        n.heard(10, true, t0);
        assert_eq!(n.heard(10, false, t0), Some(false));
        assert_eq!(n.due(), None);
        n.heard(10, true, t0);
        n.heard(12, true, t0);
        assert_eq!(n.lost(), [10, 12]);
        assert_eq!(n.lost(), Vec::<u32>::new());
        assert_eq!(n.expired(t0 + NEIGHBOUR_TTL), Vec::<u32>::new());
    }
}
