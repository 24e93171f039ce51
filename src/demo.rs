//! The demo lane: the simulator played in real time (scaled by `speed`)
//! into the same channel the sensors and the panel use, so the journal, the
//! core, the API and the speaker see a lane like any other.

use crate::lane::{Event, Millis};
use crate::ports::{Clock, Input, InputSender, Reading};
use crate::sim::Scenario;

/// Plays blocks of the demo scenario of lane `lane`
/// ([`Scenario::demo_on_lane`]), one after another with new seeds, until
/// the lane's thread is gone. `start` is the lane time the first event is
/// played at (the journal may already hold earlier lines).
pub async fn play(clock: Clock, start: Millis, lane: u32, first_seed: u64, inputs: InputSender) {
    let mut offset = start;
    for seed in first_seed.. {
        let mut last = offset;
        for e in Scenario::demo_on_lane(lane, seed).run() {
            let t = offset + e.t;
            last = t;
            let at = clock.instant(t);
            tokio::time::sleep_until(at.into()).await;
            let input = match e.event {
                Event::Sensor(sensor) => Input::Reading(Reading { at, sensor }),
                Event::Panel(panel) => Input::Action { panel, reply: None },
            };
            if inputs.send(input).await.is_err() {
                return;
            }
        }
        // A pause between blocks, as on a real lane.
        offset = last + 60_000;
    }
}

/// Lane time as h:mm:ss (the demo says where it stopped).
pub fn clock(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}
