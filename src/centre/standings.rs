//! Standings: the games the lanes report, ranked per category
//! (docs/programme.md, "Standings").
//!
//! This file turns a lane's replay into [`BowledGame`]s and ranks bowlers
//! per category with the tie rule; `teams.rs` adds up team events,
//! `finals.rs` plays out the round robin and the step-ladder, and
//! `protocol.rs` writes the results protocol. Nothing here scores a ball:
//! the lane's replay does.

mod finals;
mod placing;
mod proposal;
mod protocol;
mod startlist;
mod teams;

pub use finals::{FinalsStanding, Match, RoundRobinStanding, StepLadder, round_robin_schedule};
pub use placing::{Reason, journal_block, unplaced_reason};
pub use proposal::{BlockProposal, FinalsProposal, Lanes, programme_lanes, propose};
pub use protocol::{CsvLang, protocol_csv, protocol_text};
pub use startlist::start_list_text;
pub use teams::{TeamEventStanding, TeamStanding};

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::Serialize;

use super::programme::{Category, Programme, Sex};
use crate::lane::scoring;
use crate::lane::{Class, Handicap, handicap};
use crate::replay::{EntryView, Replay, bowler_entries};

/// What the centre knows of one game a lane reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BowledGame {
    pub lane: u32,
    /// The lane's journal file name.
    pub journal: String,
    /// The programme block id, when the centre pushed that lineup.
    pub block: Option<String>,
    pub name: String,
    pub class: Option<Class>,
    /// 1-based, within that journal's block.
    pub game: u32,
    /// Scratch pins so far (the replay's running total).
    pub score: u32,
    /// Frames the score covers (those with a running total), 0..=10.
    pub frames: u8,
    pub complete: bool,
}

/// Every game of every bowler on the lane's sheet, in the sheet's order: a
/// substitute's games are their own. Bowlers of a lineup not yet started
/// have none.
pub fn bowled_games(
    replay: &Replay,
    lane: u32,
    journal: &str,
    block: Option<&str>,
) -> Vec<BowledGame> {
    let l = replay.lane();
    let fouls_count = l.rules().fouls_count();
    let mut out = Vec::new();
    for view in bowler_entries(l) {
        let EntryView::Bowled(entry) = view else {
            continue;
        };
        for (i, balls) in entry.games.iter().enumerate() {
            let sheet = scoring::sheet(balls, fouls_count);
            out.push(BowledGame {
                lane,
                journal: journal.to_owned(),
                block: block.map(str::to_owned),
                name: entry.bowler.name.clone(),
                class: Some(entry.bowler.class),
                game: u32::from(entry.game_number(i)),
                score: u32::from(sheet.total),
                frames: sheet
                    .frames
                    .iter()
                    .filter(|f| f.cumulative.is_some())
                    .count() as u8,
                complete: sheet.complete,
            });
        }
    }
    out
}

/// The centre's `GET /api/standings`.
#[derive(Clone, Debug, Serialize)]
pub struct Standings {
    pub categories: Vec<CategoryStanding>,
    /// Team events, in the programme's order.
    pub teams: Vec<TeamEventStanding>,
    /// The finals by category id.
    pub finals: BTreeMap<String, FinalsStanding>,
    /// Games the programme cannot place: no block, an unknown block, or a
    /// bowler not entered. Listed so a judge sees them; counted nowhere.
    pub unplaced: Vec<Unplaced>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CategoryStanding {
    pub id: String,
    pub title: String,
    pub title_ru: String,
    pub combined: bool,
    /// Pins a woman gets a game in this category (a combined one), else 0.
    pub women_pins: u32,
    pub entries: Vec<Standing>,
}

/// Why a bowler's line is not ranked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// The entry is withdrawn (снят): listed with any games bowled,
    /// never ranked.
    Withdrawn,
    /// Did not start (не явился): no game, though the lane the bowler is
    /// assigned to in a block has finished a game of it.
    Dns,
}

impl Mark {
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Withdrawn => "withdrawn",
            Mark::Dns => "DNS",
        }
    }
    pub fn as_str_ru(self) -> &'static str {
        match self {
            Mark::Withdrawn => "снят",
            Mark::Dns => "не явился",
        }
    }
}

/// A bowler's line in a category.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Standing {
    /// `None` for a line that is not ranked: a withdrawn entry, or one
    /// with no game yet (listed last, by name).
    pub rank: Option<u32>,
    /// Why the line is not ranked, when there is a reason to print.
    pub mark: Option<Mark>,
    pub name: String,
    /// The lane of the latest game, or of the bowler's first assignment.
    pub lane: Option<u32>,
    pub class: Option<Class>,
    pub sex: Option<Sex>,
    pub region: Option<String>,
    pub team: Option<String>,
    /// Scratch pins of each game, in the order bowled; a game in progress
    /// shows its running total.
    pub games: Vec<u32>,
    /// How many of `games` are complete.
    pub complete: u32,
    /// The game in progress, if any.
    pub playing: Option<Playing>,
    pub scratch: u32,
    /// The programme's handicap, once per game.
    pub handicap: u32,
    /// A woman's pins in a combined category, once per game.
    pub bonus: u32,
    pub total: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Playing {
    /// 1-based place in `games`.
    pub game: u32,
    pub frames: u8,
}

#[derive(Clone, Debug, Serialize)]
pub struct Unplaced {
    pub lane: u32,
    pub journal: String,
    pub block: Option<String>,
    pub name: String,
    pub game: u32,
    pub score: u32,
    /// Why it is not counted, in English ([`Unplaced::reason_ru`]: in
    /// Russian): [`Reason`].
    pub reason: &'static str,
    pub reason_ru: &'static str,
    /// A voided game: the chief judge's own words, who and when.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// The standings from what the lanes reported. Without a programme: every
/// bowler by name, one category per class (unknown class last). With one:
/// its categories, team events and finals.
pub fn standings(programme: Option<&Programme>, games: &[BowledGame]) -> Standings {
    match programme {
        None => Standings {
            categories: by_class(games),
            teams: Vec::new(),
            finals: BTreeMap::new(),
            unplaced: Vec::new(),
        },
        Some(p) => with_programme(p, games),
    }
}

/// Journal names sort by their stamp and sequence number
/// (`lane7-20261129T140000Z-000012.jsonl`), so a bowler's games on
/// several lanes keep the order they were bowled in.
fn journal_order(name: &str) -> (&str, u64, &str) {
    let mut parts = name.trim_end_matches(".jsonl").splitn(3, '-').skip(1);
    let stamp = parts.next().unwrap_or("");
    let seq = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    (stamp, seq, name)
}

pub(super) fn game_order(a: &BowledGame, b: &BowledGame) -> Ordering {
    journal_order(&a.journal)
        .cmp(&journal_order(&b.journal))
        .then(a.game.cmp(&b.game))
}

/// A bowler's line from their games, in order; the programme's handicap
/// (added by the lane's one rule, [`handicap::over`]) and the bonus pins,
/// each once per game.
pub(super) fn line(name: &str, played: &[&BowledGame], handicap: Handicap, bonus: u32) -> Standing {
    let games: Vec<u32> = played.iter().map(|g| g.score).collect();
    let n = games.len() as u32;
    let scratch: u32 = games.iter().sum();
    let playing = played.iter().position(|g| !g.complete).map(|i| Playing {
        game: i as u32 + 1,
        frames: played[i].frames,
    });
    Standing {
        rank: None,
        mark: None,
        name: name.to_owned(),
        lane: played.last().map(|g| g.lane),
        class: played.iter().rev().find_map(|g| g.class),
        sex: None,
        region: None,
        team: None,
        complete: played.iter().filter(|g| g.complete).count() as u32,
        playing,
        scratch,
        handicap: handicap_pins(handicap, games.len()),
        bonus: bonus * n,
        total: scratch + handicap_pins(handicap, games.len()) + bonus * n,
        games,
    }
}

/// A handicap over `games` games by the one rule ([`handicap::over`]), in
/// the standings' unsigned pins. A programme holds only handicaps of 0 to
/// 300 (its check refuses any other), so the pins are never below 0; were
/// one ever, it would count as none, as the standings always counted it.
pub(super) fn handicap_pins(handicap: Handicap, games: usize) -> u32 {
    u32::try_from(handicap::over(handicap, games)).unwrap_or(0)
}

/// A line that can be ranked.
pub(super) trait Ranked {
    fn name(&self) -> &str;
    fn set_rank(&mut self, rank: u32);
    /// The total, then each game with its handicap and bonus, the last
    /// game first.
    fn key(&self) -> (u32, Vec<u32>);
}

impl Ranked for Standing {
    fn name(&self) -> &str {
        &self.name
    }
    fn set_rank(&mut self, rank: u32) {
        self.rank = Some(rank);
    }
    fn key(&self) -> (u32, Vec<u32>) {
        let n = self.games.len() as u32;
        let per_game = (self.handicap + self.bonus).checked_div(n).unwrap_or(0);
        let back = self.games.iter().rev().map(|g| g + per_game).collect();
        (self.total, back)
    }
}

/// Sorts by total and gives ranks: ties broken by the higher last game
/// (with its handicap and bonus), then the game before it, and so on;
/// still equal, the same rank (listed by name).
pub(super) fn rank<T: Ranked>(lines: &mut [T]) {
    lines.sort_by(|a, b| b.key().cmp(&a.key()).then(a.name().cmp(b.name())));
    let mut start = 0;
    for i in 0..lines.len() {
        if i > 0 && lines[i].key() != lines[i - 1].key() {
            start = i;
        }
        lines[i].set_rank(start as u32 + 1);
    }
}

fn by_class(games: &[BowledGame]) -> Vec<CategoryStanding> {
    let mut bowlers: BTreeMap<&str, Vec<&BowledGame>> = BTreeMap::new();
    for g in games {
        bowlers.entry(&g.name).or_default().push(g);
    }
    let mut lines: Vec<Standing> = bowlers
        .into_iter()
        .map(|(name, mut played)| {
            played.sort_by(|a, b| game_order(a, b));
            line(name, &played, 0, 0)
        })
        .collect();
    let mut out = Vec::new();
    for class in [Some(Class::B1), Some(Class::B2), Some(Class::B3), None] {
        let (mut entries, rest): (Vec<Standing>, Vec<Standing>) =
            lines.into_iter().partition(|s| s.class == class);
        lines = rest;
        if entries.is_empty() {
            continue;
        }
        rank(&mut entries);
        let (id, title, title_ru) = match class {
            Some(c) => (c.as_str(), c.as_str().to_owned(), c.as_str().to_owned()),
            None => (
                "unknown",
                "class unknown".to_owned(),
                "класс не указан".to_owned(),
            ),
        };
        out.push(CategoryStanding {
            id: id.to_owned(),
            title,
            title_ru,
            combined: false,
            women_pins: 0,
            entries,
        });
    }
    out
}

/// The games the programme places, by bowler: only singles blocks that
/// are not finals count for the categories.
struct Placed<'g> {
    /// By entry name, each game with its block's place in the programme.
    singles: BTreeMap<&'g str, Vec<(usize, &'g BowledGame)>>,
    /// Every (block, lane) where a placed game was bowled to its end.
    finished: std::collections::BTreeSet<(&'g str, u32)>,
    unplaced: Vec<Unplaced>,
}

fn place<'g>(p: &Programme, games: &'g [BowledGame]) -> Placed<'g> {
    let mut placed = Placed {
        singles: BTreeMap::new(),
        finished: Default::default(),
        unplaced: Vec::new(),
    };
    let finals_blocks: Vec<&str> = p
        .finals
        .iter()
        .flat_map(|f| std::iter::once(&f.round_robin).chain(&f.step_ladder))
        .map(String::as_str)
        .collect();
    for g in games {
        let block = g
            .block
            .as_deref()
            .and_then(|id| p.blocks.iter().position(|b| b.id == id));
        let unplaced = match block {
            None if g.block.is_none() => Some(unplaced_reason(p, g, games)),
            None => Some((Reason::NoSuchBlock, None)),
            Some(_) if p.entry(&g.name).is_none() => Some((Reason::NotAnEntry, None)),
            Some(_) => None,
        };
        if let Some((reason, again)) = unplaced {
            placed.unplaced.push(Unplaced {
                lane: g.lane,
                journal: g.journal.clone(),
                block: again.map(str::to_owned).or_else(|| g.block.clone()),
                name: g.name.clone(),
                game: g.game,
                score: g.score,
                reason: reason.en(),
                reason_ru: reason.ru(),
                note: None,
                by: None,
                at: None,
            });
            continue;
        }
        let Some(i) = block else { continue };
        let b = &p.blocks[i];
        if let Some(id) = g.block.as_deref()
            && g.complete
        {
            placed.finished.insert((id, g.lane));
        }
        let singles = p
            .event(&b.event)
            .is_some_and(|e| e.kind == super::programme::EventKind::Singles);
        if singles && !finals_blocks.contains(&b.id.as_str()) {
            placed.singles.entry(&g.name).or_default().push((i, g));
        }
    }
    for list in placed.singles.values_mut() {
        list.sort_by(|(ia, a), (ib, b)| ia.cmp(ib).then(game_order(a, b)));
    }
    placed
}

/// A category's ranked lines from the placed singles games: a withdrawn
/// entry and one with no game are not ranked; they follow the ranked
/// lines, those with no game first, each by name.
fn category_lines(p: &Programme, c: &Category, placed: &Placed) -> Vec<Standing> {
    let entries: Vec<Standing> = p
        .entries
        .iter()
        .filter(|e| c.holds(e))
        .map(|e| {
            let played: Vec<&BowledGame> = placed
                .singles
                .get(e.name.as_str())
                .map(|l| l.iter().map(|(_, g)| *g).collect())
                .unwrap_or_default();
            let (handicap, women) = p.singles_handicap(e);
            let mut s = line(&e.name, &played, handicap, women);
            s.lane = s.lane.or_else(|| first_lane(p, &e.name));
            s.class = Some(e.class);
            s.sex = Some(e.sex);
            s.region = Some(e.region.clone());
            s.team = e.team.clone();
            s.mark = if e.withdrawn {
                Some(Mark::Withdrawn)
            } else if s.games.is_empty() && bowled_without(p, &e.name, placed) {
                Some(Mark::Dns)
            } else {
                None
            };
            s
        })
        .collect();
    let (mut ranked, mut unranked): (Vec<Standing>, Vec<Standing>) = entries
        .into_iter()
        .partition(|s| s.mark.is_none() && !s.games.is_empty());
    rank(&mut ranked);
    unranked.sort_by(|a, b| {
        let withdrawn = |s: &Standing| s.mark == Some(Mark::Withdrawn);
        withdrawn(a).cmp(&withdrawn(b)).then(a.name.cmp(&b.name))
    });
    ranked.extend(unranked);
    ranked
}

/// Whether a lane `name` is assigned to in a block has finished a game of
/// that block: the bowlers of a lane take turns frame by frame, so one
/// there would have bowled by then.
fn bowled_without(p: &Programme, name: &str, placed: &Placed) -> bool {
    p.blocks.iter().any(|b| {
        b.lanes.iter().any(|(lane, l)| {
            l.iter().any(|n| n == name) && placed.finished.contains(&(b.id.as_str(), *lane))
        })
    })
}

fn first_lane(p: &Programme, name: &str) -> Option<u32> {
    p.blocks.iter().find_map(|b| {
        b.lanes
            .iter()
            .find(|(_, l)| l.iter().any(|n| n == name))
            .map(|(n, _)| *n)
    })
}

fn with_programme(p: &Programme, games: &[BowledGame]) -> Standings {
    let placed = place(p, games);
    let mut categories = Vec::new();
    let mut finals = BTreeMap::new();
    for c in p.categories() {
        let entries = category_lines(p, &c, &placed);
        if let Some(f) = p.finals.iter().find(|f| f.category == c.id) {
            finals.insert(c.id.clone(), finals::finals(p, f, &entries, games));
        }
        categories.push(CategoryStanding {
            title: c.title(),
            title_ru: c.title_ru(),
            combined: c.combined(),
            women_pins: if c.combined() {
                super::programme::COMBINED_WOMEN_PINS
            } else {
                0
            },
            id: c.id,
            entries,
        });
    }
    Standings {
        categories,
        teams: teams::team_events(p, games),
        finals,
        unplaced: placed.unplaced,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The centre adds a handicap by the lane's rule: a line made from a
    /// lane's games with the handicap the lane had totals what the lane's
    /// replay reports as `series_with_handicap`.
    #[test]
    fn the_centre_adds_a_handicap_as_the_lane_does() {
        let journal = include_str!("../../tests/logs/four_bowlers.jsonl");
        let replay = Replay::from_reader(journal.as_bytes()).unwrap();
        let report = serde_json::to_value(replay.report()).unwrap();
        let games = bowled_games(&replay, 1, "lane1-20261129T140000Z-000001.jsonl", None);
        let mut handicapped = 0;
        for b in report["bowlers"].as_array().unwrap() {
            let name = b["name"].as_str().unwrap();
            let handicap = Handicap::try_from(b["handicap"].as_i64().unwrap()).unwrap();
            handicapped += usize::from(handicap != 0);
            let played: Vec<&BowledGame> = games.iter().filter(|g| g.name == name).collect();
            let s = line(name, &played, handicap, 0);
            assert_eq!(i64::from(s.total), b["series_with_handicap"], "{name}");
            assert_eq!(
                i64::from(s.handicap),
                handicap::over(handicap, played.len())
            );
        }
        assert!(handicapped > 0, "the journal has a bowler with a handicap");
        // Every handicap a programme can hold counts the same at the
        // centre as on the lane.
        for h in 0..=crate::lane::MAX_HANDICAP {
            for g in [0, 1, 3, 12] {
                assert_eq!(i64::from(handicap_pins(h, g)), handicap::over(h, g));
            }
        }
    }

    #[test]
    fn journals_sort_by_stamp_then_sequence_whatever_the_lane() {
        let mut names = [
            "lane9-20261129T140000Z-000002.jsonl",
            "lane10-20261129T090000Z-000001.jsonl",
            "lane9-20261129T140000Z-000010.jsonl",
        ];
        names.sort_by_key(|n| journal_order(n));
        assert_eq!(
            names,
            [
                "lane10-20261129T090000Z-000001.jsonl",
                "lane9-20261129T140000Z-000002.jsonl",
                "lane9-20261129T140000Z-000010.jsonl",
            ]
        );
    }
}
