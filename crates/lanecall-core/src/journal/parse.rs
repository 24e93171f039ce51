//! An event line read: its JSON turned into a stamped event, sensor lines
//! in one pass, anything else field by field with an error that names what
//! is wrong. It never checks seals, line numbers or times (that is
//! `checked.rs`) and never writes a line.
//!
//! `fast.rs` reads a sensor line in one pass; `action.rs` reads a panel
//! action's fields. This file holds the rest: the fields every line has,
//! the sensor lines field by field, and pins as entered.

mod action;
mod fast;

use std::borrow::Cow;

use serde::Deserialize;

use super::{Input, LineError, ShortLine};
use crate::lane::{
    Action, DeckAfter, DeckFault, Event, Millis, Panel, Pin, PinSet, Sensor, Side, Stamped,
};
use crate::wall::WallTime;
use action::parse_action;
use fast::parse_sensor_fast;
pub(super) use fast::parse_written;

/// The fields every event line has.
#[derive(Deserialize)]
struct Head<'a> {
    t: Millis,
    #[serde(borrow)]
    ev: Cow<'a, str>,
    /// The wall-clock time of `t` (journal.md, "Wall-clock time"); a
    /// value that is not one is ignored, as an unknown field is.
    #[serde(borrow, default)]
    wall: Option<Cow<'a, str>>,
}

fn pins(ev: &str, list: &[u8]) -> Result<PinSet, LineError> {
    entered(ev, list).map(|(standing, _)| standing)
}

/// Pins as entered: the set, and the pins entered more than once.
fn entered(ev: &str, list: &[u8]) -> Result<(PinSet, PinSet), LineError> {
    let mut standing = PinSet::EMPTY;
    let mut twice = PinSet::EMPTY;
    for &n in list {
        let pin = Pin::new(n).ok_or_else(|| LineError::Field {
            ev: ev.to_owned(),
            message: format!("standing: pin {n} does not exist (pins are 1 to 10)"),
        })?;
        let one = PinSet::from_pins([pin]);
        if standing.contains(pin) {
            twice = twice.union(one);
        }
        standing = standing.union(one);
    }
    Ok((standing, twice))
}

/// A panel action as the panel posts it (one JSON object with its `ev`
/// and fields, no `t`), signed `by`: checked as a journal line would be.
/// The panel's `POST /api/actions` and the centre's commands both take
/// actions this way.
pub fn parse_panel_action(raw: &[u8], by: &str) -> Result<Action, String> {
    let mut fields: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(raw).map_err(|e| format!("an action is one JSON object: {e}"))?;
    fields.insert("t".into(), serde_json::json!(0));
    fields.insert("by".into(), serde_json::json!(by));
    let line = serde_json::Value::Object(fields).to_string();
    match parse_event(&line) {
        Ok(stamped) => match stamped.event {
            Event::Panel(panel) => Ok(panel.action),
            Event::Sensor(_) => Err("only panel events can be posted".into()),
        },
        Err(e) => Err(e.to_string()),
    }
}

/// Parses one event line (without its `\n`).
pub fn parse_event(line: &str) -> Result<Stamped<Event>, LineError> {
    parse_input(line).map(|(e, _)| Stamped {
        t: e.t,
        event: e.event.into(),
    })
}

/// [`parse_event`], its event as a journal's [`Input`], and the line's
/// wall-clock time of its `t`, if it gives one.
pub(super) fn parse_input(line: &str) -> Result<(Stamped<Input>, Option<WallTime>), LineError> {
    if line.trim().is_empty() {
        return Err(LineError::Empty);
    }
    if let Some(e) = parse_sensor_fast(line) {
        return Ok((e, None));
    }
    parse_event_slow(line).map(|(e, wall)| {
        let e = Stamped {
            t: e.t,
            event: e.event.into(),
        };
        (e, wall)
    })
}

/// [`parse_input`] without the one-pass reading of sensor lines.
fn parse_event_slow(line: &str) -> Result<(Stamped<Event>, Option<WallTime>), LineError> {
    let head: Head = serde_json::from_str(line).map_err(|e| LineError::Json(e.to_string()))?;
    let ev = head.ev.as_ref();
    #[derive(Deserialize)]
    struct State<'a> {
        #[serde(borrow)]
        state: Cow<'a, str>,
    }
    #[derive(Deserialize)]
    struct By {
        by: Option<String>,
        #[serde(default)]
        chief: bool,
        cmd: Option<String>,
    }
    let bad = |message: String| LineError::Field {
        ev: ev.to_owned(),
        message,
    };
    let sensor = |s| Ok(Event::Sensor(s));
    let event = match ev {
        "foul_beam" => match fields::<State>(ev, line)?.state.as_ref() {
            "broken" => sensor(Sensor::FoulBeam { broken: true }),
            "clear" => sensor(Sensor::FoulBeam { broken: false }),
            other => Err(bad(format!(
                "state {other:?} is not \"broken\" or \"clear\""
            ))),
        },
        "ball" => sensor(Sensor::Ball),
        "channel" => {
            #[derive(Deserialize)]
            struct F {
                side: Side,
            }
            sensor(Sensor::Channel {
                side: fields::<F>(ev, line)?.side,
            })
        }
        "button" => {
            #[derive(Deserialize)]
            struct F {
                name: String,
            }
            sensor(Sensor::Button {
                name: fields::<F>(ev, line)?.name,
            })
        }
        "serial" => {
            #[derive(Deserialize)]
            struct F {
                line: String,
            }
            sensor(Sensor::Serial {
                line: fields::<F>(ev, line)?.line,
            })
        }
        "serial_link" => match fields::<State>(ev, line)?.state.as_ref() {
            "up" => sensor(Sensor::SerialLink { up: true }),
            "down" => sensor(Sensor::SerialLink { up: false }),
            other => Err(bad(format!("state {other:?} is not \"up\" or \"down\""))),
        },
        "neighbour" => {
            #[derive(Deserialize)]
            struct F {
                lane: u32,
                busy: bool,
            }
            let f = fields::<F>(ev, line)?;
            sensor(Sensor::Neighbour {
                lane: f.lane,
                busy: f.busy,
            })
        }
        "deck" => {
            #[derive(Deserialize)]
            struct F {
                after: String,
                standing: Vec<u8>,
            }
            let f = fields::<F>(ev, line)?;
            let after = match f.after.as_str() {
                "ball" => DeckAfter::Ball,
                "set" => DeckAfter::Set,
                other => {
                    let other: String = other.chars().take(40).collect();
                    return Err(bad(format!("after {other:?} is not \"ball\" or \"set\"")));
                }
            };
            sensor(Sensor::Deck {
                after,
                standing: pins(ev, &f.standing)?,
            })
        }
        "deck_fault" => {
            #[derive(Deserialize)]
            struct F {
                fault: String,
                #[serde(default)]
                pins: Vec<u8>,
            }
            let f = fields::<F>(ev, line)?;
            let Some(fault) = DeckFault::parse(&f.fault) else {
                let known: Vec<&str> = DeckFault::ALL.iter().map(|f| f.as_str()).collect();
                let other: String = f.fault.chars().take(40).collect();
                return Err(bad(format!(
                    "fault {other:?} is not one of {}",
                    known.join(", ")
                )));
            };
            sensor(Sensor::DeckFault {
                fault,
                pins: pins(ev, &f.pins)?,
            })
        }
        _ => {
            let action = parse_action(ev, line)?;
            let By { by, chief, cmd } = fields::<By>(ev, line)?;
            Ok(Event::Panel(Panel {
                by,
                chief,
                cmd,
                action,
            }))
        }
    }?;
    let wall = head.wall.as_deref().and_then(WallTime::parse);
    Ok((Stamped { t: head.t, event }, wall))
}

/// Reads the fields of one kind of event; unknown fields are ignored.
fn fields<'a, T: Deserialize<'a>>(ev: &str, line: &'a str) -> Result<T, LineError> {
    serde_json::from_str(line).map_err(|e| LineError::Field {
        ev: ev.to_owned(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_say_what_is_wrong() {
        let err = |l: &str| parse_event(l).unwrap_err().to_string();
        assert!(err(r#"{"t":1,"ev":"warp"}"#).contains("unknown event `warp`"));
        assert!(err(r#"{"ev":"ball"}"#).contains("missing field `t`"));
        assert!(
            err(r#"{"t":1,"ev":"foul_beam","state":"open"}"#).contains("foul_beam: state \"open\"")
        );
        assert!(
            err(r#"{"t":1,"ev":"manual_pins","standing":[11]}"#).contains("pin 11 does not exist")
        );
        assert!(
            err(r#"{"t":1,"ev":"correct","bowler":"A","game":1,"frame":1,"ball":1,"standing":[],"later":[{"standing":[0]}]}"#)
                .contains("pin 0 does not exist")
        );
        assert!(
            err(r#"{"t":1,"ev":"correct","bowler":"A","game":1,"frame":1,"ball":1,"standing":[],"later":[{}]}"#)
                .contains("missing field `standing`")
        );
        assert!(
            err(r#"{"t":1,"ev":"lineup","bowlers":[{"name":"A","class":"B4"}]}"#)
                .contains("lineup:")
        );
        assert!(err("{\"t\":1,").starts_with("not a JSON event"));
        assert_eq!(parse_event(""), Err(LineError::Empty));
    }

    /// The one-pass reading of sensor lines agrees with serde's, or leaves
    /// the line to it.
    #[test]
    fn the_fast_path_reads_what_serde_reads() {
        let lines = [
            r#"{"t":1,"ev":"ball"}"#,
            r#"{"ev":"ball","t":1}"#,
            r#" { "t" : 12 , "ev" : "foul_beam" , "state" : "broken" } "#,
            r#"{"t":1,"ev":"serial","line":"$PS,PINS,1,0000001001*1A","extra":"x","n":5}"#,
            r#"{"t":1,"ev":"serial","line":"tab\tescaped"}"#,
            r#"{"t":1,"ev":"button","name":"répéter"}"#,
            r#"{"t":1,"ev":"channel","side":"left"}"#,
            r#"{"t":1,"ev":"serial_link","state":"down"}"#,
            r#"{"t":1,"ev":"ball","t":2}"#,
            r#"{"t":01,"ev":"ball"}"#,
            r#"{"t":1.5,"ev":"ball"}"#,
            r#"{"t":-1,"ev":"ball"}"#,
            r#"{"t":99999999999999999999,"ev":"ball"}"#,
            r#"{"t":1,"ev":"ball","x":{"a":1}}"#,
            r#"{"t":1,"ev":"ball"} trailing"#,
            r#"{"t":1,"ev":"ball",}"#,
            r#"{"t":"1","ev":"ball"}"#,
            r#"{"t":1,"ev":"foul_beam","state":"sideways"}"#,
            "{\"t\":1,\"ev\":\"serial\",\"line\":\"a\u{1}b\"}",
        ];
        for line in lines {
            let serde = {
                let head: Result<Head, _> = serde_json::from_str(line);
                head.ok().map(|_| ())
            };
            match parse_sensor_fast(line) {
                Some(fast) => {
                    assert!(serde.is_some(), "fast path took bad JSON: {line}");
                    let mut slow = parse_event_slow(line).map(|(e, _)| e);
                    let fast = Stamped {
                        t: fast.t,
                        event: Event::from(fast.event),
                    };
                    assert_eq!(slow.as_mut().ok(), Some(&mut fast.clone()), "{line}");
                }
                None => {
                    let _ = parse_event(line);
                }
            }
        }
        assert!(parse_sensor_fast(lines[0]).is_some());
        assert!(parse_sensor_fast(lines[3]).is_some());
        assert!(
            parse_sensor_fast(lines[8]).is_none(),
            "a repeated field goes to serde"
        );
        assert!(
            parse_event(lines[8]).is_err(),
            "serde refuses a repeated field"
        );
        assert!(parse_event(lines[9]).is_err());
        assert!(parse_event(lines[12]).is_err());
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let e = parse_event(r#"{"t":5,"ev":"ball","speed_kmh":27.5,"state":{"x":1}}"#).unwrap();
        assert_eq!(e.event, Event::Sensor(Sensor::Ball));
    }
}
