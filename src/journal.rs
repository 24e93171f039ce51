//! The lane journal, format 1 (journal.md): UTF-8 JSON Lines, a header line
//! and then one input per line.
//!
//! The journal holds inputs only; scores are always recomputed from it. The
//! reader streams (a journal is never loaded whole), reports a line that does
//! not parse by its number and goes on, and treats a last line without its
//! `\n` as the normal state after a power cut.

use std::borrow::Cow;
use std::io::{self, BufRead, Write};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::lane::{
    Action, Bowler, Class, Event, Language, Millis, Panel, Pin, PinSet, Rules, Sensor, Side,
    Stamped, Verbosity, Voice,
};

pub const FORMAT_VERSION: u32 = 1;

/// The journal's first line.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub lane: u32,
    pub started_at: Option<String>,
    pub rules: Rules,
}

/// Why a file is not a journal this version can replay.
#[derive(Debug, thiserror::Error)]
pub enum HeaderError {
    #[error("the file is empty: no journal header")]
    Empty,
    #[error("line 1 is not a lanecall journal header: {0}")]
    NotAHeader(String),
    #[error(
        "journal format version {0} is not supported (this lanecall reads version {FORMAT_VERSION})"
    )]
    Version(u32),
    #[error("journal header rules: {0}")]
    Rules(String),
    #[error("cannot read the journal: {0}")]
    Io(#[from] io::Error),
}

/// Why one event line was not applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("not UTF-8 text")]
    NotUtf8,
    #[error("empty line")]
    Empty,
    #[error("not a JSON event: {0}")]
    Json(String),
    #[error("unknown event `{0}`")]
    UnknownEvent(String),
    #[error("{ev}: {message}")]
    Field { ev: String, message: String },
    #[error("t={t} is before the previous line's t={previous}: t never decreases")]
    TimeBackwards { t: Millis, previous: Millis },
}

impl Header {
    pub fn new(lane: u32, started_at: Option<String>, rules: Rules) -> Header {
        Header {
            lane,
            started_at,
            rules,
        }
    }

    pub fn parse(line: &str) -> Result<Header, HeaderError> {
        #[derive(Deserialize)]
        struct Raw {
            journal: String,
            version: u32,
            #[serde(default)]
            lane: u32,
            started_at: Option<String>,
            rules: Option<Value>,
        }
        let raw: Raw =
            serde_json::from_str(line).map_err(|e| HeaderError::NotAHeader(e.to_string()))?;
        if raw.journal != "lanecall" {
            return Err(HeaderError::NotAHeader(format!(
                "\"journal\" is {:?}, not \"lanecall\"",
                raw.journal
            )));
        }
        if raw.version != FORMAT_VERSION {
            return Err(HeaderError::Version(raw.version));
        }
        let rules: Rules = match raw.rules {
            None => Rules::default(),
            Some(v) => serde_json::from_value(v).map_err(|e| HeaderError::Rules(e.to_string()))?,
        };
        let problems = rules.problems();
        if !problems.is_empty() {
            return Err(HeaderError::Rules(problems.join("; ")));
        }
        Ok(Header {
            lane: raw.lane,
            started_at: raw.started_at,
            rules,
        })
    }

    /// The header line, without its `\n`.
    pub fn to_line(&self) -> String {
        let mut v = json!({
            "journal": "lanecall",
            "version": FORMAT_VERSION,
            "lane": self.lane,
            "rules": self.rules,
        });
        if let Some(s) = &self.started_at {
            v["started_at"] = json!(s);
        }
        v.to_string()
    }
}

/// The fields every event line has.
#[derive(Deserialize)]
struct Head<'a> {
    t: Millis,
    #[serde(borrow)]
    ev: Cow<'a, str>,
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
            },
        }
    }
}

fn pins(ev: &str, list: &[u8]) -> Result<PinSet, LineError> {
    list.iter()
        .map(|&n| {
            Pin::new(n).ok_or_else(|| LineError::Field {
                ev: ev.to_owned(),
                message: format!("standing: pin {n} does not exist (pins are 1 to 10)"),
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(PinSet::from_pins)
}

/// Parses one event line (without its `\n`).
pub fn parse_event(line: &str) -> Result<Stamped<Event>, LineError> {
    if line.trim().is_empty() {
        return Err(LineError::Empty);
    }
    if let Some(e) = parse_sensor_fast(line) {
        return Ok(e);
    }
    parse_event_slow(line)
}

/// [`parse_event`] without the one-pass reading of sensor lines.
fn parse_event_slow(line: &str) -> Result<Stamped<Event>, LineError> {
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
        _ => {
            let action = parse_action(ev, line)?;
            let by = fields::<By>(ev, line)?.by;
            Ok(Event::Panel(Panel { by, action }))
        }
    }?;
    Ok(Stamped { t: head.t, event })
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
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
        if b[start + len] != b'"' {
            return None;
        }
        *i = start + len + 1;
        Some(&line[start..start + len])
    };
    let mut f = Flat::default();
    skip_ws(&mut i);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        skip_ws(&mut i);
        if b.get(i) != Some(&b'"') {
            return None;
        }
        i += 1;
        let key = string(&mut i)?;
        skip_ws(&mut i);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i += 1;
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
                    "t" => return None,
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

/// Every sensor line in one pass, which is most of a journal. Anything it
/// does not recognise as a well-formed sensor event goes to the field by
/// field reading in [`parse_event`], which also words the errors.
fn parse_sensor_fast(line: &str) -> Option<Stamped<Event>> {
    let f = scan_flat(line)?;
    let sensor = match f.ev? {
        "foul_beam" => match f.state? {
            "broken" => Sensor::FoulBeam { broken: true },
            "clear" => Sensor::FoulBeam { broken: false },
            _ => return None,
        },
        "ball" => Sensor::Ball,
        "serial" => Sensor::Serial {
            line: f.line?.to_owned(),
        },
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
        event: Event::Sensor(sensor),
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
            struct F {
                bowler: String,
                game: u8,
                frame: u8,
                ball: u8,
                standing: Vec<u8>,
                foul: Option<bool>,
            }
            let f: F = fields(ev, line)?;
            Action::Correct {
                bowler: f.bowler,
                game: f.game,
                frame: f.frame,
                ball: f.ball,
                standing: pins(ev, &f.standing)?,
                foul: f.foul,
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
            Action::ManualPins {
                standing: pins(ev, &fields::<F>(ev, line)?.standing)?,
            }
        }
        "end_block" => Action::EndBlock,
        other => return Err(LineError::UnknownEvent(other.chars().take(40).collect())),
    })
}

fn bowler_json(b: &Bowler) -> Value {
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
    v
}

fn standing_json(p: PinSet) -> Value {
    json!(p.iter().map(Pin::number).collect::<Vec<_>>())
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
            }
        }
        Event::Panel(p) => {
            put("ev", json!(p.action.name()));
            match &p.action {
                Action::Lineup { bowlers } => {
                    put("bowlers", bowlers.iter().map(bowler_json).collect())
                }
                Action::StartBlock { games } => put("games", json!(games)),
                Action::BlindfoldCheck { bowler, ok } => {
                    put("bowler", json!(bowler));
                    put("ok", json!(ok));
                }
                Action::BlindfoldAdjust { bowler } => put("bowler", json!(bowler)),
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
                    foul,
                } => {
                    put("bowler", json!(bowler));
                    put("game", json!(game));
                    put("frame", json!(frame));
                    put("ball", json!(ball));
                    put("standing", standing_json(*standing));
                    if let Some(f) = foul {
                        put("foul", json!(f));
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
                Action::ManualPins { standing } => put("standing", standing_json(*standing)),
                Action::EndBlock => {}
            }
            if let Some(by) = &p.by {
                put("by", json!(by));
            }
        }
    }
    // `t` first, as people read a journal: `{"t":5120,"ev":"ball"}`.
    let rest = Value::Object(m).to_string();
    format!("{{\"t\":{},{}", e.t, &rest[1..])
}

/// One line of a journal as read.
#[derive(Debug)]
pub enum Line<'a> {
    /// A whole line (its `\n` seen), 1-based number.
    Whole(u64, Result<&'a str, LineError>),
    /// The last line had no `\n`: a write cut short, ignored.
    Torn(u64),
}

/// Streams a journal's lines with their numbers, reusing one buffer.
pub struct Reader<R> {
    inner: R,
    buf: Vec<u8>,
    line: u64,
}

impl<R: BufRead> Reader<R> {
    pub fn new(inner: R) -> Reader<R> {
        Reader {
            inner,
            buf: Vec::with_capacity(256),
            line: 0,
        }
    }

    /// Reads the header (line 1).
    pub fn header(&mut self) -> Result<Header, HeaderError> {
        match self.next_line()? {
            None => return Err(HeaderError::Empty),
            Some(Line::Whole(_, Err(e))) => return Err(HeaderError::NotAHeader(e.to_string())),
            Some(Line::Whole(_, Ok(text))) => return Header::parse(text),
            // A journal cut short right after its header still has one.
            Some(Line::Torn(_)) => {}
        }
        let text = std::str::from_utf8(&self.buf)
            .map_err(|_| HeaderError::NotAHeader("not UTF-8".into()))?;
        Header::parse(text)
    }

    /// The next line, or `None` at the end.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        if self.inner.read_until(b'\n', &mut self.buf)? == 0 {
            return Ok(None);
        }
        self.line += 1;
        if self.buf.last() != Some(&b'\n') {
            return Ok(Some(Line::Torn(self.line)));
        }
        self.buf.pop();
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        let text = std::str::from_utf8(&self.buf).map_err(|_| LineError::NotUtf8);
        Ok(Some(Line::Whole(self.line, text)))
    }
}

/// Appends lines to a journal. Each line is written whole with its `\n`;
/// making it durable (`fdatasync`) is the caller's job, since only the
/// caller knows its file.
pub struct Writer<W> {
    inner: W,
}

impl<W: Write> Writer<W> {
    /// Starts a journal: writes the header.
    pub fn create(mut inner: W, header: &Header) -> io::Result<Writer<W>> {
        writeln!(inner, "{}", header.to_line())?;
        Ok(Writer { inner })
    }

    /// Continues a journal whose header is already written.
    pub fn append(inner: W) -> Writer<W> {
        Writer { inner }
    }

    pub fn write(&mut self, e: &Stamped<Event>) -> io::Result<()> {
        let mut line = event_line(e);
        line.push('\n');
        self.inner.write_all(line.as_bytes())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }

    pub fn into_inner(self) -> W {
        self.inner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_header_parses_with_its_rules() {
        let h = Header::parse(
            r#"{"journal":"lanecall","version":1,"lane":7,"started_at":"2026-11-29T14:00:00Z",
 "rules":{"ball_break_max_ms":100,"typical_travel_ms":2500,"max_travel_ms":10000,
          "pin_report_timeout_ms":15000,"slow_bowling_limit_s":60}}"#,
        )
        .unwrap();
        assert_eq!(h.lane, 7);
        assert_eq!(h.rules, Rules::default());
    }

    #[test]
    fn left_out_rules_take_defaults_and_unknown_ones_are_ignored() {
        let h = Header::parse(r#"{"journal":"lanecall","version":1,"lane":2,"rules":{"slow_bowling_limit_s":25,"future":1}}"#).unwrap();
        assert_eq!(h.rules.slow_bowling_limit_s, 25);
        assert_eq!(h.rules.typical_travel_ms, 2500);
    }

    #[test]
    fn a_file_that_is_not_a_journal_is_refused() {
        assert!(matches!(
            Header::parse(r#"{"journal":"other","version":1}"#),
            Err(HeaderError::NotAHeader(_))
        ));
        assert!(matches!(
            Header::parse(r#"{"journal":"lanecall","version":2}"#),
            Err(HeaderError::Version(2))
        ));
        assert!(matches!(
            Header::parse("hello"),
            Err(HeaderError::NotAHeader(_))
        ));
        let bad_rules =
            r#"{"journal":"lanecall","version":1,"rules":{"slow_bowling_limit_s":"x"}}"#;
        assert!(matches!(
            Header::parse(bad_rules),
            Err(HeaderError::Rules(_))
        ));
    }

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
        ];
        let actions = [
            Action::Lineup {
                bowlers: vec![anna.clone()],
            },
            Action::StartBlock { games: 3 },
            Action::BlindfoldCheck {
                bowler: "Anna K.".into(),
                ok: true,
            },
            Action::BlindfoldAdjust {
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
                foul: Some(true),
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
            },
            Action::EndBlock,
        ];
        let events = sensors
            .into_iter()
            .map(Event::Sensor)
            .chain(actions.into_iter().map(|action| {
                Event::Panel(Panel {
                    by: Some("judge Petrova".into()),
                    action,
                })
            }));
        for (t, event) in events.enumerate() {
            let stamped = Stamped {
                t: t as u64 * 1000,
                event,
            };
            let line = event_line(&stamped);
            assert_eq!(parse_event(&line).as_ref(), Ok(&stamped), "{line}");
        }
    }

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
                    let mut slow = parse_event_slow(line);
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

    #[test]
    fn the_reader_numbers_lines_and_spots_a_torn_tail() {
        let text = b"{\"journal\":\"lanecall\",\"version\":1}\n{\"t\":1,\"ev\":\"ball\"}\n\xff\n{\"t\":2,\"ev\":\"ba";
        let mut r = Reader::new(&text[..]);
        assert_eq!(r.header().unwrap().lane, 0);
        assert!(matches!(
            r.next_line().unwrap(),
            Some(Line::Whole(2, Ok(_)))
        ));
        assert!(matches!(
            r.next_line().unwrap(),
            Some(Line::Whole(3, Err(LineError::NotUtf8)))
        ));
        assert!(matches!(r.next_line().unwrap(), Some(Line::Torn(4))));
        assert!(r.next_line().unwrap().is_none());
    }

    #[test]
    fn the_writer_writes_a_journal_the_reader_reads() {
        let header = Header::new(3, None, Rules::default());
        let mut w = Writer::create(Vec::new(), &header).unwrap();
        let ev = Stamped {
            t: 42,
            event: Event::Sensor(Sensor::Ball),
        };
        w.write(&ev).unwrap();
        let bytes = w.into_inner();
        let mut r = Reader::new(&bytes[..]);
        assert_eq!(r.header().unwrap(), header);
        match r.next_line().unwrap() {
            Some(Line::Whole(2, Ok(text))) => assert_eq!(parse_event(text).unwrap(), ev),
            other => panic!("unexpected {other:?}"),
        }
    }
}
