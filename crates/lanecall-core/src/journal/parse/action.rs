//! A panel action read from its line's fields (journal.md), each kind of
//! action with its own fields; a bad one is refused with an error that
//! names the event and what is wrong. Who signed it (`by`, `chief`,
//! `cmd`) is read by `super`.

use serde::Deserialize;

use super::{LineError, entered, fields};
use crate::lane::{
    Action, Bowler, Class, DateFrom, Language, LaterBall, Millis, Verbosity, Voice, Withdrawable,
};
use crate::wall::DayDate;

#[derive(Deserialize)]
struct RawBowler {
    name: String,
    class: Class,
    #[serde(default)]
    handicap: crate::lane::Handicap,
    team: Option<String>,
    #[serde(default)]
    voice: Verbosity,
    lang: Option<Language>,
    extras: Option<bool>,
}

impl From<RawBowler> for Bowler {
    fn from(b: RawBowler) -> Bowler {
        Bowler {
            name: b.name,
            class: b.class,
            handicap: b.handicap,
            team: b.team,
            voice: Voice {
                verbosity: b.voice,
                language: b.lang,
                extras: b.extras,
            },
        }
    }
}

pub(super) fn parse_action(ev: &str, line: &str) -> Result<Action, LineError> {
    Ok(match ev {
        "lineup" => {
            #[derive(Deserialize)]
            struct F {
                bowlers: Vec<RawBowler>,
                /// The centre's block id and its games (added later).
                block: Option<String>,
                games: Option<u32>,
            }
            let f = fields::<F>(ev, line)?;
            Action::Lineup {
                bowlers: f.bowlers.into_iter().map(Bowler::from).collect(),
                block: f.block,
                games: f.games,
            }
        }
        "start_block" => {
            #[derive(Deserialize)]
            struct F {
                games: u32,
            }
            Action::StartBlock {
                games: fields::<F>(ev, line)?.games,
            }
        }
        "blindfold_check" => {
            #[derive(Deserialize)]
            struct F {
                bowler: String,
                ok: bool,
            }
            let f: F = fields(ev, line)?;
            Action::BlindfoldCheck {
                bowler: f.bowler,
                ok: f.ok,
            }
        }
        "blindfold_adjust" => {
            #[derive(Deserialize)]
            struct F {
                bowler: String,
            }
            Action::BlindfoldAdjust {
                bowler: fields::<F>(ev, line)?.bowler,
            }
        }
        "blindfold_recheck" => {
            #[derive(Deserialize)]
            struct F {
                bowler: String,
            }
            Action::BlindfoldRecheck {
                bowler: fields::<F>(ev, line)?.bowler,
            }
        }
        "substitute" => {
            #[derive(Deserialize)]
            struct F {
                out: String,
                #[serde(rename = "in")]
                incoming: RawBowler,
            }
            let f: F = fields(ev, line)?;
            Action::Substitute {
                out: f.out,
                incoming: f.incoming.into(),
            }
        }
        "correct" => {
            #[derive(Deserialize)]
            struct Later {
                standing: Vec<u8>,
                foul: Option<bool>,
            }
            #[derive(Deserialize)]
            struct F {
                bowler: String,
                game: u8,
                frame: u8,
                ball: u8,
                standing: Vec<u8>,
                foul: Option<bool>,
                #[serde(default)]
                later: Vec<Later>,
            }
            let f: F = fields(ev, line)?;
            let later = f
                .later
                .iter()
                .map(|l| {
                    let (standing, twice) = entered(ev, &l.standing)?;
                    Ok(LaterBall {
                        standing,
                        twice,
                        foul: l.foul,
                    })
                })
                .collect::<Result<_, LineError>>()?;
            let (standing, twice) = entered(ev, &f.standing)?;
            Action::Correct {
                bowler: f.bowler,
                game: f.game,
                frame: f.frame,
                ball: f.ball,
                standing,
                twice,
                foul: f.foul,
                later,
            }
        }
        "penalty" => {
            #[derive(Deserialize)]
            struct F {
                bowler: String,
                reason: String,
            }
            let f: F = fields(ev, line)?;
            Action::Penalty {
                bowler: f.bowler,
                reason: f.reason,
            }
        }
        "hold" => {
            #[derive(Deserialize)]
            struct F {
                on: bool,
                reason: Option<String>,
            }
            let f: F = fields(ev, line)?;
            Action::Hold {
                on: f.on,
                reason: f.reason,
            }
        }
        "manual_pins" => {
            #[derive(Deserialize)]
            struct F {
                standing: Vec<u8>,
            }
            let (standing, twice) = entered(ev, &fields::<F>(ev, line)?.standing)?;
            Action::ManualPins { standing, twice }
        }
        "dead_ball" => Action::DeadBall,
        "end_block" => Action::EndBlock,
        "withdraw" => {
            #[derive(Deserialize)]
            struct F {
                of: String,
                at: Millis,
                bowler: Option<String>,
            }
            let f: F = fields(ev, line)?;
            let bad = |message: String| LineError::Field {
                ev: ev.to_owned(),
                message,
            };
            let Some(of) = Withdrawable::parse(&f.of) else {
                let known: Vec<&str> = Withdrawable::ALL.iter().map(|w| w.as_str()).collect();
                return Err(bad(format!(
                    "of {:?} is not an action that can be withdrawn ({})",
                    f.of.chars().take(40).collect::<String>(),
                    known.join(", ")
                )));
            };
            match (&f.bowler, of.of_bowler()) {
                (None, true) => {
                    return Err(bad(format!(
                        "withdrawing a {} needs its bowler",
                        of.as_str()
                    )));
                }
                (Some(_), false) => {
                    return Err(bad(format!("withdrawing {} names no bowler", of.as_str())));
                }
                _ => {}
            }
            Action::Withdraw {
                of,
                at: f.at,
                bowler: f.bowler,
            }
        }
        "date" => {
            #[derive(Deserialize)]
            struct F {
                date: DayDate,
                from: String,
            }
            let f: F = fields(ev, line)?;
            let Some(from) = DateFrom::parse(&f.from) else {
                let known: Vec<&str> = DateFrom::ALL.iter().map(|f| f.as_str()).collect();
                return Err(LineError::Field {
                    ev: ev.to_owned(),
                    message: format!(
                        "from {:?} is not one of {}",
                        f.from.chars().take(40).collect::<String>(),
                        known.join(", ")
                    ),
                });
            };
            Action::Date { date: f.date, from }
        }
        other => return Err(LineError::UnknownEvent(other.chars().take(40).collect())),
    })
}
