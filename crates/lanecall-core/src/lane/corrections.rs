//! A judge's corrections: a ball's pins and foul entered again (and the
//! balls after it), the pins of a ball awaiting its report, and a dead
//! ball taken off the sheet.
//!
//! It decides whether a correction can be made without moving later balls
//! to other frames and before a foul is too late to change. It never
//! detects a delivery: the pins of a ball awaiting its report end that
//! delivery through `delivery`, and fouls it changes are worded and
//! withdrawn through `fouls`.

use super::scoring::{self, Ball, ScoredBall};
use super::{ConductKind, Effect, Lane, LaterBall, Millis, Output, Pin, PinSet, Refusal, Switch};

/// The last ball recorded in the open block: the one a judge can declare
/// dead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LastBall {
    pub entry: usize,
    /// The block's game number.
    pub game: u8,
    pub scored: ScoredBall,
}

/// A judge's correction of one ball, and of the balls after it.
pub(super) struct Fix<'a> {
    pub(super) standing: PinSet,
    /// Pins entered more than once.
    pub(super) twice: PinSet,
    pub(super) foul: Option<bool>,
    pub(super) later: &'a [LaterBall],
}

/// Checks the pins a judge entered for one ball, as pins entered by hand
/// are checked (rules.md, "Corrections"): each pin once, and only pins
/// that stood at `deck`, the deck the ball was bowled at.
fn check_entered(
    bowler: &str,
    (frame, ball): (u8, u8),
    (standing, twice): (PinSet, PinSet),
    deck: PinSet,
) -> Result<(), Refusal> {
    let at = || (bowler.to_owned(), frame, ball);
    if !twice.is_empty() {
        let (bowler, frame, ball) = at();
        return Err(Refusal::CorrectionPinsTwice {
            bowler,
            frame,
            ball,
            pins: twice,
        });
    }
    let down = standing.without(deck);
    if !down.is_empty() {
        let (bowler, frame, ball) = at();
        return Err(Refusal::CorrectionPinsNotStanding {
            bowler,
            frame,
            ball,
            pins: down,
            deck,
        });
    }
    Ok(())
}

impl Lane {
    /// The ball a judge can declare dead now.
    pub fn last_ball(&self) -> Option<LastBall> {
        let (e, g) = self.last_ball?;
        let entry = &self.entries[e];
        let balls = entry.games.get(g)?;
        let (scored, _) = scoring::walk(balls, self.rules.fouls_count());
        Some(LastBall {
            entry: e,
            game: entry.game_number(g),
            scored: *scored.last()?,
        })
    }

    pub(super) fn correct(
        &mut self,
        t: Millis,
        bowler: &str,
        (game, frame, ball): (u8, u8, u8),
        fix: Fix<'_>,
        by: Option<String>,
        out: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let fouls_count = self.rules.fouls_count();
        // Before the rule `checked_inputs` a correction's pins were taken
        // as entered (a pin twice once, a pin off the deck ignored).
        let checked = self.rules.checked_inputs;
        let no_such_ball = || Refusal::NoSuchBall {
            bowler: bowler.to_owned(),
            game,
            frame,
            ball,
        };
        // The ball awaiting its pin report can be given one by a judge.
        if let Some(up) = self.up().filter(|_| self.flight.started()) {
            let entry = &self.entries[up.entry];
            if entry.bowler.name == bowler
                && up.game == game
                && (up.at.frame, up.at.ball) == (frame, ball)
                && fix.later.is_empty()
            {
                if checked {
                    let entered = (fix.standing, fix.twice);
                    check_entered(bowler, (frame, ball), entered, self.deck_bowled_at())?;
                }
                self.complete_delivery(t, fix.standing, fix.foul, true, out);
                return Ok(());
            }
        }
        let (e, g) = self
            .entries
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, x)| x.bowler.name == bowler)
            .find_map(|(i, x)| {
                let g = usize::from(game.checked_sub(x.first_game)?);
                (g < x.games.len()).then_some((i, g))
            })
            .ok_or_else(no_such_ball)?;
        let balls = &self.entries[e].games[g];
        let (before, _) = scoring::walk(balls, fouls_count);
        let i = before
            .iter()
            .position(|s| (s.at.frame, s.at.ball) == (frame, ball))
            .ok_or_else(no_such_ball)?;
        if checked {
            let deck = balls[i].deck.unwrap_or(before[i].at.before);
            check_entered(bowler, (frame, ball), (fix.standing, fix.twice), deck)?;
        }
        let recorded = before.len() - i - 1;
        if fix.later.len() > recorded {
            return Err(Refusal::TooManyLater {
                bowler: bowler.to_owned(),
                game,
                frame,
                ball,
                recorded,
                given: fix.later.len(),
            });
        }
        let mut fixed = balls.clone();
        let old = balls[i];
        fixed[i] = Ball {
            standing: fix.standing,
            foul: fix.foul.unwrap_or(old.foul),
            corrected: true,
            ..old
        };
        // A re-entered later ball is the judge's word on what stood after
        // it, counted against the deck the rules expect.
        for (k, l) in fix.later.iter().enumerate() {
            let b = &mut fixed[i + 1 + k];
            *b = Ball {
                standing: l.standing,
                foul: l.foul.unwrap_or(b.foul),
                corrected: true,
                deck: None,
                ..*b
            };
        }
        let (after, _) = scoring::walk(&fixed, fouls_count);
        let same_shape = after.len() == before.len()
            && after
                .iter()
                .zip(&before)
                .all(|(a, b)| (a.at.frame, a.at.ball) == (b.at.frame, b.at.ball));
        if !same_shape {
            return Err(Refusal::CorrectionReshapes {
                bowler: bowler.to_owned(),
                frame,
                ball,
            });
        }
        if checked {
            // A re-entered later ball counts against the deck the rules
            // expect for it once the correction is made.
            for (k, l) in fix.later.iter().enumerate() {
                let at = after[i + 1 + k].at;
                let entered = (l.standing, l.twice);
                check_entered(bowler, (at.frame, at.ball), entered, at.before)?;
            }
        }
        let entered = i..=i + fix.later.len();
        // A foul is called or withdrawn only until the next delivery: once
        // a later ball was bowled at the deck a changed ball left (not a
        // fresh rack), the call stands unless that ball is re-entered too.
        let foul_changed = entered.clone().any(|j| fixed[j].foul != balls[j].foul);
        let next = i + 1 + fix.later.len();
        if foul_changed
            && let (Some(b), Some(a)) = (before.get(next), after.get(next))
            && !(b.at.fresh_rack && a.at.fresh_rack)
        {
            return Err(Refusal::FoulTooLate {
                bowler: bowler.to_owned(),
                frame,
                ball,
                later_frame: a.at.frame,
                later_ball: a.at.ball,
            });
        }
        let was = balls.clone();
        self.entries[e].games[g] = fixed;
        self.entries[e].renew_next(fouls_count);
        let last = was.len() - 1;
        for j in entered {
            let at = after[j].at;
            if was[j].foul && !after[j].foul {
                self.withdraw_foul(bowler, game, at);
            } else if !was[j].foul && self.entries[e].games[g][j].foul {
                let kind = self.foul_kind(game, at, by.clone());
                self.raise(t, Some(bowler.to_owned()), kind, out);
                if j == last && after[j].foul && at.fresh_rack {
                    self.output(t, Output::PinsetterReset, Switch::Pulse, out);
                }
            }
        }
        self.say(t, Some(e), &after[i], true, out);
        self.follow_turn(None);
        Ok(())
    }

    /// A judge declares the last ball dead (USBC, World Bowling: dead
    /// ball): it does not count, its foul goes with it, and the bowler
    /// bowls again at the deck the ball was bowled at by the rules. The
    /// only deck the lane can ask the pinsetter for is a full rack; any
    /// other is respotted by hand, and the panel shows it until it is set.
    pub(super) fn dead_ball(
        &mut self,
        t: Millis,
        by: Option<String>,
        out: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let (last, name, _) = self.take_last_ball()?;
        let at = last.scored.at;
        let kind = ConductKind::DeadBall {
            game: last.game,
            frame: at.frame,
            ball: at.ball,
            deck: at.before.iter().map(Pin::number).collect(),
            by,
        };
        self.raise(t, Some(name), kind, out);
        if at.before == PinSet::FULL && self.ready_deck != Some(PinSet::FULL) {
            self.output(t, Output::PinsetterReset, Switch::Pulse, out);
        }
        // The lane is ready for the ball again once the deck is set: now,
        // if the pinsetter has set one (the clock waits while it is wrong),
        // else at its READY.
        self.ready_again(self.ready_deck.map(|_| t), false);
        Ok(())
    }

    /// Takes the last ball of the open block off the sheet (and its foul
    /// with it): the bowler is up again for the same frame and ball.
    /// Returns it, its bowler and the ball as recorded.
    pub(super) fn take_last_ball(&mut self) -> Result<(LastBall, String, Ball), Refusal> {
        self.open_block().ok_or(Refusal::NoBlockOpen)?;
        if self.flight.started() {
            return Err(Refusal::BallUnderWay);
        }
        let last = self.last_ball().ok_or(Refusal::NoBallToVoid)?;
        let Some((e, g)) = self.last_ball.take() else {
            return Err(Refusal::NoBallToVoid);
        };
        let at = last.scored.at;
        let entry = &mut self.entries[e];
        let ball = entry.games[g].pop().ok_or(Refusal::NoBallToVoid)?;
        if entry.games[g].is_empty() && g + 1 == entry.games.len() {
            entry.games.pop();
        }
        entry.advance(last.game, Some(at));
        let name = entry.bowler.name.clone();
        if last.scored.foul {
            self.withdraw_foul(&name, last.game, at);
        }
        self.window = None;
        Ok((last, name, ball))
    }

    /// The bowler up changed back: their clock starts at `ready` (`None`:
    /// when the pinsetter sets the deck).
    pub(super) fn ready_again(&mut self, ready: Option<Millis>, by_hand: bool) {
        self.follow_turn(ready);
        if self.clock.is_none()
            && let Some(t) = ready
        {
            self.start_clock(t, by_hand);
        }
    }
}
