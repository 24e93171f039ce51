//! Why the lane refuses an input: one variant per reason, each message
//! naming what is wrong and, where there is one, what to do.
//!
//! It decides no ruling and never touches the lane's state: the files that
//! decide return these, and [`Lane::handle`](super::Lane::handle) turns them
//! into [`Effect::Refused`](super::Effect::Refused).

use super::{Handicap, MAX_BOWLERS, MAX_GAMES, MAX_NEIGHBOURS, Millis, PinSet, UNDO_WINDOW_MS};
use crate::pinsetter::{self, Body};
use crate::wall::DayDate;

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
    /// `name` is the start of the name as given, escaped
    /// ([`crate::names::shown`]): the refusal never carries the trick.
    #[error("the bowler \"{name}\": {problem}")]
    BadName {
        name: String,
        problem: crate::names::NameProblem,
    },
    #[error("{bowler}'s team: {problem}")]
    BadTeam {
        bowler: String,
        problem: crate::names::NameProblem,
    },
    #[error(
        "{bowler}'s handicap is {handicap}: a handicap is 0 to {} pins a game, as in the programme",
        super::MAX_HANDICAP
    )]
    HandicapOutOfRange { bowler: String, handicap: Handicap },
    #[error(
        "block {0} is open: the lane order is locked (substitute between games, or end the block)"
    )]
    BlockOpen(u32),
    #[error("block {0} has already started")]
    AlreadyStarted(u32),
    #[error("no block is open")]
    NoBlockOpen,
    #[error(
        "block {block} is open: the date {date} begins another competition day, taken once the block has ended"
    )]
    DateDuringBlock { block: u32, date: DayDate },
    #[error(
        "the date {date} begins another competition day, and block {block} of this journal was bowled on the day before: a new day begins in a journal of its own"
    )]
    DateAfterBlocks { block: u32, date: DayDate },
    #[error("no lineup to start a block with: set the lane order first")]
    NothingToStart,
    #[error("a block has 1 to {MAX_GAMES} games, not {0}")]
    GamesOutOfRange(u32),
    /// `id` is the start of the id as given, escaped
    /// ([`crate::names::shown`]).
    #[error("the lineup's block \"{id}\": {problem}")]
    BadBlockId {
        id: String,
        problem: crate::names::NameProblem,
    },
    #[error("the lineup's block has 1 to {MAX_GAMES} games, not {0}")]
    LineupGames(u32),
    #[error(
        "{} has {planned} game(s) in the centre's programme: start it with {planned}, not {given} (other games only by the chief judge, or the centre pushes the block again)",
        block_named(.block.as_deref())
    )]
    NotTheBlocksGames {
        block: Option<String>,
        planned: u8,
        given: u8,
    },
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
    #[error("nothing to withdraw: {what} at t={at}{} ({why})", .bowler.as_deref().map(|b| format!(" for {b}")).unwrap_or_default())]
    NothingToWithdraw {
        what: &'static str,
        at: Millis,
        bowler: Option<String>,
        why: &'static str,
    },
    #[error("manual pins: {} twice: enter each standing pin once", pins_named(*.0))]
    PinsTwice(PinSet),
    #[error(
        "manual pins: {} not standing: the deck was {}",
        were_named(*.pins), list(*.deck)
    )]
    PinsNotStanding { pins: PinSet, deck: PinSet },
    #[error(
        "correction of frame {frame} ball {ball} of {bowler}: {} twice: enter each standing pin once",
        pins_named(*.pins)
    )]
    CorrectionPinsTwice {
        bowler: String,
        frame: u8,
        ball: u8,
        pins: PinSet,
    },
    #[error(
        "correction of frame {frame} ball {ball} of {bowler}: {} not standing: the deck it was bowled at was {}",
        were_named(*.pins), list(*.deck)
    )]
    CorrectionPinsNotStanding {
        bowler: String,
        frame: u8,
        ball: u8,
        pins: PinSet,
        deck: PinSet,
    },
    #[error(
        "withdraw refused: the {what} at t={at} was made by {}; only they, within {} s (the panel's Undo), or the chief judge may withdraw it",
        .made_by.as_deref().unwrap_or("the lane"), UNDO_WINDOW_MS / 1000
    )]
    NotYourAction {
        what: &'static str,
        at: Millis,
        made_by: Option<String>,
    },
    #[error(
        "withdraw refused: the {what} at t={at} is older than {} s (the panel's Undo): only the chief judge may withdraw it now",
        UNDO_WINDOW_MS / 1000
    )]
    UndoWindowOver { what: &'static str, at: Millis },
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
    #[error(
        "pin switches: a deck after a ball ({standing} standing) with no deck set since the last ({last} at t={last_at}) and no ball from the ball detector: ignored, not a ball"
    )]
    DeckWithoutSet {
        standing: PinSet,
        last: PinSet,
        last_at: Millis,
    },
    #[error(
        "pin switches: a deck after a ball ({standing} standing) only {after_ms} ms after the last; no pinsetter cycles in under {min_cycle_ms} ms (rules.min_cycle_ms): ignored, not a ball"
    )]
    DeckTooSoon {
        standing: PinSet,
        after_ms: Millis,
        min_cycle_ms: u64,
    },
    #[error(
        "neighbour {0}: already {MAX_NEIGHBOURS} adjacent lanes busy; a lane has two neighbours: ignored"
    )]
    TooManyNeighbours(u32),
    #[error("neighbour {0} is this lane's own number: ignored")]
    OwnLaneAsNeighbour(u32),
}

/// `7, 10`.
fn list(pins: PinSet) -> String {
    let numbers: Vec<String> = pins.iter().map(|p| p.to_string()).collect();
    numbers.join(", ")
}

/// `pin 7`, `pins 7, 10`.
fn pins_named(pins: PinSet) -> String {
    match pins.len() {
        1 => format!("pin {}", list(pins)),
        _ => format!("pins {}", list(pins)),
    }
}

/// `pin 1 was`, `pins 1, 2 were`.
fn were_named(pins: PinSet) -> String {
    match pins.len() {
        1 => format!("{} was", pins_named(pins)),
        _ => format!("{} were", pins_named(pins)),
    }
}

impl Refusal {
    /// A pin report refused, worded for a string pinsetter's deck.
    pub(super) fn for_deck(self) -> Refusal {
        match self {
            Refusal::PinsWithoutReady {
                standing,
                last,
                last_at,
            } => Refusal::DeckWithoutSet {
                standing,
                last,
                last_at,
            },
            Refusal::PinsTooSoon {
                standing,
                after_ms,
                min_cycle_ms,
            } => Refusal::DeckTooSoon {
                standing,
                after_ms,
                min_cycle_ms,
            },
            other => other,
        }
    }
}

/// A block as a refusal names it: by the centre's id when it has one.
fn block_named(id: Option<&str>) -> String {
    id.map_or_else(|| "the block".to_owned(), |id| format!("block {id}"))
}
