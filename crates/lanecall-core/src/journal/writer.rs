//! A journal written: the header, then each event sealed with its number.
//! It never makes a line durable (the caller owns the file) and never reads.

use std::io::{self, Write};

use super::{Header, sealed_event_line};
use crate::lane::{Event, Stamped};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::{Line, Reader, parse_event};
    use crate::lane::{Rules, Sensor};

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
