//! What the judges must see: fouls, slow bowling, blindfolds, pinsetter
//! trouble, penalties.

use serde::Serialize;

use super::event::Millis;

/// A warning or a penalty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Warning,
    Penalty,
}

/// One incident on the lane.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Conduct {
    /// Unique in the lane, so that an entry can be updated later.
    #[serde(skip)]
    pub id: u32,
    pub t: Millis,
    pub bowler: Option<String>,
    #[serde(flatten)]
    pub kind: ConductKind,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ConductKind {
    Foul {
        game: u8,
        frame: u8,
        ball: u8,
        /// `false` with `foul_mode = "warn"`: the lamp lit, the score did not
        /// change.
        counted: bool,
        /// A judge's correction took the foul back.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        withdrawn: bool,
        /// Set when a judge called it through a correction.
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    SlowBowling {
        level: Level,
        /// The bowler's time on the clock: the limit when flagged, the whole
        /// time once the ball was released.
        seconds: f64,
        /// The judge who confirmed the penalty.
        #[serde(skip_serializing_if = "Option::is_none")]
        confirmed_by: Option<String>,
    },
    Blindfold {
        /// `failed_check`, or `bowled_unchecked` for a delivery by a B1
        /// bowler whose blindfold was not (re-)checked.
        issue: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        /// The judge withdrew the failed check.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        withdrawn: bool,
    },
    NoPinReport,
    PinsetterFault {
        text: String,
    },
    /// A pin report (the pinsetter's `PINS`, a string pinsetter's deck
    /// after a ball) named as standing `pins` that were down at the deck
    /// the ball was bowled at (`bowled_at`), with no deck set between:
    /// no ball stands a pin up. The ball counts what the report says of
    /// the deck's pins (rules.md, "Pins standing that had fallen"); a
    /// judge checks the deck and corrects the ball or declares it dead.
    PinsStoodUp {
        game: u8,
        frame: u8,
        ball: u8,
        pins: Vec<u8>,
        bowled_at: Vec<u8>,
    },
    Penalty {
        reason: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        /// The judge withdrew it.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        withdrawn: bool,
        /// The slow-bowling entry it confirmed, if any.
        #[serde(skip)]
        confirms: Option<u32>,
    },
    /// A judge declared a ball dead: it does not count and is bowled again
    /// at `deck`, the pins the rules had standing before it.
    DeadBall {
        game: u8,
        frame: u8,
        ball: u8,
        deck: Vec<u8>,
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
}

impl std::fmt::Display for ConductKind {
    /// For a judge reading a terminal: `foul in game 1, frame 6, ball 1`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let level = |l: &Level| match l {
            Level::Warning => "warning",
            Level::Penalty => "penalty",
        };
        match self {
            ConductKind::Foul {
                game,
                frame,
                ball,
                counted,
                withdrawn,
                by,
            } => {
                write!(f, "foul in game {game}, frame {frame}, ball {ball}")?;
                if !counted {
                    f.write_str(" (warning only)")?;
                }
                if let Some(by) = by {
                    write!(f, ", called by {by}")?;
                }
                if *withdrawn {
                    f.write_str(", withdrawn by a correction")?;
                }
                Ok(())
            }
            ConductKind::SlowBowling {
                level: l,
                seconds,
                confirmed_by,
            } => {
                write!(f, "slow bowling {} ({seconds:.1} s)", level(l))?;
                match (l, confirmed_by) {
                    (Level::Penalty, Some(by)) => write!(f, ", confirmed by {by}"),
                    (Level::Penalty, None) => f.write_str(", for a judge to confirm"),
                    _ => Ok(()),
                }
            }
            ConductKind::Blindfold {
                issue,
                by,
                withdrawn,
            } => {
                let what = match *issue {
                    "failed_check" => "blindfold check failed",
                    _ => "bowled without a blindfold check",
                };
                f.write_str(what)?;
                by.as_ref().map_or(Ok(()), |by| write!(f, " ({by})"))?;
                withdrawn_by_judge(f, *withdrawn)
            }
            ConductKind::NoPinReport => {
                f.write_str("no pin report from the pinsetter: a judge enters the pins")
            }
            ConductKind::PinsetterFault { text } => write!(f, "pinsetter fault {text}"),
            ConductKind::PinsStoodUp {
                game,
                frame,
                ball,
                pins,
                bowled_at,
            } => {
                let list = |p: &[u8]| {
                    let p: Vec<String> = p.iter().map(u8::to_string).collect();
                    p.join(", ")
                };
                write!(
                    f,
                    "pin report for game {game}, frame {frame}, ball {ball} names {} standing that \
                     {} down at the deck it was bowled at ({}): counted as fallen; a judge checks \
                     the deck and corrects the ball or declares it dead",
                    match pins.len() {
                        1 => format!("pin {}", list(pins)),
                        _ => format!("pins {}", list(pins)),
                    },
                    if pins.len() == 1 { "was" } else { "were" },
                    list(bowled_at)
                )
            }
            ConductKind::Penalty {
                reason,
                by,
                withdrawn,
                ..
            } => {
                write!(f, "penalty: {reason}")?;
                by.as_ref().map_or(Ok(()), |by| write!(f, " ({by})"))?;
                withdrawn_by_judge(f, *withdrawn)
            }
            ConductKind::DeadBall {
                game,
                frame,
                ball,
                deck,
                by,
            } => {
                write!(f, "dead ball in game {game}, frame {frame}, ball {ball}")?;
                if let Some(by) = by {
                    write!(f, ", declared by {by}")?;
                }
                let pins: Vec<String> = deck.iter().map(u8::to_string).collect();
                write!(f, "; bowled again at {}", pins.join("-"))
            }
        }
    }
}

fn withdrawn_by_judge(f: &mut std::fmt::Formatter<'_>, withdrawn: bool) -> std::fmt::Result {
    if withdrawn {
        f.write_str(", withdrawn by the judge")?;
    }
    Ok(())
}
