//! The finals of a category (docs/programme.md, "Finals"): the top 8 of
//! the preliminaries bowl a round robin of one-game matches (20 bonus pins
//! a win, 10 a tie), then the top 3 a step-ladder (3rd against 2nd, its
//! winner against 1st).

use serde::Serialize;

use super::{BowledGame, Ranked, Standing, game_order, handicap_pins, rank};
use crate::centre::programme::{Finals, Programme};

/// Bonus pins for a round-robin match won.
pub const WIN_BONUS: u32 = 20;
/// Bonus pins for a round-robin match tied, to each bowler.
pub const TIE_BONUS: u32 = 10;

#[derive(Clone, Debug, Serialize)]
pub struct FinalsStanding {
    pub round_robin_block: String,
    /// The round robin's bowlers, in seeding order (the preliminaries'
    /// ranking).
    pub seeds: Vec<String>,
    pub matches: Vec<Match>,
    pub round_robin: Vec<RoundRobinStanding>,
    /// Every seed's every round-robin game bowled to its end (a bye's
    /// game too): the table is final.
    pub round_robin_complete: bool,
    pub step_ladder: StepLadder,
}

/// A one-game match. `b` is `None` for a bye.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Match {
    pub round: u32,
    pub a: String,
    pub b: Option<String>,
    /// The game's pins with the bowler's handicap and bonus pins, once
    /// bowled (running while in progress).
    pub a_score: Option<u32>,
    pub b_score: Option<u32>,
    /// Both games complete.
    pub complete: bool,
    pub winner: Option<String>,
    pub tie: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RoundRobinStanding {
    pub rank: u32,
    pub name: String,
    pub lane: Option<u32>,
    /// The preliminaries' total.
    pub preliminary: u32,
    /// Round-robin games, scratch, by round (a bye or a game not bowled
    /// is left out).
    pub games: Vec<u32>,
    /// The round-robin games' scratch pins.
    pub scratch: u32,
    /// The programme's handicap, once per round-robin game bowled.
    pub handicap: u32,
    /// A woman's pins in a combined category (+10), once per round-robin
    /// game bowled: `pins` = `scratch` + `handicap` + `women_pins`.
    pub women_pins: u32,
    /// Round-robin pins with handicap and women's pins.
    pub pins: u32,
    pub wins: u32,
    pub ties: u32,
    /// 20 a win, 10 a tie.
    pub bonus: u32,
    pub total: u32,
    #[serde(skip)]
    every_game: Vec<u32>,
}

impl Ranked for RoundRobinStanding {
    fn name(&self) -> &str {
        &self.name
    }
    fn set_rank(&mut self, rank: u32) {
        self.rank = rank;
    }
    fn key(&self) -> (u32, Vec<u32>) {
        (self.total, self.every_game.iter().rev().copied().collect())
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StepLadder {
    /// 3rd against 2nd, then its winner against 1st (once known).
    pub matches: Vec<Match>,
    /// The final order once both matches are decided: the winner, the
    /// final's loser, the first match's loser, then the round robin's
    /// 4th and on. Empty before.
    pub places: Vec<String>,
}

/// The circle method on seeds 1..=n: seed 1 stays, the others turn one
/// place each round; with an odd number a bye (`None`) makes it even. For
/// n = 8, round 1 is 1–8, 2–7, 3–6, 4–5.
pub fn round_robin_schedule(n: usize) -> Vec<Vec<(usize, Option<usize>)>> {
    let mut circle: Vec<Option<usize>> = (1..=n).map(Some).collect();
    if n % 2 == 1 {
        circle.push(None);
    }
    let m = circle.len();
    let mut rounds = Vec::new();
    for _ in 1..m {
        let mut pairs = Vec::new();
        for i in 0..m / 2 {
            match (circle[i], circle[m - 1 - i]) {
                (Some(a), Some(b)) => pairs.push((a.min(b), Some(a.max(b)))),
                (Some(a), None) | (None, Some(a)) => pairs.push((a, None)),
                (None, None) => {}
            }
        }
        rounds.push(pairs);
        circle[1..].rotate_right(1);
    }
    rounds
}

/// Every game of `name` in `block`, in the order bowled.
fn games_in<'g>(games: &'g [BowledGame], block: &str, name: &str) -> Vec<&'g BowledGame> {
    let mut list: Vec<&BowledGame> = games
        .iter()
        .filter(|g| g.block.as_deref() == Some(block) && g.name == name)
        .collect();
    list.sort_by(|a, b| game_order(a, b));
    list
}

/// One game of a match: pins with `add`, and whether it is complete.
fn game_of(games: &[BowledGame], block: &str, name: &str, n: u32, add: u32) -> Option<(u32, bool)> {
    games_in(games, block, name)
        .into_iter()
        .rev()
        .find(|g| g.game == n)
        .map(|g| (g.score + add, g.complete))
}

fn add(p: &Programme, name: &str) -> u32 {
    let (h, women) = handicap_and_women(p, name);
    h + women
}

/// The pins a game of `name` gets: the programme's handicap (by the one
/// rule, [`handicap_pins`]) and a woman's pins in a combined category.
fn handicap_and_women(p: &Programme, name: &str) -> (u32, u32) {
    p.entry(name).map_or((0, 0), |e| {
        let (h, women) = p.singles_handicap(e);
        (handicap_pins(h, 1), women)
    })
}

/// The match of game `round` of `block` (the round robin's round `r`
/// is its game `r`; a step-ladder block's match is its game 1);
/// `roll_off` names the winner of a tie.
fn one_match(
    p: &Programme,
    games: &[BowledGame],
    block: &str,
    round: u32,
    (a, b): (&str, Option<&str>),
    roll_off: &[String],
) -> Match {
    let a_game = game_of(games, block, a, round, add(p, a));
    let b_game = b.and_then(|b| game_of(games, block, b, round, add(p, b)));
    let complete = b.is_some() && a_game.is_some_and(|g| g.1) && b_game.is_some_and(|g| g.1);
    let (mut winner, mut tie) = (None, false);
    if complete && let (Some((x, _)), Some((y, _)), Some(b)) = (a_game, b_game, b) {
        match x.cmp(&y) {
            std::cmp::Ordering::Greater => winner = Some(a.to_owned()),
            std::cmp::Ordering::Less => winner = Some(b.to_owned()),
            std::cmp::Ordering::Equal => {
                tie = true;
                winner = roll_off.iter().find(|r| *r == a || *r == b).cloned();
            }
        }
    }
    Match {
        round,
        a: a.to_owned(),
        b: b.map(str::to_owned),
        a_score: a_game.map(|g| g.0),
        b_score: b_game.map(|g| g.0),
        complete,
        winner,
        tie,
    }
}

pub(super) fn finals(
    p: &Programme,
    f: &Finals,
    preliminaries: &[Standing],
    games: &[BowledGame],
) -> FinalsStanding {
    // A withdrawn bowler, or one marked as not started, is never seeded;
    // before their block is bowled, bowlers with no game follow the
    // ranked ones by name (so a round robin can be proposed ahead).
    let seeds: Vec<&Standing> = preliminaries
        .iter()
        .filter(|s| s.mark.is_none())
        .take(f.size)
        .collect();
    let names: Vec<String> = seeds.iter().map(|s| s.name.clone()).collect();
    let mut matches = Vec::new();
    let schedule = round_robin_schedule(seeds.len());
    let round_robin_complete = !names.is_empty()
        && names.iter().all(|name| {
            (1..=schedule.len() as u32)
                .all(|r| game_of(games, &f.round_robin, name, r, 0).is_some_and(|g| g.1))
        });
    for (r, pairs) in schedule.iter().enumerate() {
        for &(a, b) in pairs {
            let pair = (names[a - 1].as_str(), b.map(|b| names[b - 1].as_str()));
            matches.push(one_match(p, games, &f.round_robin, r as u32 + 1, pair, &[]));
        }
    }
    let mut table: Vec<RoundRobinStanding> = seeds
        .iter()
        .map(|s| {
            let (handicap, women) = handicap_and_women(p, &s.name);
            let extra = handicap + women;
            let played = games_in(games, &f.round_robin, &s.name);
            let rr: Vec<u32> = played.iter().map(|g| g.score).collect();
            let n = rr.len() as u32;
            let scratch = rr.iter().sum::<u32>();
            let pins = scratch + extra * n;
            let mine = matches
                .iter()
                .filter(|m| m.a == s.name || m.b.as_ref() == Some(&s.name));
            let wins = mine
                .clone()
                .filter(|m| m.winner.as_ref() == Some(&s.name))
                .count() as u32;
            let ties = mine.filter(|m| m.complete && m.tie).count() as u32;
            let bonus = wins * WIN_BONUS + ties * TIE_BONUS;
            let (_, prelim_back) = s.key();
            let mut every_game: Vec<u32> = prelim_back.into_iter().rev().collect();
            every_game.extend(rr.iter().map(|g| g + extra));
            RoundRobinStanding {
                rank: 0,
                name: s.name.clone(),
                lane: s.lane,
                preliminary: s.total,
                games: rr,
                scratch,
                handicap: handicap * n,
                women_pins: women * n,
                pins,
                wins,
                ties,
                bonus,
                total: s.total + pins + bonus,
                every_game,
            }
        })
        .collect();
    rank(&mut table);
    let step_ladder = step_ladder(p, f, &table, games);
    FinalsStanding {
        round_robin_block: f.round_robin.clone(),
        seeds: names,
        matches,
        round_robin: table,
        round_robin_complete,
        step_ladder,
    }
}

fn step_ladder(
    p: &Programme,
    f: &Finals,
    table: &[RoundRobinStanding],
    games: &[BowledGame],
) -> StepLadder {
    let mut out = StepLadder {
        matches: Vec::new(),
        places: Vec::new(),
    };
    if table.len() < 3 {
        return out;
    }
    let (first, second, third) = (&table[0].name, &table[1].name, &table[2].name);
    // A roll-off recorded for the match's own block first.
    let roll_off = |block: &String| -> Vec<String> {
        f.roll_off_won
            .get(block)
            .into_iter()
            .chain(&f.roll_off)
            .cloned()
            .collect()
    };
    let m1 = one_match(
        p,
        games,
        &f.step_ladder[0],
        1,
        (third, Some(second)),
        &roll_off(&f.step_ladder[0]),
    );
    let Some(w1) = m1.winner.clone() else {
        out.matches.push(m1);
        return out;
    };
    let loser1 = if &w1 == third { second } else { third };
    let m2 = one_match(
        p,
        games,
        &f.step_ladder[1],
        1,
        (&w1, Some(first)),
        &roll_off(&f.step_ladder[1]),
    );
    if let Some(w2) = &m2.winner {
        let loser2 = if w2 == first { &w1 } else { first };
        out.places = vec![w2.clone(), loser2.clone(), loser1.clone()];
        out.places.extend(table[3..].iter().map(|r| r.name.clone()));
    }
    out.matches = vec![m1, m2];
    out
}
