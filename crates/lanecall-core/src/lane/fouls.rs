//! Fouls: a person on the foul line while a ball is in flight, a foul
//! called late (after the pin report, before the lane is ready again), a
//! foul withdrawn, and the foul lamp.
//!
//! It decides which ball a foul falls on and what the conduct entry says,
//! and rescores the ball it falls on. It never detects the break itself
//! (`delivery`), nor decides a judge's correction (`corrections`), which
//! only calls or withdraws fouls through here.

use super::scoring::{self, Position, ScoredBall};
use super::{ConductKind, Effect, Lane, Millis, Output, Switch};

/// A recorded ball whose foul can still be called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BallRef {
    Game {
        entry: usize,
        game: usize,
        ball: usize,
    },
    Practice(usize),
}

impl Lane {
    /// The ball still in play: recorded, but a foul can still be called on
    /// it until the lane is ready again. Entry, game, frame and ball.
    pub fn in_play(&self) -> Option<(usize, u8, u8, u8)> {
        let BallRef::Game { entry, game, ball } = self.window? else {
            return None;
        };
        let e = &self.entries[entry];
        let balls = &e.games[game];
        let at = scoring::next_position(&balls[..ball], self.rules.fouls_count())?;
        Some((entry, e.game_number(game), at.frame, at.ball))
    }

    /// The last ball is in play from its pin report: a foul can be called
    /// on it until the lane is ready for the next ball, and at most
    /// `foul_window_ms` after the report.
    pub(super) fn open_window(&mut self, t: Millis, target: BallRef) {
        self.window = Some(target);
        self.window_due = self.rules.foul_window_ms.map(|ms| t.saturating_add(ms));
    }

    /// The lane is ready for the next ball at `t` (rules.md, "The foul
    /// window"): the last ball is no longer in play. A person's break that
    /// began by `t` and is not yet told from a ball's passing keeps it in
    /// play until it is: the bowler was on the line before the window
    /// closed.
    pub(super) fn close_window(&mut self, t: Millis) {
        match (self.beam.broken_since, self.beam.person_due) {
            (Some(since), Some(due)) if since <= t && self.window.is_some() => {
                self.window_due = Some(due);
            }
            _ => self.window = None,
        }
    }

    pub(super) fn call_foul_in_flight(&mut self, t: Millis, out: &mut Vec<Effect>) {
        if self.flight.foul_at.is_some() {
            return;
        }
        self.flight.foul_at = Some(t);
        self.light_lamp(t, out);
        if let Some(up) = self.up() {
            let name = self.entries[up.entry].bowler.name.clone();
            let kind = self.foul_kind(up.game, up.at, None);
            self.raise(t, Some(name), kind, out);
        }
    }

    pub(super) fn foul_kind(&self, game: u8, at: Position, by: Option<String>) -> ConductKind {
        ConductKind::Foul {
            game,
            frame: at.frame,
            ball: at.ball,
            counted: self.rules.fouls_count(),
            withdrawn: false,
            by,
        }
    }

    /// A foul on a ball already recorded: late (before the next READY) or a
    /// judge's correction (`by`).
    pub(super) fn foul_on_recorded(
        &mut self,
        t: Millis,
        target: BallRef,
        by: Option<String>,
        out: &mut Vec<Effect>,
    ) {
        let fouls_count = self.rules.fouls_count();
        match target {
            BallRef::Game { entry, game, ball } => {
                if self.entries[entry].games[game][ball].foul {
                    return;
                }
                self.entries[entry].games[game][ball].foul = true;
                self.entries[entry].renew_next(fouls_count);
                let balls = &self.entries[entry].games[game];
                let at =
                    scoring::next_position(&balls[..ball], fouls_count).unwrap_or(Position::START);
                let (scored, _) = scoring::roll(at, &balls[ball], fouls_count);
                let name = self.entries[entry].bowler.name.clone();
                let kind = self.foul_kind(self.entries[entry].game_number(game), at, by.clone());
                self.raise(t, Some(name), kind, out);
                self.after_late_foul(t, Some(entry), scored, by.is_some(), out);
            }
            BallRef::Practice(i) => {
                if self.practice[i].ball.foul {
                    return;
                }
                self.practice[i].ball.foul = true;
                let p = self.practice[i];
                let (scored, next) = scoring::roll(p.at, &p.ball, true);
                if i + 1 == self.practice.len() {
                    self.practice_at = next
                        .filter(|n| n.frame == p.at.frame)
                        .unwrap_or(Position::START);
                }
                self.after_late_foul(t, None, scored, false, out);
            }
        }
    }

    pub(super) fn after_late_foul(
        &mut self,
        t: Millis,
        bowler: Option<usize>,
        scored: ScoredBall,
        corrected: bool,
        out: &mut Vec<Effect>,
    ) {
        if !corrected {
            self.light_lamp(t, out);
        }
        if scored.foul && scored.at.fresh_rack {
            self.output(t, Output::PinsetterReset, Switch::Pulse, out);
        }
        self.say(t, bowler, &scored, corrected, out);
    }

    pub(super) fn light_lamp(&mut self, t: Millis, out: &mut Vec<Effect>) {
        self.output(t, Output::FoulLamp, Switch::On, out);
        self.lamp_off_due = Some(t.saturating_add(self.rules.foul_lamp_ms));
    }

    /// Marks the foul conduct of one ball withdrawn.
    pub(super) fn withdraw_foul(&mut self, bowler: &str, game: u8, at: Position) {
        for c in self
            .conduct
            .iter_mut()
            .filter(|c| c.bowler.as_deref() == Some(bowler))
        {
            if let ConductKind::Foul {
                game: cg,
                frame: cf,
                ball: cb,
                withdrawn,
                ..
            } = &mut c.kind
                && (*cg, *cf, *cb) == (game, at.frame, at.ball)
            {
                *withdrawn = true;
            }
        }
    }
}
