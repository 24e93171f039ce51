//! Sensor lines, most of a journal, read in one pass: a flat JSON object
//! of strings and whole numbers without escapes, scanned by hand. A line
//! it does not recognise as a well-formed sensor event is left to the
//! field by field reading, which also words the errors; it never reports
//! one itself. The commonest lines, spelled exactly as the journal's
//! writer spells them, are read first from their bytes alone
//! ([`parse_written`]), before any UTF-8 check.

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

/// The commonest sensor lines of a journal without seals, as the writer
/// spells them (`{"t":N,"ev":"…"…}`, no blanks, nothing after the `}`),
/// read from their bytes: a foul beam, a ball, a pinsetter line of plain
/// ASCII, a channel, the serial link. What it reads, [`parse_sensor_fast`]
/// reads the same from the line's text; anything else is `None`, and the
/// line goes the usual way (UTF-8 check, seal, one-pass then field by field
/// reading).
pub(in crate::journal) fn parse_written(b: &[u8]) -> Option<Stamped<Input>> {
    let rest = b.strip_prefix(b"{\"t\":")?;
    // Up to 19 digits always fit a u64; a longer `t` goes the usual way.
    let (mut digits, mut t) = (0, 0u64);
    for &c in rest.iter().take(20) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        // Wrapping: a 20th digit leaves the line to the usual way anyway.
        t = t.wrapping_mul(10).wrapping_add(u64::from(d));
        digits += 1;
    }
    if digits == 0 || digits > 19 || (digits > 1 && rest[0] == b'0') {
        return None;
    }
    let rest = rest[digits..].strip_prefix(b",\"ev\":\"")?;
    // The commonest first; a whole comparison each (its length first).
    let sensor = if rest == b"foul_beam\",\"state\":\"broken\"}" {
        Sensor::FoulBeam { broken: true }
    } else if rest == b"foul_beam\",\"state\":\"clear\"}" {
        Sensor::FoulBeam { broken: false }
    } else if let Some(body) = rest.strip_prefix(b"serial\",\"line\":\"") {
        let body = body.strip_suffix(b"\"}")?;
        // Most: a whole READY or PINS, which is plain ASCII but for a
        // line end `\r` (a control character, left to the usual way).
        if body.last() != Some(&b'\r')
            && let Some(common) = crate::pinsetter::read_common(body)
            && let Some(short) = ShortLine::read(body, common)
        {
            return Some(Stamped {
                t,
                event: Input::Serial(short),
            });
        }
        if body.iter().any(|&c| NOT_PLAIN[usize::from(c)]) {
            return None;
        }
        // Plain ASCII, so text: a short one held without a UTF-8 check.
        let event = match ShortLine::from_ascii(body) {
            Some(short) => Input::Serial(short),
            None => Input::Sensor(Sensor::Serial {
                line: std::str::from_utf8(body).ok()?.to_owned(),
            }),
        };
        return Some(Stamped { t, event });
    } else if rest == b"ball\"}" {
        Sensor::Ball
    } else if rest == b"channel\",\"side\":\"left\"}" {
        Sensor::Channel { side: Side::Left }
    } else if rest == b"channel\",\"side\":\"right\"}" {
        Sensor::Channel { side: Side::Right }
    } else if rest == b"serial_link\",\"state\":\"up\"}" {
        Sensor::SerialLink { up: true }
    } else if rest == b"serial_link\",\"state\":\"down\"}" {
        Sensor::SerialLink { up: false }
    } else {
        return None;
    };
    Some(Stamped {
        t,
        event: Input::Sensor(sensor),
    })
}

/// The bytes a pinsetter line read by [`parse_written`] must not have:
/// [`STRING_STOPS`], and any byte that is not ASCII.
static NOT_PLAIN: [bool; 256] = {
    let mut not = STRING_STOPS;
    let mut c = 0x80;
    while c < 256 {
        not[c] = true;
        c += 1;
    }
    not
};

#[cfg(test)]
mod tests {
    use super::*;

    /// What the bytes-only reading takes, the one-pass reading reads the
    /// same; the lines the writer writes it takes, a line spelled any
    /// other way it leaves.
    #[test]
    fn lines_read_from_bytes_read_as_their_text() {
        let taken = [
            r#"{"t":0,"ev":"serial_link","state":"up"}"#,
            r#"{"t":7,"ev":"serial_link","state":"down"}"#,
            r#"{"t":362065,"ev":"foul_beam","state":"broken"}"#,
            r#"{"t":364039,"ev":"foul_beam","state":"clear"}"#,
            r#"{"t":388692,"ev":"ball"}"#,
            r#"{"t":390974,"ev":"serial","line":"$PS,PINS,1,1100011111*1B"}"#,
            r#"{"t":1,"ev":"serial","line":"$PS,READY,200,1111111111*54 and more than 31 bytes"}"#,
            r#"{"t":1,"ev":"serial","line":""}"#,
            r#"{"t":1,"ev":"channel","side":"left"}"#,
            r#"{"t":1,"ev":"channel","side":"right"}"#,
            r#"{"t":9999999999999999999,"ev":"ball"}"#,
        ];
        let left = [
            r#"{"t":1,"ev":"ball" }"#,
            r#"{"t":1,"ev":"ball"} "#,
            r#" {"t":1,"ev":"ball"}"#,
            r#"{"t":01,"ev":"ball"}"#,
            r#"{"t":-1,"ev":"ball"}"#,
            r#"{"t":1.5,"ev":"ball"}"#,
            r#"{"t":,"ev":"ball"}"#,
            r#"{"t":10000000000000000000,"ev":"ball"}"#,
            r#"{"t":99999999999999999999,"ev":"ball"}"#,
            r#"{"t":1,"ev":"ball","t":2}"#,
            r#"{"t":1,"ev":"ball","n":2,"c":"00000000"}"#,
            r#"{"ev":"ball","t":1}"#,
            r#"{"t":1,"ev":"foul_beam","state":"sideways"}"#,
            r#"{"t":1,"ev":"serial","line":"tab\tescaped"}"#,
            r#"{"t":1,"ev":"serial","line":"quote\"d"}"#,
            r#"{"t":1,"ev":"serial","line":"r�p�ter"}"#,
            r#"{"t":1,"ev":"serial","line":"x","line":"y"}"#,
            r#"{"t":1,"ev":"serial","line":"x"}}"#,
            r#"{"t":1,"ev":"button","name":"repeat"}"#,
            "{\"t\":1,\"ev\":\"serial\",\"line\":\"a\u{1}b\"}",
            "{\"t\":1,\"ev\":\"serial\",\"line\":\"$PS,PINS,1,1100011111*1B\r\"}",
            "{\"t\":1,\"ev\":\"serial\",\"line\":\"é\"}",
            "",
        ];
        for line in taken {
            let bytes = parse_written(line.as_bytes());
            assert!(bytes.is_some(), "left: {line}");
            assert_eq!(bytes, parse_sensor_fast(line), "{line}");
        }
        for line in left {
            assert_eq!(parse_written(line.as_bytes()), None, "taken: {line}");
        }
        assert_eq!(
            parse_written(b"{\"t\":1,\"ev\":\"serial\",\"line\":\"\xff\"}"),
            None
        );
        assert_eq!(parse_written(b"{\"t\":1,\"ev\":\"ball\"\xff"), None);
    }
}
