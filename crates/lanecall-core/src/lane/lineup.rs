//! The lane order and substitutes: setting a lineup before a block, and
//! a substitute taking a bowler's place between games.
//!
//! It decides whether a lineup or a substitution is allowed and who is on
//! the lane now. It never decides who is up (`turns`) nor scores a ball.

use super::scoring::Position;
use super::turns::Entry;
use super::{Bowler, Lane, MAX_BOWLERS, MAX_GAMES, Refusal, handicap};
use crate::names::{self, NameProblem};

/// The centre's block a lineup is for, as the lineup gives it (journal.md,
/// `lineup`'s `block` and `games`, added later): a lineup typed on the
/// panel gives neither.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The centre's id of the block (`"RR-B1"`): the lane calls the block
    /// by it.
    pub name: Option<String>,
    /// The block's games: a `start_block` with other games is refused.
    pub games: Option<u8>,
}

impl Plan {
    /// Reads and checks a lineup's `block` and `games`: the id follows the
    /// one rule for names ([`crate::names`]), the games are 1 to
    /// [`MAX_GAMES`].
    fn from_lineup(block: Option<&str>, games: Option<u32>) -> Result<Plan, Refusal> {
        if let Some(id) = block {
            names::check_name(id).map_err(|problem| Refusal::BadBlockId {
                id: names::shown(id),
                problem,
            })?;
        }
        let games = games
            .map(|g| {
                u8::try_from(g)
                    .ok()
                    .filter(|g| (1..=MAX_GAMES).contains(g))
                    .ok_or(Refusal::LineupGames(g))
            })
            .transpose()?;
        Ok(Plan {
            name: block.map(str::to_owned),
            games,
        })
    }
}

/// Checks a bowler as the lineup or a substitution gives them. With the
/// rule `checked_inputs` (journal.md) the name and the team follow the
/// one rule for names ([`crate::names`]) and the handicap is 0 to
/// [`super::MAX_HANDICAP`] ([`handicap::in_range`]); a journal from before it checked only that the name
/// is not empty, and replays so.
fn check_bowler(b: &Bowler, checked: bool) -> Result<(), Refusal> {
    if !checked {
        return if b.name.trim().is_empty() {
            Err(Refusal::EmptyName)
        } else {
            Ok(())
        };
    }
    names::check_name(&b.name).map_err(|problem| match problem {
        NameProblem::Empty { .. } => Refusal::EmptyName,
        problem => Refusal::BadName {
            name: names::shown(&b.name),
            problem,
        },
    })?;
    if let Some(team) = &b.team {
        names::check_name(team).map_err(|problem| Refusal::BadTeam {
            bowler: b.name.clone(),
            problem,
        })?;
    }
    if !handicap::in_range(b.handicap) {
        return Err(Refusal::HandicapOutOfRange {
            bowler: b.name.clone(),
            handicap: b.handicap,
        });
    }
    Ok(())
}

fn check_lineup(bowlers: &[Bowler], checked: bool) -> Result<(), Refusal> {
    if !(1..=MAX_BOWLERS).contains(&bowlers.len()) {
        return Err(Refusal::LineupSize(bowlers.len()));
    }
    for (i, b) in bowlers.iter().enumerate() {
        check_bowler(b, checked)?;
        if bowlers[..i].iter().any(|x| x.name == b.name) {
            return Err(Refusal::DuplicateName(b.name.clone()));
        }
    }
    Ok(())
}

impl Lane {
    /// The lane order waiting for `start_block`.
    pub fn pending_lineup(&self) -> Option<&[Bowler]> {
        self.pending.as_deref()
    }

    /// The centre's block the waiting lineup is for, as it gave it (a
    /// lineup typed on the panel: neither id nor games).
    pub fn pending_plan(&self) -> &Plan {
        &self.pending_plan
    }

    pub(super) fn lineup(
        &mut self,
        bowlers: &[Bowler],
        block: Option<&str>,
        games: Option<u32>,
    ) -> Result<(), Refusal> {
        if let Some(b) = self.open_block() {
            return Err(Refusal::BlockOpen(b.number));
        }
        check_lineup(bowlers, self.rules.checked_inputs)?;
        self.pending_plan = Plan::from_lineup(block, games)?;
        self.pending = Some(bowlers.to_vec());
        self.has_lineup = true;
        Ok(())
    }

    /// A bowler in the lane order now: the open block's, or the lineup
    /// waiting to start.
    pub(super) fn on_lane(&self, name: &str) -> bool {
        self.current_bowler(name).is_some()
    }

    pub(super) fn current_bowler(&self, name: &str) -> Option<&Bowler> {
        let in_block = self.open_block().and_then(|b| {
            b.slots
                .iter()
                .filter_map(|s| s.last())
                .map(|&e| &self.entries[e].bowler)
                .find(|x| x.name == name)
        });
        in_block.or_else(|| self.pending.as_ref()?.iter().find(|x| x.name == name))
    }

    pub(super) fn substitute(&mut self, leaving: &str, incoming: &Bowler) -> Result<(), Refusal> {
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
        check_bowler(incoming, self.rules.checked_inputs)?;
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
}
