//! A journal's lines as bytes come: numbered, a torn last line told
//! apart. It never parses an event nor checks a seal.

use std::io::{self, BufRead};

use super::{Header, HeaderError, LineError};

/// One line of a journal as read.
#[derive(Debug)]
pub enum Line<'a> {
    /// A whole line (its `\n` seen), 1-based number.
    Whole(u64, Result<&'a str, LineError>),
    /// The last line had no `\n`: a write cut short, ignored.
    Torn(u64),
}

/// Streams a journal's lines with their numbers, reusing one buffer.
pub struct Reader<R> {
    inner: R,
    buf: Vec<u8>,
    pub(super) line: u64,
}

impl<R: BufRead> Reader<R> {
    pub fn new(inner: R) -> Reader<R> {
        Reader {
            inner,
            buf: Vec::with_capacity(256),
            line: 0,
        }
    }

    /// Reads the header (line 1).
    pub fn header(&mut self) -> Result<Header, HeaderError> {
        match self.next_line()? {
            None => return Err(HeaderError::Empty),
            Some(Line::Whole(_, Err(e))) => return Err(HeaderError::NotAHeader(e.to_string())),
            Some(Line::Whole(_, Ok(text))) => return Header::parse(text),
            // A journal cut short right after its header still has one.
            Some(Line::Torn(_)) => {}
        }
        let text = std::str::from_utf8(&self.buf)
            .map_err(|_| HeaderError::NotAHeader("not UTF-8".into()))?;
        Header::parse(text)
    }

    /// The next line, or `None` at the end.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        if self.inner.read_until(b'\n', &mut self.buf)? == 0 {
            return Ok(None);
        }
        self.line += 1;
        if self.buf.last() != Some(&b'\n') {
            return Ok(Some(Line::Torn(self.line)));
        }
        self.buf.pop();
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        let text = std::str::from_utf8(&self.buf).map_err(|_| LineError::NotUtf8);
        Ok(Some(Line::Whole(self.line, text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reader_numbers_lines_and_spots_a_torn_tail() {
        let text = b"{\"journal\":\"lanecall\",\"version\":1}\n{\"t\":1,\"ev\":\"ball\"}\n\xff\n{\"t\":2,\"ev\":\"ba";
        let mut r = Reader::new(&text[..]);
        assert_eq!(r.header().unwrap().lane, 0);
        assert!(matches!(
            r.next_line().unwrap(),
            Some(Line::Whole(2, Ok(_)))
        ));
        assert!(matches!(
            r.next_line().unwrap(),
            Some(Line::Whole(3, Err(LineError::NotUtf8)))
        ));
        assert!(matches!(r.next_line().unwrap(), Some(Line::Torn(4))));
        assert!(r.next_line().unwrap().is_none());
    }
}
