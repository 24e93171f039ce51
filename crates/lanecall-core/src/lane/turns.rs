//! Turn order and blocks: the sheet's entries, who is up next, blocks of
//! games and their numbers through the competition day, what the day's
//! earlier journals leave in force, and which day it is (the header's
//! date, or a `date` someone who knows it gave).
//!
//! It decides who bowls next and when a block starts and ends. It never
//! records a ball (`delivery`) nor changes the lane order (`lineup`), and
//! it runs no slow-bowling clock (`holds`): it only starts one when a block
//! opens on a ready deck and drops it when the block ends.

use serde::Serialize;

use super::blindfold::{Blindfold, MAX_BLINDFOLDS};
use super::scoring::{self, Ball, Position};
use super::{Bowler, DateFrom, Effect, Lane, MAX_GAMES, Millis, Output, Plan, Refusal, Switch};
use crate::wall::DayDate;

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
    pub(super) slow_flags: u32,
    /// The game and position of this entry's next ball, kept up to date
    /// as balls are recorded so that finding who is up costs nothing.
    pub(super) next: (u8, Position),
}

impl Entry {
    pub(super) fn new(bowler: Bowler, block: u32, position: u8, first_game: u8) -> Entry {
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
    pub(super) fn advance(&mut self, game: u8, next: Option<Position>) {
        self.next = match next {
            Some(at) => (game, at),
            None => (game + 1, Position::START),
        };
    }

    /// Works out the next ball again after a ball already recorded changed.
    pub(super) fn renew_next(&mut self, fouls_count: bool) {
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
    /// The centre's block it is, as its lineup gave it (journal.md,
    /// `lineup`'s `block` and `games`): none for a lineup typed on the
    /// panel.
    pub plan: Plan,
}

/// What a lane's earlier journals of the same competition day leave in
/// force: the daemon writes it into the header of each new journal (one
/// per block), so that a journal replays alone, and a restart, to the same
/// block numbers and blindfold checks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Day {
    /// The day's date, when the lane knew it (a header without it was
    /// written before it existed: its `started_at` gives the date). It is
    /// the date a `date` event is compared with, so a journal whose
    /// header's clock was wrong keeps the day it was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<DayDate>,
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

/// A `date` the lane took: when, from whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GivenDate {
    pub t: Millis,
    pub from: DateFrom,
    pub by: Option<String>,
}

/// Who bowls next, in which game, at what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Up {
    pub entry: usize,
    pub game: u8,
    pub at: Position,
}

impl Lane {
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn blocks(&self) -> &[Block] {
        &self.blocks
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
        // The header is read from a file: the newest checks, at most the
        // lane's bound.
        let kept = day.blindfolds.len().saturating_sub(MAX_BLINDFOLDS);
        self.blindfolds = day.blindfolds[kept..]
            .iter()
            .map(|c| {
                let mut b = Blindfold::new(&c.bowler);
                b.last_check = Some((c.t, true, c.by.clone()));
                b.changed(c.t);
                b
            })
            .collect();
    }

    /// The competition day's date the header gives: its `day.date`, else
    /// its `started_at`'s (before any event).
    pub fn begin_date(&mut self, date: Option<DayDate>) {
        self.date = date;
    }

    /// The competition day's date: the latest `date` taken, else the
    /// header's. `None` when the journal gives none.
    pub fn date(&self) -> Option<DayDate> {
        self.date
    }

    /// The `date` event that gave [`Lane::date`], if one did.
    pub fn date_given(&self) -> Option<&GivenDate> {
        self.date_given.as_ref()
    }

    /// Someone who knows it gives the day's date. The same date confirms
    /// the day. Another begins a new day: what the header carried from
    /// the day before (block numbers, blindfold checks) no longer holds
    /// (rules.md: a check from an earlier day does not hold, and blocks
    /// are numbered through the day). A journal holds one day, so a new
    /// day is refused once a block was begun in it (the daemon starts a
    /// new journal for it), and while a block is open.
    pub(super) fn date_given_by(
        &mut self,
        t: Millis,
        date: DayDate,
        from: DateFrom,
        by: Option<String>,
    ) -> Result<(), Refusal> {
        if self.date.is_some_and(|d| d != date) {
            if let Some(b) = self.open_block() {
                return Err(Refusal::DateDuringBlock {
                    block: b.number,
                    date,
                });
            }
            if let Some(b) = self.blocks.last() {
                return Err(Refusal::DateAfterBlocks {
                    block: b.number,
                    date,
                });
            }
            self.blocks_before = 0;
            self.blindfolds.clear();
        }
        self.date = Some(date);
        self.date_given = Some(GivenDate { t, from, by });
        Ok(())
    }

    /// What this lane leaves in force for its next journal of the day.
    pub fn day(&self) -> Day {
        Day {
            date: self.date,
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

    /// The block being bowled, if one is open.
    pub fn open_block(&self) -> Option<&Block> {
        self.blocks.last().filter(|b| !b.ended)
    }

    /// Whether every place in the block's lane order has bowled every game
    /// of it: a delivery now counts nowhere (`after_block`) and the block
    /// waits only for its `end_block`.
    pub fn block_complete(&self, block: &Block) -> bool {
        block
            .slots
            .iter()
            .filter_map(|s| s.last())
            .all(|&e| self.next_of(e).0 > block.games)
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
    pub(super) fn next_of(&self, e: usize) -> (u8, Position) {
        self.entries[e].next
    }

    /// Starts the waiting lineup's block of `games`. A lineup from the
    /// centre's programme gave the block's games: other games only by the
    /// chief judge (`chief`).
    pub(super) fn start_block(
        &mut self,
        t: Millis,
        games: u32,
        chief: bool,
    ) -> Result<(), Refusal> {
        if let Some(b) = self.open_block() {
            return Err(Refusal::AlreadyStarted(b.number));
        }
        let bowlers = self.pending.as_ref().ok_or(Refusal::NothingToStart)?;
        let games = u8::try_from(games)
            .ok()
            .filter(|g| (1..=MAX_GAMES).contains(g))
            .ok_or(Refusal::GamesOutOfRange(games))?;
        // The centre's programme gave the block's games: a judge typing
        // others would bowl games the centre does not count, or stop
        // short of its block. The chief judge may decide otherwise.
        if let Some(planned) = self.pending_plan.games
            && planned != games
            && !chief
        {
            return Err(Refusal::NotTheBlocksGames {
                block: self.pending_plan.name.clone(),
                planned,
                given: games,
            });
        }
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
            plan: std::mem::take(&mut self.pending_plan),
        });
        // The first bowler's clock starts when the lane is ready for their
        // ball: now if the deck already stands, else at the next READY.
        if self.deck_ready() {
            self.start_clock(t, self.deck.is_none());
        }
        Ok(())
    }

    pub(super) fn end_block(&mut self, t: Millis, out: &mut Vec<Effect>) -> Result<(), Refusal> {
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
}
