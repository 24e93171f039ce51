//! Which block a lane's journal is (the first block not yet taken whose
//! lineup on that lane the journal has, `results.rs`), and why a game no
//! block took is not counted, in English and Russian.

use std::collections::BTreeSet;

use super::BowledGame;
use crate::centre::programme::Programme;

/// The first block not yet `taken` whose bowlers on `lane` are all among
/// `names`; a withdrawn entry is not looked for (the centre left it out of
/// the lineup it pushed).
pub fn journal_block<'p>(
    p: &'p Programme,
    lane: u32,
    names: &BTreeSet<&str>,
    taken: &mut BTreeSet<&'p str>,
) -> Option<&'p str> {
    if names.is_empty() {
        return None;
    }
    let block = p.blocks.iter().find(|b| {
        !taken.contains(b.id.as_str())
            && b.lanes.iter().any(|(l, bowlers)| {
                let mut sent = bowlers
                    .iter()
                    .filter(|n| p.entry(n).is_none_or(|e| !e.withdrawn))
                    .peekable();
                *l == lane && sent.peek().is_some() && sent.all(|n| names.contains(n.as_str()))
            })
    })?;
    taken.insert(&block.id);
    Some(&block.id)
}

/// Why a game is not counted (the standings' `unplaced`), in English and
/// Russian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// No block of the programme has the journal's lineup on its lane: a
    /// lineup typed on the lane.
    NotFromProgramme,
    /// The lineup of a block the lane had bowled already: that block
    /// bowled again (pushed again, or typed again).
    BowledAgain,
    /// The game names a block the programme does not have.
    NoSuchBlock,
    /// The bowler is not an entry of the programme.
    NotAnEntry,
    /// A judge voided the game.
    Voided,
}

impl Reason {
    pub fn en(self) -> &'static str {
        match self {
            Reason::NotFromProgramme => "the lineup did not come from the programme",
            Reason::BowledAgain => "the block had been bowled on this lane already: a repeat",
            Reason::NoSuchBlock => "the programme has no such block",
            Reason::NotAnEntry => "not an entry of the programme",
            Reason::Voided => "voided by the chief judge",
        }
    }
    pub fn ru(self) -> &'static str {
        match self {
            Reason::NotFromProgramme => "состав введён на дорожке, не из программы",
            Reason::BowledAgain => "блок на этой дорожке уже был сыгран: повтор",
            Reason::NoSuchBlock => "в программе нет такого блока",
            Reason::NotAnEntry => "участник не заявлен в программе",
            Reason::Voided => "аннулирована главным судьёй",
        }
    }
}

/// Why game `g`, which no block took, is not counted: the lineup of its
/// journal (every bowler with a game in it) is a block's on its lane, that
/// block bowled again (with its id); or it is no block's.
pub fn unplaced_reason<'p>(
    p: &'p Programme,
    g: &BowledGame,
    games: &[BowledGame],
) -> (Reason, Option<&'p str>) {
    let names: BTreeSet<&str> = games
        .iter()
        .filter(|o| o.lane == g.lane && o.journal == g.journal)
        .map(|o| o.name.as_str())
        .collect();
    match journal_block(p, g.lane, &names, &mut BTreeSet::new()) {
        Some(id) => (Reason::BowledAgain, Some(id)),
        None => (Reason::NotFromProgramme, None),
    }
}
