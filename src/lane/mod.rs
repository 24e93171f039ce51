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

pub mod callout;
pub mod conduct;
pub mod event;
pub mod pins;
pub mod rules;
pub mod scoring;

use serde::Serialize;

use crate::pinsetter::{self, Body, Sequencer, Verdict};
pub use callout::{BallResult, Said, Word, Words};
pub use conduct::{Conduct, ConductKind, Level};
pub use event::{
    Action, Bowler, Class, Event, Language, LaterBall, Millis, Panel, Sensor, Stamped, Verbosity,
    Voice,
};
pub use pins::{Pin, PinSet, Side};
pub use rules::{FoulMode, Rules};
use scoring::{Ball, Position, ScoredBall};

/// Most bowlers on one lane (IBSA).
pub const MAX_BOWLERS: usize = 4;
/// Most games in one block.
pub const MAX_GAMES: u8 = 12;
/// Long foul-beam breaks kept while waiting for the release; older ones are
/// long over and cannot touch it.
const MAX_ORIENTATION_BREAKS: usize = 16;

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

/// Why the lane refused an input. The message names what is wrong and,
/// where there is one, what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("no lineup yet: set the lane order before a ball can be scored")]
    NoLineup,
    #[error("a lineup has 1 to {MAX_BOWLERS} bowlers, not {0}")]
    LineupSize(usize),
    #[error("a bowler's name is empty")]
    EmptyName,
    #[error("two bowlers named {0:?} on the lane")]
    DuplicateName(String),
    #[error(
        "block {0} is open: the lane order is locked (substitute between games, or end the block)"
    )]
    BlockOpen(u32),
    #[error("block {0} has already started")]
    AlreadyStarted(u32),
    #[error("no block is open")]
    NoBlockOpen,
    #[error("no lineup to start a block with: set the lane order first")]
    NothingToStart,
    #[error("a block has 1 to {MAX_GAMES} games, not {0}")]
    GamesOutOfRange(u32),
    #[error("start_block refused: no blindfold check with ok for {}", .0.join(", "))]
    BlindfoldsUnchecked(Vec<String>),
    #[error("no bowler named {0:?} on the lane")]
    UnknownBowler(String),
    #[error("{0} is {1}: only B1 bowlers wear blindfolds")]
    NotB1(String, &'static str),
    #[error("{name} is in game {game}, frame {frame}: substitute between games")]
    NotBetweenGames { name: String, game: u8, frame: u8 },
    #[error("{0} has bowled every game of the block: nobody to substitute")]
    NoGamesLeft(String),
    #[error("{bowler} has no ball {ball} in frame {frame} of game {game}")]
    NoSuchBall {
        bowler: String,
        game: u8,
        frame: u8,
        ball: u8,
    },
    #[error(
        "correcting frame {frame} ball {ball} of {bowler} would move later balls to other frames: correct the later balls first"
    )]
    CorrectionReshapes { bowler: String, frame: u8, ball: u8 },
    #[error(
        "the foul on frame {frame} ball {ball} of {bowler} can no longer be called or withdrawn: frame {later_frame} ball {later_ball} was bowled at the deck it left (a foul stands or falls before the next delivery); to change it, re-enter the later balls with the correction (\"later\")"
    )]
    FoulTooLate {
        bowler: String,
        frame: u8,
        ball: u8,
        later_frame: u8,
        later_ball: u8,
    },
    #[error(
        "{bowler} has {recorded} ball(s) after frame {frame} ball {ball} in game {game}, not the {given} re-entered"
    )]
    TooManyLater {
        bowler: String,
        game: u8,
        frame: u8,
        ball: u8,
        recorded: usize,
        given: usize,
    },
    #[error(
        "no ball to declare dead: none recorded in the open block since it started, since the last dead ball or since a substitution"
    )]
    NoBallToVoid,
    #[error(
        "a ball is under way: wait for its pin report (or enter its pins), then declare it dead"
    )]
    BallUnderWay,
    #[error("the lane is already held")]
    AlreadyHeld,
    #[error("the lane is not held")]
    NotHeld,
    #[error("the ball detector fired again before the pin report of the ball at t={0}: ignored")]
    SecondBall(Millis),
    #[error("unknown rail button {0:?} (known: repeat, score)")]
    UnknownButton(String),
    #[error("nothing said yet to repeat")]
    NothingToRepeat,
    #[error("no bowler is up: no score to read")]
    NobodyUp,
    #[error(
        "the score is not read aloud to {0}: in competition the speaker says only the standing pins, the side and the channel (IBSA); the extras are on with [speaker] extras or the bowler's \"extras\" (training)"
    )]
    ScoreNotSaid(String),
    #[error("serial line: {0}")]
    Serial(#[from] pinsetter::LineError),
    #[error(
        "serial line: seq {seq} again with another body (was {was}, now {now}): ignored, not a ball"
    )]
    SeqConflict { seq: u8, was: Body, now: Body },
    #[error(
        "serial line: PINS {} with no READY since the last PINS ({} at t={last_at}): ignored, not a ball",
        .standing.mask(), .last.mask()
    )]
    PinsWithoutReady {
        standing: PinSet,
        last: PinSet,
        last_at: Millis,
    },
    #[error(
        "serial line: PINS {} only {after_ms} ms after the last PINS; no pinsetter cycles in under {min_cycle_ms} ms (rules.min_cycle_ms): ignored, not a ball",
        .standing.mask()
    )]
    PinsTooSoon {
        standing: PinSet,
        after_ms: Millis,
        min_cycle_ms: u64,
    },
}

/// A bowler's place on the sheet: one per bowler and block, and one more
/// for each substitute.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub bowler: Bowler,
    /// 1-based block number.
    pub block: u32,
    /// 1-based place in the lane order.
    pub position: u8,
    /// The block's game number of `games[0]`.
    pub first_game: u8,
    /// The balls of each game this entry bowled.
    pub games: Vec<Vec<Ball>>,
    /// Times the slow-bowling limit passed in this block.
    slow_flags: u32,
    /// The game and position of this entry's next ball, kept up to date
    /// as balls are recorded so that finding who is up costs nothing.
    next: (u8, Position),
}

impl Entry {
    fn new(bowler: Bowler, block: u32, position: u8, first_game: u8) -> Entry {
        Entry {
            bowler,
            block,
            position,
            first_game,
            games: Vec::new(),
            slow_flags: 0,
            next: (first_game, Position::START),
        }
    }

    /// Where the game goes after a ball that left `next`.
    fn advance(&mut self, game: u8, next: Option<Position>) {
        self.next = match next {
            Some(at) => (game, at),
            None => (game + 1, Position::START),
        };
    }

    /// Works out the next ball again after a ball already recorded changed.
    fn renew_next(&mut self, fouls_count: bool) {
        if let Some(balls) = self.games.last() {
            let game = self.game_number(self.games.len() - 1);
            self.advance(game, scoring::next_position(balls, fouls_count));
        }
    }

    /// The block's number of `games[i]`.
    pub fn game_number(&self, i: usize) -> u8 {
        self.first_game + i as u8
    }
}

/// A block of games bowled with one lane order.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub number: u32,
    pub games: u8,
    pub started_at: Millis,
    /// For each place in the lane order, the entries that held it in turn
    /// (the last one holds it now).
    pub slots: Vec<Vec<usize>>,
    pub ended: bool,
}

/// A B1 bowler's blindfold as the judges last saw it. A check holds for
/// the competition day, across blocks, until the bowler adjusts the
/// blindfold or a judge asks for a new check.
#[derive(Clone, Debug, PartialEq)]
pub struct Blindfold {
    pub bowler: String,
    /// When, whether it was in order, and by whom.
    pub last_check: Option<(Millis, bool, Option<String>)>,
    /// The bowler asked to adjust it; the lane waits for a new check.
    pub adjusting: bool,
    /// A judge asked for a new check; the lane waits for it.
    pub recheck: bool,
    /// When it became fit to bowl with (`true`) or stopped being so, the
    /// latest few: whether a ball was bowled with a checked blindfold is
    /// decided at its release, which may be known only later.
    changes: Vec<(Millis, bool)>,
}

/// Changes of a blindfold kept: a release is never more than
/// `max_travel_ms` before it is settled, and a bowler's blindfold does not
/// change this often in a few seconds.
const MAX_BLINDFOLD_CHANGES: usize = 8;

impl Blindfold {
    fn new(bowler: &str) -> Blindfold {
        Blindfold {
            bowler: bowler.to_owned(),
            last_check: None,
            adjusting: false,
            recheck: false,
            changes: Vec::new(),
        }
    }

    /// Fit to bowl with now: checked and in order, not being adjusted, no
    /// new check asked for.
    pub fn ok(&self) -> bool {
        matches!(self.last_check, Some((_, true, _))) && !self.adjusting && !self.recheck
    }

    /// Whether it was fit to bowl with at `t` (after everything journaled
    /// at `t`).
    pub fn ok_at(&self, t: Millis) -> bool {
        match self.changes.iter().rev().find(|(at, _)| *at <= t) {
            Some(&(_, ok)) => ok,
            // Older than the changes kept: the state before the oldest.
            None => self.changes.first().is_some_and(|&(_, ok)| !ok),
        }
    }

    /// Records the state after an action at `t`.
    fn changed(&mut self, t: Millis) {
        let ok = self.ok();
        if self.changes.last().is_some_and(|&(_, was)| was == ok) {
            return;
        }
        if self.changes.len() == MAX_BLINDFOLD_CHANGES {
            self.changes.remove(0);
        }
        self.changes.push((t, ok));
    }
}

/// What a lane's earlier journals of the same competition day leave in
/// force: the daemon writes it into the header of each new journal (one
/// per block), so that a journal replays alone, and a restart, to the same
/// block numbers and blindfold checks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Day {
    /// Blocks begun on the lane earlier in the day: this journal's first
    /// block is number `blocks + 1`.
    #[serde(default)]
    pub blocks: u32,
    /// The B1 blindfold checks that hold.
    #[serde(default)]
    pub blindfolds: Vec<DayCheck>,
}

/// A blindfold check that holds for the day.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct DayCheck {
    pub bowler: String,
    /// Lane time of the check (lane time goes on across journals).
    pub t: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

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
}

/// A judge's hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Hold {
    pub since: Millis,
    pub reason: Option<String>,
    pub by: Option<String>,
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

/// Who bowls next, in which game, at what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Up {
    pub entry: usize,
    pub game: u8,
    pub at: Position,
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

/// The last ball recorded in the open block: the one a judge can declare
/// dead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LastBall {
    pub entry: usize,
    /// The block's game number.
    pub game: u8,
    pub scored: ScoredBall,
}

/// A recorded ball whose foul can still be called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BallRef {
    Game {
        entry: usize,
        game: usize,
        ball: usize,
    },
    Practice(usize),
}

/// The foul beam.
#[derive(Clone, Copy, Debug, Default)]
struct Beam {
    broken_since: Option<Millis>,
    /// When the current break becomes longer than a ball's.
    person_due: Option<Millis>,
}

/// The delivery under way: from the lane being ready to its pin report.
#[derive(Clone, Debug, Default)]
struct Flight {
    /// The start of the ball's foul-beam break, or inferred.
    release: Option<Millis>,
    ball_at: Option<Millis>,
    channel: Option<Side>,
    /// A foul was called on it, at this time.
    foul_at: Option<Millis>,
    /// A person's breaks seen before the release: orientation unless one
    /// is still going at the release.
    person_breaks: Vec<(Millis, Option<Millis>)>,
    report_due: Option<Millis>,
}

impl Flight {
    fn started(&self) -> bool {
        self.release.is_some() || self.ball_at.is_some()
    }
}

/// The slow-bowling clock of the bowler up.
#[derive(Clone, Copy, Debug)]
struct SlowClock {
    entry: usize,
    /// Time run before the current stretch.
    ran: Millis,
    /// Running since then; `None` while the lane is held.
    since: Option<Millis>,
    /// The conduct entry raised when the limit passed.
    flagged: Option<u32>,
    /// Started for pins set by hand (no pinsetter has spoken, or an
    /// assistant entered the pins): a pinsetter's `READY` before the ball
    /// is the lane becoming ready, and starts it again.
    by_hand: bool,
}

impl SlowClock {
    fn elapsed(&self, now: Millis) -> Millis {
        self.ran + self.since.map_or(0, |s| now.saturating_sub(s))
    }
}

/// The lane.
#[derive(Clone, Debug)]
pub struct Lane {
    rules: Rules,
    number: u32,
    now: Millis,
    /// The lane order set since the last block started.
    pending: Option<Vec<Bowler>>,
    /// Any lineup was ever set: balls can be scored (as practice at least).
    has_lineup: bool,
    /// Blocks begun on the lane earlier in the day, in other journals.
    blocks_before: u32,
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
    beam: Beam,
    flight: Flight,
    /// The last recorded ball, while a foul can still be called on it.
    window: Option<BallRef>,
    practice: Vec<PracticeBall>,
    practice_at: Position,
    hold: Option<Hold>,
    clock: Option<SlowClock>,
    conduct: Vec<Conduct>,
    next_conduct_id: u32,
    last_callout: Option<Callout>,
    lamp_off_due: Option<Millis>,
}

impl Lane {
    pub fn new(number: u32, rules: Rules) -> Lane {
        Lane {
            rules,
            number,
            now: 0,
            pending: None,
            has_lineup: false,
            blocks_before: 0,
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
            beam: Beam::default(),
            flight: Flight::default(),
            window: None,
            practice: Vec::new(),
            practice_at: Position::START,
            hold: None,
            clock: None,
            conduct: Vec::new(),
            next_conduct_id: 0,
            last_callout: None,
            lamp_off_due: None,
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
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }
    /// The lane order waiting for `start_block`.
    pub fn pending_lineup(&self) -> Option<&[Bowler]> {
        self.pending.as_deref()
    }
    pub fn blindfolds(&self) -> &[Blindfold] {
        &self.blindfolds
    }
    pub fn conduct(&self) -> &[Conduct] {
        &self.conduct
    }
    /// Deliveries outside the games: practice, and balls after a block's
    /// last game ([`PracticeBall::after_block`]).
    pub fn practice(&self) -> &[PracticeBall] {
        &self.practice
    }

    /// The number the next block will get: blocks are numbered through
    /// the day, across the lane's journals.
    pub fn next_block_number(&self) -> u32 {
        // Saturating: `blocks_before` comes from a journal header.
        (self.blocks_before)
            .saturating_add(self.blocks.len() as u32)
            .saturating_add(1)
    }

    /// The block numbered `number`, begun in this journal.
    pub fn block(&self, number: u32) -> Option<&Block> {
        let i = number.checked_sub(self.blocks_before.saturating_add(1))?;
        self.blocks.get(i as usize)
    }

    /// Starts the lane where the day's earlier journals left it (before
    /// any event).
    pub fn begin_day(&mut self, day: &Day) {
        self.blocks_before = day.blocks;
        self.blindfolds = day
            .blindfolds
            .iter()
            .map(|c| {
                let mut b = Blindfold::new(&c.bowler);
                b.last_check = Some((c.t, true, c.by.clone()));
                b.changed(c.t);
                b
            })
            .collect();
    }

    /// What this lane leaves in force for its next journal of the day.
    pub fn day(&self) -> Day {
        Day {
            blocks: self.next_block_number().saturating_sub(1),
            blindfolds: self
                .blindfolds
                .iter()
                .filter(|b| b.ok())
                .filter_map(|b| {
                    let (t, _, by) = b.last_check.clone()?;
                    Some(DayCheck {
                        bowler: b.bowler.clone(),
                        t,
                        by,
                    })
                })
                .collect(),
        }
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
    pub fn hold(&self) -> Option<&Hold> {
        self.hold.as_ref()
    }
    pub fn last_callout(&self) -> Option<&Callout> {
        self.last_callout.as_ref()
    }
    /// The ball still in play: recorded, but a foul can still be called on
    /// it until the lane is ready again. Entry, game, frame and ball.
    pub fn in_play(&self) -> Option<(usize, u8, u8, u8)> {
        let BallRef::Game { entry, game, ball } = self.window? else {
            return None;
        };
        let e = &self.entries[entry];
        let balls = &e.games[game];
        let at = scoring::next_position(&balls[..ball], self.rules.fouls_count())?;
        Some((entry, e.game_number(game), at.frame, at.ball))
    }

    /// The block being bowled, if one is open.
    pub fn open_block(&self) -> Option<&Block> {
        self.blocks.last().filter(|b| !b.ended)
    }
    /// The bowler's slow-bowling clock, in milliseconds, if it runs.
    pub fn slow_clock(&self) -> Option<(usize, Millis, bool)> {
        self.clock
            .map(|c| (c.entry, c.elapsed(self.now), c.since.is_some()))
    }

    /// Who bowls next: the place in the lane order with the fewest frames
    /// bowled in the lowest unfinished game, the earlier place on a tie.
    pub fn up(&self) -> Option<Up> {
        let block = self.open_block()?;
        let mut best: Option<Up> = None;
        for slot in &block.slots {
            let Some(&e) = slot.last() else { continue };
            let (game, at) = self.next_of(e);
            if game > block.games {
                continue;
            }
            if best.is_none_or(|b| (game, at.frame) < (b.game, b.at.frame)) {
                best = Some(Up { entry: e, game, at });
            }
        }
        best
    }

    /// The game and position of an entry's next ball.
    fn next_of(&self, e: usize) -> (u8, Position) {
        self.entries[e].next
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
        None
    }

    /// The deck stands ready for a ball now: the pinsetter's last word was
    /// `READY`, or no pinsetter is linked and none has reported (the pins
    /// are set by hand). Not while it is mid-cycle or at fault.
    fn deck_ready(&self) -> bool {
        if self.fault.is_some() || self.awaiting_ready {
            return false;
        }
        self.deck.is_some() || (self.last_pins.is_none() && self.link_up != Some(true))
    }

    /// The deck is not the one the rules expect for the ball up: the judge
    /// has the machine re-rack or respot, and the slow-bowling clock waits.
    fn deck_wrong(&self) -> bool {
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

    /// The ball a judge can declare dead now.
    pub fn last_ball(&self) -> Option<LastBall> {
        let (e, g) = self.last_ball?;
        let entry = &self.entries[e];
        let balls = entry.games.get(g)?;
        let (scored, _) = scoring::walk(balls, self.rules.fouls_count());
        Some(LastBall {
            entry: e,
            game: entry.game_number(g),
            scored: *scored.last()?,
        })
    }

    fn blindfold_ok(&self, bowler: &Bowler) -> bool {
        bowler.class != Class::B1
            || self
                .blindfolds
                .iter()
                .any(|b| b.bowler == bowler.name && b.ok())
    }

    /// Whether `bowler` bowled with a checked blindfold, for a ball
    /// released at `release`: adjusting it between the release and the pin
    /// report is allowed, a check recorded after the release is too late.
    fn blindfold_ok_at(&self, bowler: &Bowler, release: Millis) -> bool {
        bowler.class != Class::B1
            || self
                .blindfolds
                .iter()
                .any(|b| b.bowler == bowler.name && b.ok_at(release))
    }

    /// The earliest time at which [`Lane::tick`] has work to do.
    pub fn poll_deadline(&self) -> Option<Millis> {
        [
            self.beam.person_due,
            self.flight.report_due,
            self.slow_due(),
            self.lamp_off_due,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn slow_limit_ms(&self) -> Millis {
        self.rules.slow_bowling_limit_s.saturating_mul(1000)
    }

    fn slow_due(&self) -> Option<Millis> {
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

    // ----- driving the lane -------------------------------------------------

    /// Applies one input at time `t` (never earlier than the last one),
    /// after every deadline up to `t`.
    pub fn handle(&mut self, t: Millis, event: &Event, out: &mut Vec<Effect>) {
        let t = t.max(self.now);
        self.tick(t, out);
        let result = match event {
            Event::Sensor(s) => self.sensor(t, s, out),
            Event::Panel(p) => self.panel(t, p, out),
        };
        match result {
            Ok(()) => {
                self.sync_clock(t);
                out.push(Effect::Changed);
            }
            Err(refusal) => out.push(Effect::Refused(refusal)),
        }
    }

    /// Handles every deadline up to `now`, each at its own time.
    pub fn tick(&mut self, now: Millis, out: &mut Vec<Effect>) {
        while let Some(due) = self.poll_deadline().filter(|&d| d <= now) {
            self.now = self.now.max(due);
            if self.beam.person_due == Some(due) {
                self.beam.person_due = None;
                self.person_on_line(due, out);
            } else if self.flight.report_due == Some(due) {
                self.flight.report_due = None;
                let bowler = self.up().map(|u| self.entries[u.entry].bowler.name.clone());
                self.raise(due, bowler, ConductKind::NoPinReport, out);
            } else if self.slow_due() == Some(due) {
                self.slow_limit_passed(due, out);
            } else if self.lamp_off_due == Some(due) {
                self.lamp_off_due = None;
                self.output(due, Output::FoulLamp, Switch::Off, out);
            }
            out.push(Effect::Changed);
        }
        self.now = self.now.max(now);
    }

    fn sensor(&mut self, t: Millis, s: &Sensor, out: &mut Vec<Effect>) -> Result<(), Refusal> {
        match s {
            Sensor::FoulBeam { broken: true } => {
                if self.beam.broken_since.is_none() {
                    self.beam.broken_since = Some(t);
                    self.beam.person_due = Some(t.saturating_add(self.rules.ball_break_max_ms + 1));
                }
            }
            Sensor::FoulBeam { broken: false } => self.beam_cleared(t),
            Sensor::Ball => self.ball_seen(t, out)?,
            Sensor::Channel { side } => self.flight.channel = Some(*side),
            Sensor::Button { name } => self.button(t, name, out)?,
            Sensor::Serial { line } => self.serial_line(t, line, out)?,
            // The sequence goes on across a lost link: a pinsetter that
            // sends its last line again after the cable is back must not
            // bowl that ball twice, and lines lost meanwhile are a gap.
            Sensor::SerialLink { up } => self.link_up = Some(*up),
        }
        Ok(())
    }

    fn serial_line(&mut self, t: Millis, line: &str, out: &mut Vec<Effect>) -> Result<(), Refusal> {
        let msg = pinsetter::parse_line(line).inspect_err(|_| self.serial.rejected += 1)?;
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
            Body::Fault(text) => {
                self.fault = Some(text.clone());
                self.raise(t, None, ConductKind::PinsetterFault { text }, out);
            }
        }
        self.serial.lines += 1;
        Ok(())
    }

    /// Whether a `PINS` can be a ball by the pinsetter's cycle: a READY
    /// since the last PINS, and at least `min_cycle_ms` after it. `false`
    /// for the same report again (ignored); a refusal for one that cannot
    /// be a ball.
    fn pinsetter_cycled(&mut self, t: Millis, standing: PinSet) -> Result<bool, Refusal> {
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
            let after_ms = t.saturating_sub(last_at);
            if after_ms < self.rules.min_cycle_ms {
                self.serial.too_soon += 1;
                return Err(Refusal::PinsTooSoon {
                    standing,
                    after_ms,
                    min_cycle_ms: self.rules.min_cycle_ms,
                });
            }
        }
        // The pinsetter cycled, whether or not there is a bowler to score
        // it for.
        self.last_pins = Some((t, standing));
        self.awaiting_ready = true;
        Ok(true)
    }

    fn pinsetter_ready(&mut self, t: Millis, deck: PinSet) {
        self.deck = Some(deck);
        self.ready_deck = Some(deck);
        self.awaiting_ready = false;
        self.fault = None;
        self.window = None;
        self.start_clock(t, false);
    }

    // ----- deliveries -------------------------------------------------------

    fn beam_cleared(&mut self, t: Millis) {
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
    fn person_on_line(&mut self, t: Millis, out: &mut Vec<Effect>) {
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
    fn settle_release(&mut self, reference: Millis, out: &mut Vec<Effect>) {
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
    fn ball_seen(&mut self, t: Millis, out: &mut Vec<Effect>) -> Result<(), Refusal> {
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

    fn pin_report(
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
    fn complete_delivery(
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
        self.window = Some(target);
    }

    fn call_foul_in_flight(&mut self, t: Millis, out: &mut Vec<Effect>) {
        if self.flight.foul_at.is_some() {
            return;
        }
        self.flight.foul_at = Some(t);
        self.light_lamp(t, out);
        if let Some(up) = self.up() {
            let name = self.entries[up.entry].bowler.name.clone();
            let kind = self.foul_kind(up.game, up.at, None);
            self.raise(t, Some(name), kind, out);
        }
    }

    fn foul_kind(&self, game: u8, at: Position, by: Option<String>) -> ConductKind {
        ConductKind::Foul {
            game,
            frame: at.frame,
            ball: at.ball,
            counted: self.rules.fouls_count(),
            withdrawn: false,
            by,
        }
    }

    /// A foul on a ball already recorded: late (before the next READY) or a
    /// judge's correction (`by`).
    fn foul_on_recorded(
        &mut self,
        t: Millis,
        target: BallRef,
        by: Option<String>,
        out: &mut Vec<Effect>,
    ) {
        let fouls_count = self.rules.fouls_count();
        match target {
            BallRef::Game { entry, game, ball } => {
                if self.entries[entry].games[game][ball].foul {
                    return;
                }
                self.entries[entry].games[game][ball].foul = true;
                self.entries[entry].renew_next(fouls_count);
                let balls = &self.entries[entry].games[game];
                let at =
                    scoring::next_position(&balls[..ball], fouls_count).unwrap_or(Position::START);
                let (scored, _) = scoring::roll(at, &balls[ball], fouls_count);
                let name = self.entries[entry].bowler.name.clone();
                let kind = self.foul_kind(self.entries[entry].game_number(game), at, by.clone());
                self.raise(t, Some(name), kind, out);
                self.after_late_foul(t, Some(entry), scored, by.is_some(), out);
            }
            BallRef::Practice(i) => {
                if self.practice[i].ball.foul {
                    return;
                }
                self.practice[i].ball.foul = true;
                let p = self.practice[i];
                let (scored, next) = scoring::roll(p.at, &p.ball, true);
                if i + 1 == self.practice.len() {
                    self.practice_at = next
                        .filter(|n| n.frame == p.at.frame)
                        .unwrap_or(Position::START);
                }
                self.after_late_foul(t, None, scored, false, out);
            }
        }
    }

    fn after_late_foul(
        &mut self,
        t: Millis,
        bowler: Option<usize>,
        scored: ScoredBall,
        corrected: bool,
        out: &mut Vec<Effect>,
    ) {
        if !corrected {
            self.light_lamp(t, out);
        }
        if scored.foul && scored.at.fresh_rack {
            self.output(t, Output::PinsetterReset, Switch::Pulse, out);
        }
        self.say(t, bowler, &scored, corrected, out);
    }

    fn light_lamp(&mut self, t: Millis, out: &mut Vec<Effect>) {
        self.output(t, Output::FoulLamp, Switch::On, out);
        self.lamp_off_due = Some(t.saturating_add(self.rules.foul_lamp_ms));
    }

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

    // ----- the slow-bowling clock -------------------------------------------

    /// The lane is ready for the next ball: the clock of the bowler up
    /// starts, unless it already runs for this ball. `by_hand`: the pins
    /// were set by hand, not by the pinsetter's `READY`.
    fn start_clock(&mut self, t: Millis, by_hand: bool) {
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
    fn follow_turn(&mut self, restart: Option<Millis>) {
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
    fn sync_clock(&mut self, t: Millis) {
        if self.clock.is_none() {
            return;
        }
        let held = self.pause(self.clock.map(|c| c.entry)).is_some();
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
    fn stop_clock(&mut self, release: Millis) {
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

    fn slow_limit_passed(&mut self, t: Millis, out: &mut Vec<Effect>) {
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

    // ----- the panel --------------------------------------------------------

    fn panel(&mut self, t: Millis, p: &Panel, out: &mut Vec<Effect>) -> Result<(), Refusal> {
        let by = p.by.clone();
        match &p.action {
            Action::Lineup { bowlers } => self.lineup(bowlers),
            Action::StartBlock { games } => self.start_block(t, *games),
            Action::BlindfoldCheck { bowler, ok } => {
                let b = self.blindfold_mut(bowler)?;
                b.last_check = Some((t, *ok, by.clone()));
                b.adjusting = false;
                b.recheck = false;
                b.changed(t);
                if !ok {
                    let issue = ConductKind::Blindfold {
                        issue: "failed_check",
                        by,
                    };
                    self.raise(t, Some(bowler.clone()), issue, out);
                }
                Ok(())
            }
            Action::BlindfoldAdjust { bowler } => {
                let b = self.blindfold_mut(bowler)?;
                b.adjusting = true;
                b.changed(t);
                Ok(())
            }
            Action::BlindfoldRecheck { bowler } => {
                let b = self.blindfold_mut(bowler)?;
                b.recheck = true;
                b.changed(t);
                Ok(())
            }
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
                foul,
                later,
            } => {
                let fix = Fix {
                    standing: *standing,
                    foul: *foul,
                    later,
                };
                self.correct(t, bowler, (*game, *frame, *ball), fix, by, out)
            }
            Action::Penalty { bowler, reason } => {
                if !self.on_lane(bowler) {
                    return Err(Refusal::UnknownBowler(bowler.clone()));
                }
                if reason.contains("slow") {
                    self.confirm_slow_penalty(bowler, by.clone());
                }
                let kind = ConductKind::Penalty {
                    reason: reason.clone(),
                    by,
                };
                self.raise(t, Some(bowler.clone()), kind, out);
                Ok(())
            }
            Action::Hold { on: true, reason } => {
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
            Action::Hold { on: false, .. } => self.hold.take().map(|_| ()).ok_or(Refusal::NotHeld),
            Action::ManualPins { standing } => {
                if !self.has_lineup {
                    return Err(Refusal::NoLineup);
                }
                self.complete_delivery(t, *standing, None, false, out);
                // No pinsetter will say READY: the lane is ready now, and a
                // pinsetter that comes back may report the next ball.
                self.awaiting_ready = false;
                self.window = None;
                self.start_clock(t, true);
                Ok(())
            }
            Action::DeadBall => self.dead_ball(t, by, out),
            Action::EndBlock => self.end_block(t, out),
        }
    }

    fn lineup(&mut self, bowlers: &[Bowler]) -> Result<(), Refusal> {
        if let Some(b) = self.open_block() {
            return Err(Refusal::BlockOpen(b.number));
        }
        check_lineup(bowlers)?;
        self.pending = Some(bowlers.to_vec());
        self.has_lineup = true;
        Ok(())
    }

    fn start_block(&mut self, t: Millis, games: u32) -> Result<(), Refusal> {
        if let Some(b) = self.open_block() {
            return Err(Refusal::AlreadyStarted(b.number));
        }
        let bowlers = self.pending.as_ref().ok_or(Refusal::NothingToStart)?;
        let games = u8::try_from(games)
            .ok()
            .filter(|g| (1..=MAX_GAMES).contains(g))
            .ok_or(Refusal::GamesOutOfRange(games))?;
        let unchecked: Vec<String> = bowlers
            .iter()
            .filter(|b| !self.blindfold_ok(b))
            .map(|b| b.name.clone())
            .collect();
        if !unchecked.is_empty() {
            return Err(Refusal::BlindfoldsUnchecked(unchecked));
        }
        let number = self.next_block_number();
        let bowlers = self.pending.take().unwrap_or_default();
        let mut slots = Vec::with_capacity(bowlers.len());
        for (i, bowler) in bowlers.into_iter().enumerate() {
            slots.push(vec![self.entries.len()]);
            self.entries
                .push(Entry::new(bowler, number, i as u8 + 1, 1));
        }
        self.last_ball = None;
        self.blocks.push(Block {
            number,
            games,
            started_at: t,
            slots,
            ended: false,
        });
        // The first bowler's clock starts when the lane is ready for their
        // ball: now if the deck already stands, else at the next READY.
        if self.deck_ready() {
            self.start_clock(t, self.deck.is_none());
        }
        Ok(())
    }

    fn end_block(&mut self, t: Millis, out: &mut Vec<Effect>) -> Result<(), Refusal> {
        let block = self.open_block().ok_or(Refusal::NoBlockOpen)?;
        let cut_short = block.slots.iter().filter_map(|s| s.last()).any(|&e| {
            let (game, at) = self.next_of(e);
            game <= block.games && at != Position::START
        });
        if let Some(b) = self.blocks.last_mut() {
            b.ended = true;
        }
        if cut_short {
            self.output(t, Output::PinsetterReset, Switch::Pulse, out);
        }
        // Blindfold checks hold for the day: not cleared here.
        self.last_ball = None;
        self.clock = None;
        Ok(())
    }

    /// A bowler in the lane order now: the open block's, or the lineup
    /// waiting to start.
    fn on_lane(&self, name: &str) -> bool {
        self.current_bowler(name).is_some()
    }

    fn current_bowler(&self, name: &str) -> Option<&Bowler> {
        let in_block = self.open_block().and_then(|b| {
            b.slots
                .iter()
                .filter_map(|s| s.last())
                .map(|&e| &self.entries[e].bowler)
                .find(|x| x.name == name)
        });
        in_block.or_else(|| self.pending.as_ref()?.iter().find(|x| x.name == name))
    }

    fn blindfold_mut(&mut self, name: &str) -> Result<&mut Blindfold, Refusal> {
        let bowler = self
            .current_bowler(name)
            .ok_or_else(|| Refusal::UnknownBowler(name.to_owned()))?;
        if bowler.class != Class::B1 {
            return Err(Refusal::NotB1(name.to_owned(), bowler.class.as_str()));
        }
        let i = match self.blindfolds.iter().position(|b| b.bowler == name) {
            Some(i) => i,
            None => {
                self.blindfolds.push(Blindfold::new(name));
                self.blindfolds.len() - 1
            }
        };
        Ok(&mut self.blindfolds[i])
    }

    fn substitute(&mut self, leaving: &str, incoming: &Bowler) -> Result<(), Refusal> {
        let block = self.open_block().ok_or(Refusal::NoBlockOpen)?;
        let (slot, &e) = block
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((i, s.last()?)))
            .find(|(_, e)| self.entries[**e].bowler.name == leaving)
            .ok_or_else(|| Refusal::UnknownBowler(leaving.to_owned()))?;
        let (game, at) = self.next_of(e);
        if game > block.games {
            return Err(Refusal::NoGamesLeft(leaving.to_owned()));
        }
        if at != Position::START {
            return Err(Refusal::NotBetweenGames {
                name: leaving.to_owned(),
                game,
                frame: at.frame,
            });
        }
        check_name(&incoming.name)?;
        if incoming.name != leaving && self.on_lane(&incoming.name) {
            return Err(Refusal::DuplicateName(incoming.name.clone()));
        }
        let number = block.number;
        let new = self.entries.len();
        self.entries
            .push(Entry::new(incoming.clone(), number, slot as u8 + 1, game));
        if let Some(b) = self.blocks.last_mut() {
            b.slots[slot].push(new);
        }
        // The game the last ball ended belongs to the bowler who left.
        self.last_ball = None;
        self.follow_turn(Some(self.now));
        Ok(())
    }

    fn correct(
        &mut self,
        t: Millis,
        bowler: &str,
        (game, frame, ball): (u8, u8, u8),
        fix: Fix<'_>,
        by: Option<String>,
        out: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let fouls_count = self.rules.fouls_count();
        let no_such_ball = || Refusal::NoSuchBall {
            bowler: bowler.to_owned(),
            game,
            frame,
            ball,
        };
        // The ball awaiting its pin report can be given one by a judge.
        if let Some(up) = self.up().filter(|_| self.flight.started()) {
            let entry = &self.entries[up.entry];
            if entry.bowler.name == bowler
                && up.game == game
                && (up.at.frame, up.at.ball) == (frame, ball)
                && fix.later.is_empty()
            {
                self.complete_delivery(t, fix.standing, fix.foul, true, out);
                return Ok(());
            }
        }
        let (e, g) = self
            .entries
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, x)| x.bowler.name == bowler)
            .find_map(|(i, x)| {
                let g = usize::from(game.checked_sub(x.first_game)?);
                (g < x.games.len()).then_some((i, g))
            })
            .ok_or_else(no_such_ball)?;
        let balls = &self.entries[e].games[g];
        let (before, _) = scoring::walk(balls, fouls_count);
        let i = before
            .iter()
            .position(|s| (s.at.frame, s.at.ball) == (frame, ball))
            .ok_or_else(no_such_ball)?;
        let recorded = before.len() - i - 1;
        if fix.later.len() > recorded {
            return Err(Refusal::TooManyLater {
                bowler: bowler.to_owned(),
                game,
                frame,
                ball,
                recorded,
                given: fix.later.len(),
            });
        }
        let mut fixed = balls.clone();
        let old = balls[i];
        fixed[i] = Ball {
            standing: fix.standing,
            foul: fix.foul.unwrap_or(old.foul),
            corrected: true,
            ..old
        };
        // A re-entered later ball is the judge's word on what stood after
        // it, counted against the deck the rules expect.
        for (k, l) in fix.later.iter().enumerate() {
            let b = &mut fixed[i + 1 + k];
            *b = Ball {
                standing: l.standing,
                foul: l.foul.unwrap_or(b.foul),
                corrected: true,
                deck: None,
                ..*b
            };
        }
        let (after, _) = scoring::walk(&fixed, fouls_count);
        let same_shape = after.len() == before.len()
            && after
                .iter()
                .zip(&before)
                .all(|(a, b)| (a.at.frame, a.at.ball) == (b.at.frame, b.at.ball));
        if !same_shape {
            return Err(Refusal::CorrectionReshapes {
                bowler: bowler.to_owned(),
                frame,
                ball,
            });
        }
        let entered = i..=i + fix.later.len();
        // A foul is called or withdrawn only until the next delivery: once
        // a later ball was bowled at the deck a changed ball left (not a
        // fresh rack), the call stands unless that ball is re-entered too.
        let foul_changed = entered.clone().any(|j| fixed[j].foul != balls[j].foul);
        let next = i + 1 + fix.later.len();
        if foul_changed
            && let (Some(b), Some(a)) = (before.get(next), after.get(next))
            && !(b.at.fresh_rack && a.at.fresh_rack)
        {
            return Err(Refusal::FoulTooLate {
                bowler: bowler.to_owned(),
                frame,
                ball,
                later_frame: a.at.frame,
                later_ball: a.at.ball,
            });
        }
        let was = balls.clone();
        self.entries[e].games[g] = fixed;
        self.entries[e].renew_next(fouls_count);
        let last = was.len() - 1;
        for j in entered {
            let at = after[j].at;
            if was[j].foul && !after[j].foul {
                self.withdraw_foul(bowler, game, at);
            } else if !was[j].foul && self.entries[e].games[g][j].foul {
                let kind = self.foul_kind(game, at, by.clone());
                self.raise(t, Some(bowler.to_owned()), kind, out);
                if j == last && after[j].foul && at.fresh_rack {
                    self.output(t, Output::PinsetterReset, Switch::Pulse, out);
                }
            }
        }
        self.say(t, Some(e), &after[i], true, out);
        self.follow_turn(None);
        Ok(())
    }

    /// Marks the foul conduct of one ball withdrawn.
    fn withdraw_foul(&mut self, bowler: &str, game: u8, at: Position) {
        for c in self
            .conduct
            .iter_mut()
            .filter(|c| c.bowler.as_deref() == Some(bowler))
        {
            if let ConductKind::Foul {
                game: cg,
                frame: cf,
                ball: cb,
                withdrawn,
                ..
            } = &mut c.kind
                && (*cg, *cf, *cb) == (game, at.frame, at.ball)
            {
                *withdrawn = true;
            }
        }
    }

    /// A judge declares the last ball dead (USBC, World Bowling: dead
    /// ball): it does not count, its foul goes with it, and the bowler
    /// bowls again at the deck the ball was bowled at by the rules. The
    /// only deck the lane can ask the pinsetter for is a full rack; any
    /// other is respotted by hand, and the panel shows it until it is set.
    fn dead_ball(
        &mut self,
        t: Millis,
        by: Option<String>,
        out: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        self.open_block().ok_or(Refusal::NoBlockOpen)?;
        if self.flight.started() {
            return Err(Refusal::BallUnderWay);
        }
        let last = self.last_ball().ok_or(Refusal::NoBallToVoid)?;
        let Some((e, g)) = self.last_ball.take() else {
            return Err(Refusal::NoBallToVoid);
        };
        let at = last.scored.at;
        let entry = &mut self.entries[e];
        entry.games[g].pop();
        if entry.games[g].is_empty() && g + 1 == entry.games.len() {
            entry.games.pop();
        }
        entry.advance(last.game, Some(at));
        let name = entry.bowler.name.clone();
        if last.scored.foul {
            self.withdraw_foul(&name, last.game, at);
        }
        self.window = None;
        let kind = ConductKind::DeadBall {
            game: last.game,
            frame: at.frame,
            ball: at.ball,
            deck: at.before.iter().map(Pin::number).collect(),
            by,
        };
        self.raise(t, Some(name), kind, out);
        if at.before == PinSet::FULL && self.ready_deck != Some(PinSet::FULL) {
            self.output(t, Output::PinsetterReset, Switch::Pulse, out);
        }
        // The lane is ready for the ball again once the deck is set: now,
        // if the pinsetter has set one (the clock waits while it is wrong),
        // else at its READY.
        let ready = self.ready_deck.map(|_| t);
        self.follow_turn(ready);
        if self.clock.is_none()
            && let Some(t) = ready
        {
            self.start_clock(t, false);
        }
        Ok(())
    }

    fn confirm_slow_penalty(&mut self, bowler: &str, by: Option<String>) {
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
            kind: ConductKind::SlowBowling { confirmed_by, .. },
            ..
        }) = flagged
        {
            *confirmed_by = Some(by.unwrap_or_else(|| "judge".to_owned()));
        }
    }
}

/// A judge's correction of one ball, and of the balls after it.
struct Fix<'a> {
    standing: PinSet,
    foul: Option<bool>,
    later: &'a [LaterBall],
}

fn check_name(name: &str) -> Result<(), Refusal> {
    if name.trim().is_empty() {
        Err(Refusal::EmptyName)
    } else {
        Ok(())
    }
}

fn check_lineup(bowlers: &[Bowler]) -> Result<(), Refusal> {
    if !(1..=MAX_BOWLERS).contains(&bowlers.len()) {
        return Err(Refusal::LineupSize(bowlers.len()));
    }
    for (i, b) in bowlers.iter().enumerate() {
        check_name(&b.name)?;
        if bowlers[..i].iter().any(|x| x.name == b.name) {
            return Err(Refusal::DuplicateName(b.name.clone()));
        }
    }
    Ok(())
}
