//! The pin switches' state machine, pure: fed `(now_ms, levels)` samples
//! and polled at its [`Deck::deadline`], it gives the decks, faults and
//! link readings the lane journals ([`Sensor::Deck`], [`Sensor::DeckFault`],
//! [`Sensor::SerialLink`]).
//!
//! Levels are logical: bit `n - 1` set when pin `n` stands, bit
//! [`CYCLE_BIT`] set while the machine cycles. Times are milliseconds of
//! one monotonic clock; nothing here reads a clock.
//!
//! - A switch's change counts once it held `debounce` (a shorter bounce is
//!   ignored).
//! - Any raw change of a pin opens an episode; it ends when no pin changed
//!   for `settle` (and every change has held `debounce`). The deck is then
//!   read: a `Ball` deck when only pins went down since the last report, a
//!   `Set` deck when one went up, at start, or after a machine cycle; the
//!   same deck as the last report is not reported again.
//! - With a cycle input, the cycle's start reports the deck as it stands
//!   as a `Ball` deck unless one was reported since the last `Set` (a ball
//!   that knocked nothing down still gives a pin report), and the deck
//!   read after the cycle is a `Set` deck.
//! - A switch changing more than `flicker_changes` times in one episode is
//!   a `Flicker`, an episode still going after `max_settle` is
//!   `Unsettled`: each reported once per episode, and that episode gives
//!   no deck.
//! - The switches are the lane's link to the pinsetter: the first sample
//!   reports [`Sensor::SerialLink`] up; [`Deck::unreadable`] (they cannot
//!   be read) reports it down once, and the first sample after it up again
//!   and starts over, its settled deck a `Set`.

use crate::lane::{DeckAfter, DeckFault, PinSet, Sensor};

/// The bit of the cycle signal in a sample.
pub const CYCLE_BIT: u16 = 1 << 10;
const PINS: u16 = 0x3ff;

/// The state machine's times and limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeckTimes {
    pub debounce_ms: u64,
    pub settle_ms: u64,
    pub max_settle_ms: u64,
    pub flicker_changes: u32,
    /// Whether a cycle signal is wired (bit [`CYCLE_BIT`] means anything).
    pub cycle: bool,
}

/// Switch activity since the deck was last at rest.
#[derive(Clone, Debug)]
struct Episode {
    start: u64,
    /// The last raw change of a pin.
    last: u64,
    changes: [u32; 10],
    last_change: [u64; 10],
    /// A fault was reported: no deck from this episode.
    faulted: bool,
    /// A pin was set (its debounced switch went to standing).
    rose: bool,
}

impl Episode {
    fn new(now: u64) -> Episode {
        Episode {
            start: now,
            last: now,
            changes: [0; 10],
            last_change: [0; 10],
            faulted: false,
            rose: false,
        }
    }
}

/// The pin switches' state machine (see the module's doc).
#[derive(Clone, Debug)]
pub struct Deck {
    times: DeckTimes,
    /// The last sample's levels; none before the first or while unreadable.
    raw: Option<u16>,
    /// When each bit's raw level last changed.
    raw_since: [u64; 11],
    /// The debounced levels.
    stable: u16,
    episode: Option<Episode>,
    /// The last deck reported; none at start and after the switches were
    /// unreadable.
    reported: Option<PinSet>,
    /// The next settled deck is a `Set` (after a cycle, at start).
    set_due: bool,
    ball_since_set: bool,
    unreadable: bool,
}

impl Deck {
    pub fn new(times: DeckTimes) -> Deck {
        Deck {
            times,
            raw: None,
            raw_since: [0; 11],
            stable: 0,
            episode: None,
            reported: None,
            set_due: true,
            ball_since_set: false,
            unreadable: false,
        }
    }

    /// The debounced levels (pins standing, and [`CYCLE_BIT`]).
    pub fn stable(&self) -> u16 {
        self.stable
    }

    fn cycling(&self) -> bool {
        self.times.cycle && self.stable & CYCLE_BIT != 0
    }

    /// The switches read `levels` at `now`.
    pub fn sample(&mut self, now: u64, levels: u16) -> Vec<Sensor> {
        let levels = levels & (PINS | CYCLE_BIT);
        let Some(raw) = self.raw else {
            // The first reading, or the first since they were unreadable.
            self.raw = Some(levels);
            self.raw_since = [now; 11];
            self.stable = levels;
            self.unreadable = false;
            self.set_due = true;
            self.episode = (!self.cycling()).then(|| Episode::new(now));
            return vec![Sensor::SerialLink { up: true }];
        };
        let mut out = self.poll(now);
        let changed = raw ^ levels;
        if changed == 0 {
            return out;
        }
        self.raw = Some(levels);
        for bit in 0..11 {
            if changed & (1 << bit) != 0 {
                self.raw_since[bit] = now;
            }
        }
        let pins_changed = changed & PINS;
        if pins_changed != 0 && !self.cycling() {
            let flicker = self.times.flicker_changes;
            let episode = self.episode.get_or_insert_with(|| Episode::new(now));
            episode.last = now;
            let mut flickering = 0u16;
            for i in 0..10 {
                if pins_changed & (1 << i) != 0 {
                    episode.changes[i] += 1;
                    episode.last_change[i] = now;
                }
                if episode.changes[i] > flicker {
                    flickering |= 1 << i;
                }
            }
            if flickering != 0 && !episode.faulted {
                episode.faulted = true;
                out.push(Sensor::DeckFault {
                    fault: DeckFault::Flicker,
                    pins: pin_set(flickering),
                });
            }
        }
        out.extend(self.poll(now));
        out
    }

    /// The switches could not be read at `now`.
    pub fn unreadable(&mut self, _now: u64) -> Vec<Sensor> {
        self.raw = None;
        self.episode = None;
        self.reported = None;
        self.ball_since_set = false;
        if self.unreadable {
            return Vec::new();
        }
        self.unreadable = true;
        vec![Sensor::SerialLink { up: false }]
    }

    /// When [`Deck::poll`] is next due, if anything is pending.
    pub fn deadline(&self) -> Option<u64> {
        let raw = self.raw?;
        let mut next: Option<u64> = None;
        let mut at = |t: u64| next = Some(next.map_or(t, |n| n.min(t)));
        let pending = raw ^ self.stable;
        for bit in 0..11 {
            if pending & (1 << bit) != 0 {
                at(self.raw_since[bit] + self.times.debounce_ms);
            }
        }
        if let Some(e) = &self.episode {
            at(e.last + self.settle_after());
            if !e.faulted {
                at(e.start + self.times.max_settle_ms);
            }
        }
        next
    }

    fn settle_after(&self) -> u64 {
        self.times.settle_ms.max(self.times.debounce_ms)
    }

    /// Time has come to `now`: debounced changes, the cycle's edges, a
    /// settled or never-settling deck.
    pub fn poll(&mut self, now: u64) -> Vec<Sensor> {
        let mut out = Vec::new();
        let Some(raw) = self.raw else {
            return out;
        };
        let was_cycling = self.cycling();
        let before = self.stable;
        for bit in 0..11 {
            let mask = 1u16 << bit;
            if (raw ^ self.stable) & mask != 0
                && now >= self.raw_since[bit] + self.times.debounce_ms
            {
                self.stable ^= mask;
            }
        }
        if let Some(e) = &mut self.episode {
            e.rose |= self.stable & !before & PINS != 0;
        }
        let cycling = self.cycling();
        if cycling && !was_cycling {
            // The machine starts: the ball's deck as it stands, unless one
            // was reported (or this episode went wrong).
            let faulted = self.episode.take().is_some_and(|e| e.faulted);
            if !faulted && !self.ball_since_set && self.reported.is_some() {
                out.push(self.report(DeckAfter::Ball));
            }
            self.set_due = true;
        } else if !cycling && was_cycling {
            self.episode = Some(Episode::new(now));
            self.set_due = true;
        }
        let settle = self.settle_after();
        let Some(episode) = &mut self.episode else {
            return out;
        };
        let settled = now >= episode.last + settle && (raw ^ self.stable) & PINS == 0;
        if settled {
            let (faulted, rose) = (episode.faulted, episode.rose);
            self.episode = None;
            if !faulted {
                out.extend(self.settled(rose));
            }
        } else if !episode.faulted && now >= episode.start + self.times.max_settle_ms {
            episode.faulted = true;
            let mut still = 0u16;
            for i in 0..10 {
                if episode.changes[i] > 0 && episode.last_change[i] + settle > now {
                    still |= 1 << i;
                }
            }
            out.push(Sensor::DeckFault {
                fault: DeckFault::Unsettled,
                pins: pin_set(still),
            });
        }
        out
    }

    /// The deck is at rest: what it says, if anything new. `rose`: a pin
    /// was set on the way (a machine that lifts every pin after a ball and
    /// lowers the standing ones again has set the deck the ball left).
    fn settled(&mut self, rose: bool) -> Option<Sensor> {
        let deck = pin_set(self.stable);
        let after = match self.reported {
            _ if self.set_due => DeckAfter::Set,
            None => DeckAfter::Set,
            Some(last) if last == deck && rose && self.ball_since_set => DeckAfter::Set,
            Some(last) if last == deck => return None,
            Some(last) if !deck.without(last).is_empty() => DeckAfter::Set,
            Some(_) => DeckAfter::Ball,
        };
        Some(self.report(after))
    }

    fn report(&mut self, after: DeckAfter) -> Sensor {
        let standing = pin_set(self.stable);
        self.reported = Some(standing);
        self.ball_since_set = after == DeckAfter::Ball;
        if after == DeckAfter::Set {
            self.set_due = false;
        }
        Sensor::Deck { after, standing }
    }
}

fn pin_set(bits: u16) -> PinSet {
    PinSet::from_bits(bits & PINS).unwrap_or(PinSet::EMPTY)
}

#[cfg(test)]
#[path = "deck_tests.rs"]
mod tests;
