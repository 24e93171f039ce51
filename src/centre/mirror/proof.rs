//! What the mirror writes: a journal message proved, before anything is
//! written or held, to be a line of the lane's own journal.

use super::{JournalLine, valid_file_name};
use crate::centre::MAX_JOURNAL_MESSAGE;
use crate::journal::names::journal_seq;

/// A journal topic's payload checked, and its line proved to be lane
/// `lane`'s (docs/centre.md, "What the mirror writes"): JSON of the right
/// shape; a journal file's name that names this lane; a format 2 line
/// whose seal holds and whose own `n` is the message's; and, for line 1,
/// a header of this lane whose `seq` is the one in the file's name. Or
/// the reason it is refused. What it cannot check alone (that the line
/// follows the one before it) the mirror does: it writes lines in `n`
/// order only.
pub fn check_journal(payload: &[u8], lane: u32) -> Result<JournalLine, &'static str> {
    if payload.len() > MAX_JOURNAL_MESSAGE {
        return Err("journal_too_large");
    }
    let msg: JournalLine = serde_json::from_slice(payload).map_err(|_| "journal_not_json")?;
    if !valid_file_name(&msg.file) {
        return Err("journal_file_name");
    }
    if file_lane(&msg.file) != Some(lane) {
        return Err("journal_file_lane");
    }
    if msg.n == 0 || msg.n > 1 << 40 {
        return Err("journal_line_number");
    }
    if msg.line.is_empty() || msg.line.contains(['\n', '\r']) {
        return Err("journal_line_text");
    }
    if crate::journal::unseal(&msg.line).map_err(|_| "journal_seal")? != msg.n {
        return Err("journal_seal_number");
    }
    if msg.n == 1 {
        let header = crate::journal::Header::parse(&msg.line).map_err(|_| "journal_header")?;
        if header.lane != lane {
            return Err("journal_header_lane");
        }
        let named = journal_seq(&msg.file);
        if named != 0 && header.seq != named {
            return Err("journal_header_seq");
        }
    }
    Ok(msg)
}

/// The lane number a journal file's name gives (`lane<N>-…`).
fn file_lane(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("lane")?.split('-').next()?;
    if digits.starts_with('0') {
        return None;
    }
    digits.parse().ok()
}
