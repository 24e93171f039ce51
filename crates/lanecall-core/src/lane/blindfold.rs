//! B1 blindfolds: the judges' checks, a bowler adjusting one, a judge
//! asking for a new check, and whether a ball was bowled with a checked
//! blindfold.
//!
//! It decides whether a B1 bowler's blindfold is fit to bowl with, now or
//! at a release. It never holds the lane itself: the slow-bowling clock
//! reads it as a pause (`holds`), and a block's start asks it (`turns`).

use super::{Bowler, Class, ConductKind, Effect, Lane, Millis, Refusal, Withdrawable};

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
    /// The latest action on it, and what it was before, for a `withdraw`.
    pub(super) undo: Option<BlindfoldUndo>,
}

/// A blindfold as it was before an action, which a judge may withdraw
/// while it is the bowler's latest.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct BlindfoldUndo {
    pub(super) of: Withdrawable,
    pub(super) at: Millis,
    /// Who made it: they may withdraw it within the undo window.
    pub(super) by: Option<String>,
    last_check: Option<(Millis, bool, Option<String>)>,
    adjusting: bool,
    recheck: bool,
    /// The conduct entry of a failed check.
    pub(super) conduct: Option<u32>,
}

/// Changes of a blindfold kept: a release is never more than
/// `max_travel_ms` before it is settled, and a bowler's blindfold does not
/// change this often in a few seconds.
const MAX_BLINDFOLD_CHANGES: usize = 8;

/// Blindfolds the lane remembers for the day: far more B1 bowlers than
/// a lane sees in a day (four a block). Past it, the oldest of a bowler
/// not on the lane now is forgotten (a new check then brings it back).
pub(super) const MAX_BLINDFOLDS: usize = 64;

impl Blindfold {
    pub(super) fn new(bowler: &str) -> Blindfold {
        Blindfold {
            bowler: bowler.to_owned(),
            last_check: None,
            adjusting: false,
            recheck: false,
            changes: Vec::new(),
            undo: None,
        }
    }

    /// Keeps what it is now, before the action `of` at `at` by `by`
    /// changes it.
    fn before(&mut self, of: Withdrawable, at: Millis, by: Option<String>) {
        self.undo = Some(BlindfoldUndo {
            of,
            at,
            by,
            last_check: self.last_check.clone(),
            adjusting: self.adjusting,
            recheck: self.recheck,
            conduct: None,
        });
    }

    /// Back to what it was before its latest action, at `t`.
    pub(super) fn restore(&mut self, undo: BlindfoldUndo, t: Millis) {
        self.last_check = undo.last_check;
        self.adjusting = undo.adjusting;
        self.recheck = undo.recheck;
        self.changed(t);
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
    pub(super) fn changed(&mut self, t: Millis) {
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

impl Lane {
    pub fn blindfolds(&self) -> &[Blindfold] {
        &self.blindfolds
    }

    pub(super) fn blindfold_ok(&self, bowler: &Bowler) -> bool {
        bowler.class != Class::B1 || self.any_blindfold(&bowler.name, Blindfold::ok)
    }

    /// Whether a blindfold of the bowler named `name` is `fit`. Looked for
    /// from the latest, which the bowlers on the lane now have: the lane
    /// asks at every input.
    fn any_blindfold(&self, name: &str, fit: impl Fn(&Blindfold) -> bool) -> bool {
        self.blindfolds
            .iter()
            .rev()
            .any(|b| b.bowler == name && fit(b))
    }

    /// Whether `bowler` bowled with a checked blindfold, for a ball
    /// released at `release`: adjusting it between the release and the pin
    /// report is allowed, a check recorded after the release is too late.
    pub(super) fn blindfold_ok_at(&self, bowler: &Bowler, release: Millis) -> bool {
        bowler.class != Class::B1 || self.any_blindfold(&bowler.name, |b| b.ok_at(release))
    }

    /// The blindfold of the B1 bowler named `name`: one on the lane now
    /// (the open block's order, or the lineup waiting to start), or one the
    /// lane keeps the day's blindfold for, who may be checked between
    /// blocks and before they are on a lineup again (rules.md).
    pub(super) fn blindfold_mut(&mut self, name: &str) -> Result<&mut Blindfold, Refusal> {
        let kept = self.blindfolds.iter().position(|b| b.bowler == name);
        match self.current_bowler(name) {
            Some(bowler) if bowler.class != Class::B1 => {
                return Err(Refusal::NotB1(name.to_owned(), bowler.class.as_str()));
            }
            Some(_) => {}
            // Only a B1 bowler's blindfold is ever kept.
            None if kept.is_some() && self.rules.blindfolds_between_blocks => {}
            None => return Err(Refusal::UnknownBowler(name.to_owned())),
        }
        let i = match kept {
            Some(i) => i,
            None => {
                if self.blindfolds.len() >= MAX_BLINDFOLDS
                    && let Some(gone) = self
                        .blindfolds
                        .iter()
                        .position(|b| self.current_bowler(&b.bowler).is_none())
                {
                    self.blindfolds.remove(gone);
                }
                self.blindfolds.push(Blindfold::new(name));
                self.blindfolds.len() - 1
            }
        };
        Ok(&mut self.blindfolds[i])
    }

    /// A judge checked a B1 bowler's blindfold: in order (`ok`) or not.
    pub(super) fn blindfold_check(
        &mut self,
        t: Millis,
        bowler: &str,
        ok: bool,
        by: Option<String>,
        out: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let b = self.blindfold_mut(bowler)?;
        b.before(Withdrawable::BlindfoldCheck, t, by.clone());
        b.last_check = Some((t, ok, by.clone()));
        b.adjusting = false;
        b.recheck = false;
        b.changed(t);
        if !ok {
            let issue = ConductKind::Blindfold {
                issue: "failed_check",
                by,
                withdrawn: false,
            };
            let id = self.raise(t, Some(bowler.to_owned()), issue, out);
            if let Ok(Blindfold {
                undo: Some(undo), ..
            }) = self.blindfold_mut(bowler)
            {
                undo.conduct = Some(id);
            }
        }
        Ok(())
    }

    /// The bowler asked to adjust the blindfold.
    pub(super) fn blindfold_adjust(
        &mut self,
        t: Millis,
        bowler: &str,
        by: Option<String>,
    ) -> Result<(), Refusal> {
        let b = self.blindfold_mut(bowler)?;
        b.before(Withdrawable::BlindfoldAdjust, t, by);
        b.adjusting = true;
        b.changed(t);
        Ok(())
    }

    /// A judge asked for a new check.
    pub(super) fn blindfold_recheck(
        &mut self,
        t: Millis,
        bowler: &str,
        by: Option<String>,
    ) -> Result<(), Refusal> {
        let b = self.blindfold_mut(bowler)?;
        b.before(Withdrawable::BlindfoldRecheck, t, by);
        b.recheck = true;
        b.changed(t);
        Ok(())
    }
}
