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

/// Streams a journal's lines with their numbers. A line that lies whole in
/// `inner`'s buffer is lent from there, and consumed from `inner` at the
/// next read; one that does not is copied into one reused buffer.
pub struct Reader<R> {
    inner: R,
    buf: Vec<u8>,
    /// Bytes of `inner`'s buffer lent out as the last line.
    lent: usize,
    pub(super) line: u64,
}

/// Where the first `\n` of `bytes` is, eight bytes at a time.
fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let newlines = ONES * u64::from(b'\n');
    let mut start = 0;
    for chunk in bytes.chunks_exact(8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        // A zero byte in `x` is a `\n` in the chunk; the lowest bit set in
        // `zero` is the first one's (a false one only ever follows a true).
        let x = u64::from_le_bytes(word) ^ newlines;
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            return Some(start + zero.trailing_zeros() as usize / 8);
        }
        start += 8;
    }
    bytes[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| start + i)
}

impl<R: BufRead> Reader<R> {
    pub fn new(inner: R) -> Reader<R> {
        Reader {
            inner,
            buf: Vec::with_capacity(256),
            lent: 0,
            line: 0,
        }
    }

    /// Reads the header (line 1), and leaves `inner` just after it.
    pub fn header(&mut self) -> Result<Header, HeaderError> {
        let whole = match self.next_line()? {
            None => return Err(HeaderError::Empty),
            Some(Line::Whole(_, Err(e))) => Some(Err(HeaderError::NotAHeader(e.to_string()))),
            Some(Line::Whole(_, Ok(text))) => Some(Header::parse(text)),
            // A journal cut short right after its header still has one.
            Some(Line::Torn(_)) => None,
        };
        self.inner.consume(std::mem::take(&mut self.lent));
        if let Some(header) = whole {
            return header;
        }
        let text = std::str::from_utf8(&self.buf)
            .map_err(|_| HeaderError::NotAHeader("not UTF-8".into()))?;
        Header::parse(text)
    }

    /// The next line, or `None` at the end.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        Ok(self.next_raw()?.map(|line| match line {
            RawLine::Whole(n, bytes) => Line::Whole(n, utf8(bytes)),
            RawLine::Torn(n) => Line::Torn(n),
        }))
    }

    /// [`Reader::next_line`] before its UTF-8 check.
    pub(super) fn next_raw(&mut self) -> io::Result<Option<RawLine<'_>>> {
        self.buf.clear();
        self.inner.consume(std::mem::take(&mut self.lent));
        let whole = loop {
            match self.inner.fill_buf() {
                Ok(bytes) => break find_newline(bytes).map(|i| i + 1),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        if let Some(len) = whole {
            // The same bytes again: nothing was consumed since.
            let bytes = self.inner.fill_buf()?;
            let line = bytes.get(..len).unwrap_or(bytes);
            self.lent = line.len();
            self.line += 1;
            return Ok(Some(RawLine::Whole(self.line, strip_end(line))));
        }
        if self.inner.read_until(b'\n', &mut self.buf)? == 0 {
            return Ok(None);
        }
        self.line += 1;
        if self.buf.last() != Some(&b'\n') {
            return Ok(Some(RawLine::Torn(self.line)));
        }
        Ok(Some(RawLine::Whole(self.line, strip_end(&self.buf))))
    }
}

/// A line as [`Reader::next_raw`] gives it: [`Line`] before the UTF-8
/// check of a whole line's bytes (without its `\n` or `\r\n`).
pub(super) enum RawLine<'a> {
    Whole(u64, &'a [u8]),
    Torn(u64),
}

/// A whole line's bytes without its `\n` or `\r\n`.
fn strip_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A line's bytes (its end stripped) as text.
pub(super) fn utf8(line: &[u8]) -> Result<&str, LineError> {
    std::str::from_utf8(line).map_err(|_| LineError::NotUtf8)
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

    /// What a reader gives out, as text.
    fn lines(mut r: Reader<impl BufRead>) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(line) = r.next_line().unwrap() {
            out.push(format!("{line:?}"));
        }
        out
    }

    /// Lines lent from the buffer and lines copied across its end read
    /// the same, whatever the buffer's size.
    #[test]
    fn lines_read_the_same_across_buffer_ends() {
        let text = b"{\"t\":1,\"ev\":\"ball\"}\r\n\n\xff\xfe\n{\"t\":2,\"ev\":\"serial\",\"line\":\"$PS,READY,0,1111111111*54\"}\n\xc3\xa9t\xc3\xa9\n{\"t\":3";
        let whole = lines(Reader::new(&text[..]));
        assert_eq!(whole.len(), 6);
        assert!(whole[5].contains("Torn(6)"));
        for capacity in 1..=text.len() + 1 {
            let r = Reader::new(io::BufReader::with_capacity(capacity, &text[..]));
            assert_eq!(lines(r), whole, "buffer of {capacity} bytes");
        }
    }

    /// Reading the header leaves the stream just after it.
    #[test]
    fn the_header_leaves_the_stream_after_line_one() {
        let text = b"{\"journal\":\"lanecall\",\"version\":1}\n{\"t\":1,\"ev\":\"ball\"}\n";
        let mut stream = &text[..];
        assert_eq!(Reader::new(&mut stream).header().unwrap().version, 1);
        assert_eq!(stream, b"{\"t\":1,\"ev\":\"ball\"}\n");
    }

    #[test]
    fn newlines_are_found_wherever_they_are() {
        for len in 0..40 {
            for at in 0..len {
                let mut bytes = vec![b'x'; len];
                bytes[at] = b'\n';
                if at + 3 < len {
                    bytes[at + 3] = b'\n';
                }
                assert_eq!(find_newline(&bytes), Some(at));
            }
            assert_eq!(find_newline(&vec![b'\x8a'; len]), None);
        }
    }
}
