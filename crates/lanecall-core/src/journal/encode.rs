//! An event line written: the JSON of a stamped event, `t` first, and the
//! same sealed as line `n`. It never reads a line.

use serde_json::{Map, Value, json};

use super::seal::seal;
use crate::lane::{Action, Bowler, Event, Pin, PinSet, Sensor, Stamped, Verbosity};
use crate::wall::WallTime;

/// A bowler as a lineup names them (the journal's and the panel's form).
pub fn bowler_json(b: &Bowler) -> Value {
    let mut v = json!({"name": b.name, "class": b.class.as_str()});
    if b.handicap != 0 {
        v["handicap"] = json!(b.handicap);
    }
    if let Some(team) = &b.team {
        v["team"] = json!(team);
    }
    if b.voice.verbosity != Verbosity::Pins {
        v["voice"] = json!(b.voice.verbosity.as_str());
    }
    if let Some(lang) = b.voice.language {
        v["lang"] = json!(lang.as_str());
    }
    if let Some(extras) = b.voice.extras {
        v["extras"] = json!(extras);
    }
    v
}

fn standing_json(p: PinSet) -> Value {
    json!(p.iter().map(Pin::number).collect::<Vec<_>>())
}

/// Pins as entered on the pin pad: each of `standing`, and again each of
/// `twice`.
fn entered_json(standing: PinSet, twice: PinSet) -> Value {
    let pins = standing.iter().flat_map(|p| {
        let again = twice.contains(p).then_some(p);
        std::iter::once(p).chain(again).map(Pin::number)
    });
    json!(pins.collect::<Vec<_>>())
}

/// The line for an event, without its `\n`.
pub fn event_line(e: &Stamped<Event>) -> String {
    let mut m = Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_owned(), v);
    };
    match &e.event {
        Event::Sensor(s) => {
            put("ev", json!(s.name()));
            match s {
                Sensor::FoulBeam { broken } => {
                    put("state", json!(if *broken { "broken" } else { "clear" }))
                }
                Sensor::Ball => {}
                Sensor::Channel { side } => put("side", json!(side.as_str())),
                Sensor::Button { name } => put("name", json!(name)),
                Sensor::Serial { line } => put("line", json!(line)),
                Sensor::SerialLink { up } => put("state", json!(if *up { "up" } else { "down" })),
                Sensor::Neighbour { lane, busy } => {
                    put("lane", json!(lane));
                    put("busy", json!(busy));
                }
                Sensor::Deck { after, standing } => {
                    put("after", json!(after.as_str()));
                    put("standing", standing_json(*standing));
                }
                Sensor::DeckFault { fault, pins } => {
                    put("fault", json!(fault.as_str()));
                    put("pins", standing_json(*pins));
                }
            }
        }
        Event::Panel(p) => {
            put("ev", json!(p.action.name()));
            match &p.action {
                Action::Lineup {
                    bowlers,
                    block,
                    games,
                } => {
                    put("bowlers", bowlers.iter().map(bowler_json).collect());
                    // Added later: left out when not given, so a lineup
                    // typed on the panel is the line it always was.
                    if let Some(block) = block {
                        put("block", json!(block));
                    }
                    if let Some(games) = games {
                        put("games", json!(games));
                    }
                }
                Action::StartBlock { games } => put("games", json!(games)),
                Action::BlindfoldCheck { bowler, ok } => {
                    put("bowler", json!(bowler));
                    put("ok", json!(ok));
                }
                Action::BlindfoldAdjust { bowler } | Action::BlindfoldRecheck { bowler } => {
                    put("bowler", json!(bowler))
                }
                Action::Substitute { out, incoming } => {
                    put("out", json!(out));
                    put("in", bowler_json(incoming));
                }
                Action::Correct {
                    bowler,
                    game,
                    frame,
                    ball,
                    standing,
                    twice,
                    foul,
                    later,
                } => {
                    put("bowler", json!(bowler));
                    put("game", json!(game));
                    put("frame", json!(frame));
                    put("ball", json!(ball));
                    put("standing", entered_json(*standing, *twice));
                    if let Some(f) = foul {
                        put("foul", json!(f));
                    }
                    if !later.is_empty() {
                        let balls = later.iter().map(|l| {
                            let mut b = json!({"standing": entered_json(l.standing, l.twice)});
                            if let Some(f) = l.foul {
                                b["foul"] = json!(f);
                            }
                            b
                        });
                        put("later", balls.collect());
                    }
                }
                Action::Penalty { bowler, reason } => {
                    put("bowler", json!(bowler));
                    put("reason", json!(reason));
                }
                Action::Hold { on, reason } => {
                    put("on", json!(on));
                    if let Some(r) = reason {
                        put("reason", json!(r));
                    }
                }
                Action::ManualPins { standing, twice } => {
                    put("standing", entered_json(*standing, *twice))
                }
                Action::DeadBall | Action::EndBlock => {}
                Action::Date { date, from } => {
                    put("date", json!(date));
                    put("from", json!(from.as_str()));
                }
                Action::Withdraw { of, at, bowler } => {
                    put("of", json!(of.as_str()));
                    put("at", json!(at));
                    if let Some(b) = bowler {
                        put("bowler", json!(b));
                    }
                }
            }
            if let Some(by) = &p.by {
                put("by", json!(by));
            }
            if p.chief {
                put("chief", json!(true));
            }
            if let Some(cmd) = &p.cmd {
                put("cmd", json!(cmd));
            }
        }
    }
    // `t` first, as people read a journal: `{"t":5120,"ev":"ball"}`.
    let rest = Value::Object(m).to_string();
    format!("{{\"t\":{},{}", e.t, &rest[1..])
}

/// The line for an event as line `n` of a format 2 journal, without its
/// `\n`.
pub fn sealed_event_line(e: &Stamped<Event>, n: u64) -> String {
    seal(&event_line(e), n)
}

/// [`sealed_event_line`] with the wall-clock time of its `t` (`wall`,
/// after the event's own fields), when there is one.
pub fn sealed_line_at(e: &Stamped<Event>, n: u64, wall: Option<WallTime>) -> String {
    let mut line = event_line(e);
    if let Some(wall) = wall {
        line.pop();
        line += &format!(",\"wall\":\"{wall}\"}}");
    }
    seal(&line, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::parse_event;
    use crate::lane::{Class, Language, LaterBall, Panel, Side, Voice};
    use crate::lane::{DeckAfter, DeckFault, Withdrawable};

    #[test]
    fn every_event_round_trips_through_its_line() {
        let anna = Bowler {
            name: "Anna K.".into(),
            class: Class::B1,
            handicap: 12,
            team: Some("Kazan".into()),
            voice: Voice {
                verbosity: Verbosity::Short,
                language: Some(Language::En),
                extras: Some(true),
            },
        };
        let seven_ten = PinSet::from_pins([7, 10].map(|n| Pin::new(n).unwrap()));
        let sensors = [
            Sensor::FoulBeam { broken: true },
            Sensor::FoulBeam { broken: false },
            Sensor::Ball,
            Sensor::Channel { side: Side::Left },
            Sensor::Button {
                name: "repeat".into(),
            },
            Sensor::Serial {
                line: "$PS,PINS,1,0000001001*1A \"quoted\"".into(),
            },
            Sensor::SerialLink { up: false },
            Sensor::Deck {
                after: DeckAfter::Ball,
                standing: seven_ten,
            },
            Sensor::Deck {
                after: DeckAfter::Set,
                standing: PinSet::FULL,
            },
            Sensor::DeckFault {
                fault: DeckFault::Flicker,
                pins: seven_ten,
            },
        ];
        let actions = [
            Action::Lineup {
                bowlers: vec![anna.clone()],
                block: None,
                games: None,
            },
            Action::Lineup {
                bowlers: vec![anna.clone()],
                block: Some("RR-B1".into()),
                games: Some(1),
            },
            Action::StartBlock { games: 3 },
            Action::BlindfoldCheck {
                bowler: "Anna K.".into(),
                ok: true,
            },
            Action::BlindfoldAdjust {
                bowler: "Anna K.".into(),
            },
            Action::BlindfoldRecheck {
                bowler: "Anna K.".into(),
            },
            Action::Substitute {
                out: "Anna K.".into(),
                incoming: anna,
            },
            Action::Correct {
                bowler: "Anna K.".into(),
                game: 1,
                frame: 4,
                ball: 2,
                standing: seven_ten,
                twice: PinSet::EMPTY,
                foul: Some(true),
                later: vec![
                    LaterBall {
                        standing: PinSet::EMPTY,
                        twice: PinSet::EMPTY,
                        foul: None,
                    },
                    LaterBall {
                        standing: seven_ten,
                        twice: PinSet::from_pins(Pin::new(10)),
                        foul: Some(false),
                    },
                ],
            },
            Action::Correct {
                bowler: "Anna K.".into(),
                game: 1,
                frame: 4,
                ball: 2,
                standing: seven_ten,
                twice: PinSet::from_pins(Pin::new(7)),
                foul: None,
                later: vec![],
            },
            Action::Penalty {
                bowler: "Anna K.".into(),
                reason: "slow_bowling".into(),
            },
            Action::Hold {
                on: true,
                reason: Some("lane oil".into()),
            },
            Action::ManualPins {
                standing: seven_ten,
                twice: PinSet::EMPTY,
            },
            Action::ManualPins {
                standing: seven_ten,
                twice: PinSet::from_pins(Pin::new(7)),
            },
            Action::DeadBall,
            Action::EndBlock,
            Action::Withdraw {
                of: Withdrawable::Penalty,
                at: 7000,
                bowler: Some("Anna K.".into()),
            },
            Action::Withdraw {
                of: Withdrawable::ManualPins,
                at: 9000,
                bowler: None,
            },
            Action::Date {
                date: crate::wall::DayDate::parse("2026-11-30").unwrap(),
                from: crate::lane::DateFrom::Judge,
            },
            Action::Date {
                date: crate::wall::DayDate::parse("2026-11-30").unwrap(),
                from: crate::lane::DateFrom::Centre,
            },
        ];
        let events = sensors
            .into_iter()
            .map(Event::Sensor)
            .chain(
                actions
                    .into_iter()
                    .map(|action| Event::Panel(Panel::new(Some("judge Petrova".into()), action))),
            )
            .chain([Event::Panel(Panel {
                by: Some("judge Petrova".into()),
                chief: true,
                cmd: Some("c-41".into()),
                action: Action::EndBlock,
            })]);
        for (t, event) in events.enumerate() {
            let stamped = Stamped {
                t: t as u64 * 1000,
                event,
            };
            let line = event_line(&stamped);
            assert_eq!(parse_event(&line).as_ref(), Ok(&stamped), "{line}");
        }
    }
}
