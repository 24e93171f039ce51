//! A judge takes back an action just made: a penalty, a blindfold check,
//! adjustment or new check asked for, or a ball's pins entered by hand.
//!
//! It decides what an action was before it was made, and whether it can
//! still be taken back (a later action on the same thing cannot be
//! skipped over). The journal keeps both the action and its `withdraw`.
//! A `hold` is taken back by the opposite `hold`, a `correct` by another
//! `correct`: they need nothing here.

use super::{Conduct, ConductKind, Lane, Millis, Refusal, Withdrawable};

impl Lane {
    pub(super) fn withdraw(
        &mut self,
        t: Millis,
        of: Withdrawable,
        at: Millis,
        bowler: Option<&str>,
    ) -> Result<(), Refusal> {
        let nothing = |why| Refusal::NothingToWithdraw {
            what: of.as_str(),
            at,
            bowler: bowler.map(str::to_owned),
            why,
        };
        match (of, bowler) {
            (Withdrawable::ManualPins, _) => {
                self.withdraw_manual_pins(t, at).map_err(|e| match e {
                    Refusal::NoBallToVoid => {
                        nothing("that ball is no longer the last one recorded")
                    }
                    other => other,
                })
            }
            (Withdrawable::Penalty, Some(bowler)) => {
                if self.withdraw_penalty(at, bowler) {
                    Ok(())
                } else {
                    Err(nothing("no such penalty, or it is withdrawn already"))
                }
            }
            (_, Some(bowler)) => {
                let b = self.blindfolds.iter_mut().find(|b| b.bowler == bowler);
                let Some(b) =
                    b.filter(|b| b.undo.as_ref().is_some_and(|u| (u.of, u.at) == (of, at)))
                else {
                    return Err(nothing(
                        "it is not the bowler's latest blindfold action, or it is withdrawn already",
                    ));
                };
                let undo = b.undo.take().expect("checked above");
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
            (_, None) => Err(nothing("no bowler named")),
        }
    }

    /// The penalty given to `bowler` at `at` no longer counts; a slow-bowling
    /// penalty it confirmed waits for a judge again.
    fn withdraw_penalty(&mut self, at: Millis, bowler: &str) -> bool {
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
        let Some(confirmed) = found else {
            return false;
        };
        if let Some(id) = confirmed {
            self.conduct_mut(id, |kind| {
                if let ConductKind::SlowBowling { confirmed_by, .. } = kind {
                    *confirmed_by = None;
                }
            });
        }
        true
    }

    /// The ball the `manual_pins` at `at` recorded comes off the sheet while
    /// it is the last one: the bowler is up for it again, at the deck it
    /// was bowled at, and the lane is ready for it now.
    fn withdraw_manual_pins(&mut self, t: Millis, at: Millis) -> Result<(), Refusal> {
        let last_t = self
            .last_ball
            .and_then(|(e, g)| self.entries[e].games.get(g)?.last().map(|b| b.t));
        if self.manual_at != Some(at) || last_t != Some(at) {
            return Err(Refusal::NoBallToVoid);
        }
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
