//! Ten-pin scoring (World Bowling / USBC): frames, the tenth frame's extra
//! balls, fouls with the respot, marks and running totals.
//!
//! A game is stored as the plain sequence of balls a bowler rolled, each with
//! the deck the pinsetter set for it, what the pinsetter reported standing
//! after it and whether a foul was called. Everything else — which frame a ball belongs to, what stood before
//! it, strikes, spares, splits, bonuses — is derived here, so that a foul
//! called late or a judge's correction simply re-scores the game.

use super::event::Millis;
use crate::pins::{PinSet, Side};

/// One ball as recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ball {
    /// When its pin report arrived.
    pub t: Millis,
    /// What stood after it, as reported (pins that were already down are
    /// ignored when it is scored).
    pub standing: PinSet,
    /// A foul was called on this delivery.
    pub foul: bool,
    /// A channel sensor fired for this delivery.
    pub channel: Option<Side>,
    /// A judge corrected it.
    pub corrected: bool,
    /// The deck the pinsetter set for it (its `READY`), when one was seen.
    /// Pinfall is counted against this deck: a pin the rules expect but
    /// the machine did not set was never knocked down by the ball, and a
    /// pin set that the rules had down already counts for nobody.
    pub deck: Option<PinSet>,
}

/// Where the next ball of a game goes and what it is rolled at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// 1..=10.
    pub frame: u8,
    /// 1..=3, the ball's number within its frame.
    pub ball: u8,
    /// What stands before the ball.
    pub before: PinSet,
    /// The ball is the first at a freshly set full rack (a strike is
    /// possible).
    pub fresh_rack: bool,
}

impl Position {
    /// Frame 1, ball 1, a full rack.
    pub const START: Position = Position {
        frame: 1,
        ball: 1,
        before: PinSet::FULL,
        fresh_rack: true,
    };
}

/// One ball as scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoredBall {
    pub at: Position,
    /// Standing after the ball, among the pins that stood before it.
    pub standing: PinSet,
    /// Pins that count: zero for a counted foul.
    pub pinfall: u8,
    /// A foul that counts (with `foul_mode = "warn"` fouls never do).
    pub foul: bool,
    pub strike: bool,
    pub spare: bool,
    /// A split leave (only judged at a full rack).
    pub split: bool,
    pub channel: Option<Side>,
    /// The deck the ball was really bowled at, when it was not the one the
    /// rules expect (`at.before`): a ball at a wrong deck, for the judge to
    /// accept or declare dead.
    pub wrong_deck: Option<PinSet>,
}

impl ScoredBall {
    /// The sheet's symbol: `X`, `/`, `F`, `-` or the pin count.
    pub fn mark(&self) -> char {
        if self.foul {
            'F'
        } else if self.strike {
            'X'
        } else if self.spare {
            '/'
        } else if self.pinfall == 0 {
            '-'
        } else {
            char::from(b'0' + self.pinfall)
        }
    }
}

/// Scores one ball rolled at `at`, and says where the game goes next (`None`
/// when this ball ends the game).
pub fn roll(at: Position, ball: &Ball, fouls_count: bool) -> (ScoredBall, Option<Position>) {
    // Pinfall is what the ball knocked down of the deck it was bowled at,
    // among the pins the rules have standing. A pin the machine took (or
    // never set) is not the bowler's: by the rules it stands until it is
    // respotted (USBC: pins knocked down by the pinsetter are respotted).
    let deck = ball.deck.unwrap_or(at.before);
    let knocked = at.before.intersect(deck).without(ball.standing);
    let standing = at.before.without(knocked);
    let foul = ball.foul && fouls_count;
    let cleared = standing.is_empty() && !foul;
    let scored = ScoredBall {
        at,
        standing,
        pinfall: if foul { 0 } else { knocked.len() },
        foul,
        strike: cleared && at.fresh_rack,
        spare: cleared && !at.fresh_rack,
        split: !foul && at.before == PinSet::FULL && deck == PinSet::FULL && standing.is_split(),
        channel: ball.channel,
        wrong_deck: (deck != at.before).then_some(deck),
    };
    // What the next ball of this rack is rolled at: after a foul on the
    // rack's first ball every pin is set again (rules.md).
    let second_ball = Position {
        frame: at.frame,
        ball: at.ball + 1,
        before: if foul { PinSet::FULL } else { standing },
        fresh_rack: false,
    };
    let fresh = |frame, ball| Position {
        frame,
        ball,
        before: PinSet::FULL,
        fresh_rack: true,
    };
    let next = if at.frame < 10 {
        if at.fresh_rack && !scored.strike {
            Some(second_ball)
        } else {
            Some(fresh(at.frame + 1, 1))
        }
    } else {
        // The tenth frame: a strike or a spare earns more balls, each at a
        // fresh rack when the pins were cleared.
        match at.ball {
            1 if scored.strike => Some(fresh(10, 2)),
            1 => Some(second_ball),
            2 if scored.strike || scored.spare => Some(fresh(10, 3)),
            2 if at.fresh_rack => Some(second_ball),
            _ => None,
        }
    };
    (scored, next)
}

/// The balls of a game, scored, with the next position (`None` once the
/// game is complete). Balls past the end of a game are not scored.
pub fn walk(balls: &[Ball], fouls_count: bool) -> (Vec<ScoredBall>, Option<Position>) {
    let mut scored = Vec::with_capacity(balls.len().min(21));
    let mut at = Some(Position::START);
    for ball in balls {
        let Some(pos) = at else { break };
        let (s, next) = roll(pos, ball, fouls_count);
        scored.push(s);
        at = next;
    }
    (scored, at)
}

/// Only where the next ball goes; the hot path of a live lane.
pub fn next_position(balls: &[Ball], fouls_count: bool) -> Option<Position> {
    let mut at = Some(Position::START);
    for ball in balls {
        let pos = at?;
        at = roll(pos, ball, fouls_count).1;
    }
    at
}

/// The balls of a game written in the sheet's notation, one symbol per
/// ball (`X 9/ 72 F9 XX8`; spaces are ignored): `X`, `/`, `-`, a digit, or
/// `F` for a foul (which knocked nothing). Each ball knocks down the first
/// of the pins that stand, so a leave is plausible but arbitrary. For tests,
/// simulators and benchmarks.
pub fn from_notation(notation: &str) -> Result<Vec<Ball>, String> {
    let mut out = Vec::new();
    let mut at = Some(Position::START);
    for c in notation.chars().filter(|c| !c.is_whitespace()) {
        let pos = at.ok_or_else(|| format!("{notation:?} runs past the end of the game"))?;
        let down = match c {
            'X' | '/' => pos.before.len(),
            '-' | 'F' => 0,
            d => d
                .to_digit(10)
                .map(|d| d as u8)
                .filter(|&d| d < pos.before.len())
                .ok_or_else(|| format!("{c:?} is not a ball at {} pins", pos.before.len()))?,
        };
        let ball = Ball {
            t: 0,
            standing: PinSet::from_pins(pos.before.iter().skip(usize::from(down))),
            foul: c == 'F',
            channel: None,
            corrected: false,
            deck: None,
        };
        at = roll(pos, &ball, true).1;
        out.push(ball);
    }
    Ok(out)
}

/// A frame on the score sheet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub number: u8,
    pub balls: Vec<ScoredBall>,
    /// The running total through this frame, once it and its bonus balls
    /// are all rolled.
    pub cumulative: Option<u16>,
}

impl Frame {
    pub fn marks(&self) -> String {
        self.balls.iter().map(ScoredBall::mark).collect()
    }
}

/// A game on the score sheet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sheet {
    /// Frames with at least one ball.
    pub frames: Vec<Frame>,
    pub complete: bool,
    /// The last known running total, 0 if none.
    pub total: u16,
}

pub fn sheet(balls: &[Ball], fouls_count: bool) -> Sheet {
    let (scored, next) = walk(balls, fouls_count);
    // Sized for a whole game: no frame nor ball list grows as it is filled.
    let mut frames: Vec<Frame> = Vec::with_capacity(10);
    for s in &scored {
        match frames.last_mut() {
            Some(f) if f.number == s.at.frame => f.balls.push(*s),
            _ => {
                let mut balls = Vec::with_capacity(if s.at.frame == 10 { 3 } else { 2 });
                balls.push(*s);
                frames.push(Frame {
                    number: s.at.frame,
                    balls,
                    cumulative: None,
                });
            }
        }
    }
    let mut running: u16 = 0;
    let mut first_ball = 0;
    let mut total = 0;
    for frame in &mut frames {
        let n = frame.balls.len();
        let rolled: u16 = frame.balls.iter().map(|b| u16::from(b.pinfall)).sum();
        let bonus_balls = if frame.number == 10 {
            0
        } else if frame.balls[0].strike {
            2
        } else if frame.balls.get(1).is_some_and(|b| b.spare) {
            1
        } else {
            0
        };
        let finished = if frame.number == 10 {
            next.is_none()
        } else {
            frame.balls[0].strike || n == 2
        };
        let after = &scored[first_ball + n..];
        if finished && after.len() >= bonus_balls {
            let bonus: u16 = after[..bonus_balls]
                .iter()
                .map(|b| u16::from(b.pinfall))
                .sum();
            running += rolled + bonus;
            frame.cumulative = Some(running);
            total = running;
        }
        first_ball += n;
    }
    Sheet {
        frames,
        complete: next.is_none(),
        total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::pins::Pin;

    fn balls(notation: &str) -> Vec<Ball> {
        from_notation(notation).expect("a game in the sheet's notation")
    }

    fn cumulatives(s: &Sheet) -> Vec<Option<u16>> {
        s.frames.iter().map(|f| f.cumulative).collect()
    }

    #[test]
    fn world_bowling_sample_sheet_totals_180() {
        let s = sheet(&balls("X X X 72 8/ F9 X 7/ 9- XX8"), true);
        let expect = [30, 57, 76, 85, 95, 104, 124, 143, 152, 180];
        assert_eq!(cumulatives(&s), expect.map(Some));
        assert_eq!(s.total, 180);
        assert!(s.complete);
        let marks: Vec<String> = s.frames.iter().map(Frame::marks).collect();
        assert_eq!(
            marks,
            ["X", "X", "X", "72", "8/", "F9", "X", "7/", "9-", "XX8"]
        );
    }

    #[test]
    fn perfect_game_is_300() {
        let s = sheet(&balls("XXXXXXXXXXXX"), true);
        assert_eq!(s.total, 300);
        assert!(s.complete);
        assert_eq!(s.frames[9].marks(), "XXX");
    }

    #[test]
    fn all_nine_spares_with_a_nine_fill_is_190() {
        let s = sheet(&balls("9/9/9/9/9/9/9/9/9/9/9"), true);
        assert_eq!(s.total, 190);
        assert!(s.complete);
    }

    #[test]
    fn a_strike_waits_for_two_balls_and_a_spare_for_one() {
        let s = sheet(&balls("X 7"), true);
        assert_eq!(cumulatives(&s), [None, None]);
        let s = sheet(&balls("X 72 5/"), true);
        assert_eq!(cumulatives(&s), [Some(19), Some(28), None]);
        assert_eq!(s.total, 28);
        assert!(!s.complete);
    }

    #[test]
    fn a_foul_on_the_first_ball_respots_and_all_ten_is_a_spare() {
        let s = sheet(&balls("F/ 5"), true);
        assert_eq!(s.frames[0].marks(), "F/");
        assert_eq!(s.frames[0].cumulative, Some(15));
        assert_eq!(s.frames[0].balls[1].at.before, PinSet::FULL);
    }

    #[test]
    fn a_foul_on_the_second_ball_keeps_only_the_first() {
        let s = sheet(&balls("9F"), true);
        assert_eq!(s.frames[0].marks(), "9F");
        assert_eq!(s.frames[0].cumulative, Some(9));
    }

    #[test]
    fn warn_mode_scores_a_foul_like_any_ball() {
        let b = balls("9F");
        let mut b2 = b.clone();
        b2[1].standing = PinSet::EMPTY;
        let s = sheet(&b2, false);
        assert_eq!(s.frames[0].marks(), "9/");
    }

    #[test]
    fn tenth_frame_edges() {
        let cases = [
            ("XXXXXXXXX XXX", "XXX", 300, 3),
            ("XXXXXXXXX XX9", "XX9", 299, 3),
            ("------------------ X9/", "X9/", 20, 3),
            ("------------------ X9-", "X9-", 19, 3),
            ("------------------ 9/X", "9/X", 20, 3),
            ("------------------ 9/-", "9/-", 10, 3),
            ("------------------ 81", "81", 9, 2),
            ("------------------ F/5", "F/5", 15, 3),
            ("------------------ XF7", "XF7", 17, 3),
            ("------------------ XF/", "XF/", 20, 3),
            ("------------------ XXF", "XXF", 20, 3),
            ("------------------ 9F", "9F", 9, 2),
        ];
        for (notation, marks, total, balls_in_tenth) in cases {
            let s = sheet(&balls(notation), true);
            let tenth = s.frames.last().unwrap();
            assert_eq!(tenth.number, 10, "{notation}");
            assert_eq!(tenth.marks(), marks, "{notation}");
            assert_eq!(tenth.balls.len(), balls_in_tenth, "{notation}");
            assert_eq!(s.total, total, "{notation}");
            assert!(s.complete, "{notation}");
        }
    }

    #[test]
    fn a_split_is_judged_only_at_a_full_rack() {
        let seven_ten = PinSet::from_pins([Pin::new(7).unwrap(), Pin::new(10).unwrap()]);
        let ball = |standing| Ball {
            t: 0,
            standing,
            foul: false,
            channel: None,
            corrected: false,
            deck: None,
        };
        let (first, _) = roll(Position::START, &ball(seven_ten), true);
        assert!(first.split);
        // Second ball at 1-7-10 leaves 7-10: not a split.
        let at = Position {
            frame: 1,
            ball: 2,
            before: PinSet::from_pins([1, 7, 10].map(|n| Pin::new(n).unwrap())),
            fresh_rack: false,
        };
        let (second, _) = roll(at, &ball(seven_ten), true);
        assert!(!second.split);
    }

    #[test]
    fn pins_reported_standing_that_had_already_fallen_are_ignored() {
        let at = Position {
            frame: 1,
            ball: 2,
            before: PinSet::from_pins([Pin::new(7).unwrap()]),
            fresh_rack: false,
        };
        let ball = Ball {
            t: 0,
            standing: PinSet::from_pins([Pin::new(10).unwrap()]),
            foul: false,
            channel: None,
            corrected: false,
            deck: None,
        };
        let (s, _) = roll(at, &ball, true);
        assert!(s.spare);
        assert!(s.standing.is_empty());
    }
    fn pins(list: &[u8]) -> PinSet {
        PinSet::from_pins(list.iter().map(|&n| Pin::new(n).unwrap()))
    }

    fn at_deck(standing: PinSet, deck: PinSet) -> Ball {
        Ball {
            t: 0,
            standing,
            foul: false,
            channel: None,
            corrected: false,
            deck: Some(deck),
        }
    }

    #[test]
    fn a_pin_the_machine_took_is_not_credited_and_stands_for_the_rules() {
        // The machine knocked the 5 down while setting; the ball took the
        // other nine: 9, not a strike, and the 5 is still to be made.
        let no_five = PinSet::FULL.without(pins(&[5]));
        let (s, next) = roll(Position::START, &at_deck(PinSet::EMPTY, no_five), true);
        assert_eq!(s.pinfall, 9);
        assert!(!s.strike);
        assert_eq!(s.standing, pins(&[5]));
        assert_eq!(s.wrong_deck, Some(no_five));
        assert!(!s.split, "a split is judged only at a full rack really set");
        let next = next.unwrap();
        assert_eq!((next.frame, next.ball, next.before), (1, 2, pins(&[5])));
    }

    #[test]
    fn a_pin_set_that_was_already_down_counts_for_nobody() {
        // Second ball expected at the 10; the machine set the 7 and the 10
        // and the ball took both: only the 10 counts.
        let at = Position {
            frame: 1,
            ball: 2,
            before: pins(&[10]),
            fresh_rack: false,
        };
        let (s, _) = roll(at, &at_deck(PinSet::EMPTY, pins(&[7, 10])), true);
        assert_eq!(s.pinfall, 1);
        assert!(s.spare);
        assert_eq!(s.wrong_deck, Some(pins(&[7, 10])));
    }

    #[test]
    fn no_respot_after_a_foul_gives_only_the_pins_really_knocked_down() {
        // F on the first ball: the rules respot all ten, the machine set
        // only the 4-7 and the ball took them: F2, not F/.
        let mut first = at_deck(pins(&[4, 7]), PinSet::FULL);
        first.foul = true;
        let second = at_deck(PinSet::EMPTY, pins(&[4, 7]));
        let s = sheet(&[first, second], true);
        assert_eq!(s.frames[0].marks(), "F2");
        assert_eq!(s.frames[0].cumulative, Some(2));
        assert_eq!(s.frames[0].balls[1].wrong_deck, Some(pins(&[4, 7])));
        assert_eq!(s.frames[0].balls[0].wrong_deck, None);
    }
    /// Every deck the machine could set and every report after the first
    /// ball: the ball is credited only with pins of that deck, and every
    /// pin the deck lacks still stands for the rules.
    #[test]
    fn no_deck_and_no_report_credits_a_pin_the_machine_did_not_set() {
        for deck in 0..1024 {
            let deck = PinSet::from_bits(deck).unwrap();
            let lacking = PinSet::FULL.without(deck);
            for standing in 0..1024 {
                let standing = PinSet::from_bits(standing).unwrap();
                let (s, _) = roll(Position::START, &at_deck(standing, deck), true);
                assert!(s.pinfall <= deck.len());
                assert_eq!(s.standing.intersect(lacking), lacking);
                assert_eq!(s.strike, deck == PinSet::FULL && standing.is_empty());
                assert_eq!(s.wrong_deck.is_some(), deck != PinSet::FULL);
            }
        }
    }
}
