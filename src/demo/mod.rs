//! The demo lane: the simulator played in real time (scaled by `speed`)
//! into the same channel the sensors and the panel use, so the journal, the
//! core, the API and the speaker see a lane like any other.
//!
//! Its lane time follows the script, not the moment an input arrives: the
//! lane's clock is the script's ([`crate::ports::ScriptedClock`]); each
//! input is a step of it, with the lane time it was scheduled at and the
//! time of the script's next one ([`ScriptFeed::send`]), and the lane runs
//! its deadlines up to that and no further.
//! A machine too busy to play the script on time plays it late, never
//! differently: the same seed gives the same journal.
//!
//! The demo sits above the daemon: it is a [`Script`] that
//! [`crate::daemon::serve`] plays in place of a pinsetter ([`DemoLane`]).
//!
//! A demo centre with a programme ([`centre`], `lanecall demo --lanes N`)
//! runs the centre and its lanes in one process; each lane plays no
//! lineups of its own but bowls, as its script, the block the centre
//! pushes to it ([`Pushed`], `robot.rs`); `programme.rs` is the demo's
//! built-in programme, `director.rs` pushes its first block.

pub mod centre;
pub mod director;
pub mod programme;
mod robot;

pub use robot::{Pushed, follow_pushes};

use std::time::Duration;

use tokio::task::JoinHandle;

use crate::daemon::{Script, ScriptedLane};
use crate::lane::{Event, Millis};
use crate::ports::ScriptFeed;
use crate::sim::Scenario;

/// `lanecall demo`: a lane the simulator plays, block after block.
#[derive(Clone, Debug)]
pub struct DemoLane {
    /// How much faster than life.
    pub speed: f64,
    /// The first block's seed; each next block takes the next.
    pub seed: u64,
    /// The script's length at its speed (`--for`): it ends there, however
    /// late a busy machine plays it (the same seed, the same journal);
    /// `None`, it plays until the daemon stops.
    pub length: Option<Duration>,
}

impl Script for DemoLane {
    fn speed(&self) -> f64 {
        self.speed
    }

    fn ends(&self) -> bool {
        self.length.is_some()
    }

    fn play(self: Box<Self>, lane: ScriptedLane) -> JoinHandle<()> {
        let start = lane.feed.start();
        let until = self
            .length
            .map(|after| start + (after.as_secs_f64() * 1000.0 * self.speed) as Millis);
        tokio::spawn(play(lane.feed, until, lane.number, self.seed))
    }
}

/// The pause between two blocks of the script, as on a real lane.
const BETWEEN_BLOCKS: Millis = 60_000;

/// Plays blocks of the demo scenario of lane `lane`
/// ([`Scenario::demo_on_lane`]), one after another with new seeds, from
/// where `feed` starts (where the lane's time stands: the journal may
/// already hold earlier lines), each input when the lane's clock reaches
/// its time. With `until`, the script ends at that lane time and this
/// returns once the lane has been sent it; otherwise it plays until the
/// lane's thread is gone.
pub async fn play(feed: ScriptFeed, until: Option<Millis>, lane: u32, first_seed: u64) {
    let end = until.unwrap_or(Millis::MAX);
    let mut script = script(lane, first_seed, feed.start())
        .take_while(|&(t, _)| t < end)
        .peekable();
    while let Some((t, event)) = script.next() {
        let next = script.peek().map_or(end, |&(next, _)| next);
        if !send_at(&feed, t, Some(event), next).await {
            return;
        }
    }
    if let Some(end) = until {
        send_at(&feed, end, None, end).await;
    }
}

/// Sends one step of the script when the lane's clock reaches `t`; false
/// once the lane's thread is gone.
async fn send_at(feed: &ScriptFeed, t: Millis, event: Option<Event>, next: Millis) -> bool {
    tokio::time::sleep_until(feed.clock().instant(t).into()).await;
    feed.send(t, event, next).await.is_ok()
}

/// The script: the demo's blocks one after another from lane time `start`,
/// each event at its lane time, in time order.
fn script(lane: u32, first_seed: u64, start: Millis) -> impl Iterator<Item = (Millis, Event)> {
    let mut offset = start;
    (first_seed..).flat_map(move |seed| {
        let events: Vec<_> = Scenario::demo_on_lane(lane, seed).run().collect();
        let base = offset;
        offset = base + events.last().map_or(0, |e| e.t) + BETWEEN_BLOCKS;
        events.into_iter().map(move |e| (base + e.t, e.event))
    })
}

/// Lane time as h:mm:ss (the demo says where it stopped).
pub fn clock(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_is_in_time_order_with_a_pause_between_blocks() {
        let first: Vec<_> = Scenario::demo_on_lane(7, 3).run().collect();
        let last = first.last().expect("a block has events").t;
        let script: Vec<_> = script(7, 3, 5_000).take(first.len() + 1).collect();
        assert_eq!(script[0].0, 5_000 + first[0].t);
        assert!(script.windows(2).all(|w| w[0].0 <= w[1].0));
        let second: Vec<_> = Scenario::demo_on_lane(7, 4).run().collect();
        assert_eq!(
            script[first.len()].0,
            5_000 + last + BETWEEN_BLOCKS + second[0].t
        );
    }
}
