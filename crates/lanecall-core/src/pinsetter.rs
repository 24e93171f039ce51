//! The pinsetter's serial protocol (pinsetter-serial.md): one ASCII line per
//! message, `$PS,<TYPE>,<SEQ>,<DATA>*<CS>`, NMEA style.
//!
//! Pure: it parses and checks text, it never touches a port. The serial
//! shell journals every line exactly as received and the lane parses it
//! here, so a replay sees the same noise the lane saw.

use crate::pins::PinSet;

/// Longest line the pinsetter may send, without its line end.
pub const MAX_LINE: usize = 128;

/// A checked message from the pinsetter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub seq: u8,
    pub body: Body,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// The deck is set with these pins; the lane is ready for a ball.
    Ready(PinSet),
    /// A ball was rolled; these pins stand after it.
    Pins(PinSet),
    /// The pinsetter stopped.
    Fault(String),
}

/// Why a line was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("line of {0} bytes is longer than {MAX_LINE}")]
    TooLong(usize),
    #[error("not a pinsetter line (no `$PS,` at the start)")]
    NoStart,
    #[error("no `*` before the checksum")]
    NoChecksum,
    #[error("checksum `{0}` is not two uppercase hexadecimal digits")]
    BadChecksumField(String),
    #[error("checksum mismatch: line says {said:02X}, bytes give {computed:02X}")]
    ChecksumMismatch { said: u8, computed: u8 },
    #[error("expected 4 comma-separated fields `$PS,TYPE,SEQ,DATA`")]
    Fields,
    #[error("unknown message type `{0}`")]
    UnknownType(String),
    #[error("sequence number `{0}` is not 0..=255")]
    BadSeq(String),
    #[error("pin mask `{0}` is not ten characters 0/1")]
    BadMask(String),
    #[error("fault text is empty or not printable")]
    BadFaultText,
}

/// XOR of the bytes, eight at a time.
fn checksum(bytes: &[u8]) -> u8 {
    let mut words = bytes.chunks_exact(8);
    let mut x = 0u64;
    for word in &mut words {
        let mut w = [0; 8];
        w.copy_from_slice(word);
        x ^= u64::from_le_bytes(w);
    }
    let x = x ^ (x >> 32);
    let x = x ^ (x >> 16);
    let x = x ^ (x >> 8);
    words.remainder().iter().fold(x as u8, |acc, b| acc ^ b)
}

fn hex_digit(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Parses and checks one line (CR/LF already removed; a stray trailing CR
/// is tolerated).
pub fn parse_line(line: &str) -> Result<Message, LineError> {
    match parse_common(line.as_bytes()) {
        Some(message) => Ok(message),
        None => parse_any(line),
    }
}

/// [`parse_line`] of a line's bytes, which are text: the commonest lines
/// read without a UTF-8 check.
pub fn parse_line_bytes(line: &[u8]) -> Result<Message, LineError> {
    match parse_common(line) {
        Some(message) => Ok(message),
        // Text, so the same text: borrowed, never replaced.
        None => parse_any(&String::from_utf8_lossy(line)),
    }
}

/// A whole `READY` or `PINS` line with a right checksum, as
/// [`read_common`] reads it: small and `Copy`, so that one thread may read
/// a line and another apply it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Common {
    seq: u8,
    ready: bool,
    pins: PinSet,
}

impl Common {
    /// The line's message, as [`parse_line`] gives it.
    pub fn message(self) -> Message {
        let body = if self.ready {
            Body::Ready(self.pins)
        } else {
            Body::Pins(self.pins)
        };
        Message {
            seq: self.seq,
            body,
        }
    }
}

/// The line nearly every one is, a whole `READY` or `PINS` with a right
/// checksum, read in one pass over its bytes: [`parse_any`]'s message for
/// it, or `None` for any other line, which `parse_any` reads and words
/// the error for.
fn parse_common(line: &[u8]) -> Option<Message> {
    read_common(line).map(Common::message)
}

/// [`parse_common`]'s reading of a line, before it is a [`Message`].
pub fn read_common(line: &[u8]) -> Option<Common> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let (payload, &[star, hi, lo]) = line.strip_prefix(b"$")?.split_last_chunk::<3>()?;
    if star != b'*' || checksum(payload) != hex_digit(hi)? << 4 | hex_digit(lo)? {
        return None;
    }
    let (ready, rest) = match payload.strip_prefix(b"PS,READY,") {
        Some(rest) => (true, rest),
        None => (false, payload.strip_prefix(b"PS,PINS,")?),
    };
    let (seq, mask) = rest.split_last_chunk::<10>()?;
    let seq = seq.strip_suffix(b",")?;
    if !(1..=3).contains(&seq.len()) {
        return None;
    }
    let mut n: u16 = 0;
    for &d in seq {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n * 10 + u16::from(d - b'0');
    }
    let seq = u8::try_from(n).ok()?;
    let pins = mask_bits(mask)?;
    Some(Common { seq, ready, pins })
}

/// [`PinSet::from_mask_bytes`] of a mask of ten bytes, without a branch
/// per pin (the pins are a coin toss to the branch predictor): the first
/// eight read as one word.
fn mask_bits(mask: &[u8; 10]) -> Option<PinSet> {
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    let (first, last) = mask.split_first_chunk::<8>()?;
    // Each byte 0 or 1 for a `0` or `1`; any other has another bit set.
    let low = u64::from_le_bytes(*first) ^ ZEROS;
    let (nine, ten) = (last[0] ^ b'0', last[1] ^ b'0');
    if low & !0x0101_0101_0101_0101 != 0 || (nine | ten) & !1 != 0 {
        return None;
    }
    // Byte i's bit to bit 56 + i: the products land on distinct bits, so
    // nothing carries.
    let eight = (low.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u16;
    PinSet::from_bits(eight | u16::from(nine) << 8 | u16::from(ten) << 9)
}

/// [`parse_line`] of any line, step by step, naming what is wrong.
fn parse_any(line: &str) -> Result<Message, LineError> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.len() > MAX_LINE {
        return Err(LineError::TooLong(line.len()));
    }
    let rest = line.strip_prefix('$').ok_or(LineError::NoStart)?;
    if !rest.starts_with("PS,") {
        return Err(LineError::NoStart);
    }
    let (payload, cs) = rest.rsplit_once('*').ok_or(LineError::NoChecksum)?;
    let said = match cs.as_bytes() {
        [hi, lo] => hex_digit(*hi).zip(hex_digit(*lo)).map(|(h, l)| h << 4 | l),
        _ => None,
    }
    .ok_or_else(|| LineError::BadChecksumField(cs.chars().take(8).collect()))?;
    let computed = checksum(payload.as_bytes());
    if said != computed {
        return Err(LineError::ChecksumMismatch { said, computed });
    }
    let mut fields = payload.splitn(4, ',');
    let (Some(_ps), Some(kind), Some(seq), Some(data)) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(LineError::Fields);
    };
    let seq = if (1..=3).contains(&seq.len()) && seq.bytes().all(|b| b.is_ascii_digit()) {
        seq.parse::<u8>().ok()
    } else {
        None
    }
    .ok_or_else(|| LineError::BadSeq(seq.chars().take(8).collect()))?;
    let mask = || {
        PinSet::from_mask(data).ok_or_else(|| LineError::BadMask(data.chars().take(16).collect()))
    };
    let body = match kind {
        "READY" => Body::Ready(mask()?),
        "PINS" => Body::Pins(mask()?),
        "FAULT" => {
            if data.is_empty() || !data.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
                return Err(LineError::BadFaultText);
            }
            Body::Fault(data.to_owned())
        }
        other => return Err(LineError::UnknownType(other.chars().take(16).collect())),
    };
    Ok(Message { seq, body })
}

/// Formats a message as the pinsetter sends it, with its checksum (no line
/// end). For simulators and tests.
pub fn format_line(msg: &Message) -> String {
    let (kind, data) = match &msg.body {
        Body::Ready(p) => ("READY", p.mask()),
        Body::Pins(p) => ("PINS", p.mask()),
        Body::Fault(text) => ("FAULT", text.clone()),
    };
    let payload = format!("PS,{kind},{},{data}", msg.seq);
    format!("${payload}*{:02X}", checksum(payload.as_bytes()))
}

impl std::fmt::Display for Body {
    /// `PINS 0000001001`, as a technician reads the line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Body::Ready(p) => write!(f, "READY {}", p.mask()),
            Body::Pins(p) => write!(f, "PINS {}", p.mask()),
            Body::Fault(text) => write!(f, "FAULT {text}"),
        }
    }
}

/// How many sequence numbers back a line still counts as recent: a
/// pinsetter that resends after a noisy stretch or a lost link resends its
/// last few lines, never more than a handful of balls' worth.
pub const WINDOW: u8 = 16;
/// Lines further back than this are stale; anything further still is
/// ahead, after lost lines. Half the byte's range each way.
const BEHIND_MAX: u8 = 128;
/// Lines in a row, each one on from the last, that the window refuses
/// before the lane takes it that the pinsetter restarted its count.
pub const RESYNC: u8 = 3;

/// What the sequence number says of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The next message (or the first one the lane ever saw).
    New,
    /// A line within the window again with the same body: ignore it.
    Retransmission,
    /// `lost` lines were lost before this one; it is new.
    Gap { lost: u8 },
    /// A number within the window again with another body (`was`): the
    /// line cannot be trusted, it is an error and never a ball.
    Conflict { was: Body },
    /// A number behind the window, or one within it that the lane never
    /// saw (a line lost earlier, resent late): ignore it.
    Stale,
    /// [`RESYNC`] lines in a row, each one more than the one before, were
    /// refused for their number: the pinsetter restarted its count (a power
    /// cycle after a jam). This one is new; the lane follows the new count.
    Restart,
}

/// Follows the pinsetter's sequence numbers: the lines of the last
/// [`WINDOW`] numbers, to tell a resend from a new line.
#[derive(Clone, Debug, Default)]
pub struct Sequencer {
    /// Accepted lines whose number is within the window of the newest
    /// one, oldest first; the newest is last.
    recent: std::collections::VecDeque<Message>,
    /// The last line refused for its number and how many such lines, each
    /// one on from the one before, came in a row.
    run: Option<(u8, u8)>,
}

impl Sequencer {
    pub fn check(&mut self, msg: &Message) -> Verdict {
        let Some(last) = self.recent.back() else {
            self.accept(msg);
            return Verdict::New;
        };
        let behind = last.seq.wrapping_sub(msg.seq);
        if behind < WINDOW {
            match self.recent.iter().rev().find(|m| m.seq == msg.seq) {
                Some(seen) if seen.body == msg.body => Verdict::Retransmission,
                Some(seen) => {
                    let was = seen.body.clone();
                    self.refused(msg).unwrap_or(Verdict::Conflict { was })
                }
                None => self.refused(msg).unwrap_or(Verdict::Stale),
            }
        } else if behind <= BEHIND_MAX {
            self.refused(msg).unwrap_or(Verdict::Stale)
        } else {
            let ahead = msg.seq.wrapping_sub(last.seq);
            self.accept(msg);
            match ahead {
                1 => Verdict::New,
                d => Verdict::Gap { lost: d - 1 },
            }
        }
    }

    fn accept(&mut self, msg: &Message) {
        self.run = None;
        self.recent.push_back(msg.clone());
        // Numbers skipped by a gap leave no entry, so the window is kept by
        // number, not by count. Each line kept is ahead of the one before
        // it, by less than `BEHIND_MAX`, and those kept were within the
        // window: the ages fall from the front, so the old ones are a front
        // run.
        while self
            .recent
            .front()
            .is_some_and(|m| msg.seq.wrapping_sub(m.seq) >= WINDOW)
        {
            self.recent.pop_front();
        }
    }

    /// Counts a line refused for its number; `Some(Restart)` when it ends
    /// a run of [`RESYNC`].
    fn refused(&mut self, msg: &Message) -> Option<Verdict> {
        let count = match self.run {
            Some((seq, n)) if msg.seq == seq.wrapping_add(1) => n + 1,
            _ => 1,
        };
        if count < RESYNC {
            self.run = Some((msg.seq, count));
            return None;
        }
        // The old count's lines mean nothing to the new one.
        self.recent.clear();
        self.accept(msg);
        Some(Verdict::Restart)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time mask and checksum read as byte by byte.
    #[test]
    fn masks_and_checksums_read_as_byte_by_byte() {
        for bits in 0..1024u16 {
            let mut mask = [b'0'; 10];
            for (i, b) in mask.iter_mut().enumerate() {
                if bits & 1 << i != 0 {
                    *b = b'1';
                }
            }
            assert_eq!(mask_bits(&mask), PinSet::from_mask_bytes(&mask));
            assert_eq!(mask_bits(&mask).map(PinSet::bits), Some(bits));
            for at in 0..10 {
                for bad in [b'2', b'/', b'1' + 0x80, b'0' + 0x80, 0, b'a', 0x31 ^ 0x02] {
                    let mut spoilt = mask;
                    spoilt[at] = bad;
                    assert_eq!(mask_bits(&spoilt), None, "{spoilt:?}");
                }
            }
        }
        let bytes: Vec<u8> = (0..64u32).map(|i| (i * 37 + 11) as u8).collect();
        for start in 0..8 {
            for end in start..bytes.len() {
                let b = &bytes[start..end];
                assert_eq!(checksum(b), b.iter().fold(0, |acc, x| acc ^ x));
            }
        }
    }

    /// The one-pass reading gives what the step-by-step one gives, on
    /// well-formed lines and on every way of spoiling one.
    #[test]
    fn the_common_line_read_in_one_pass_is_read_as_step_by_step() {
        let mut lines = Vec::new();
        for kind in ["READY", "PINS", "FAULT", "READ", "PINSS", "pins"] {
            for seq in [
                "0", "7", "42", "255", "007", "256", "999", "", "1a", "1234", "-1",
            ] {
                for data in [
                    "1111111111",
                    "0000000000",
                    "1010000001",
                    "111111111",
                    "11111111111",
                    "1111121111",
                    "JAM",
                    "11111,1111",
                    "11111*1111",
                ] {
                    let payload = format!("PS,{kind},{seq},{data}");
                    let cs = checksum(payload.as_bytes());
                    for tail in [
                        format!("*{cs:02X}"),
                        format!("*{cs:02x}"),
                        format!("*{:02X}", cs ^ 1),
                        format!("*{cs:X}"),
                        String::new(),
                        format!("*{cs:02X}*"),
                    ] {
                        for end in ["", "\r", "\r\r", " "] {
                            lines.push(format!("${payload}{tail}{end}"));
                            lines.push(format!("{payload}{tail}{end}"));
                        }
                    }
                }
            }
        }
        let mut fast = 0;
        for line in &lines {
            let slow = parse_any(line);
            match parse_common(line.as_bytes()) {
                Some(m) => {
                    fast += 1;
                    assert_eq!(Ok(m), slow, "{line:?}");
                }
                None => assert!(
                    !matches!(
                        slow,
                        Ok(Message {
                            body: Body::Ready(_) | Body::Pins(_),
                            ..
                        })
                    ),
                    "{line:?} is read only step by step: {slow:?}"
                ),
            }
            assert_eq!(parse_line(line), slow, "{line:?}");
        }
        let good = lines
            .iter()
            .filter(|l| parse_any(l).is_ok_and(|m| !matches!(m.body, Body::Fault(_))))
            .count();
        // READY and PINS, 5 good sequence numbers, 3 masks, 2 line ends at
        // least.
        assert!(good >= 2 * 5 * 3 * 2, "{good}");
        assert_eq!(fast, good);
    }

    /// The mask read without branches reads every byte at every place as
    /// [`PinSet::from_mask_bytes`] does.
    #[test]
    fn the_mask_read_without_branches_is_the_mask() {
        for base in [*b"0000000000", *b"1111111111", *b"1010000001"] {
            for i in 0..10 {
                for b in 0..=255u8 {
                    let mut mask = base;
                    mask[i] = b;
                    assert_eq!(mask_bits(&mask), PinSet::from_mask_bytes(&mask), "{mask:?}");
                }
            }
        }
    }

    #[test]
    fn the_spec_examples_parse() {
        let m = parse_line("$PS,READY,0,1111111111*54").unwrap();
        assert_eq!(
            m,
            Message {
                seq: 0,
                body: Body::Ready(PinSet::FULL)
            }
        );
        let m = parse_line("$PS,PINS,1,0000001001*1A").unwrap();
        assert_eq!(m.body, Body::Pins(PinSet::from_mask("0000001001").unwrap()));
        assert!(parse_line("$PS,READY,2,0000001001*56").is_ok());
        assert!(parse_line("$PS,PINS,3,0000000000*18").is_ok());
    }

    /// Whatever numbers come, in whatever order, the window keeps every
    /// accepted line within it and none outside.
    #[test]
    fn the_window_keeps_exactly_the_recent_numbers() {
        let mut seq = Sequencer::default();
        let mut x: u32 = 12345;
        let mut dropped = 0;
        for i in 0..20_000u32 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let step = match (x >> 16) % 10 {
                0 => (x >> 8) as u8,
                1..=3 => 0,
                4 => 0u8.wrapping_sub((x >> 20) as u8 % 20),
                _ => 1 + (x >> 24) as u8 % 3,
            };
            let last = seq.recent.back().map_or(0, |m| m.seq);
            let msg = Message {
                seq: last.wrapping_add(step),
                body: Body::Ready(PinSet::FULL),
            };
            let before = seq.recent.len();
            seq.check(&msg);
            let newest = seq.recent.back().map(|m| m.seq);
            let mut trimmed = seq.recent.clone();
            trimmed.retain(|m| newest.is_some_and(|n| n.wrapping_sub(m.seq) < WINDOW));
            assert_eq!(trimmed, seq.recent, "after line {i}");
            dropped += usize::from(seq.recent.len() < before);
        }
        assert!(dropped > 100, "the test left the window alone");
    }

    #[test]
    fn format_line_writes_what_parse_line_reads() {
        for body in [
            Body::Ready(PinSet::FULL),
            Body::Pins(PinSet::EMPTY),
            Body::Fault("NO_BALL_RETURN".into()),
        ] {
            let msg = Message { seq: 200, body };
            assert_eq!(parse_line(&format_line(&msg)).unwrap(), msg);
        }
        assert_eq!(
            format_line(&Message {
                seq: 1,
                body: Body::Pins(PinSet::from_mask("0000001001").unwrap())
            }),
            "$PS,PINS,1,0000001001*1A"
        );
    }

    #[test]
    fn bad_lines_are_rejected_with_the_reason() {
        use LineError::*;
        assert!(matches!(
            parse_line("$PS,PINS,1,0000001001*1B"),
            Err(ChecksumMismatch { .. })
        ));
        assert!(matches!(
            parse_line("$PS,PINS,1,0000001001*1a"),
            Err(BadChecksumField(_))
        ));
        assert!(matches!(
            parse_line("PS,PINS,1,0000001001*1A"),
            Err(NoStart)
        ));
        assert!(matches!(
            parse_line("$PS,PINS,1,0000001001"),
            Err(NoChecksum)
        ));
        assert!(matches!(parse_line("\u{0}\u{ff}garbage"), Err(NoStart)));
        assert!(matches!(parse_line(&"$".repeat(200)), Err(TooLong(200))));
        let with_cs = |payload: &str| format!("${payload}*{:02X}", checksum(payload.as_bytes()));
        assert!(matches!(
            parse_line(&with_cs("PS,PINS,1,00000010x1")),
            Err(BadMask(_))
        ));
        assert!(matches!(
            parse_line(&with_cs("PS,PINS,1,000000100")),
            Err(BadMask(_))
        ));
        assert!(matches!(
            parse_line(&with_cs("PS,STRIKE,1,0000000000")),
            Err(UnknownType(_))
        ));
        assert!(matches!(
            parse_line(&with_cs("PS,PINS,256,0000000000")),
            Err(BadSeq(_))
        ));
        assert!(matches!(
            parse_line(&with_cs("PS,PINS,-1,0000000000")),
            Err(BadSeq(_))
        ));
        assert!(matches!(parse_line(&with_cs("PS,PINS,1")), Err(Fields)));
        assert!(matches!(
            parse_line(&with_cs("PS,FAULT,1,")),
            Err(BadFaultText)
        ));
    }

    #[test]
    fn a_stray_carriage_return_is_tolerated() {
        assert!(parse_line("$PS,READY,0,1111111111*54\r").is_ok());
    }

    #[test]
    fn retransmissions_and_gaps() {
        let msg = |seq, mask| Message {
            seq,
            body: Body::Pins(PinSet::from_mask(mask).unwrap()),
        };
        let mut s = Sequencer::default();
        assert_eq!(s.check(&msg(254, "0000000000")), Verdict::New);
        assert_eq!(s.check(&msg(254, "0000000000")), Verdict::Retransmission);
        assert_eq!(s.check(&msg(255, "0000000001")), Verdict::New);
        assert_eq!(
            s.check(&msg(0, "0000000001")),
            Verdict::New,
            "wraps 255 -> 0"
        );
        assert_eq!(s.check(&msg(4, "0000000001")), Verdict::Gap { lost: 3 });
    }

    #[test]
    fn the_window_tells_resends_conflicts_and_stale_lines_apart() {
        let msg = |seq, mask| Message {
            seq,
            body: Body::Pins(PinSet::from_mask(mask).unwrap()),
        };
        let mut s = Sequencer::default();
        for seq in 250..=255 {
            assert_eq!(s.check(&msg(seq, "0000000000")), Verdict::New);
        }
        assert_eq!(s.check(&msg(0, "0000000001")), Verdict::New);
        assert_eq!(s.check(&msg(1, "0000000011")), Verdict::New);
        // The line before last, then the last two, across the wrap.
        assert_eq!(s.check(&msg(0, "0000000001")), Verdict::Retransmission);
        assert_eq!(s.check(&msg(255, "0000000000")), Verdict::Retransmission);
        assert_eq!(s.check(&msg(1, "0000000011")), Verdict::Retransmission);
        assert_eq!(
            s.check(&msg(0, "1000000000")),
            Verdict::Conflict {
                was: msg(0, "0000000001").body
            }
        );
        assert_eq!(s.check(&msg(2, "0000000111")), Verdict::New);
        // 16 back is behind the window; 100 back is stale too.
        assert_eq!(s.check(&msg(242, "0000000000")), Verdict::Stale);
        assert_eq!(s.check(&msg(158, "0000000000")), Verdict::Stale);
        // A gap, then a lost number arriving late: never seen, not new.
        assert_eq!(s.check(&msg(5, "0000000000")), Verdict::Gap { lost: 2 });
        assert_eq!(s.check(&msg(4, "0000000000")), Verdict::Stale);
        assert_eq!(s.check(&msg(6, "0000000000")), Verdict::New);
    }

    #[test]
    fn a_run_of_refused_numbers_is_a_pinsetter_that_restarted_its_count() {
        let msg = |seq, mask| Message {
            seq,
            body: Body::Ready(PinSet::from_mask(mask).unwrap()),
        };
        let mut s = Sequencer::default();
        for seq in 0..=80 {
            assert_eq!(s.check(&msg(seq, "1111111111")), Verdict::New);
        }
        // One stale line, or two not in a row, change nothing.
        assert_eq!(s.check(&msg(10, "0000000000")), Verdict::Stale);
        assert_eq!(s.check(&msg(20, "0000000000")), Verdict::Stale);
        assert_eq!(s.check(&msg(0, "0000000000")), Verdict::Stale);
        assert_eq!(s.check(&msg(1, "0000000000")), Verdict::Stale);
        assert_eq!(s.check(&msg(2, "0000000000")), Verdict::Restart);
        assert_eq!(s.check(&msg(3, "0000000000")), Verdict::New);
        assert_eq!(s.check(&msg(3, "0000000000")), Verdict::Retransmission);
    }
}
