//! What keeps bowled results from changing by one click (docs/programme.md,
//! "Entries on the centre's page"): the class, sex and handicap of a
//! bowler who has bowled change only by the chief judge, only once the
//! chief has seen what the change moves (the categories the bowler leaves
//! and joins, categories combined or split, places and finals seeds) and
//! confirmed it, and never once finals the bowler is in, or their
//! category's, have started. The same for a form's edit, a CSV import
//! (replace or add) and an import undone.

use std::collections::BTreeSet;

use super::rename::shown;
use super::{Issue, Refusal};
use crate::centre::programme::{Entry, Finals, Programme};
use crate::centre::standings::{BowledGame, Standings, standings};

/// What the mirrored journals hold, names as shown now.
#[derive(Clone, Debug, Default)]
pub struct Bowled {
    /// The names with games.
    pub names: BTreeSet<String>,
    /// The blocks with games.
    pub blocks: BTreeSet<String>,
    pub games: Vec<BowledGame>,
}

impl Bowled {
    pub fn of(games: Vec<BowledGame>) -> Bowled {
        Bowled {
            names: games.iter().map(|g| g.name.clone()).collect(),
            blocks: games.iter().filter_map(|g| g.block.clone()).collect(),
            games,
        }
    }
}

/// The field of a refusal's problems that say what a change would move,
/// to be confirmed by the chief judge ([`confirming`]).
pub const CONFIRM: &str = "confirm";

/// Whether `r` only asks the chief judge to confirm: its problems are
/// what the change would move.
pub fn confirming(r: &Refusal) -> bool {
    !r.problems.is_empty()
        && r.problems
            .iter()
            .all(|p| p.field.as_deref() == Some(CONFIRM))
}

/// Who asks for a change, and whether they confirmed what it moves.
#[derive(Clone, Debug, Default)]
pub struct Who {
    pub name: String,
    /// Logged in with the shared PIN.
    pub chief: bool,
    /// The request repeated with `"confirm": true`.
    pub confirm: bool,
}

impl From<&str> for Who {
    fn from(name: &str) -> Who {
        Who {
            name: name.to_owned(),
            ..Who::default()
        }
    }
}

/// An entry's fields that make its results.
fn scoring(e: &Entry) -> (crate::lane::Class, crate::centre::programme::Sex, i32) {
    (e.class, e.sex, e.handicap)
}

/// The bowled entries of `before` whose class, sex or handicap `after`
/// changes, each with its entry after.
fn moved<'p>(
    before: &'p Programme,
    after: &'p Programme,
    bowled: &Bowled,
) -> Vec<(&'p Entry, &'p Entry)> {
    before
        .entries
        .iter()
        .filter(|e| bowled.names.contains(&e.name))
        .filter_map(|e| Some((e, after.entry(shown(&after.renamed, &e.name))?)))
        .filter(|(b, a)| scoring(b) != scoring(a))
        .collect()
}

fn blocks_of(f: &Finals) -> impl Iterator<Item = &String> {
    std::iter::once(&f.round_robin).chain(&f.step_ladder)
}

/// Whether the bowler (`b` before, `a` after) is in finals `f` of `p`:
/// their category's, on its lanes, or with games in its blocks.
fn in_finals(p: &Programme, f: &Finals, e: &Entry, bowled: &Bowled) -> bool {
    let category = p
        .categories()
        .into_iter()
        .find(|c| c.id == f.category)
        .is_some_and(|c| c.holds(e));
    let blocks: BTreeSet<&String> = blocks_of(f).collect();
    let on_lanes = p
        .blocks
        .iter()
        .filter(|b| blocks.contains(&b.id))
        .any(|b| b.lanes.iter().any(|(_, l)| l.contains(&e.name)));
    let games = bowled
        .games
        .iter()
        .any(|g| g.name == e.name && g.block.as_ref().is_some_and(|b| blocks.contains(b)));
    category || on_lanes || games
}

/// Checks the change from `before` to `after` as `who` asks it: `Ok`
/// with what it moves (empty when no bowled bowler's class, sex or
/// handicap changes), or refused: 409 when the finals have started, when
/// `who` is not the chief judge, and, each problem in field [`CONFIRM`]
/// saying one thing it would move, when the chief has not confirmed.
pub fn check(
    before: &Programme,
    after: &Programme,
    bowled: &Bowled,
    who: &Who,
) -> Result<Vec<String>, Refusal> {
    let moved = moved(before, after, bowled);
    if moved.is_empty() {
        return Ok(Vec::new());
    }
    let mut problems = Vec::new();
    for &(b, a) in &moved {
        let started = before
            .finals
            .iter()
            .filter(|f| in_finals(before, f, b, bowled))
            .chain(
                after
                    .finals
                    .iter()
                    .filter(|f| in_finals(after, f, a, bowled)),
            )
            .find_map(|f| Some((f, blocks_of(f).find(|x| bowled.blocks.contains(*x))?)));
        if let Some((f, block)) = started {
            problems.push(Issue::message(format!(
                "{:?}: the finals of {} have started (block {block:?} has games): the class, \
                 sex and handicap stay as they are",
                b.name, f.category
            )));
        }
    }
    if problems.is_empty() && !who.chief {
        problems = moved
            .iter()
            .map(|(b, _)| {
                Issue::message(format!(
                    "{:?} has bowled: only the chief judge changes the class, sex or handicap \
                     of a bowler who has bowled",
                    b.name
                ))
            })
            .collect();
    }
    if !problems.is_empty() {
        return Err(Refusal {
            status: 409,
            problems,
        });
    }
    let moves = moves(before, after, &moved, bowled);
    if !who.confirm {
        let problems = moves
            .iter()
            .map(|m| Issue {
                field: Some(CONFIRM.to_owned()),
                message: m.clone(),
                ..Issue::default()
            })
            .collect();
        return Err(Refusal {
            status: 409,
            problems,
        });
    }
    Ok(moves)
}

/// What the change moves, one line each: the fields, the categories the
/// bowler leaves and joins, categories combined or split, places and the
/// finals' seeds.
fn moves(
    before: &Programme,
    after: &Programme,
    moved: &[(&Entry, &Entry)],
    bowled: &Bowled,
) -> Vec<String> {
    let mut out = Vec::new();
    let (cb, ca) = (before.categories(), after.categories());
    let (sb, sa) = (
        standings(Some(before), &bowled.games),
        standings(Some(after), &renamed(&bowled.games, after)),
    );
    for &(b, a) in moved {
        let mut fields = Vec::new();
        if b.class != a.class {
            fields.push(format!("class {} → {}", b.class.as_str(), a.class.as_str()));
        }
        if b.sex != a.sex {
            fields.push(format!("sex {} → {}", b.sex.as_str(), a.sex.as_str()));
        }
        if b.handicap != a.handicap {
            fields.push(format!("handicap {} → {}", b.handicap, a.handicap));
        }
        out.push(format!("{}: {}", a.name, fields.join(", ")));
        let of = |cs: &[crate::centre::programme::Category], e: &Entry| {
            cs.iter().find(|c| c.holds(e)).map(|c| c.id.clone())
        };
        let (from, to) = (of(&cb, b), of(&ca, a));
        if from != to {
            out.push(format!(
                "{} leaves category {} and joins {}",
                a.name,
                from.as_deref().unwrap_or("none"),
                to.as_deref().unwrap_or("none")
            ));
        }
        let (pb, pa) = (place(&sb, &b.name), place(&sa, &a.name));
        if pb != pa {
            out.push(format!(
                "{}: {} → {}",
                a.name,
                said(pb.as_ref()),
                said(pa.as_ref())
            ));
        }
        for (id, f) in &sb.finals {
            if let Some(k) = f.seeds.iter().position(|s| *s == b.name) {
                out.push(format!(
                    "{} is seed {} of the finals of {id}",
                    a.name,
                    k + 1
                ));
            }
        }
    }
    let ids = |cs: &[crate::centre::programme::Category]| {
        cs.iter()
            .map(|c| c.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if ids(&cb) != ids(&ca) {
        out.push(format!("the categories {} become {}", ids(&cb), ids(&ca)));
    }
    let finals: BTreeSet<&String> = sb.finals.keys().chain(sa.finals.keys()).collect();
    for id in finals {
        let seeds = |s: &Standings| {
            s.finals
                .get(id)
                .map(|f| f.seeds.join(", "))
                .unwrap_or_default()
        };
        let (before, after) = (seeds(&sb), seeds(&sa));
        if before != after {
            out.push(format!("the finals of {id}: seeds {before} become {after}"));
        }
    }
    out
}

/// `games` with each name as `p` shows it.
fn renamed(games: &[BowledGame], p: &Programme) -> Vec<BowledGame> {
    games
        .iter()
        .map(|g| BowledGame {
            name: shown(&p.renamed, &g.name).to_owned(),
            ..g.clone()
        })
        .collect()
}

/// `name`'s category and rank in `s`.
fn place(s: &Standings, name: &str) -> Option<(String, Option<u32>)> {
    s.categories.iter().find_map(|c| {
        let line = c.entries.iter().find(|l| l.name == name)?;
        Some((c.id.clone(), line.rank))
    })
}

fn said(p: Option<&(String, Option<u32>)>) -> String {
    match p {
        Some((c, Some(r))) => format!("place {r} in {c}"),
        Some((c, None)) => format!("unranked in {c}"),
        None => "in no category".to_owned(),
    }
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
