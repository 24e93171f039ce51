//! What the mirror writes: a journal message proved, before anything is
//! written or held, to be a line of the lane's own journal; and a journal
//! known by what its header says, never by its file's name alone, so that
//! one journal sent again under another name is refused, not counted
//! twice.

use super::{JournalLine, Mirror, lock, valid_file_name};
use crate::centre::MAX_JOURNAL_MESSAGE;
use crate::journal::names::journal_seq;

/// A journal topic's payload checked, and its line proved to be lane
/// `lane`'s (docs/centre.md, "What the mirror writes"): JSON of the right
/// shape; a journal file's name that names this lane; a format 2 line
/// whose seal holds and whose own `n` is the message's; and, for line 1,
/// a header of this lane. Or the reason it is refused. What it cannot
/// check alone the mirror does: it writes lines in `n` order only, and
/// takes a header only under the name of its `seq` and only when no
/// journal it has repeats it ([`admit`]).
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
    }
    Ok(msg)
}

/// What a journal is, as its line 1 (the header, sealed) says: the mirror
/// knows a journal by this, never by its file's name alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Identity {
    /// The header's format (0: line 1 is no header).
    pub version: u32,
    /// The header's `seq` (0: none, as in format 1).
    pub seq: u64,
    pub started_at: Option<String>,
    /// CRC32C of line 1 as the lane wrote it.
    pub crc: u32,
}

impl Identity {
    /// The identity line 1 `line` gives (a line that is no header: its
    /// bytes alone).
    pub fn of(line: &str) -> Identity {
        let header = crate::journal::Header::parse(line).ok();
        Identity {
            version: header.as_ref().map_or(0, |h| h.version),
            seq: header.as_ref().map_or(0, |h| h.seq),
            started_at: header.and_then(|h| h.started_at),
            crc: crc32c::crc32c(line.as_bytes()),
        }
    }
}

/// Why a journal is not mirrored: the reason counted in `refused`, and the
/// alarm (kind and detail) it raises, if any.
pub(super) struct Refusal {
    pub why: &'static str,
    pub alarm: Option<(&'static str, String)>,
}

/// Whether lane `lane`'s journal `name`, whose line 1 says `id`, is one to
/// mirror beside the journals `others` (name and identity) it has taken:
/// not when its header repeats one of them (the same journal sent again
/// under another name: `journal_copy`), when its `seq` is one of theirs (a
/// second history: two lanes with one number, `duplicate_lane`), or when
/// it is format 2 and its name does not carry its header's `seq` (a
/// format 1 name, without one, only for a header without one).
pub(super) fn admit<'a>(
    lane: u32,
    name: &str,
    id: &Identity,
    mut others: impl Iterator<Item = (&'a str, &'a Identity)> + Clone,
) -> Result<(), Refusal> {
    if let Some((other, _)) = others.clone().find(|(_, o)| *o == id) {
        let started = id.started_at.as_deref().unwrap_or("at an unknown time");
        return Err(Refusal {
            why: "journal_copy",
            alarm: Some((
                "journal_copy",
                format!(
                    "{name} is {other} sent again (the same header: seq {}, started {started}): \
                     not mirrored, its games not counted again",
                    id.seq
                ),
            )),
        });
    }
    if id.seq != 0
        && let Some((other, _)) = others.find(|(_, o)| o.seq == id.seq)
    {
        return Err(Refusal {
            why: "journal_seq_again",
            alarm: Some((
                "duplicate_lane",
                format!(
                    "two journals with seq {}: {other} and {name}; only the first is mirrored \
                     and counted. Two lanes may be configured as lane {lane}, or the lane lost \
                     its journals (a new card) and numbers them from 1 again: put its journals back \
                     (docs/install.md, \"A new SD card\")",
                    id.seq
                ),
            )),
        });
    }
    if id.version >= 2 && journal_seq(name) != id.seq {
        return Err(Refusal {
            why: "journal_header_seq",
            alarm: None,
        });
    }
    Ok(())
}

impl Mirror {
    /// Lane `n`'s journal message `msg` weighed by what its journal is,
    /// before anything is written or held: a line 1 not yet taken is
    /// [`admit`]ted or its journal refused (its held lines dropped, an
    /// alarm raised); any other line of a refused journal is refused. A
    /// refused journal's line 1 is weighed again when it comes again (a
    /// lane's own journal under a name a copy took first is taken). The
    /// reason counted when the line is refused.
    pub(super) fn identify(&mut self, n: u32, msg: &JournalLine) -> Result<(), &'static str> {
        let Some(lane) = self.lanes.get_mut(&n) else {
            return Ok(());
        };
        let Some(f) = lane.files.get(&msg.file) else {
            return Ok(());
        };
        if msg.n != 1 || f.id.is_some() {
            return if f.refused {
                Err("journal_file_refused")
            } else {
                Ok(())
            };
        }
        let id = Identity::of(&msg.line);
        let others = (lane.files.iter())
            .filter(|(name, f)| **name != msg.file && !f.refused)
            .filter_map(|(name, f)| Some((name.as_str(), f.id.as_ref()?)));
        let verdict = admit(n, &msg.file, &id, others);
        let f = lane.files.get_mut(&msg.file).expect("present");
        match verdict {
            Ok(()) => {
                f.id = Some(id);
                f.refused = false;
                Ok(())
            }
            Err(refusal) => {
                tracing::warn!(
                    lane = n,
                    file = msg.file,
                    why = refusal.why,
                    "a journal refused"
                );
                f.refused = true;
                f.held.clear();
                f.dropped = false;
                f.asked_at = None;
                if let Some((kind, detail)) = refusal.alarm {
                    lock(&self.book).alarm(kind, n, detail);
                }
                Err(refusal.why)
            }
        }
    }
}

/// The lane number a journal file's name gives (`lane<N>-…`).
fn file_lane(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("lane")?.split('-').next()?;
    if digits.starts_with('0') {
        return None;
    }
    digits.parse().ok()
}
