//! The lane journal (journal.md): UTF-8 JSON Lines, a header line and then
//! one input per line. Format 2 seals every line with its number `n` and a
//! CRC32C `c` of its own bytes; format 1 journals (no seal) still replay.
//!
//! The journal holds inputs only; scores are always recomputed from it. The
//! reader streams (a journal is never loaded whole), reports a line that does
//! not parse, or whose seal or time does not fit, by its number and goes on,
//! so one damaged line loses only itself; a last line without its `\n` is
//! the normal state after a power cut.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io::{self, BufRead, Write};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::lane::{
    Action, Bowler, Class, Day, Event, Language, LaterBall, Millis, Panel, Pin, PinSet, Rules,
    Sensor, Side, Stamped, Verbosity, Voice,
};

/// The format lanecall writes.
pub const FORMAT_VERSION: u32 = 2;
/// The oldest format it still reads.
pub const OLDEST_FORMAT: u32 = 1;

/// The journal's first line.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The format the file was written in (1 or 2).
    pub version: u32,
    pub lane: u32,
    /// The journal's place among the lane's journals: each new one gets a
    /// higher number, whatever the wall clock says (0 in format 1).
    pub seq: u64,
    pub started_at: Option<String>,
    pub rules: Rules,
    /// What the lane's earlier journals of the same competition day leave
    /// in force (block numbers, blindfold checks); `None` for the day's
    /// first journal.
    pub day: Option<Day>,
}

/// Why a file is not a journal this version can replay.
#[derive(Debug, thiserror::Error)]
pub enum HeaderError {
    #[error("the file is empty: no journal header")]
    Empty,
    #[error("line 1 is not a lanecall journal header: {0}")]
    NotAHeader(String),
    #[error(
        "journal format version {0} is not supported (this lanecall reads versions {OLDEST_FORMAT} to {FORMAT_VERSION})"
    )]
    Version(u32),
    #[error("line 1, the header, is damaged: {0}")]
    Damaged(LineError),
    #[error("journal header rules: {0}")]
    Rules(String),
    #[error("journal header day: {0}")]
    Day(String),
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
    #[error("t={t} is after the next line's t={next}: a damaged time, the line is refused")]
    TimeAhead { t: Millis, next: Millis },
    #[error(
        "no seal: a format 2 line ends with its number and checksum (`,\"n\":…,\"c\":\"…\"}}`)"
    )]
    NoSeal,
    #[error(
        "checksum {found} does not match the line's bytes ({computed:08x}): the line is damaged"
    )]
    Checksum { found: String, computed: u32 },
    #[error("line number n={n} is not after the previous line's n={previous}: a repeated line")]
    Repeated { n: u64, previous: u64 },
}

/// `,"c":"xxxxxxxx"}`: how a sealed line ends.
const SEAL_TAIL: usize = 16;

/// Seals a JSON object (`{...}`, no `\n`) as line `n` of a format 2
/// journal: `{...,"n":17,"c":"8f3a09b1"}`, where `c` is the CRC32C of every
/// byte before `,"c":`.
pub fn seal(object: &str, n: u64) -> String {
    let body = object.strip_suffix('}').unwrap_or(object);
    let mut line = String::with_capacity(body.len() + 40);
    line.push_str(body);
    if !body.ends_with('{') {
        line.push(',');
    }
    let _ = write!(line, "\"n\":{n}");
    let c = crc32c::crc32c(line.as_bytes());
    let _ = write!(line, ",\"c\":\"{c:08x}\"}}");
    line
}

/// Whether a line ends the way a sealed one does.
fn looks_sealed(line: &str) -> bool {
    let b = line.as_bytes();
    b.len().checked_sub(SEAL_TAIL).is_some_and(|split| {
        let tail = &b[split..];
        tail.starts_with(b",\"c\":\"") && tail.ends_with(b"\"}")
    })
}

/// Checks a sealed line's checksum and returns its number `n`.
pub fn unseal(line: &str) -> Result<u64, LineError> {
    if !looks_sealed(line) {
        return Err(LineError::NoSeal);
    }
    let b = line.as_bytes();
    let split = b.len() - SEAL_TAIL;
    let found = &line[split + 6..split + 14];
    let computed = crc32c::crc32c(&b[..split]);
    if u32::from_str_radix(found, 16).ok() != Some(computed)
        || found.bytes().any(|c| c.is_ascii_uppercase())
    {
        return Err(LineError::Checksum {
            found: found.chars().take(8).collect(),
            computed,
        });
    }
    // The seal is good, so the bytes are as written: `,"n":<digits>` ends
    // the body.
    let body = &line[..split];
    let digits = body.len() - body.bytes().rev().take_while(u8::is_ascii_digit).count();
    body[..digits]
        .ends_with("\"n\":")
        .then(|| body[digits..].parse().ok())
        .flatten()
        .ok_or(LineError::NoSeal)
}

impl Header {
    /// A header in the format this lanecall writes.
    pub fn new(lane: u32, started_at: Option<String>, rules: Rules) -> Header {
        Header {
            version: FORMAT_VERSION,
            lane,
            seq: 0,
            started_at,
            rules,
            day: None,
        }
    }

    pub fn with_seq(self, seq: u64) -> Header {
        Header { seq, ..self }
    }

    pub fn with_day(self, day: Option<Day>) -> Header {
        Header { day, ..self }
    }

    pub fn parse(line: &str) -> Result<Header, HeaderError> {
        #[derive(Deserialize)]
        struct Raw {
            journal: String,
            version: u32,
            #[serde(default)]
            lane: u32,
            #[serde(default)]
            seq: u64,
            started_at: Option<String>,
            rules: Option<Value>,
            day: Option<Value>,
        }
        // A damaged byte may leave good JSON: the seal is checked first.
        let sealed = looks_sealed(line);
        if sealed {
            unseal(line).map_err(HeaderError::Damaged)?;
        }
        let raw: Raw =
            serde_json::from_str(line).map_err(|e| HeaderError::NotAHeader(e.to_string()))?;
        if raw.journal != "lanecall" {
            return Err(HeaderError::NotAHeader(format!(
                "\"journal\" is {:?}, not \"lanecall\"",
                raw.journal
            )));
        }
        if !(OLDEST_FORMAT..=FORMAT_VERSION).contains(&raw.version) {
            return Err(HeaderError::Version(raw.version));
        }
        if raw.version >= 2 && !sealed {
            return Err(HeaderError::Damaged(LineError::NoSeal));
        }
        // No `rules` at all takes every field's header default, as an
        // empty object does.
        let rules: Rules = serde_json::from_value(raw.rules.unwrap_or_else(|| json!({})))
            .map_err(|e| HeaderError::Rules(e.to_string()))?;
        let problems = rules.problems();
        if !problems.is_empty() {
            return Err(HeaderError::Rules(problems.join("; ")));
        }
        let day = match raw.day {
            None => None,
            Some(v) => {
                Some(serde_json::from_value(v).map_err(|e| HeaderError::Day(e.to_string()))?)
            }
        };
        Ok(Header {
            version: raw.version,
            lane: raw.lane,
            seq: raw.seq,
            started_at: raw.started_at,
            rules,
            day,
        })
    }

    /// The header line in the format this lanecall writes (sealed as line
    /// 1), without its `\n`.
    pub fn to_line(&self) -> String {
        let mut v = json!({
            "journal": "lanecall",
            "version": FORMAT_VERSION,
            "lane": self.lane,
            "seq": self.seq,
            "rules": self.rules,
        });
        if let Some(s) = &self.started_at {
            v["started_at"] = json!(s);
        }
        if let Some(day) = &self.day {
            v["day"] = json!(day);
        }
        seal(&v.to_string(), 1)
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
            Action::ManualPins {
                standing: pins(ev, &fields::<F>(ev, line)?.standing)?,
            }
        }
        "dead_ball" => Action::DeadBall,
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
    if let Some(extras) = b.voice.extras {
        v["extras"] = json!(extras);
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
                    foul,
                    later,
                } => {
                    put("bowler", json!(bowler));
                    put("game", json!(game));
                    put("frame", json!(frame));
                    put("ball", json!(ball));
                    put("standing", standing_json(*standing));
                    if let Some(f) = foul {
                        put("foul", json!(f));
                    }
                    if !later.is_empty() {
                        let balls = later.iter().map(|l| {
                            let mut b = json!({"standing": standing_json(l.standing)});
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
                Action::ManualPins { standing } => put("standing", standing_json(*standing)),
                Action::DeadBall | Action::EndBlock => {}
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

/// Writes a journal in the format this lanecall writes: each line sealed
/// with its number. Making a line durable (`fdatasync`) is the caller's
/// job, since only the caller knows its file.
pub struct Writer<W> {
    inner: W,
    /// Lines written, the header included.
    lines: u64,
}

impl<W: Write> Writer<W> {
    /// Starts a journal: writes the header.
    pub fn create(mut inner: W, header: &Header) -> io::Result<Writer<W>> {
        writeln!(inner, "{}", header.to_line())?;
        Ok(Writer { inner, lines: 1 })
    }

    pub fn write(&mut self, e: &Stamped<Event>) -> io::Result<()> {
        let mut line = sealed_event_line(e, self.lines + 1);
        line.push('\n');
        self.inner.write_all(line.as_bytes())?;
        self.lines += 1;
        Ok(())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }

    pub fn into_inner(self) -> W {
        self.inner
    }
}

/// The line for an event as line `n` of a format 2 journal, without its
/// `\n`.
pub fn sealed_event_line(e: &Stamped<Event>, n: u64) -> String {
    seal(&event_line(e), n)
}

/// One line's worth of what a journal says, checked, in line order.
#[derive(Debug)]
pub enum Item {
    /// An input to apply, from this line.
    Event(u64, Stamped<Event>),
    /// A line that is not applied, and why.
    Error(u64, LineError),
    /// Something to know that loses no input (a torn last line, a gap in
    /// the line numbers).
    Warning(u64, String),
}

/// How many items may wait behind a line whose time is not yet confirmed
/// by the next event, before it is taken as it is.
const MAX_HELD: usize = 1024;

/// A journal's lines, checked: format 2 seals (checksum, line number), and
/// times that go back or jump ahead. A line whose `t` is ahead of the next
/// event's is held until that event is read and refused alone if the next
/// one fits the line before it, so one damaged `t` never makes every later
/// line "before the previous".
pub struct Checked<R> {
    reader: Reader<R>,
    version: u32,
    /// The `t` of the last event given out.
    last_t: Millis,
    /// The physical line and `n` of the last sealed line taken.
    last_sealed: (u64, u64),
    /// An event waiting for the next one to confirm its time.
    pending: Option<(u64, Stamped<Event>)>,
    /// Items read after `pending`, given out after it.
    held: VecDeque<Item>,
    ready: VecDeque<Item>,
    done: bool,
}

/// Checks line `line`'s seal (format 2: checksum, then a number above
/// the last one) and parses it; a gap in the numbers is a warning.
fn check_line(
    version: u32,
    last_sealed: &mut (u64, u64),
    line: u64,
    text: &str,
) -> (Result<Stamped<Event>, LineError>, Option<Item>) {
    let mut gap = None;
    if version >= 2 {
        let n = match unseal(text) {
            Ok(n) => n,
            Err(e) => return (Err(e), None),
        };
        let (last_line, last_n) = *last_sealed;
        if n <= last_n {
            return (
                Err(LineError::Repeated {
                    n,
                    previous: last_n,
                }),
                None,
            );
        }
        let missing = (n - last_n).saturating_sub(line.saturating_sub(last_line));
        if missing > 0 {
            gap = Some(Item::Warning(
                line,
                format!("{missing} line(s) missing before this one (n goes from {last_n} to {n})"),
            ));
        }
        *last_sealed = (line, n);
    }
    (parse_event(text), gap)
}

impl<R: BufRead> Checked<R> {
    /// Reads the header and gets ready to read the lines.
    pub fn new(mut reader: Reader<R>) -> Result<(Header, Checked<R>), HeaderError> {
        let header = reader.header()?;
        let checked = Checked {
            reader,
            version: header.version,
            last_t: 0,
            last_sealed: (1, 1),
            pending: None,
            held: VecDeque::new(),
            ready: VecDeque::new(),
            done: false,
        };
        Ok((header, checked))
    }

    /// The number of the last line read, whole or torn.
    pub fn lines_read(&self) -> u64 {
        self.reader.line
    }

    /// The highest line number `n` seen in a sealed line (1 for the
    /// header).
    pub fn last_n(&self) -> u64 {
        self.last_sealed.1
    }

    /// The next item, or `None` at the end.
    pub fn next_item(&mut self) -> io::Result<Option<Item>> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Ok(Some(item));
            }
            if self.done {
                return Ok(None);
            }
            let (item, gap) = match self.reader.next_line()? {
                None => {
                    self.done = true;
                    self.release();
                    continue;
                }
                Some(Line::Torn(n)) => (
                    Item::Warning(
                        n,
                        "last line has no line end (cut off by a power loss?): ignored".into(),
                    ),
                    None,
                ),
                Some(Line::Whole(n, Err(e))) => (Item::Error(n, e), None),
                Some(Line::Whole(n, Ok(text))) => {
                    let (parsed, gap) = check_line(self.version, &mut self.last_sealed, n, text);
                    match parsed {
                        Ok(e) => (Item::Event(n, e), gap),
                        Err(e) => (Item::Error(n, e), gap),
                    }
                }
            };
            if let Some(gap) = gap {
                self.push(gap);
            }
            match item {
                Item::Event(n, e) => self.event(n, e),
                other => self.push(other),
            }
        }
    }

    fn push(&mut self, item: Item) {
        if self.pending.is_some() {
            self.held.push_back(item);
            if self.held.len() >= MAX_HELD {
                self.release();
            }
        } else {
            self.ready.push_back(item);
        }
    }

    /// Gives out the waiting event and what was read after it.
    fn release(&mut self) {
        if let Some((n, e)) = self.pending.take() {
            self.last_t = e.t;
            self.ready.push_back(Item::Event(n, e));
        }
        self.ready.extend(self.held.drain(..));
    }

    fn event(&mut self, line: u64, e: Stamped<Event>) {
        let Some(p_t) = self.pending.as_ref().map(|(_, p)| p.t) else {
            if e.t >= self.last_t {
                self.pending = Some((line, e));
            } else {
                let previous = self.last_t;
                self.ready.push_back(Item::Error(
                    line,
                    LineError::TimeBackwards { t: e.t, previous },
                ));
            }
            return;
        };
        if e.t >= p_t {
            self.release();
            self.pending = Some((line, e));
        } else if e.t >= self.last_t {
            // The waiting line is ahead of both its neighbours: its time is
            // the damaged one.
            if let Some((p_line, p)) = self.pending.take() {
                let error = LineError::TimeAhead { t: p.t, next: e.t };
                self.ready.push_back(Item::Error(p_line, error));
            }
            self.ready.extend(self.held.drain(..));
            self.pending = Some((line, e));
        } else {
            let error = LineError::TimeBackwards {
                t: e.t,
                previous: p_t,
            };
            self.push(Item::Error(line, error));
        }
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
        // Written before `speaker_extras` existed, when "split" and the
        // score were always said.
        let before = Rules {
            speaker_extras: true,
            ..Rules::default()
        };
        assert_eq!(h.rules, before);
        let bare = Header::parse(r#"{"journal":"lanecall","version":1,"lane":7}"#).unwrap();
        assert_eq!(bare.rules, before, "no rules at all: the same defaults");
    }

    /// The format 2 lines of journal.md, as they stand there.
    #[test]
    fn the_documented_format_2_lines_hold_their_seals() {
        let header = r#"{"journal":"lanecall","lane":7,"rules":{"ball_break_max_ms":100,"foul_lamp_ms":3000,"foul_mode":"score","max_travel_ms":10000,"min_cycle_ms":3000,"pin_report_timeout_ms":15000,"slow_bowling_limit_s":60,"speaker_extras":false,"typical_travel_ms":2500},"seq":12,"started_at":"2026-11-29T14:00:00Z","version":2,"n":1,"c":"8ad277cd"}"#;
        let h = Header::parse(header).unwrap();
        assert_eq!((h.version, h.lane, h.seq), (2, 7, 12));
        assert_eq!(h.rules, Rules::default());
        assert_eq!(h.to_line(), header);
        // The same header as lanecall wrote it before `speaker_extras`.
        let before = r#"{"journal":"lanecall","lane":7,"rules":{"ball_break_max_ms":100,"foul_lamp_ms":3000,"foul_mode":"score","max_travel_ms":10000,"min_cycle_ms":3000,"pin_report_timeout_ms":15000,"slow_bowling_limit_s":60,"typical_travel_ms":2500},"seq":12,"started_at":"2026-11-29T14:00:00Z","version":2,"n":1,"c":"97bd9d94"}"#;
        assert!(Header::parse(before).unwrap().rules.speaker_extras);
        let ball = r#"{"t":5120,"ev":"ball","n":17,"c":"d9cd632b"}"#;
        assert_eq!(unseal(ball), Ok(17));
        assert_eq!(parse_event(ball).unwrap().t, 5120);
        let changed = ball.replace("5120", "5121");
        assert!(matches!(unseal(&changed), Err(LineError::Checksum { .. })));
        assert!(unseal(&ball.replace("d9cd632b", "D9CD632B")).is_err());
        assert_eq!(unseal(r#"{"t":1,"ev":"ball"}"#), Err(LineError::NoSeal));
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
            Header::parse(r#"{"journal":"lanecall","version":3}"#),
            Err(HeaderError::Version(3))
        ));
        assert!(
            matches!(
                Header::parse(r#"{"journal":"lanecall","version":2}"#),
                Err(HeaderError::Damaged(LineError::NoSeal))
            ),
            "a format 2 header carries its seal"
        );
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
                foul: Some(true),
                later: vec![
                    LaterBall {
                        standing: PinSet::EMPTY,
                        foul: None,
                    },
                    LaterBall {
                        standing: seven_ten,
                        foul: Some(false),
                    },
                ],
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
            Action::DeadBall,
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
