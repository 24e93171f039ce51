//! Adjacent lanes: a neighbour's `delivering`, read from its state, goes
//! to the lane's thread on a change; a neighbour whose busy state is not
//! refreshed within `NEIGHBOUR_TTL`, one that goes offline, and every
//! busy one when the broker is lost, as not busy.

use tokio::time::Instant;

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

impl Link {
    /// A neighbour's `delivering`, sent to the lane's thread on a change.
    pub(super) async fn neighbour(&mut self, lane: u32, busy: bool) {
        let Some(known) = self.busy.get_mut(&lane) else {
            return;
        };
        if *known == busy {
            return;
        }
        *known = busy;
        let _ = self
            .inputs
            .send(Input::now(Sensor::Neighbour { lane, busy }))
            .await;
    }

    /// Busy neighbours whose state did not come again in time: not busy.
    pub(super) async fn neighbours_expired(&mut self) {
        let now = Instant::now();
        let expired: Vec<u32> = self
            .busy_until
            .iter()
            .filter(|(_, until)| **until <= now)
            .map(|(n, _)| *n)
            .collect();
        for lane in expired {
            self.busy_until.remove(&lane);
            tracing::info!(
                lane,
                "centre link: no state from the neighbour for {} s: taken as not delivering",
                NEIGHBOUR_TTL.as_secs()
            );
            self.neighbour(lane, false).await;
        }
    }

    /// The broker is lost: a lane is never held by a neighbour it cannot see.
    pub(super) async fn all_neighbours_clear(&mut self) {
        self.busy_until.clear();
        let busy: Vec<u32> = self
            .busy
            .iter()
            .filter(|(_, b)| **b)
            .map(|(n, _)| *n)
            .collect();
        for lane in busy {
            self.neighbour(lane, false).await;
        }
    }
}
