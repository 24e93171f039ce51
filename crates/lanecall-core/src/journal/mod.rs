//! The lane journal (journal.md): UTF-8 JSON Lines, a header line and then
//! one input per line. Format 2 seals every line with its number `n` and a
//! CRC32C `c` of its own bytes; format 1 journals (no seal) still replay.
//!
//! The journal holds inputs only; scores are always recomputed from it. The
//! reader streams (a journal is never loaded whole), reports a line that does
//! not parse, or whose seal or time does not fit, by its number and goes on,
//! so one damaged line loses only itself; a last line without its `\n` is
//! the normal state after a power cut.
//!
//! Each file here decides one thing: `seal.rs` the seal of a format 2 line,
//! `header.rs` the first line, `parse.rs` an event line read, `encode.rs`
//! an event line written, `reader.rs` the lines of a file, `writer.rs` a
//! journal written, `checked.rs` which lines are applied (seals, line
//! numbers, times). This file holds what they share: the formats and why a line is
//! not applied.

mod checked;
mod encode;
mod header;
mod parse;
mod reader;
mod seal;
mod writer;

pub use checked::{Checked, Input, Item, ShortLine};
pub use encode::{bowler_json, event_line, sealed_event_line, sealed_line_at};
pub use header::{Header, HeaderError};
pub use parse::{parse_event, parse_panel_action};
pub use reader::{Line, Reader};
pub use seal::{seal, unseal};
pub use writer::Writer;

use crate::lane::Millis;

/// The format lanecall writes.
pub const FORMAT_VERSION: u32 = 2;
/// The oldest format it still reads.
pub const OLDEST_FORMAT: u32 = 1;

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
