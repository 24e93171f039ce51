//! A journal file's name (`lane7-20261129T100000Z-000012.jsonl`): how it is
//! made and what it says (docs/journal.md, "Files").

use std::path::Path;

use crate::wall_clock::rfc3339;

/// Digits of a journal's sequence number in its name.
const SEQ_DIGITS: usize = 6;

/// The name of lane `lane`'s journal number `seq`, started at `now` (seconds
/// since the Unix epoch, by the wall clock: for people only).
pub fn journal_name(lane: u32, now: u64, seq: u64) -> String {
    let stamp = rfc3339(now).replace([':', '-'], "");
    format!("lane{lane}-{stamp}-{seq:0width$}.jsonl", width = SEQ_DIGITS)
}

/// Where a journal stands among a lane's journals, from its file name
/// alone (`lane7-20261129T100000Z-000012.jsonl`, or with `.damaged` and
/// more after it): its sequence number, the last part of the name, when
/// that has at least [`SEQ_DIGITS`] digits. Names from before sequence
/// numbers (`…-01`, a count within one second) are 0: older than any
/// numbered journal. The wall-clock stamp in the middle never decides.
pub fn journal_seq(name: &str) -> u64 {
    let stem = name.split('.').next().unwrap_or(name);
    match stem.rsplit('-').next() {
        Some(n) if n.len() >= SEQ_DIGITS && n.bytes().all(|b| b.is_ascii_digit()) => {
            n.parse().unwrap_or(0)
        }
        _ => 0,
    }
}

/// The name of a file's own directory entry, as text.
pub fn file_name(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_gives_back_its_sequence_number_and_old_names_are_older() {
        let name = journal_name(7, 1_764_410_400, 12);
        assert_eq!(name, "lane7-20251129T100000Z-000012.jsonl");
        assert_eq!(journal_seq(&name), 12);
        assert_eq!(journal_seq(&format!("{name}.damaged-2")), 12);
        assert_eq!(journal_seq("lane7-20261129T140000Z-01.jsonl"), 0);
        assert_eq!(
            journal_seq("lane7-20261129T140000Z-1234567.jsonl"),
            1_234_567
        );
        assert_eq!(journal_seq("notes.txt"), 0);
    }
}
