//! The seal of a format 2 line: its number `n` and the CRC32C `c` of its
//! own bytes, written and checked. It never reads what the line says, nor
//! decides whether a number follows the one before (that is `checked.rs`).

use std::fmt::Write as _;

use super::LineError;

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
pub(super) fn looks_sealed(line: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::{Header, parse_event};
    use crate::lane::Rules;

    /// The format 2 lines of journal.md, as they stand there.
    #[test]
    fn the_documented_format_2_lines_hold_their_seals() {
        let header = r#"{"journal":"lanecall","lane":7,"rules":{"ball_break_max_ms":100,"blindfolds_between_blocks":true,"checked_inputs":true,"cycle_per_link":true,"foul_lamp_ms":3000,"foul_mode":"score","foul_window_ms":3000,"max_travel_ms":10000,"min_cycle_ms":3000,"pin_report_timeout_ms":15000,"slow_bowling_limit_s":60,"speaker_extras":false,"typical_travel_ms":2500},"seq":12,"started_at":"2026-11-29T14:00:00Z","version":2,"n":1,"c":"7515c774"}"#;
        let h = Header::parse(header).unwrap();
        assert_eq!((h.version, h.lane, h.seq), (2, 7, 12));
        assert_eq!(h.rules, Rules::default());
        assert_eq!(h.to_line(), header);
        // The same header as lanecall wrote it before `checked_inputs`:
        // its inputs are taken as they were then.
        let before = Header::parse(r#"{"journal":"lanecall","lane":7,"rules":{"ball_break_max_ms":100,"blindfolds_between_blocks":true,"cycle_per_link":true,"foul_lamp_ms":3000,"foul_mode":"score","foul_window_ms":3000,"max_travel_ms":10000,"min_cycle_ms":3000,"pin_report_timeout_ms":15000,"slow_bowling_limit_s":60,"speaker_extras":false,"typical_travel_ms":2500},"seq":12,"started_at":"2026-11-29T14:00:00Z","version":2,"n":1,"c":"53bd9ea7"}"#).unwrap();
        assert_eq!(
            before.rules,
            Rules {
                checked_inputs: false,
                ..Rules::default()
            }
        );
        // The same header as lanecall wrote it before `speaker_extras`.
        let before = r#"{"journal":"lanecall","lane":7,"rules":{"ball_break_max_ms":100,"foul_lamp_ms":3000,"foul_mode":"score","max_travel_ms":10000,"min_cycle_ms":3000,"pin_report_timeout_ms":15000,"slow_bowling_limit_s":60,"typical_travel_ms":2500},"seq":12,"started_at":"2026-11-29T14:00:00Z","version":2,"n":1,"c":"97bd9d94"}"#;
        assert!(Header::parse(before).unwrap().rules.speaker_extras);
        // And before `foul_window_ms` and `blindfolds_between_blocks`: the
        // foul window and the blindfold checks of its time.
        let before = Header::parse(r#"{"journal":"lanecall","lane":7,"rules":{"ball_break_max_ms":100,"foul_lamp_ms":3000,"foul_mode":"score","max_travel_ms":10000,"min_cycle_ms":3000,"pin_report_timeout_ms":15000,"slow_bowling_limit_s":60,"speaker_extras":false,"typical_travel_ms":2500},"seq":12,"started_at":"2026-11-29T14:00:00Z","version":2,"n":1,"c":"8ad277cd"}"#).unwrap();
        assert_eq!(before.rules.foul_window_ms, None);
        assert!(!before.rules.blindfolds_between_blocks);
        assert!(!before.rules.cycle_per_link);
        assert!(!before.rules.speaker_extras);
        let ball = r#"{"t":5120,"ev":"ball","n":17,"c":"d9cd632b"}"#;
        assert_eq!(unseal(ball), Ok(17));
        assert_eq!(parse_event(ball).unwrap().t, 5120);
        let changed = ball.replace("5120", "5121");
        assert!(matches!(unseal(&changed), Err(LineError::Checksum { .. })));
        assert!(unseal(&ball.replace("d9cd632b", "D9CD632B")).is_err());
        assert_eq!(unseal(r#"{"t":1,"ev":"ball"}"#), Err(LineError::NoSeal));
    }
}
