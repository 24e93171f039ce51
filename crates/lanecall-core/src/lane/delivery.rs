//! Delivery detection: the foul beam, the ball detector and the
//! pinsetter's serial lines become one delivery, with its release, its pin
//! report and the deck it was bowled at; the ball is then recorded on the
//! sheet of the bowler up (or as practice).
//!
//! It decides when a ball was released (a short beam break, or inferred
//! from the ball detector), whether a pinsetter line is a ball (sequence,
//! READY between reports, the cycle time), the deck set and whether it is
//! the one the rules expect, and where the ball goes. It never decides who
//! is up (`turns`), whether a foul stands (`fouls`), nor when the slow
//! clock runs (`holds`): it tells them what happened.

use super::fouls::BallRef;
use super::scoring::{self, Ball, Position};
use super::{ConductKind, Effect, Lane, Millis, Output, PinSet, Refusal, Side, Switch, Up};
use crate::pinsetter::{self, Body, Verdict};
use serde::Serialize;

/// Long foul-beam breaks kept while waiting for the release; older ones are
/// long over and cannot touch it.
const MAX_ORIENTATION_BREAKS: usize = 16;

/// A delivery made outside a block's games.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PracticeBall {
    pub ball: Ball,
    /// What it was rolled at.
    pub at: Position,
    /// Rolled after the block's last game and before its `end_block`: not
    /// practice, and counted nowhere. The block's number.
    pub after_block: Option<u32>,
}

/// Counts kept of the pinsetter line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SerialStats {
    /// Lines accepted.
    pub lines: u64,
    /// Lines rejected (checksum, mask, type, noise).
    pub rejected: u64,
    /// Resends of a line within the window (same number, same body),
    /// ignored.
    pub retransmissions: u64,
    /// A number within the window again with another body: refused.
    pub conflicts: u64,
    /// Numbers behind the window, or lost ones arriving late: ignored.
    pub stale: u64,
    /// Times the pinsetter restarted its count.
    pub restarts: u64,
    /// A `PINS` with the same pins as the last one and no `READY` between:
    /// the same report again, ignored.
    pub repeats: u64,
    /// A `PINS` with other pins and no `READY` since the last one: refused.
    pub without_ready: u64,
    /// A `PINS` sooner than `min_cycle_ms` after the last one: refused.
    pub too_soon: u64,
    /// Jumps in the sequence number.
    pub gaps: u64,
    /// Lines lost in those jumps.
    pub lost: u64,
}

/// The deck set for the ball up when it is not the one the rules expect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrongDeck {
    pub up: Up,
    /// What the pinsetter set (its last `READY`).
    pub set: PinSet,
}

impl WrongDeck {
    /// The deck the rules expect for the ball up.
    pub fn expected(&self) -> PinSet {
        self.up.at.before
    }
    /// Pins the rules have standing that the machine did not set.
    pub fn missing(&self) -> PinSet {
        self.expected().without(self.set)
    }
    /// Pins the machine set that the rules have down.
    pub fn extra(&self) -> PinSet {
        self.set.without(self.expected())
    }
}

/// The foul beam.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Beam {
    pub(super) broken_since: Option<Millis>,
    /// When the current break becomes longer than a ball's.
    pub(super) person_due: Option<Millis>,
}

/// The delivery under way: from the lane being ready to its pin report.
#[derive(Clone, Debug, Default)]
pub(super) struct Flight {
    /// The start of the ball's foul-beam break, or inferred.
    pub(super) release: Option<Millis>,
    pub(super) ball_at: Option<Millis>,
    pub(super) channel: Option<Side>,
    /// A foul was called on it, at this time.
    pub(super) foul_at: Option<Millis>,
    /// A person's breaks seen before the release: orientation unless one
    /// is still going at the release.
    pub(super) person_breaks: Vec<(Millis, Option<Millis>)>,
    pub(super) report_due: Option<Millis>,
    /// The pin report did not come in time ([`ConductKind::NoPinReport`]).
    pub(super) overdue: bool,
}

impl Flight {
    pub(super) fn started(&self) -> bool {
        self.release.is_some() || self.ball_at.is_some()
    }
}

impl Lane {
    /// Deliveries outside the games: practice, and balls after a block's
    /// last game ([`PracticeBall::after_block`]).
    pub fn practice(&self) -> &[PracticeBall] {
        &self.practice
    }

    pub fn serial(&self) -> SerialStats {
        self.serial
    }

    pub fn link_up(&self) -> Option<bool> {
        self.link_up
    }

    pub fn pinsetter_fault(&self) -> Option<&str> {
        self.fault.as_deref()
    }

    pub fn deck(&self) -> Option<PinSet> {
        self.deck
    }

    /// The deck stands ready for a ball now: the pinsetter's last word was
    /// `READY`, or no pinsetter is linked and none has reported (the pins
    /// are set by hand). Not while it is mid-cycle or at fault.
    pub(super) fn deck_ready(&self) -> bool {
        if self.fault.is_some() || self.awaiting_ready {
            return false;
        }
        self.deck.is_some() || (self.last_pins.is_none() && self.link_up != Some(true))
    }

    /// The deck is not the one the rules expect for the ball up: the judge
    /// has the machine re-rack or respot, and the slow-bowling clock waits.
    pub(super) fn deck_wrong(&self) -> bool {
        self.wrong_deck().is_some()
    }

    /// The deck set for the ball up, when the pinsetter said what it set
    /// and that is not what the rules expect (a pin the machine knocked
    /// down while setting, a respot that did not happen after a foul, a
    /// full rack missing a pin).
    pub fn wrong_deck(&self) -> Option<WrongDeck> {
        let set = self.ready_deck?;
        let up = self.up()?;
        (set != up.at.before).then_some(WrongDeck { up, set })
    }

    pub(super) fn serial_line(
        &mut self,
        t: Millis,
        line: &str,
        out: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        self.serial_message(t, pinsetter::parse_line(line), out)
    }

    /// [`Lane::serial_line`] of a line parsed already.
    pub(super) fn serial_message(
        &mut self,
        t: Millis,
        parsed: Result<pinsetter::Message, pinsetter::LineError>,
        out: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let msg = parsed.inspect_err(|_| self.serial.rejected += 1)?;
        match self.sequencer.check(&msg) {
            Verdict::Retransmission => {
                self.serial.retransmissions += 1;
                return Ok(());
            }
            Verdict::Stale => {
                self.serial.stale += 1;
                return Ok(());
            }
            Verdict::Conflict { was } => {
                self.serial.conflicts += 1;
                return Err(Refusal::SeqConflict {
                    seq: msg.seq,
                    was,
                    now: msg.body,
                });
            }
            Verdict::Gap { lost } => {
                self.serial.gaps += 1;
                self.serial.lost += u64::from(lost);
                out.push(Effect::SerialGap { t, lost });
                // The READY the next PINS needs may be among the lost lines.
                self.awaiting_ready = false;
            }
            Verdict::Restart => {
                self.serial.restarts += 1;
                self.awaiting_ready = false;
            }
            Verdict::New => {}
        }
        match msg.body {
            Body::Ready(deck) => self.pinsetter_ready(t, deck),
            Body::Pins(standing) => {
                if !self.pinsetter_cycled(t, standing)? {
                    return Ok(());
                }
                self.serial.lines += 1;
                self.pin_report(t, standing, out)?;
                return Ok(());
            }
            Body::Fault(text) => self.pinsetter_stopped(t, text, out),
        }
        self.serial.lines += 1;
        Ok(())
    }

    /// Whether a `PINS` can be a ball by the pinsetter's cycle: a READY
    /// since the last PINS, and at least `min_cycle_ms` after it. `false`
    /// for the same report again (ignored); a refusal for one that cannot
    /// be a ball.
    pub(super) fn pinsetter_cycled(
        &mut self,
        t: Millis,
        standing: PinSet,
    ) -> Result<bool, Refusal> {
        if let Some((last_at, last)) = self.last_pins {
            if self.awaiting_ready {
                if standing == last {
                    self.serial.repeats += 1;
                    return Ok(false);
                }
                self.serial.without_ready += 1;
                return Err(Refusal::PinsWithoutReady {
                    standing,
                    last,
                    last_at,
                });
            }
            if !self.could_have_cycled(t, last_at) {
                self.serial.too_soon += 1;
                return Err(Refusal::PinsTooSoon {
                    standing,
                    after_ms: t.saturating_sub(last_at),
                    min_cycle_ms: self.rules.min_cycle_ms,
                });
            }
        }
        // The pinsetter cycled, whether or not there is a bowler to score
        // it for.
        self.last_pins = Some((t, standing));
        self.awaiting_ready = true;
        self.cycle_unknown = false;
        Ok(true)
    }

    /// Whether the pinsetter could have cycled since its `PINS` at
    /// `last_at`: `min_cycle_ms` has passed, or the link came up since
    /// (the rule `cycle_per_link`).
    fn could_have_cycled(&self, t: Millis, last_at: Millis) -> bool {
        self.cycle_unknown || t.saturating_sub(last_at) >= self.rules.min_cycle_ms
    }

    /// A string pinsetter's deck after a ball: a `PINS`, with one
    /// addition. A machine that leaves the standing pins where they stood
    /// sets no deck between a frame's balls, so a deck after a ball that
    /// follows another with no deck set between counts as the next ball
    /// when the ball detector saw a ball since, fewer of the same pins
    /// stand and the machine could have cycled (`min_cycle_ms`): the deck
    /// left was the deck set. Otherwise (the machine lifting every pin, a
    /// pin falling late) it is not a ball.
    pub(super) fn deck_after_ball(
        &mut self,
        t: Millis,
        standing: PinSet,
        out: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        if let Some((last_at, last)) = self.last_pins {
            let fewer = standing != last && standing.without(last).is_empty();
            if self.awaiting_ready
                && self.fault.is_none()
                && self.flight.ball_at.is_some()
                && fewer
                && self.could_have_cycled(t, last_at)
            {
                self.pinsetter_ready(t, last);
            }
        }
        if self
            .pinsetter_cycled(t, standing)
            .map_err(Refusal::for_deck)?
        {
            self.pin_report(t, standing, out)?;
            // The deck settled, and the next ball is rolled at it as it
            // stands: the lane is ready for that ball (rules.md, "The foul
            // window"), whether or not the machine sets it again.
            let next = self.up().map_or(self.practice_at.before, |up| up.at.before);
            if self.rules.foul_window_ms.is_some() && next == standing {
                self.close_window(t);
            }
        }
        Ok(())
    }

    /// The pinsetter stopped: the lane holds until it sets a deck again.
    pub(super) fn pinsetter_stopped(&mut self, t: Millis, text: String, out: &mut Vec<Effect>) {
        self.fault = Some(text.clone());
        self.raise(t, None, ConductKind::PinsetterFault { text }, out);
    }

    pub(super) fn pinsetter_ready(&mut self, t: Millis, deck: PinSet) {
        self.deck = Some(deck);
        self.ready_deck = Some(deck);
        self.awaiting_ready = false;
        self.fault = None;
        if self.rules.foul_window_ms.is_some() {
            self.close_window(t);
        } else {
            self.window = None;
        }
        self.start_clock(t, false);
    }

    pub(super) fn beam_cleared(&mut self, t: Millis) {
        let Some(since) = self.beam.broken_since.take() else {
            return;
        };
        self.beam.person_due = None;
        if t - since <= self.rules.ball_break_max_ms {
            // The ball passing the line: the release, unless this delivery
            // already has one.
            if !self.flight.started() {
                self.window = None;
                self.flight.release = Some(since);
                self.stop_clock(since);
            }
        } else if let Some(open) = self
            .flight
            .person_breaks
            .iter_mut()
            .find(|(start, end)| *start == since && end.is_none())
        {
            open.1 = Some(t);
        }
    }

    /// The beam has been broken longer than a ball's passage: a person.
    pub(super) fn person_on_line(&mut self, t: Millis, out: &mut Vec<Effect>) {
        let Some(since) = self.beam.broken_since else {
            return;
        };
        if let Some(last) = self.window {
            // After the release and before the lane is ready again.
            self.foul_on_recorded(t, last, None, out);
        } else if self.flight.started() {
            self.call_foul_in_flight(t, out);
        } else {
            if self.flight.person_breaks.len() == MAX_ORIENTATION_BREAKS {
                self.flight.person_breaks.remove(0);
            }
            self.flight.person_breaks.push((since, None));
        }
    }

    /// Decides the release of the delivery under way when no ball break
    /// gave it, and calls a foul for a person on the line at or after it.
    pub(super) fn settle_release(&mut self, reference: Millis, out: &mut Vec<Effect>) {
        let earliest = reference.saturating_sub(self.rules.max_travel_ms);
        let release = match self.flight.release {
            Some(r) if r >= earliest => r,
            _ => reference.saturating_sub(self.rules.typical_travel_ms),
        };
        self.flight.release = Some(release);
        self.stop_clock(release);
        let person_at_release = self
            .flight
            .person_breaks
            .iter()
            .any(|&(_, end)| end.is_none_or(|e| e >= release));
        if person_at_release && self.flight.foul_at.is_none() {
            self.call_foul_in_flight(reference, out);
        }
        self.flight.person_breaks.clear();
    }

    /// The ball reached the pin deck: the release is known now, if the
    /// foul beam did not give it.
    pub(super) fn ball_seen(&mut self, t: Millis, out: &mut Vec<Effect>) -> Result<(), Refusal> {
        if !self.has_lineup {
            return Err(Refusal::NoLineup);
        }
        if let Some(first) = self.flight.ball_at {
            return Err(Refusal::SecondBall(first));
        }
        self.window = None;
        self.flight.ball_at = Some(t);
        self.flight.report_due = Some(t.saturating_add(self.rules.pin_report_timeout_ms));
        self.settle_release(t, out);
        Ok(())
    }

    pub(super) fn pin_report(
        &mut self,
        t: Millis,
        standing: PinSet,
        out: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        if !self.has_lineup {
            return Err(Refusal::NoLineup);
        }
        self.complete_delivery(t, standing, None, false, out);
        Ok(())
    }

    /// A pin report (from the pinsetter, an assistant or a judge) ends the
    /// delivery under way and records its ball.
    /// `foul` overrides what the foul beam said; `corrected` marks a
    /// judge's entry.
    pub(super) fn complete_delivery(
        &mut self,
        t: Millis,
        standing: PinSet,
        foul: Option<bool>,
        corrected: bool,
        out: &mut Vec<Effect>,
    ) {
        self.window = None;
        let reference = self.flight.ball_at.unwrap_or(t);
        // Breaks not yet classified as a ball or a person are left to run.
        self.settle_release(reference, out);
        let flight = std::mem::take(&mut self.flight);
        // Pins reported standing that were down at the deck the ball was
        // bowled at: no ball stands a pin up. Counted as down (scoring
        // takes only the deck's pins) and, with the rule `checked_inputs`,
        // said to the judges. A judge's or an assistant's entry was checked
        // before it came here.
        let bowled_at = self.deck_bowled_at();
        let stood_up = standing.without(bowled_at);
        let ball = Ball {
            t,
            standing,
            foul: foul.unwrap_or(flight.foul_at.is_some()),
            channel: flight.channel,
            corrected,
            deck: self.ready_deck.take(),
        };
        let (target, scored, bowler) = match self.up() {
            Some(up) => {
                let entry = &mut self.entries[up.entry];
                let game = usize::from(up.game - entry.first_game);
                if game == entry.games.len() {
                    entry.games.push(Vec::with_capacity(21));
                }
                entry.games[game].push(ball);
                let (scored, next) = scoring::roll(up.at, &ball, self.rules.fouls_count());
                entry.advance(up.game, next);
                let target = BallRef::Game {
                    entry: up.entry,
                    game,
                    ball: entry.games[game].len() - 1,
                };
                self.last_ball = Some((up.entry, game));
                let release = flight.release.unwrap_or(t);
                if !self.blindfold_ok_at(&self.entries[up.entry].bowler, release) {
                    let name = self.entries[up.entry].bowler.name.clone();
                    let issue = ConductKind::Blindfold {
                        issue: "bowled_unchecked",
                        by: None,
                        withdrawn: false,
                    };
                    self.raise(t, Some(name), issue, out);
                }
                if self.rules.checked_inputs && !stood_up.is_empty() {
                    let name = self.entries[up.entry].bowler.name.clone();
                    let numbers = |p: PinSet| p.iter().map(|p| p.number()).collect();
                    let issue = ConductKind::PinsStoodUp {
                        game: up.game,
                        frame: up.at.frame,
                        ball: up.at.ball,
                        pins: numbers(stood_up),
                        bowled_at: numbers(bowled_at),
                    };
                    self.raise(t, Some(name), issue, out);
                }
                (target, scored, Some(up.entry))
            }
            None => {
                // Practice has no rules to expect a deck: it is bowled at
                // whatever the machine set.
                let at = Position {
                    before: ball.deck.unwrap_or(self.practice_at.before),
                    ..self.practice_at
                };
                let (scored, next) = scoring::roll(at, &ball, true);
                self.practice_at = next
                    .filter(|n| n.frame == at.frame)
                    .unwrap_or(Position::START);
                let after_block = self.open_block().map(|b| b.number);
                self.practice.push(PracticeBall {
                    ball,
                    at,
                    after_block,
                });
                (BallRef::Practice(self.practice.len() - 1), scored, None)
            }
        };
        if scored.foul && scored.at.fresh_rack {
            self.output(t, Output::PinsetterReset, Switch::Pulse, out);
        }
        self.say(t, bowler, &scored, false, out);
        self.open_window(t, target);
    }

    /// The foul beam is broken: a ball passing, or a person once the break
    /// is longer than a ball's.
    pub(super) fn beam_broken(&mut self, t: Millis) {
        if self.beam.broken_since.is_none() {
            self.beam.broken_since = Some(t);
            self.beam.person_due = Some(t.saturating_add(self.rules.ball_break_max_ms + 1));
        }
    }

    /// The deck the ball awaited is bowled at: the one the pinsetter set,
    /// else the one the rules expect (practice: the last one).
    pub(super) fn deck_bowled_at(&self) -> PinSet {
        let expected = self.up().map_or(self.practice_at.before, |up| up.at.before);
        self.ready_deck.unwrap_or(expected)
    }

    /// An assistant entered the pins standing after the ball: each pin
    /// once, and only pins that stood before it (a pin that was down
    /// cannot stand up, and would make a miss a spare).
    pub(super) fn manual_pins(
        &mut self,
        t: Millis,
        standing: PinSet,
        twice: PinSet,
        by: Option<String>,
        out: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        if !twice.is_empty() {
            return Err(Refusal::PinsTwice(twice));
        }
        let deck = self.deck_bowled_at();
        let down = standing.without(deck);
        if !down.is_empty() {
            return Err(Refusal::PinsNotStanding { pins: down, deck });
        }
        self.pin_report(t, standing, out)?;
        self.manual_at = Some((t, by));
        // No pinsetter will say READY: the lane is ready now, and a
        // pinsetter that comes back may report the next ball.
        self.awaiting_ready = false;
        self.window = None;
        self.start_clock(t, true);
        Ok(())
    }
}
