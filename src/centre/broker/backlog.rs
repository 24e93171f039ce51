//! How far the centre's own link is behind what the lanes publish through
//! the embedded broker, and the front holding the lanes back when it is
//! too far: rumqttd acknowledges a lane's message at once and keeps each
//! subscription's messages in a bounded log; a centre that falls further
//! behind than that log is skipped ahead and must ask for the lines
//! again (BENCHMARKS.md, "The centre: 128 lanes"). So the front relays a
//! lane's PUBLISH only while the payloads relayed and not yet taken by the
//! centre stay under [`MAX_BEHIND`]; the lane then waits on TCP, its
//! window of unacknowledged lines full, as it would for a slow broker.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// Payload bytes the centre may be behind: half rumqttd's log of one
/// subscription (4 MiB, `run.rs`), and a few lanes' states (~77 kB each).
pub const MAX_BEHIND: u64 = 2 << 20;
/// A centre that takes nothing for this long while behind has taken
/// all it will (messages skipped or for no one): the count starts again.
const STALE: Duration = Duration::from_secs(1);

/// The count shared by the front and the centre's link.
#[derive(Debug)]
pub struct Backlog {
    start: Instant,
    /// [`STALE`], but in tests.
    stale: Duration,
    /// Payload bytes of the lanes' PUBLISHes relayed to rumqttd.
    relayed: AtomicU64,
    /// Payload bytes of the lanes' messages the centre took.
    taken: AtomicU64,
    /// When the centre last took one (ms since `start`).
    taken_at: AtomicU64,
    /// When a lane was last held back (ms since `start`; 0: never).
    held_at: AtomicU64,
    /// Whether the centre is connected and subscribed: else nothing is held.
    subscribed: AtomicBool,
    room: Notify,
}

impl Default for Backlog {
    fn default() -> Self {
        Backlog {
            start: Instant::now(),
            stale: STALE,
            relayed: AtomicU64::new(0),
            taken: AtomicU64::new(0),
            taken_at: AtomicU64::new(0),
            held_at: AtomicU64::new(0),
            subscribed: AtomicBool::new(false),
            room: Notify::new(),
        }
    }
}

impl Backlog {
    fn ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn behind(&self) -> u64 {
        (self.relayed.load(Ordering::Relaxed)).saturating_sub(self.taken.load(Ordering::Relaxed))
    }

    /// The centre subscribed (`true`) or lost the broker: the count starts
    /// again.
    pub fn subscribed(&self, yes: bool) {
        self.taken
            .store(self.relayed.load(Ordering::Relaxed), Ordering::Relaxed);
        self.subscribed.store(yes, Ordering::Relaxed);
        self.room.notify_waiters();
    }

    /// The centre took a lane's message of `bytes` payload.
    pub fn took(&self, bytes: usize) {
        // Never ahead of what was relayed (a retained message the centre
        // gets at subscribe was counted before the count started again).
        let relayed = self.relayed.load(Ordering::Relaxed);
        let _ = (self.taken).fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| {
            Some((t + bytes as u64).min(relayed.max(t)))
        });
        self.taken_at.store(self.ms(), Ordering::Relaxed);
        if self.behind() < MAX_BEHIND {
            self.room.notify_waiters();
        }
    }

    /// Whether a lane was held back within `within`.
    pub fn held_within(&self, within: Duration) -> bool {
        let at = self.held_at.load(Ordering::Relaxed);
        at != 0 && self.ms().saturating_sub(at) < within.as_millis() as u64
    }

    /// Waits until the centre is less than [`MAX_BEHIND`] behind (or not
    /// subscribed, or stale), then counts a lane's PUBLISH of `bytes`.
    pub async fn relay(&self, bytes: usize) {
        loop {
            let room = self.room.notified();
            tokio::pin!(room);
            room.as_mut().enable();
            if !self.subscribed.load(Ordering::Relaxed) || self.behind() < MAX_BEHIND {
                break;
            }
            self.held_at.store(self.ms().max(1), Ordering::Relaxed);
            if tokio::time::timeout(self.stale, room).await.is_err() {
                let quiet = self
                    .ms()
                    .saturating_sub(self.taken_at.load(Ordering::Relaxed));
                if quiet >= self.stale.as_millis() as u64 {
                    self.taken
                        .store(self.relayed.load(Ordering::Relaxed), Ordering::Relaxed);
                }
            }
        }
        self.relayed.fetch_add(bytes as u64, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_lane_is_held_while_the_centre_is_behind_and_let_go_as_it_takes() {
        let b = std::sync::Arc::new(Backlog::default());
        // Not subscribed: nothing is held.
        b.relay(3 << 20).await;
        b.subscribed(true);
        b.relay(MAX_BEHIND as usize).await;
        assert!(!b.held_within(Duration::from_secs(3)));
        let waiting = tokio::spawn({
            let b = std::sync::Arc::clone(&b);
            async move { b.relay(100).await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "held while the centre is behind");
        assert!(b.held_within(Duration::from_secs(3)));
        b.took(1000);
        waiting.await.unwrap();
        assert_eq!(b.behind(), MAX_BEHIND - 1000 + 100);
    }

    #[tokio::test]
    async fn a_centre_that_takes_nothing_lets_the_lanes_go() {
        let b = Backlog {
            stale: Duration::from_millis(20),
            ..Backlog::default()
        };
        b.subscribed(true);
        b.relay(MAX_BEHIND as usize).await;
        // Nothing taken: after STALE the count starts again.
        b.relay(10).await;
        assert_eq!(b.behind(), 10);
    }
}
