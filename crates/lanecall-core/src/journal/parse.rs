//! An event line read: its JSON turned into a stamped event, sensor lines
//! in one pass, anything else field by field with an error that names what
//! is wrong. It never checks seals, line numbers or times (that is
//! `checked.rs`) and never writes a line.

use std::borrow::Cow;

use serde::Deserialize;

use super::{Input, LineError, ShortLine};
use crate::lane::{
    Action, Bowler, Class, DateFrom, DeckAfter, DeckFault, Event, Language, LaterBall, Millis,
    Panel, Pin, PinSet, Sensor, Side, Stamped, Verbosity, Voice, Withdrawable,
};
use crate::wall::{DayDate, WallTime};

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

#[derive(Deserialize)]
struct RawBowler {
    name: String,
    class: Class,
    #[serde(default)]
    handicap: i32,
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

/// The fields of a flat JSON object with only string and whole-number
/// values and no escapes: the shape of every sensor line.
#[derive(Default)]
struct Flat<'a> {
    t: Option<Millis>,
    ev: Option<&'a str>,
    state: Option<&'a str>,
    line: Option<&'a str>,
    name: Option<&'a str>,
    side: Option<&'a str>,
}

/// Scans a line as a [`Flat`] object. `None` for anything else (nesting,
/// escapes, other value types, a repeated field, bad JSON): such a line
/// goes to serde, which reads it or words the error.
fn scan_flat(line: &str) -> Option<Flat<'_>> {
    let b = line.as_bytes();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while b.get(*i).is_some_and(|c| matches!(c, b' ' | b'\t')) {
            *i += 1;
        }
    };
    // A string's contents, `i` just past its opening quote.
    let string = |i: &mut usize| -> Option<&str> {
        let start = *i;
        let len = b
            .get(start..)?
            .iter()
            .position(|&c| STRING_STOPS[usize::from(c)])?;
        if b[start + len] != b'"' {
            return None;
        }
        *i = start + len + 1;
        Some(&line[start..start + len])
    };
    // `c` at `i`, with or without blanks before it.
    let expect = |i: &mut usize, c: u8| -> Option<()> {
        if b.get(*i) != Some(&c) {
            skip_ws(i);
            if b.get(*i) != Some(&c) {
                return None;
            }
        }
        *i += 1;
        Some(())
    };
    let mut f = Flat::default();
    expect(&mut i, b'{')?;
    loop {
        expect(&mut i, b'"')?;
        let key = string(&mut i)?;
        expect(&mut i, b':')?;
        skip_ws(&mut i);
        match *b.get(i)? {
            b'"' => {
                i += 1;
                let v = string(&mut i)?;
                let slot = match key {
                    "ev" => &mut f.ev,
                    "state" => &mut f.state,
                    "line" => &mut f.line,
                    "name" => &mut f.name,
                    "side" => &mut f.side,
                    // Rare (journal.md, "Wall-clock time"): serde reads it.
                    "t" | "wall" => return None,
                    _ => &mut None,
                };
                if slot.replace(v).is_some() {
                    return None;
                }
            }
            b'0'..=b'9' => {
                let start = i;
                let mut n: u64 = 0;
                while let Some(d @ b'0'..=b'9') = b.get(i) {
                    n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
                    i += 1;
                }
                if b[start] == b'0' && i - start > 1 {
                    return None;
                }
                match key {
                    "t" if f.t.replace(n).is_none() => {}
                    "ev" | "state" | "line" | "name" | "side" | "t" => return None,
                    _ => {}
                }
            }
            _ => return None,
        }
        skip_ws(&mut i);
        match *b.get(i)? {
            b',' => i += 1,
            b'}' => break,
            _ => return None,
        }
    }
    i += 1;
    skip_ws(&mut i);
    (i == b.len()).then_some(f)
}

/// The bytes that end a string's contents in [`scan_flat`]: its closing
/// quote, or what it leaves to serde (an escape, a control character).
static STRING_STOPS: [bool; 256] = {
    let mut stops = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        stops[c] = true;
        c += 1;
    }
    stops[b'"' as usize] = true;
    stops[b'\\' as usize] = true;
    stops
};

/// Every sensor line in one pass, which is most of a journal. Anything it
/// does not recognise as a well-formed sensor event goes to the field by
/// field reading in [`parse_event`], which also words the errors.
fn parse_sensor_fast(line: &str) -> Option<Stamped<Input>> {
    let f = scan_flat(line)?;
    let sensor = match f.ev? {
        "serial" => {
            let line = f.line?;
            let t = f.t?;
            let event = match ShortLine::new(line) {
                Some(short) => Input::Serial(short),
                None => Input::Sensor(Sensor::Serial {
                    line: line.to_owned(),
                }),
            };
            return Some(Stamped { t, event });
        }
        "foul_beam" => match f.state? {
            "broken" => Sensor::FoulBeam { broken: true },
            "clear" => Sensor::FoulBeam { broken: false },
            _ => return None,
        },
        "ball" => Sensor::Ball,
        "channel" => match f.side? {
            "left" => Sensor::Channel { side: Side::Left },
            "right" => Sensor::Channel { side: Side::Right },
            _ => return None,
        },
        "button" => Sensor::Button {
            name: f.name?.to_owned(),
        },
        "serial_link" => match f.state? {
            "up" => Sensor::SerialLink { up: true },
            "down" => Sensor::SerialLink { up: false },
            _ => return None,
        },
        _ => return None,
    };
    Some(Stamped {
        t: f.t?,
        event: Input::Sensor(sensor),
    })
}

/// Reads the fields of one kind of event; unknown fields are ignored.
fn fields<'a, T: Deserialize<'a>>(ev: &str, line: &'a str) -> Result<T, LineError> {
    serde_json::from_str(line).map_err(|e| LineError::Field {
        ev: ev.to_owned(),
        message: e.to_string(),
    })
}

fn parse_action(ev: &str, line: &str) -> Result<Action, LineError> {
    Ok(match ev {
        "lineup" => {
            #[derive(Deserialize)]
            struct F {
                bowlers: Vec<RawBowler>,
            }
            Action::Lineup {
                bowlers: fields::<F>(ev, line)?
                    .bowlers
                    .into_iter()
                    .map(Bowler::from)
                    .collect(),
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
                    Ok(LaterBall {
                        standing: pins(ev, &l.standing)?,
                        foul: l.foul,
                    })
                })
                .collect::<Result<_, LineError>>()?;
            Action::Correct {
                bowler: f.bowler,
                game: f.game,
                frame: f.frame,
                ball: f.ball,
                standing: pins(ev, &f.standing)?,
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
