//! A judge takes back an action just made: a penalty, a blindfold check,
//! adjustment or new check asked for, or a ball's pins entered by hand.
//!
//! It decides what an action was before it was made, and whether it can
//! still be taken back (a later action on the same thing cannot be
//! skipped over), and who may take it back: the judge who made it, within
//! [`UNDO_WINDOW_MS`] (the panel's Undo), or the chief judge at any time
//! (rules.md). The journal keeps both the action and its `withdraw`.
//! A `hold` is taken back by the opposite `hold`, a `correct` by another
//! `correct`: they need nothing here.

use super::{Conduct, ConductKind, Lane, Millis, Refusal, UNDO_WINDOW_MS, Withdrawable};

/// Who asks for a `withdraw`.
pub(super) struct Asked {
    pub(super) by: Option<String>,
    /// The chief judge may withdraw any action at any time.
    pub(super) chief: bool,
}

impl Lane {
    pub(super) fn withdraw(
        &mut self,
        t: Millis,
        of: Withdrawable,
        at: Millis,
        bowler: Option<&str>,
        asked: &Asked,
    ) -> Result<(), Refusal> {
        let made_by = self.made_by(of, at, bowler)?;
        if !asked.chief {
            if made_by != asked.by {
                return Err(Refusal::NotYourAction {
                    what: of.as_str(),
                    at,
                    made_by,
                });
            }
            if t.saturating_sub(at) > UNDO_WINDOW_MS {
                return Err(Refusal::UndoWindowOver {
                    what: of.as_str(),
                    at,
                });
            }
        }
        match (of, bowler) {
            (Withdrawable::ManualPins, _) => self.withdraw_manual_pins(t),
            (Withdrawable::Penalty, Some(bowler)) => {
                self.withdraw_penalty(at, bowler);
                Ok(())
            }
            (_, Some(bowler)) => {
                let b = self.blindfolds.iter_mut().find(|b| b.bowler == bowler);
                let Some((undo, b)) = b.and_then(|b| Some((b.undo.take()?, b))) else {
                    return Ok(());
                };
                let conduct = undo.conduct;
                b.restore(undo, t);
                if let Some(id) = conduct {
                    self.conduct_mut(id, |kind| {
                        if let ConductKind::Blindfold { withdrawn, .. } = kind {
                            *withdrawn = true;
                        }
                    });
                }
                Ok(())
            }
            (_, None) => Ok(()),
        }
    }

    /// Who made the action a `withdraw` names, if it can still be taken
    /// back; else why there is nothing to withdraw.
    fn made_by(
        &self,
        of: Withdrawable,
        at: Millis,
        bowler: Option<&str>,
    ) -> Result<Option<String>, Refusal> {
        let nothing = |why| Refusal::NothingToWithdraw {
            what: of.as_str(),
            at,
            bowler: bowler.map(str::to_owned),
            why,
        };
        match (of, bowler) {
            (Withdrawable::ManualPins, _) => {
                let last_t = self
                    .last_ball
                    .and_then(|(e, g)| self.entries[e].games.get(g)?.last().map(|b| b.t));
                match &self.manual_at {
                    Some((t, by)) if *t == at && last_t == Some(at) => Ok(by.clone()),
                    _ => Err(nothing("that ball is no longer the last one recorded")),
                }
            }
            (Withdrawable::Penalty, Some(bowler)) => self
                .conduct
                .iter()
                .rev()
                .find_map(|c| match c {
                    Conduct {
                        t,
                        bowler: Some(b),
                        kind: ConductKind::Penalty {
                            withdrawn: false,
                            by,
                            ..
                        },
                        ..
                    } if *t == at && b == bowler => Some(by.clone()),
                    _ => None,
                })
                .ok_or_else(|| nothing("no such penalty, or it is withdrawn already")),
            (_, Some(bowler)) => self
                .blindfolds
                .iter()
                .find(|b| b.bowler == bowler)
                .and_then(|b| b.undo.as_ref())
                .filter(|u| (u.of, u.at) == (of, at))
                .map(|u| u.by.clone())
                .ok_or_else(|| {
                    nothing(
                        "it is not the bowler's latest blindfold action, or it is withdrawn already",
                    )
                }),
            (_, None) => Err(nothing("no bowler named")),
        }
    }

    /// The penalty given to `bowler` at `at` no longer counts; a slow-bowling
    /// penalty it confirmed waits for a judge again.
    fn withdraw_penalty(&mut self, at: Millis, bowler: &str) {
        let found = self.conduct.iter_mut().rev().find_map(|c| match c {
            Conduct {
                t,
                bowler: Some(b),
                kind:
                    ConductKind::Penalty {
                        withdrawn: withdrawn @ false,
                        confirms,
                        ..
                    },
                ..
            } if *t == at && b == bowler => {
                *withdrawn = true;
                Some(confirms.take())
            }
            _ => None,
        });
        if let Some(Some(id)) = found {
            self.conduct_mut(id, |kind| {
                if let ConductKind::SlowBowling { confirmed_by, .. } = kind {
                    *confirmed_by = None;
                }
            });
        }
    }

    /// The ball the last `manual_pins` recorded comes off the sheet (it is
    /// the last one, [`Lane::made_by`] checked): the bowler is up for it
    /// again, at the deck it was bowled at, and the lane is ready for it now.
    fn withdraw_manual_pins(&mut self, t: Millis) -> Result<(), Refusal> {
        let (_, _, ball) = self.take_last_ball()?;
        self.manual_at = None;
        self.ready_deck = ball.deck;
        self.ready_again(Some(t), true);
        Ok(())
    }

    fn conduct_mut(&mut self, id: u32, change: impl FnOnce(&mut ConductKind)) {
        if let Some(c) = self.conduct.iter_mut().find(|c| c.id == id) {
            change(&mut c.kind);
        }
    }
}
