//! The finals' lanes proposed from the standings (docs/programme.md,
//! "Finals proposed from the standings"): the round robin's bowlers, the
//! preliminaries' top 8 in seeding order, paired on lanes as its first
//! round plays (1–8, 2–7, 3–6, 4–5 by [`round_robin_schedule`]); the
//! first step-ladder match, the round robin's 3rd against its 2nd; the
//! final, that match's winner against the 1st, once it is known. The
//! chief judge confirms a proposal as it is or changes it first.

use serde::Serialize;

/// Lane number and its bowlers in lane order, by lane number: a block's
/// lanes as the page sets them (`entries::blocks`) and as a proposal
/// gives them.
pub type Lanes = Vec<(u32, Vec<String>)>;

use super::{FinalsStanding, round_robin_schedule};
use crate::centre::programme::{Finals, Programme};

/// One block's proposed lanes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockProposal {
    pub block: String,
    /// What the block is: `round_robin`, `step_ladder_1`, `step_ladder_2`.
    pub stage: &'static str,
    /// The games the block bowls, as its push carries them: the round
    /// robin's sized from the category's bowlers (docs/programme.md,
    /// "Finals sized from the entries"), a step-ladder block's 1.
    pub games: u32,
    /// By lane number, the bowlers in lane order; empty when it cannot be
    /// proposed yet (`waiting` says why).
    #[serde(serialize_with = "lanes_map")]
    pub lanes: Lanes,
    /// Why nothing is proposed yet.
    pub waiting: Option<&'static str>,
    /// The lanes the block has now (the programme's or set on the page).
    #[serde(serialize_with = "lanes_map")]
    pub current: Lanes,
    /// A step-ladder block's match bowled and tied, no roll-off's winner
    /// recorded: its two bowlers (`POST /api/finals/roll-off`).
    pub roll_off: Option<[String; 2]>,
}

/// A category's finals proposal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FinalsProposal {
    pub category: String,
    /// The round robin's bowlers in seeding order.
    pub seeds: Vec<String>,
    /// Every round's matches as seed names (`null` a bye).
    pub rounds: Vec<Vec<(String, Option<String>)>>,
    pub blocks: Vec<BlockProposal>,
}

fn lanes_map<S: serde::Serializer>(lanes: &Lanes, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(lanes.len()))?;
    for (n, names) in lanes {
        m.serialize_entry(&n.to_string(), names)?;
    }
    m.end()
}

/// The pairs of `rounds`' first round on `lanes`, one pair a lane (a bye
/// alone); pairs with no lane left are put two to a lane from the first.
fn on_lanes(pairs: &[(String, Option<String>)], lanes: &[u32]) -> Lanes {
    let mut out: Lanes = Vec::new();
    if lanes.is_empty() {
        return out;
    }
    for (i, (a, b)) in pairs.iter().enumerate() {
        let lane = lanes[i % lanes.len()];
        let names = std::iter::once(a.clone()).chain(b.clone());
        match out.iter_mut().find(|(n, _)| *n == lane) {
            Some((_, list)) => list.extend(names),
            None => out.push((lane, names.collect())),
        }
    }
    out.sort_by_key(|(n, _)| *n);
    out
}

/// The proposal for `f` from its standing `s`, on the centre's `lanes`
/// (in the order to fill them).
pub fn propose(p: &Programme, f: &Finals, s: &FinalsStanding, lanes: &[u32]) -> FinalsProposal {
    let seeds = s.seeds.clone();
    let rounds: Vec<Vec<(String, Option<String>)>> = round_robin_schedule(seeds.len())
        .into_iter()
        .map(|pairs| {
            pairs
                .into_iter()
                .map(|(a, b)| (seeds[a - 1].clone(), b.map(|b| seeds[b - 1].clone())))
                .collect()
        })
        .collect();
    let current = |block: &str| p.block(block).map(|b| b.lanes.clone()).unwrap_or_default();
    let games = |block: &str| p.block(block).map_or(1, |b| b.games);
    let first_lane = lanes.first().copied();
    let mut blocks = Vec::new();
    let rr = rounds
        .first()
        .map(|r| on_lanes(r, lanes))
        .unwrap_or_default();
    blocks.push(BlockProposal {
        block: f.round_robin.clone(),
        stage: "round_robin",
        games: games(&f.round_robin),
        waiting: if rr.is_empty() {
            Some("no bowler in the category")
        } else {
            None
        },
        lanes: rr,
        current: current(&f.round_robin),
        roll_off: None,
    });
    let ladder = &s.step_ladder.matches;
    let pair = |i: usize| {
        ladder.get(i).and_then(|m| {
            let b = m.b.clone()?;
            Some(vec![(first_lane?, vec![m.a.clone(), b])])
        })
    };
    let (sl1, sl2) = (pair(0), pair(1));
    let tied = |i: usize| {
        ladder
            .get(i)
            .filter(|m| m.complete && m.tie && m.winner.is_none())
            .and_then(|m| Some([m.a.clone(), m.b.clone()?]))
    };
    // Its bowlers are the round robin's 3rd and 2nd: known at its end.
    let (sl1, sl1_waiting) = match sl1 {
        None => (None, Some("fewer than 3 bowlers in the round robin")),
        Some(_) if !s.round_robin_complete => (None, Some("the round robin is not finished")),
        some => (some, None),
    };
    blocks.push(BlockProposal {
        block: f.step_ladder[0].clone(),
        stage: "step_ladder_1",
        games: games(&f.step_ladder[0]),
        waiting: sl1_waiting,
        lanes: sl1.unwrap_or_default(),
        current: current(&f.step_ladder[0]),
        roll_off: tied(0),
    });
    blocks.push(BlockProposal {
        block: f.step_ladder[1].clone(),
        stage: "step_ladder_2",
        games: games(&f.step_ladder[1]),
        waiting: match (&sl2, tied(0)) {
            (Some(_), _) => None,
            (None, Some(_)) => {
                Some("the first step-ladder match is tied: record its roll-off's winner")
            }
            (None, None) => Some("the first step-ladder match is not decided"),
        },
        lanes: sl2.unwrap_or_default(),
        current: current(&f.step_ladder[1]),
        roll_off: tied(1),
    });
    FinalsProposal {
        category: f.category.clone(),
        seeds,
        rounds,
        blocks,
    }
}

impl FinalsProposal {
    /// The finals of a category with no bowler yet (docs/programme.md,
    /// "Finals sized from the entries"): nothing proposed, each block
    /// saying so.
    pub fn waiting(p: &Programme, f: &Finals) -> FinalsProposal {
        let why = "no bowler in the category yet";
        let stages = ["round_robin", "step_ladder_1", "step_ladder_2"];
        let ids = std::iter::once(&f.round_robin).chain(&f.step_ladder);
        let blocks = ids
            .zip(stages)
            .map(|(id, stage)| BlockProposal {
                block: id.clone(),
                stage,
                games: p.block(id).map_or(1, |b| b.games),
                lanes: Vec::new(),
                waiting: Some(why),
                current: p.block(id).map(|b| b.lanes.clone()).unwrap_or_default(),
                roll_off: None,
            })
            .collect();
        FinalsProposal {
            category: f.category.clone(),
            seeds: Vec::new(),
            rounds: Vec::new(),
            blocks,
        }
    }
}

/// The lanes to propose on: the programme's lanes, in order, else 1 to 4.
pub fn programme_lanes(p: &Programme) -> Vec<u32> {
    let set: std::collections::BTreeSet<u32> = p
        .blocks
        .iter()
        .flat_map(|b| b.lanes.iter().map(|(n, _)| *n))
        .collect();
    if set.is_empty() {
        (1..=4).collect()
    } else {
        set.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BowledGame, standings};
    use super::*;

    const EXAMPLE: &str = include_str!("../../../tests/programme/example.toml");

    fn programme(extra: &str) -> Programme {
        Programme::parse(&format!("{EXAMPLE}{extra}"), std::path::Path::new("p.toml")).unwrap()
    }

    /// A complete game of `score` for `name` in block S1 on `lane`.
    fn game(name: &str, lane: u32, block: &str, n: u32, score: u32) -> BowledGame {
        BowledGame {
            lane,
            journal: format!("lane{lane}-20261128T100000Z-00000{lane}.jsonl"),
            block: Some(block.into()),
            name: name.into(),
            class: None,
            game: n,
            score,
            frames: 10,
            complete: true,
        }
    }

    /// B1's preliminaries (4 bowlers, combined; Anna and Olga +10 a
    /// game): Ivan 200, Anna 190, Dmitri 150, Olga 130; and `more`.
    fn preliminaries(more: &[BowledGame]) -> Vec<BowledGame> {
        let mut games = vec![
            game("Ivan Petrov", 2, "S1", 1, 200),
            game("Anna Kuznetsova", 1, "S1", 1, 180),
            game("Dmitri Orlov", 2, "S1", 1, 150),
            game("Olga Smirnova", 1, "S1", 1, 120),
        ];
        games.extend_from_slice(more);
        games
    }

    fn lanes(b: &BlockProposal) -> Vec<(u32, Vec<&str>)> {
        b.lanes
            .iter()
            .map(|(n, v)| (*n, v.iter().map(String::as_str).collect()))
            .collect()
    }

    /// A late fifth B1 bowler, top 5 (`size`): the round robin's block
    /// bowls as many games as its rounds, whatever the file wrote (3); a
    /// category with no bowler proposes nothing and says so.
    #[test]
    fn the_round_robins_games_are_its_rounds_and_a_category_with_no_bowler_waits() {
        let late = "\n[[entry]]\nname = \"Late\"\nclass = \"B1\"\nsex = \"M\"\nregion = \"Tver\"\n";
        let p = programme(late);
        let s = standings(Some(&p), &preliminaries(&[]));
        let prop = propose(&p, &p.finals[0], &s.finals["B1"], &programme_lanes(&p));
        assert_eq!(prop.seeds.len(), 5);
        assert_eq!(prop.rounds.len(), 5);
        let games: Vec<u32> = prop.blocks.iter().map(|b| b.games).collect();
        assert_eq!(games, [5, 1, 1]);
        assert_eq!(p.block("RR-B1").unwrap().games, 5);

        let text = EXAMPLE.replace("category = \"B1\"", "category = \"B3\"");
        let p = Programme::parse(&text, std::path::Path::new("p.toml")).unwrap();
        let s = standings(Some(&p), &preliminaries(&[]));
        assert!(!s.finals.contains_key("B3"));
        let prop = FinalsProposal::waiting(&p, &p.finals[0]);
        assert!(prop.seeds.is_empty());
        for b in &prop.blocks {
            assert_eq!(
                b.waiting,
                Some("no bowler in the category yet"),
                "{}",
                b.block
            );
            assert!(b.lanes.is_empty());
        }
    }

    #[test]
    fn the_round_robin_pairs_the_seeds_on_lanes_and_the_ladder_puts_third_against_second() {
        let p = programme("");
        let games = preliminaries(&[]);
        let s = standings(Some(&p), &games);
        let f = &p.finals[0];
        let prop = propose(&p, f, &s.finals["B1"], &programme_lanes(&p));
        // Seeds: Ivan 200, Anna 190, Dmitri 150, Olga 130.
        assert_eq!(
            prop.seeds,
            [
                "Ivan Petrov",
                "Anna Kuznetsova",
                "Dmitri Orlov",
                "Olga Smirnova"
            ]
        );
        assert_eq!(prop.rounds.len(), 3);
        assert_eq!(
            lanes(&prop.blocks[0]),
            [
                (1, vec!["Ivan Petrov", "Olga Smirnova"]),
                (2, vec!["Anna Kuznetsova", "Dmitri Orlov"])
            ]
        );
        assert_eq!(prop.blocks[0].block, "RR-B1");
        assert!(prop.blocks[0].current.is_empty());
        // Before the round robin ends, no step-ladder match is proposed:
        // its table would still change.
        assert_eq!(
            prop.blocks[1].waiting,
            Some("the round robin is not finished")
        );
        assert!(prop.blocks[1].lanes.is_empty());
        assert_eq!(
            prop.blocks[2].waiting,
            Some("the first step-ladder match is not decided")
        );
        assert!(prop.blocks[2].lanes.is_empty());

        // Its three rounds, all but Olga's last game: still not finished.
        let mut rr = games.clone();
        for (name, scores) in [
            ("Ivan Petrov", [150, 150, 150]),
            ("Anna Kuznetsova", [200, 200, 200]),
            ("Dmitri Orlov", [240, 240, 240]),
            ("Olga Smirnova", [100, 100, 100]),
        ] {
            for (r, score) in scores.into_iter().enumerate() {
                rr.push(game(name, 1, "RR-B1", r as u32 + 1, score));
            }
        }
        let last = rr.len() - 1;
        rr[last].complete = false;
        let s = standings(Some(&p), &rr);
        assert!(!s.finals["B1"].round_robin_complete);
        let prop = propose(&p, f, &s.finals["B1"], &programme_lanes(&p));
        assert_eq!(
            prop.blocks[1].waiting,
            Some("the round robin is not finished")
        );
        // Finished: its 3rd (Ivan) against its 2nd (Anna), whatever the
        // seeding was.
        rr[last].complete = true;
        let s = standings(Some(&p), &rr);
        assert!(s.finals["B1"].round_robin_complete);
        let prop = propose(&p, f, &s.finals["B1"], &programme_lanes(&p));
        assert_eq!(prop.blocks[1].waiting, None);
        assert_eq!(
            lanes(&prop.blocks[1]),
            [(1, vec!["Ivan Petrov", "Anna Kuznetsova"])]
        );
    }

    #[test]
    fn the_final_is_proposed_once_the_first_match_is_won() {
        let mut p = programme("");
        // The round robin and the first match on lane 1.
        for id in ["RR-B1", "SL1-B1"] {
            let b = p.blocks.iter_mut().find(|b| b.id == id).unwrap();
            b.lanes = vec![(1, vec!["Ivan Petrov".into()])];
        }
        let games = preliminaries(&[
            game("Dmitri Orlov", 1, "SL1-B1", 1, 250),
            game("Anna Kuznetsova", 1, "SL1-B1", 1, 160),
        ]);
        let s = standings(Some(&p), &games);
        let prop = propose(&p, &p.finals[0], &s.finals["B1"], &[5, 6]);
        assert_eq!(
            lanes(&prop.blocks[2]),
            [(5, vec!["Dmitri Orlov", "Ivan Petrov"])]
        );
        assert_eq!(
            prop.blocks[1].current,
            vec![(1, vec!["Ivan Petrov".to_owned()])]
        );
    }

    #[test]
    fn a_tied_match_waits_for_its_roll_off_and_goes_on_with_the_winner_recorded() {
        let mut p = programme("");
        // Anna's 160 with her +10 against Dmitri's 170: a tie.
        let games = preliminaries(&[
            game("Dmitri Orlov", 1, "SL1-B1", 1, 170),
            game("Anna Kuznetsova", 1, "SL1-B1", 1, 160),
        ]);
        let prop = |p: &Programme| {
            let s = standings(Some(p), &games);
            propose(p, &p.finals[0], &s.finals["B1"], &[5])
        };
        let tied = prop(&p);
        assert_eq!(
            tied.blocks[1].roll_off,
            Some(["Dmitri Orlov".to_owned(), "Anna Kuznetsova".to_owned()])
        );
        assert_eq!(
            tied.blocks[2].waiting,
            Some("the first step-ladder match is tied: record its roll-off's winner")
        );
        assert!(tied.blocks[2].lanes.is_empty());

        // Anna won the roll-off; a roll-off Dmitri won earlier in the
        // category (the programme's list) does not decide this match.
        p.finals[0]
            .roll_off_won
            .insert("SL1-B1".into(), "Anna Kuznetsova".into());
        p.finals[0].roll_off = vec!["Dmitri Orlov".into()];
        let decided = prop(&p);
        assert_eq!(decided.blocks[1].roll_off, None);
        assert_eq!(decided.blocks[2].waiting, None);
        assert_eq!(
            lanes(&decided.blocks[2]),
            [(5, vec!["Anna Kuznetsova", "Ivan Petrov"])]
        );
    }

    #[test]
    fn an_odd_field_has_a_bye_alone_on_its_lane_and_few_lanes_take_two_pairs() {
        let pairs: Vec<(String, Option<String>)> = vec![
            ("a".into(), Some("e".into())),
            ("b".into(), Some("d".into())),
            ("c".into(), None),
        ];
        let got = on_lanes(&pairs, &[3, 4]);
        assert_eq!(
            got,
            vec![
                (3, vec!["a".to_owned(), "e".to_owned(), "c".to_owned()]),
                (4, vec!["b".to_owned(), "d".to_owned()])
            ]
        );
        assert_eq!(on_lanes(&pairs, &[7, 8, 9])[2], (9, vec!["c".to_owned()]));
        assert!(on_lanes(&pairs, &[]).is_empty());
    }
}
