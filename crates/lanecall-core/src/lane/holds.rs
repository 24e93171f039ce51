//! Holds and the slow-bowling clock: a judge's hold, every reason the
//! lane pauses for the bowler up, the clock that starts when the lane is
//! ready and stops at the release, its warning and penalty, and the
//! penalties a judge gives.
//!
//! It decides when the clock runs, stands still or is flagged. It never
//! decides the release (`delivery`), who is up (`turns`), nor whether a
//! blindfold or a deck is fit (`blindfold`, `delivery`): it reads them.

use serde::Serialize;

use std::collections::BTreeSet;

use super::{Conduct, ConductKind, Effect, Lane, Level, MAX_NEIGHBOURS, Millis, Refusal};

/// Why the slow-bowling clock stands still ([`Lane::pause`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pause {
    /// A judge holds the lane.
    Hold,
    /// The pinsetter reported a fault and has not said `READY` since.
    PinsetterFault,
    /// The bowler's blindfold is being adjusted or checked.
    Blindfold,
    /// The deck set is not the one the rules expect for the ball up
    /// ([`Lane::wrong_deck`]): the machine re-racks or respots first.
    WrongDeck,
    /// A bowler on an adjacent lane is at the foul line or their ball is
    /// in play: the neighbouring lanes are not clear.
    Neighbour,
}

/// A judge's hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Hold {
    pub since: Millis,
    pub reason: Option<String>,
    pub by: Option<String>,
}

/// The slow-bowling clock of the bowler up.
#[derive(Clone, Copy, Debug)]
pub(super) struct SlowClock {
    pub(super) entry: usize,
    /// Time run before the current stretch.
    pub(super) ran: Millis,
    /// Running since then; `None` while the lane is held.
    pub(super) since: Option<Millis>,
    /// The conduct entry raised when the limit passed.
    pub(super) flagged: Option<u32>,
    /// Started for pins set by hand (no pinsetter has spoken, or an
    /// assistant entered the pins): a pinsetter's `READY` before the ball
    /// is the lane becoming ready, and starts it again.
    pub(super) by_hand: bool,
}

impl SlowClock {
    pub(super) fn elapsed(&self, now: Millis) -> Millis {
        self.ran + self.since.map_or(0, |s| now.saturating_sub(s))
    }
}

impl Lane {
    pub fn hold(&self) -> Option<&Hold> {
        self.hold.as_ref()
    }

    /// The bowler's slow-bowling clock, in milliseconds, if it runs.
    pub fn slow_clock(&self) -> Option<(usize, Millis, bool)> {
        self.clock
            .map(|c| (c.entry, c.elapsed(self.now), c.since.is_some()))
    }

    /// Whether the lane waits for someone: a judge's hold, a pinsetter
    /// fault, or the blindfold of the bowler up.
    pub fn held(&self) -> bool {
        self.pause(self.up().map(|u| u.entry)).is_some()
    }

    /// Why the lane is not ready for the bowler `entry` through no fault of
    /// theirs, if it is not: the slow-bowling clock stands still while
    /// there is a reason. Every such reason is here, and only here.
    pub fn pause(&self, entry: Option<usize>) -> Option<Pause> {
        if self.hold.is_some() {
            return Some(Pause::Hold);
        }
        if self.fault.is_some() {
            return Some(Pause::PinsetterFault);
        }
        if entry.is_some_and(|e| !self.blindfold_ok(&self.entries[e].bowler)) {
            return Some(Pause::Blindfold);
        }
        if self.deck_wrong() {
            return Some(Pause::WrongDeck);
        }
        if !self.neighbours_busy.is_empty() {
            return Some(Pause::Neighbour);
        }
        None
    }

    /// Whether [`Lane::pause`] has a reason: the same reasons, those read
    /// from one field asked first (the lane asks at every input).
    fn paused(&self, entry: Option<usize>) -> bool {
        let paused = self.hold.is_some()
            || self.fault.is_some()
            || !self.neighbours_busy.is_empty()
            || entry.is_some_and(|e| !self.blindfold_ok(&self.entries[e].bowler))
            || self.deck_wrong();
        debug_assert_eq!(paused, self.pause(entry).is_some());
        paused
    }

    /// Adjacent lanes where a bowler is at the line or a ball is in play.
    pub fn neighbours_busy(&self) -> &BTreeSet<u32> {
        &self.neighbours_busy
    }

    /// An adjacent lane became busy or clear.
    pub(super) fn neighbour(&mut self, lane: u32, busy: bool) -> Result<(), Refusal> {
        if lane == self.number {
            return Err(Refusal::OwnLaneAsNeighbour(lane));
        }
        if !busy {
            self.neighbours_busy.remove(&lane);
        } else if self.neighbours_busy.len() >= MAX_NEIGHBOURS
            && !self.neighbours_busy.contains(&lane)
        {
            return Err(Refusal::TooManyNeighbours(lane));
        } else {
            self.neighbours_busy.insert(lane);
        }
        Ok(())
    }

    /// A bowler is at this lane's foul line, or a ball is in play (from the
    /// break or the ball that starts the delivery until the pinsetter
    /// reports it, or the lane gives up waiting): what the adjacent lanes
    /// wait for.
    pub fn delivering(&self) -> bool {
        self.beam.broken_since.is_some() || (self.flight.started() && !self.flight.overdue)
    }

    pub(super) fn slow_limit_ms(&self) -> Millis {
        self.rules.slow_bowling_limit_s.saturating_mul(1000)
    }

    pub(super) fn slow_due(&self) -> Option<Millis> {
        let c = self.clock?;
        if c.flagged.is_some() {
            return None;
        }
        // Past the limit: exactly at it is in time.
        let past = self.slow_limit_ms().saturating_add(1);
        let due = c.since?.saturating_add(past.saturating_sub(c.ran));
        // A ball may be passing the foul line: whether it left the hand in
        // time is known when the beam clears, or once the break is too long
        // for a ball. Nothing is flagged (nor said) before.
        match self.beam.broken_since {
            Some(since) if since < due => {
                Some(due.max(since.saturating_add(self.rules.ball_break_max_ms + 1)))
            }
            _ => Some(due),
        }
    }

    /// The lane is ready for the next ball: the clock of the bowler up
    /// starts, unless it already runs for this ball. `by_hand`: the pins
    /// were set by hand, not by the pinsetter's `READY`.
    pub(super) fn start_clock(&mut self, t: Millis, by_hand: bool) {
        if self.flight.started() {
            return;
        }
        match self.clock {
            // The pinsetter set the deck after all: the lane is ready now.
            Some(c) if c.by_hand && !by_hand && c.flagged.is_none() => {}
            Some(_) => return,
            None => {}
        }
        if let Some(up) = self.up() {
            self.clock = Some(SlowClock {
                entry: up.entry,
                ran: 0,
                since: Some(t),
                flagged: None,
                by_hand,
            });
        }
    }

    /// A substitute or a correction changed who is up: the clock that runs
    /// is not theirs. A substitute takes the ready lane at once (`Some(t)`);
    /// after a correction the pinsetter sets the deck again, and the new
    /// bowler's clock starts at its `READY` (`None`).
    pub(super) fn follow_turn(&mut self, restart: Option<Millis>) {
        let up = self.up().map(|u| u.entry);
        if let Some(c) = self.clock
            && Some(c.entry) != up
        {
            self.clock = None;
            if let Some(t) = restart {
                self.start_clock(t, false);
            }
        }
    }

    /// Pauses or resumes the clock as the lane is held or released.
    pub(super) fn sync_clock(&mut self, t: Millis) {
        if self.clock.is_none() {
            return;
        }
        let held = self.paused(self.clock.map(|c| c.entry));
        if let Some(c) = &mut self.clock {
            match (c.since, held) {
                (Some(since), true) => {
                    c.ran += t.saturating_sub(since);
                    c.since = None;
                }
                (None, false) => c.since = Some(t),
                _ => {}
            }
        }
    }

    /// The ball left the bowler's hand at `release`.
    pub(super) fn stop_clock(&mut self, release: Millis) {
        let Some(c) = self.clock.take() else { return };
        let Some(id) = c.flagged else { return };
        let elapsed = c.elapsed(release.max(c.since.unwrap_or(0)));
        let seconds = elapsed as f64 / 1000.0;
        if let Some(i) = self.conduct.iter().rposition(|x| x.id == id) {
            if elapsed <= self.slow_limit_ms() {
                // The release was inferred after the flag and came by the
                // limit after all.
                self.conduct.remove(i);
                self.entries[c.entry].slow_flags -= 1;
            } else if let ConductKind::SlowBowling { seconds: s, .. } = &mut self.conduct[i].kind {
                *s = seconds;
            }
        }
    }

    pub(super) fn slow_limit_passed(&mut self, t: Millis, out: &mut Vec<Effect>) {
        let Some(mut c) = self.clock else { return };
        let entry = &mut self.entries[c.entry];
        entry.slow_flags += 1;
        let level = if entry.slow_flags == 1 {
            Level::Warning
        } else {
            Level::Penalty
        };
        let name = entry.bowler.name.clone();
        let kind = ConductKind::SlowBowling {
            level,
            seconds: c.elapsed(t) as f64 / 1000.0,
            confirmed_by: None,
        };
        c.flagged = Some(self.raise(t, Some(name), kind, out));
        self.clock = Some(c);
    }

    pub(super) fn confirm_slow_penalty(&mut self, bowler: &str, by: Option<String>) -> Option<u32> {
        let flagged = self.conduct.iter_mut().rev().find(|c| {
            c.bowler.as_deref() == Some(bowler)
                && matches!(
                    c.kind,
                    ConductKind::SlowBowling {
                        level: Level::Penalty,
                        confirmed_by: None,
                        ..
                    }
                )
        });
        if let Some(Conduct {
            id,
            kind: ConductKind::SlowBowling { confirmed_by, .. },
            ..
        }) = flagged
        {
            *confirmed_by = Some(by.unwrap_or_else(|| "judge".to_owned()));
            return Some(*id);
        }
        None
    }

    /// A judge holds the lane.
    pub(super) fn hold_on(
        &mut self,
        t: Millis,
        reason: &Option<String>,
        by: Option<String>,
    ) -> Result<(), Refusal> {
        if self.hold.is_some() {
            return Err(Refusal::AlreadyHeld);
        }
        self.hold = Some(Hold {
            since: t,
            reason: reason.clone(),
            by,
        });
        Ok(())
    }

    /// A judge releases the hold.
    pub(super) fn hold_off(&mut self) -> Result<(), Refusal> {
        self.hold.take().map(|_| ()).ok_or(Refusal::NotHeld)
    }

    /// A judge gives a bowler on the lane a penalty; one for slow bowling
    /// confirms the clock's.
    pub(super) fn penalty(
        &mut self,
        t: Millis,
        bowler: &str,
        reason: &str,
        by: Option<String>,
        out: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        if !self.on_lane(bowler) {
            return Err(Refusal::UnknownBowler(bowler.to_owned()));
        }
        let confirms = if reason.contains("slow") {
            self.confirm_slow_penalty(bowler, by.clone())
        } else {
            None
        };
        let kind = ConductKind::Penalty {
            reason: reason.to_owned(),
            by,
            withdrawn: false,
            confirms,
        };
        self.raise(t, Some(bowler.to_owned()), kind, out);
        Ok(())
    }
}
