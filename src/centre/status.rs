//! Each block's life on each of its lanes, from the mirrored journals
//! (docs/centre.md, "Block status"): not started, bowling or done, the
//! games bowled against the block's games, and an alarm when a lane bowls
//! past its block (more games than the block has, a block begun after it
//! ended in the same journal, or the block's lineup bowled again).
//!
//! A journal belongs to a block as `results.rs` places it (the same rule
//! the standings use); one whose lineup fits a block already taken by an
//! earlier journal of the lane is that block bowled again.
//!
//! [`preliminaries_missing`] says what a finals block waits for: the
//! qualifying games its category's bowlers have not bowled yet.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::book::Book;
use super::programme::{EventKind, Programme};
use super::standings::{Standings, bowled_games};
use crate::replay::{EntryView, bowler_entries};

/// What a block's lane has done of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// No journal of the lane has the block's lineup, or it waits there
    /// with its block not begun (`lineup` says which).
    NotStarted,
    /// The block is begun on the lane and not over.
    Bowling,
    /// Every bowler of the lane has bowled the block's games, or the lane
    /// ended the block (`end_block`).
    Done,
}

/// One lane of a block, for `GET /api/programme`'s `status`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LaneStatus {
    pub state: State,
    /// The block's lineup is on the lane (pushed or typed), its journal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal: Option<String>,
    /// The highest game number any bowler of the lane has begun.
    pub games_bowled: u32,
    /// The block's games.
    pub games: u32,
    /// The lane sent `end_block` for it.
    pub ended: bool,
    /// Why the lane is bowling past its block, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alarm: Option<String>,
    /// The alarm's kind, for the page to say it in its language:
    /// `games` (more games than the block's), `after_end` (a block begun
    /// after it ended) or `again` (its lineup bowled again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub past: Option<&'static str>,
}

impl LaneStatus {
    /// Whether the lane has begun or finished the block: pushing it again
    /// asks first.
    pub fn begun(&self) -> bool {
        self.state != State::NotStarted || self.games_bowled > 0
    }
}

/// The name the centre shows for `name`: a name corrected on the page
/// (`entries/rename.rs`) is the corrected one.
fn shown<'a>(p: &'a Programme, name: &'a str) -> &'a str {
    p.renamed.get(name).map_or(name, String::as_str)
}

/// Each block's lanes (every lane its programme names), by block id.
pub fn blocks(book: &Book, p: &Programme) -> BTreeMap<String, BTreeMap<u32, LaneStatus>> {
    let mut out: BTreeMap<String, BTreeMap<u32, LaneStatus>> = p
        .blocks
        .iter()
        .map(|b| {
            let lanes = b
                .lanes
                .iter()
                .map(|(n, _)| {
                    let s = LaneStatus {
                        state: State::NotStarted,
                        journal: None,
                        games_bowled: 0,
                        games: b.games,
                        ended: false,
                        alarm: None,
                        past: None,
                    };
                    (*n, s)
                })
                .collect();
            (b.id.clone(), lanes)
        })
        .collect();
    for (&lane, lb) in &book.lanes {
        let mut taken = BTreeSet::new();
        for (file, feed) in lb.journals_in_order() {
            let Some(replay) = feed.replay() else {
                continue;
            };
            let l = replay.lane();
            // Each bowler under the name the centre shows (a name
            // corrected on the page), as `results.rs` places them.
            let names: BTreeSet<&str> = bowler_entries(l)
                .map(|e| match e {
                    EntryView::Bowled(entry) => shown(p, entry.bowler.name.as_str()),
                    EntryView::Waiting(bowler, ..) => shown(p, bowler.name.as_str()),
                })
                .collect();
            let games = bowled_games(replay, lane, file, None);
            let bowled = games.iter().map(|g| g.game).max().unwrap_or(0);
            let placed = super::standings::journal_block(p, lane, &names, &mut taken);
            let (id, again) = match placed {
                Some(id) => (id, false),
                // The lineup of a block the lane has had already.
                None => match repeated(p, lane, &names) {
                    Some(id) => (id, true),
                    None => continue,
                },
            };
            let Some(s) = out.get_mut(id).and_then(|b| b.get_mut(&lane)) else {
                continue;
            };
            if again {
                if bowled > 0 {
                    s.alarm = Some(format!(
                        "lane {lane} bowled block {id} again ({file}): those games do not count"
                    ));
                    s.past = Some("again");
                }
                continue;
            }
            let ended = l.blocks().iter().any(|b| b.ended);
            let lineup = p.lineups(id).ok().and_then(|mut ls| {
                ls.iter()
                    .position(|(n, _)| *n == lane)
                    .map(|i| ls.swap_remove(i).1)
            });
            let all_bowled = lineup.is_some_and(|bowlers| {
                !bowlers.is_empty()
                    && bowlers.iter().all(|b| {
                        games
                            .iter()
                            .filter(|g| shown(p, &g.name) == b.name && g.complete)
                            .count()
                            >= s.games as usize
                    })
            });
            s.journal = Some(file.to_owned());
            s.games_bowled = bowled;
            s.ended = ended;
            s.state = if ended || all_bowled {
                State::Done
            } else if l.blocks().is_empty() {
                State::NotStarted
            } else {
                State::Bowling
            };
            if bowled > s.games {
                s.alarm = Some(format!(
                    "lane {lane} is bowling game {bowled} of block {id}, which has {} game(s)",
                    s.games
                ));
                s.past = Some("games");
            } else if l.blocks().len() > 1 {
                s.alarm = Some(format!(
                    "lane {lane} began another block after block {id} ended ({file})"
                ));
                s.past = Some("after_end");
            }
        }
    }
    out
}

/// The block whose lineup on `lane` is `names`, whether or not an earlier
/// journal of the lane took it.
pub fn repeated<'p>(p: &'p Programme, lane: u32, names: &BTreeSet<&str>) -> Option<&'p str> {
    super::standings::journal_block(p, lane, names, &mut BTreeSet::new())
}

/// What the preliminaries of finals block `block` still lack: for each
/// bowler of its category (not withdrawn), the games of the qualifying
/// blocks (the singles blocks that are no finals' blocks) they are
/// assigned to and have not finished; a qualifying block with no lanes
/// yet. Empty when `block` is no finals' block, or they are complete.
pub fn preliminaries_missing(p: &Programme, block: &str, standings: &Standings) -> Vec<String> {
    let Some(f) = p
        .finals
        .iter()
        .find(|f| f.round_robin == block || f.step_ladder.iter().any(|b| b == block))
    else {
        return Vec::new();
    };
    let finals_blocks: BTreeSet<&str> = p
        .finals
        .iter()
        .flat_map(|f| std::iter::once(&f.round_robin).chain(&f.step_ladder))
        .map(String::as_str)
        .collect();
    let qualifying: Vec<&super::programme::Block> = p
        .blocks
        .iter()
        .filter(|b| {
            !finals_blocks.contains(b.id.as_str())
                && p.event(&b.event)
                    .is_some_and(|e| e.kind == EventKind::Singles)
        })
        .collect();
    let mut missing: Vec<String> = qualifying
        .iter()
        .filter(|b| b.lanes.is_empty())
        .map(|b| format!("block {} has no lanes yet", b.id))
        .collect();
    let Some(c) = p.categories().into_iter().find(|c| c.id == f.category) else {
        return missing;
    };
    let lines = standings.categories.iter().find(|s| s.id == c.id);
    for e in p.entries.iter().filter(|e| c.holds(e) && !e.withdrawn) {
        let due: u32 = qualifying
            .iter()
            .filter(|b| b.lanes.iter().any(|(_, l)| l.contains(&e.name)))
            .map(|b| b.games)
            .sum();
        let done = lines
            .and_then(|l| l.entries.iter().find(|s| s.name == e.name))
            .map_or(0, |s| s.complete);
        // A bowler in no qualifying block owes none of its games.
        if done < due {
            missing.push(format!("{} has bowled {done} of {due} game(s)", e.name));
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::centre::standings::{BowledGame, Reason, standings};
    use crate::lane::Class;

    fn example() -> Programme {
        let text = include_str!("../../tests/programme/example.toml");
        Programme::parse(text, std::path::Path::new("example.toml")).unwrap()
    }

    fn game(lane: u32, seq: u32, block: Option<&str>, name: &str, n: u32) -> BowledGame {
        BowledGame {
            lane,
            journal: format!("lane{lane}-20261128T090000Z-{seq:06}.jsonl"),
            block: block.map(str::to_owned),
            name: name.to_owned(),
            class: Some(Class::B1),
            game: n,
            score: 150,
            frames: 10,
            complete: true,
        }
    }

    #[test]
    fn a_block_bowled_again_is_said_so_in_both_languages_and_a_typed_lineup_is_not() {
        let p = example();
        let games = [
            game(1, 1, Some("S1"), "Anna Kuznetsova", 1),
            game(1, 1, Some("S1"), "Olga Smirnova", 1),
            // S1's lineup of lane 1 again, in a later journal.
            game(1, 2, None, "Anna Kuznetsova", 1),
            game(1, 2, None, "Olga Smirnova", 1),
            // A lineup typed on lane 1 that no block has there.
            game(1, 3, None, "Ivan Petrov", 1),
        ];
        let s = standings(Some(&p), &games);
        let why: Vec<(&str, Option<&str>, &str, &str)> = s
            .unplaced
            .iter()
            .map(|u| (u.name.as_str(), u.block.as_deref(), u.reason, u.reason_ru))
            .collect();
        let again = Reason::BowledAgain;
        let typed = Reason::NotFromProgramme;
        assert_eq!(
            why,
            [
                ("Anna Kuznetsova", Some("S1"), again.en(), again.ru()),
                ("Olga Smirnova", Some("S1"), again.en(), again.ru()),
                ("Ivan Petrov", None, typed.en(), typed.ru()),
            ]
        );
        assert!(!again.en().contains("did not come from the programme"));
    }

    #[test]
    fn finals_wait_for_every_qualifying_game_of_their_category() {
        let p = example();
        let b1 = [
            "Anna Kuznetsova",
            "Olga Smirnova",
            "Ivan Petrov",
            "Dmitri Orlov",
        ];
        let lane = |name: &str, block: &str| {
            let b = p.block(block).unwrap();
            b.lanes
                .iter()
                .find(|(_, l)| l.iter().any(|n| n == name))
                .unwrap()
                .0
        };
        let mut games = Vec::new();
        for name in b1 {
            for (seq, block) in [(1, "S1"), (2, "S2")] {
                for n in 1..=6 {
                    games.push(game(lane(name, block), seq, Some(block), name, n));
                }
            }
        }
        let last = games.pop().unwrap();
        let missing = preliminaries_missing(&p, "RR-B1", &standings(Some(&p), &games));
        assert_eq!(missing, ["Dmitri Orlov has bowled 11 of 12 game(s)"]);
        games.push(last);
        let s = standings(Some(&p), &games);
        assert_eq!(preliminaries_missing(&p, "RR-B1", &s), Vec::<String>::new());
        assert_eq!(
            preliminaries_missing(&p, "SL2-B1", &s),
            Vec::<String>::new()
        );
        // No finals' block: nothing to wait for.
        assert_eq!(
            preliminaries_missing(&p, "S2", &standings(Some(&p), &[])),
            Vec::<String>::new()
        );
    }
}
