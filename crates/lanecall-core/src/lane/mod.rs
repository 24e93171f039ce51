//! The lane core: a pure state machine that takes one timestamped input at a
//! time and says what the lane must do.
//!
//! It never reads a clock, a file, a socket or a pin: time is the event's
//! `t`, and timers (no pin report, the slow-bowling limit, the foul lamp, a
//! long foul-beam break) are deadlines it reports through
//! [`Lane::poll_deadline`] and handles in [`Lane::tick`]. Replay, crash
//! recovery and the live daemon all drive this one type, which is why a
//! sensor log replays exactly as it happened on the lane.
//!
//! It must never import tokio, std::fs, std::net, axum, rodio or rppal.
//!
//! This file holds the [`Lane`] itself, what it asks of the shell
//! ([`Effect`]), and the dispatch: [`Lane::handle`] sends each input to the
//! file of its concern, [`Lane::tick`] each deadline, and every callout,
//! output and conduct entry goes out through the few helpers here. What is
//! decided lives in the files below, each an `impl Lane` of its own:
//!
//! - `delivery`: the foul beam, the ball detector and the pinsetter's lines
//!   become a release and a pin report; the deck set; the ball recorded.
//! - `fouls`: fouls called in flight, late, by a judge, and withdrawn.
//! - `turns`: who is up, blocks and their numbers through the day, and
//!   which day it is.
//! - `lineup`: the lane order and substitutes.
//! - `handicap`: the one type and rule of a bowler's handicap.
//! - `blindfold`: B1 blindfold checks.
//! - `holds`: holds, the pauses and the slow-bowling clock, penalties.
//! - `corrections`: a judge's corrections and dead balls.
//! - `withdraw`: a judge taking back a penalty, a blindfold action or
//!   pins entered by hand.
//! - `refusal`: why an input is refused.
//! - `effects`: reading a run of [`Effect`]s by kind, and a bowler's sheet.

mod blindfold;
pub mod callout;
pub mod conduct;
mod corrections;
mod delivery;
mod effects;
pub mod event;
mod fouls;
pub mod handicap;
mod holds;
mod lineup;
mod refusal;
pub mod rules;
pub mod scoring;
mod turns;
mod withdraw;

use std::collections::BTreeSet;

use serde::Serialize;

pub use crate::pins::{self, Pin, PinSet, Side};
use crate::pinsetter::Sequencer;
pub use blindfold::Blindfold;
pub use callout::{BallResult, Said, Word, Words};
pub use conduct::{Conduct, ConductKind, Level};
use corrections::Fix;
pub use corrections::LastBall;
use delivery::{Beam, Flight};
pub use delivery::{PracticeBall, SerialStats, WrongDeck};
pub use effects::Effects;
pub use event::{
    Action, Bowler, Class, DateFrom, DeckAfter, DeckFault, Event, Language, LaterBall, Millis,
    Panel, Sensor, Stamped, Verbosity, Voice, Withdrawable,
};
use fouls::BallRef;
pub use handicap::{Handicap, MAX_HANDICAP};
use holds::SlowClock;
pub use holds::{Hold, Pause};
pub use lineup::Plan;
pub use refusal::Refusal;
pub use rules::{FOUL_WINDOW_MS, FoulMode, Rules};
use scoring::{Position, ScoredBall};
pub use turns::{Block, Day, DayCheck, Entry, GivenDate, Up};
use withdraw::Asked;

/// Most bowlers on one lane (IBSA).
pub const MAX_BOWLERS: usize = 4;
/// Most games in one block.
pub const MAX_GAMES: u8 = 12;
/// How long after an action the judge who made it may withdraw it (the
/// panel's Undo); the chief judge may at any time (rules.md).
pub const UNDO_WINDOW_MS: Millis = 10_000;
/// The most adjacent lanes one lane keeps as busy (two in a centre; more
/// is a damaged input, refused).
pub const MAX_NEIGHBOURS: usize = 8;

/// A GPIO output the lane drives through a relay.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Output {
    FoulLamp,
    PinsetterReset,
}

/// What an output does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Switch {
    On,
    Off,
    Pulse,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputChange {
    pub t: Millis,
    pub output: Output,
    pub switch: Switch,
}

/// What the speaker says. Small and `Copy`: a replay keeps every callout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Callout {
    pub t: Millis,
    /// Whose ball or score it is, as an index into [`Lane::entries`];
    /// `None` for practice.
    pub bowler: Option<u32>,
    pub said: Said,
}

impl Callout {
    pub fn words(&self) -> Words {
        self.said.words()
    }

    /// The standing pins the words name.
    pub fn standing(&self) -> PinSet {
        self.said.standing()
    }
}

/// What the lane asks of the shell after an input or a tick.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    Callout(Callout),
    Output(OutputChange),
    /// A new or updated incident for the judges (an alarm on the panel).
    Conduct(Conduct),
    /// The input made no sense in the lane's state and changed nothing.
    Refused(Refusal),
    /// Lines from the pinsetter were lost (its sequence number jumped).
    SerialGap {
        t: Millis,
        lost: u8,
    },
    /// The lane's state changed: scores, standing pins, conduct or links.
    Changed,
}

/// The lane's timers: each is due at a time the lane keeps (see
/// [`Lane::deadlines`]) and does one thing then (`Lane::fire`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Deadline {
    /// The foul beam broken long enough: a person on the line.
    PersonOnLine,
    /// A ball in flight with no pin report in time.
    NoPinReport,
    /// The slow-bowling limit passed.
    SlowLimit,
    /// The foul lamp's time is up.
    FoulLampOff,
    /// A foul can no longer be called on the last ball.
    FoulWindowCloses,
}

/// The lane.
#[derive(Clone, Debug)]
pub struct Lane {
    rules: Rules,
    number: u32,
    now: Millis,
    /// The lane order set since the last block started.
    pending: Option<Vec<Bowler>>,
    /// The centre's block that lineup is for, as it gave it.
    pending_plan: Plan,
    /// Any lineup was ever set: balls can be scored (as practice at least).
    has_lineup: bool,
    /// Blocks begun on the lane earlier in the day, in other journals.
    blocks_before: u32,
    /// The competition day's date: the header's, or the latest `date`.
    date: Option<crate::wall::DayDate>,
    /// The `date` event that gave `date`, if one did.
    date_given: Option<GivenDate>,
    blocks: Vec<Block>,
    entries: Vec<Entry>,
    blindfolds: Vec<Blindfold>,
    sequencer: Sequencer,
    serial: SerialStats,
    link_up: Option<bool>,
    /// The pinsetter's fault text, until its next READY.
    fault: Option<String>,
    /// The pins on the deck at the pinsetter's last READY.
    deck: Option<PinSet>,
    /// The deck set for the ball awaited: the last READY, until a ball
    /// takes it. Pinfall is counted against it.
    ready_deck: Option<PinSet>,
    /// The last ball recorded in the open block (entry, game index), while
    /// a judge may still declare it dead.
    last_ball: Option<(usize, usize)>,
    /// The pinsetter's last accepted PINS: when and what stood.
    last_pins: Option<(Millis, PinSet)>,
    /// A PINS was accepted and no READY (nor anything standing for one)
    /// has come since: the pinsetter is mid-cycle and cannot report
    /// another ball.
    awaiting_ready: bool,
    /// The link came up since the last accepted PINS (the rule
    /// `cycle_per_link`): the next is not measured against it.
    cycle_unknown: bool,
    beam: Beam,
    flight: Flight,
    /// The last recorded ball, while a foul can still be called on it.
    window: Option<BallRef>,
    /// When that window closes if the lane is not ready sooner (the rule
    /// `foul_window_ms`); read only while there is a window.
    window_due: Option<Millis>,
    practice: Vec<PracticeBall>,
    practice_at: Position,
    hold: Option<Hold>,
    clock: Option<SlowClock>,
    conduct: Vec<Conduct>,
    next_conduct_id: u32,
    last_callout: Option<Callout>,
    /// The time and judge of the last `manual_pins`, for a `withdraw` of
    /// its ball.
    manual_at: Option<(Millis, Option<String>)>,
    lamp_off_due: Option<Millis>,
    /// Adjacent lanes where a bowler is at the line or a ball is in play
    /// (at most [`MAX_NEIGHBOURS`]).
    neighbours_busy: BTreeSet<u32>,
}

impl Lane {
    pub fn new(number: u32, rules: Rules) -> Lane {
        Lane {
            rules,
            number,
            now: 0,
            pending: None,
            pending_plan: Plan::default(),
            has_lineup: false,
            blocks_before: 0,
            date: None,
            date_given: None,
            blocks: Vec::new(),
            entries: Vec::new(),
            blindfolds: Vec::new(),
            sequencer: Sequencer::default(),
            serial: SerialStats::default(),
            link_up: None,
            fault: None,
            deck: None,
            ready_deck: None,
            last_ball: None,
            last_pins: None,
            awaiting_ready: false,
            cycle_unknown: false,
            beam: Beam::default(),
            flight: Flight::default(),
            window: None,
            window_due: None,
            practice: Vec::new(),
            practice_at: Position::START,
            hold: None,
            clock: None,
            conduct: Vec::new(),
            next_conduct_id: 0,
            last_callout: None,
            manual_at: None,
            lamp_off_due: None,
            neighbours_busy: BTreeSet::new(),
        }
    }

    // ----- reading the lane -------------------------------------------------

    pub fn number(&self) -> u32 {
        self.number
    }
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    /// The time of the latest input or tick.
    pub fn now(&self) -> Millis {
        self.now
    }
    pub fn conduct(&self) -> &[Conduct] {
        &self.conduct
    }

    pub fn last_callout(&self) -> Option<&Callout> {
        self.last_callout.as_ref()
    }

    /// The earliest time at which [`Lane::tick`] has work to do.
    pub fn poll_deadline(&self) -> Option<Millis> {
        let mut first: Option<Millis> = None;
        self.each_deadline(|due, _| first = Some(first.map_or(due, |f| f.min(due))));
        first
    }

    /// The lane's running timers, each with when it is due, given to `f`
    /// in the order [`Lane::tick`] handles two due at the same time. The
    /// one list both [`Lane::poll_deadline`] and [`Lane::tick`] read.
    #[inline]
    fn each_deadline(&self, mut f: impl FnMut(Millis, Deadline)) {
        let mut timer = |due: Option<Millis>, what| {
            if let Some(due) = due {
                f(due, what);
            }
        };
        timer(self.beam.person_due, Deadline::PersonOnLine);
        timer(self.flight.report_due, Deadline::NoPinReport);
        timer(self.slow_due(), Deadline::SlowLimit);
        timer(self.lamp_off_due, Deadline::FoulLampOff);
        timer(self.window.and(self.window_due), Deadline::FoulWindowCloses);
    }

    /// What a timer does when it is due at `due`.
    fn fire(&mut self, due: Millis, what: Deadline, out: &mut Vec<Effect>) {
        match what {
            Deadline::PersonOnLine => {
                self.beam.person_due = None;
                self.person_on_line(due, out);
            }
            Deadline::NoPinReport => {
                self.flight.report_due = None;
                self.flight.overdue = true;
                let bowler = self.up().map(|u| self.entries[u.entry].bowler.name.clone());
                self.raise(due, bowler, ConductKind::NoPinReport, out);
            }
            Deadline::SlowLimit => self.slow_limit_passed(due, out),
            Deadline::FoulLampOff => {
                self.lamp_off_due = None;
                self.output(due, Output::FoulLamp, Switch::Off, out);
            }
            Deadline::FoulWindowCloses => {
                self.window_due = None;
                self.close_window(due);
            }
        }
    }

    // ----- driving the lane -------------------------------------------------

    /// Applies one input at time `t` (never earlier than the last one),
    /// after every deadline up to `t`.
    pub fn handle(&mut self, t: Millis, event: &Event, out: &mut Vec<Effect>) {
        self.handle_with(t, out, |lane, t, out| match event {
            Event::Sensor(s) => lane.sensor(t, s, out),
            Event::Panel(p) => lane.panel(t, p, out),
        });
    }

    /// [`Lane::handle`] of a sensor's reading (`Event::Sensor`), without
    /// the event around it.
    pub fn handle_sensor(&mut self, t: Millis, sensor: &Sensor, out: &mut Vec<Effect>) {
        self.handle_with(t, out, |lane, t, out| lane.sensor(t, sensor, out));
    }

    /// [`Lane::handle`] of a pinsetter line (`Sensor::Serial`) held as
    /// text only.
    pub fn handle_serial(&mut self, t: Millis, line: &str, out: &mut Vec<Effect>) {
        self.handle_with(t, out, |lane, t, out| lane.serial_line(t, line, out));
    }

    /// [`Lane::handle_serial`] of a pinsetter line parsed already
    /// ([`crate::pinsetter::parse_line`]'s result for it).
    pub fn handle_pinsetter(
        &mut self,
        t: Millis,
        parsed: Result<crate::pinsetter::Message, crate::pinsetter::LineError>,
        out: &mut Vec<Effect>,
    ) {
        self.handle_with(t, out, |lane, t, out| lane.serial_message(t, parsed, out));
    }

    fn handle_with(
        &mut self,
        t: Millis,
        out: &mut Vec<Effect>,
        input: impl FnOnce(&mut Lane, Millis, &mut Vec<Effect>) -> Result<(), Refusal>,
    ) {
        let t = t.max(self.now);
        // Mostly no timer is due: `tick` then only moves the clock on.
        if self.next_due(t).is_some() {
            self.tick(t, out);
        } else {
            self.now = t;
        }
        match input(self, t, out) {
            Ok(()) => {
                self.sync_clock(t);
                out.push(Effect::Changed);
            }
            Err(refusal) => out.push(Effect::Refused(refusal)),
        }
    }

    /// Handles every deadline up to `now`, each at its own time: the
    /// earliest first, and of two due at once the one listed first in
    /// [`Lane::deadlines`].
    pub fn tick(&mut self, now: Millis, out: &mut Vec<Effect>) {
        while let Some((due, what)) = self.next_due(now) {
            self.now = self.now.max(due);
            self.fire(due, what, out);
            out.push(Effect::Changed);
        }
        self.now = self.now.max(now);
    }

    /// The earliest timer due at or before `now` (the first listed of
    /// those due at that time). The lane asks at every input, and mostly
    /// none is due.
    #[inline]
    fn next_due(&self, now: Millis) -> Option<(Millis, Deadline)> {
        let mut first: Option<(Millis, Deadline)> = None;
        self.each_deadline(|due, what| {
            // Strictly earlier: of two due at once the first listed stays.
            if due <= now && first.is_none_or(|(d, _)| due < d) {
                first = Some((due, what));
            }
        });
        first
    }

    fn sensor(&mut self, t: Millis, s: &Sensor, out: &mut Vec<Effect>) -> Result<(), Refusal> {
        match s {
            Sensor::FoulBeam { broken: true } => self.beam_broken(t),
            Sensor::FoulBeam { broken: false } => self.beam_cleared(t),
            Sensor::Ball => self.ball_seen(t, out)?,
            Sensor::Channel { side } => self.flight.channel = Some(*side),
            Sensor::Button { name } => self.button(t, name, out)?,
            Sensor::Serial { line } => self.serial_line(t, line, out)?,
            // The sequence goes on across a lost link: a pinsetter that
            // sends its last line again after the cable is back must not
            // bowl that ball twice, and lines lost meanwhile are a gap.
            Sensor::SerialLink { up } => {
                self.link_up = Some(*up);
                self.cycle_unknown |= *up && self.rules.cycle_per_link;
            }
            Sensor::Neighbour { lane, busy } => self.neighbour(*lane, *busy)?,
            // A string pinsetter's deck is what its READY and PINS say.
            Sensor::Deck {
                after: DeckAfter::Set,
                standing,
            } => self.pinsetter_ready(t, *standing),
            Sensor::Deck {
                after: DeckAfter::Ball,
                standing,
            } => self.deck_after_ball(t, *standing, out)?,
            Sensor::DeckFault { fault, pins } => {
                self.pinsetter_stopped(t, fault.describe(*pins), out)
            }
        }
        Ok(())
    }

    // ----- what the lane says and does ---------------------------------------

    fn output(&mut self, t: Millis, output: Output, switch: Switch, out: &mut Vec<Effect>) {
        out.push(Effect::Output(OutputChange { t, output, switch }));
    }

    fn say(
        &mut self,
        t: Millis,
        bowler: Option<usize>,
        scored: &ScoredBall,
        correction: bool,
        out: &mut Vec<Effect>,
    ) {
        let result = BallResult {
            standing: scored.standing,
            full_rack: scored.at.before == PinSet::FULL,
            strike: scored.strike,
            spare: scored.spare,
            foul: scored.foul,
            split: scored.split,
            channel: scored.channel,
            correction,
            extras: self.extras(bowler),
        };
        self.speak(t, bowler, Said::Ball(result), out);
    }

    /// Whether the speaker says the extras (split, the score) to an entry's
    /// bowler: their own `extras`, else the lane's (practice too).
    fn extras(&self, entry: Option<usize>) -> bool {
        entry
            .and_then(|e| self.entries.get(e))
            .and_then(|e| e.bowler.voice.extras)
            .unwrap_or(self.rules.speaker_extras)
    }

    fn speak(&mut self, t: Millis, bowler: Option<usize>, said: Said, out: &mut Vec<Effect>) {
        let callout = Callout {
            t,
            bowler: bowler.map(|e| e as u32),
            said,
        };
        self.last_callout = Some(callout);
        out.push(Effect::Callout(callout));
    }

    fn raise(
        &mut self,
        t: Millis,
        bowler: Option<String>,
        kind: ConductKind,
        out: &mut Vec<Effect>,
    ) -> u32 {
        let id = self.next_conduct_id;
        self.next_conduct_id += 1;
        let entry = Conduct {
            id,
            t,
            bowler,
            kind,
        };
        out.push(Effect::Conduct(entry.clone()));
        self.conduct.push(entry);
        id
    }

    fn button(&mut self, t: Millis, name: &str, out: &mut Vec<Effect>) -> Result<(), Refusal> {
        match name {
            "repeat" => {
                let last = self.last_callout.ok_or(Refusal::NothingToRepeat)?;
                self.speak(t, last.bowler.map(|e| e as usize), last.said, out);
            }
            "score" => {
                let up = self.up().ok_or(Refusal::NobodyUp)?;
                let entry = &self.entries[up.entry];
                if !self.extras(Some(up.entry)) {
                    return Err(Refusal::ScoreNotSaid(entry.bowler.name.clone()));
                }
                let game = usize::from(up.game - entry.first_game);
                let total = entry.games.get(game).map_or(0, |balls| {
                    scoring::sheet(balls, self.rules.fouls_count()).total
                });
                let frame = up.at.frame;
                self.speak(t, Some(up.entry), Said::Score { frame, total }, out);
            }
            other => return Err(Refusal::UnknownButton(other.to_owned())),
        }
        Ok(())
    }

    // ----- the panel --------------------------------------------------------

    fn panel(&mut self, t: Millis, p: &Panel, out: &mut Vec<Effect>) -> Result<(), Refusal> {
        let by = p.by.clone();
        match &p.action {
            Action::Lineup {
                bowlers,
                block,
                games,
            } => self.lineup(bowlers, block.as_deref(), *games),
            Action::StartBlock { games } => self.start_block(t, *games, p.chief),
            Action::BlindfoldCheck { bowler, ok } => self.blindfold_check(t, bowler, *ok, by, out),
            Action::BlindfoldAdjust { bowler } => self.blindfold_adjust(t, bowler, by),
            Action::BlindfoldRecheck { bowler } => self.blindfold_recheck(t, bowler, by),
            Action::Substitute {
                out: leaving,
                incoming,
            } => self.substitute(leaving, incoming),
            Action::Correct {
                bowler,
                game,
                frame,
                ball,
                standing,
                twice,
                foul,
                later,
            } => {
                let fix = Fix {
                    standing: *standing,
                    twice: *twice,
                    foul: *foul,
                    later,
                };
                self.correct(t, bowler, (*game, *frame, *ball), fix, by, out)
            }
            Action::Penalty { bowler, reason } => self.penalty(t, bowler, reason, by, out),
            Action::Hold { on: true, reason } => self.hold_on(t, reason, by),
            Action::Hold { on: false, .. } => self.hold_off(),
            Action::ManualPins { standing, twice } => {
                self.manual_pins(t, *standing, *twice, by, out)
            }
            Action::DeadBall => self.dead_ball(t, by, out),
            Action::EndBlock => self.end_block(t, out),
            Action::Withdraw { of, at, bowler } => {
                let asked = Asked { by, chief: p.chief };
                self.withdraw(t, *of, *at, bowler.as_deref(), &asked)
            }
            Action::Date { date, from } => self.date_given_by(t, *date, *from, by),
        }
    }
}
