//! Which lines of a journal are applied: format 2 seals and line numbers,
//! and times that go back or jump ahead, in line order. It never applies an
//! event to a lane (that is `replay`) and never writes.

use std::collections::VecDeque;
use std::io::{self, BufRead};

use super::parse::{parse_input, parse_written};
use super::reader::{RawLine, utf8};
use super::{Header, HeaderError, LineError, Reader, unseal};
use crate::lane::{Event, Millis, Panel, Sensor, Stamped};
use crate::pinsetter;
use crate::wall::WallTime;

/// One line's worth of what a journal says, checked, in line order.
#[derive(Debug)]
pub enum Item {
    /// An input to apply, from this line.
    /// An input to apply, from this line, and the wall-clock time of its
    /// `t` when the line gives one (`wall`).
    Event(u64, Stamped<Input>, Option<WallTime>),
    /// A line that is not applied, and why.
    Error(u64, LineError),
    /// Something to know that loses no input (a torn last line, a gap in
    /// the line numbers).
    Warning(u64, String),
}

/// An event as an [`Item`] carries it: a sensor reading (most lines) as
/// it is, a short pinsetter line without an allocation, a panel action
/// boxed, so that an item stays small to move.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    Sensor(Sensor),
    /// `Sensor::Serial` of a line of at most [`ShortLine::MAX`] bytes.
    Serial(ShortLine),
    Panel(Box<Panel>),
}

/// A pinsetter line held in place: the protocol's lines are about 25 bytes.
/// A common line (a whole `READY` or `PINS`) is read as it is taken, on
/// the reading thread, so the lane's thread need not.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ShortLine {
    len: u8,
    bytes: [u8; ShortLine::MAX],
    common: Option<pinsetter::Common>,
}

impl ShortLine {
    pub const MAX: usize = 31;

    /// `line` held in place, if it is short enough.
    pub fn new(line: &str) -> Option<ShortLine> {
        ShortLine::held(line.as_bytes())
    }

    /// [`ShortLine::new`] of bytes that are all ASCII (so text), `None`
    /// for any other.
    pub(super) fn from_ascii(line: &[u8]) -> Option<ShortLine> {
        if line.is_ascii() {
            ShortLine::held(line)
        } else {
            None
        }
    }

    /// Text's bytes held in place.
    fn held(line: &[u8]) -> Option<ShortLine> {
        ShortLine::with(line, pinsetter::read_common(line))
    }

    /// A line [`pinsetter::read_common`] read as `common` (its bytes are
    /// ASCII, so text) held in place.
    pub(super) fn read(line: &[u8], common: pinsetter::Common) -> Option<ShortLine> {
        ShortLine::with(line, Some(common))
    }

    fn with(line: &[u8], common: Option<pinsetter::Common>) -> Option<ShortLine> {
        let mut bytes = [0; ShortLine::MAX];
        bytes.get_mut(..line.len())?.copy_from_slice(line);
        Some(ShortLine {
            len: line.len() as u8,
            bytes,
            common,
        })
    }

    /// The line read, if it is a whole `READY` or `PINS` with a right
    /// checksum ([`pinsetter::read_common`]).
    pub fn common(&self) -> Option<pinsetter::Common> {
        self.common
    }

    /// The line's bytes: text, as it was given.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    pub fn as_str(&self) -> &str {
        // Whole: the bytes of a `&str` from its start to its end.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl std::fmt::Debug for ShortLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_str().fmt(f)
    }
}

impl From<Event> for Input {
    fn from(e: Event) -> Input {
        match e {
            Event::Sensor(s) => Input::Sensor(s),
            Event::Panel(p) => Input::Panel(Box::new(p)),
        }
    }
}

impl From<Input> for Event {
    #[inline]
    fn from(i: Input) -> Event {
        match i {
            Input::Sensor(s) => Event::Sensor(s),
            Input::Serial(line) => Event::Sensor(Sensor::Serial {
                line: line.as_str().to_owned(),
            }),
            Input::Panel(p) => Event::Panel(*p),
        }
    }
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
    pending: Option<(u64, Stamped<Input>, Option<WallTime>)>,
    /// Items read after `pending`, given out after it.
    held: VecDeque<Item>,
    ready: VecDeque<Item>,
    done: bool,
}

/// A line's event and the wall-clock time of its `t`, if it gives one.
type Read = (Stamped<Input>, Option<WallTime>);

/// Checks line `line`'s seal (format 2: checksum, then a number above
/// the last one) and parses it; a gap in the numbers is a warning.
fn check_line(
    version: u32,
    last_sealed: &mut (u64, u64),
    line: u64,
    text: &str,
) -> (Result<Read, LineError>, Option<Item>) {
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
    (parse_input(text), gap)
}

/// The item of whole line `line` (its bytes without the line end), and
/// a warning of a gap in the line numbers before it.
fn line_item(
    version: u32,
    last_sealed: &mut (u64, u64),
    line: u64,
    bytes: &[u8],
) -> (Item, Option<Item>) {
    let text = match utf8(bytes) {
        Ok(text) => text,
        Err(e) => return (Item::Error(line, e), None),
    };
    let (parsed, gap) = check_line(version, last_sealed, line, text);
    match parsed {
        Ok((e, wall)) => (Item::Event(line, e, wall), gap),
        Err(e) => (Item::Error(line, e), gap),
    }
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

    /// Gives out the event waiting for the next line to confirm its time,
    /// as the end of the journal would, and reads on after it: for a
    /// reader following a journal as it is written. Returns the `t` of the
    /// event given out. Should the next event then be below that `t`, the
    /// whole-file read would have refused the flushed line instead (its
    /// time was the damaged one): a follower that must match it reads the
    /// file again.
    pub fn flush(&mut self) -> Option<Millis> {
        let t = self.pending.as_ref().map(|(_, p, _)| p.t);
        self.release();
        t
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
            let raw = self.reader.next_raw()?;
            // Most lines of a journal without seals: read as written, their
            // event taken as any other (no item built to be matched again).
            if let Some(RawLine::Whole(n, bytes)) = raw
                && self.version < 2
                && bytes.first() == Some(&b'{')
                && let Some(e) = parse_written(bytes)
            {
                if let Some(out) = self.event(n, e, None) {
                    return Ok(Some(out));
                }
                continue;
            }
            let (item, gap) = match raw {
                None => {
                    self.done = true;
                    self.release();
                    continue;
                }
                Some(RawLine::Torn(n)) => (
                    Item::Warning(
                        n,
                        "last line has no line end (cut off by a power loss?): ignored".into(),
                    ),
                    None,
                ),
                // Not read as written above: checked and read field by field.
                Some(RawLine::Whole(n, bytes)) => {
                    line_item(self.version, &mut self.last_sealed, n, bytes)
                }
            };
            if let Some(gap) = gap {
                self.push(gap);
            }
            match item {
                Item::Event(n, e, wall) => {
                    if let Some(out) = self.event(n, e, wall) {
                        return Ok(Some(out));
                    }
                }
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
        if let Some((n, e, wall)) = self.pending.take() {
            self.last_t = e.t;
            self.ready.push_back(Item::Event(n, e, wall));
        }
        self.ready.extend(self.held.drain(..));
    }

    /// Takes the event of line `line`. When it confirms the waiting event
    /// and nothing else is queued (most lines), returns the waiting one to
    /// give out at once instead of queueing it.
    fn event(&mut self, line: u64, e: Stamped<Input>, wall: Option<WallTime>) -> Option<Item> {
        let Some(p_t) = self.pending.as_ref().map(|(_, p, _)| p.t) else {
            if e.t >= self.last_t {
                self.pending = Some((line, e, wall));
            } else {
                let previous = self.last_t;
                self.ready.push_back(Item::Error(
                    line,
                    LineError::TimeBackwards { t: e.t, previous },
                ));
            }
            return None;
        };
        if e.t >= p_t {
            if self.ready.is_empty() && self.held.is_empty() {
                let (p_line, p, p_wall) = self.pending.replace((line, e, wall))?;
                self.last_t = p.t;
                return Some(Item::Event(p_line, p, p_wall));
            }
            self.release();
            self.pending = Some((line, e, wall));
        } else if e.t >= self.last_t {
            // The waiting line is ahead of both its neighbours: its time is
            // the damaged one.
            if let Some((p_line, p, _)) = self.pending.take() {
                let error = LineError::TimeAhead { t: p.t, next: e.t };
                self.ready.push_back(Item::Error(p_line, error));
            }
            self.ready.extend(self.held.drain(..));
            self.pending = Some((line, e, wall));
        } else {
            let error = LineError::TimeBackwards {
                t: e.t,
                previous: p_t,
            };
            self.push(Item::Error(line, error));
        }
        None
    }
}
