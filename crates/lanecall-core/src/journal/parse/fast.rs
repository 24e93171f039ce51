//! Sensor lines, most of a journal, read in one pass: a flat JSON object
//! of strings and whole numbers without escapes, scanned by hand. A line
//! it does not recognise as a well-formed sensor event is left to the
//! field by field reading, which also words the errors; it never reports
//! one itself.

use super::{Input, ShortLine};
use crate::lane::{Millis, Sensor, Side, Stamped};

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
/// field reading in [`parse_event`](super::parse_event), which also words
/// the errors.
pub(super) fn parse_sensor_fast(line: &str) -> Option<Stamped<Input>> {
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
