//! Reading CSV as spreadsheets write it, a piece at a time, as it arrives:
//! UTF-8 with or without a byte order mark, comma or semicolon separated
//! (the first line decides: semicolons when it has more of them than
//! commas, outside quotes), RFC 4180 quotes, `\r\n`, `\n` or `\r` line
//! ends.
//!
//! A [`Reader`] hands each field to a [`Sink`] as soon as it ends and
//! keeps only the field being read (and, until the first line ends, that
//! line): what a file costs to read is what the sink keeps of it. Rows
//! count from 1 and a quoted line break does not start one.

/// UTF-8's byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What a [`Reader`] finds, as it finds it.
pub trait Sink {
    /// The next field of the record on `row`, in `column` (from 1),
    /// unquoted and untrimmed.
    fn field(&mut self, row: usize, column: usize, value: String);
    /// The record on `row` ends. `broken`: a problem with its quotes was
    /// reported in it, so its values are not what was meant.
    fn end(&mut self, row: usize, broken: bool);
    /// A problem with the file itself, at `row` (and `column`).
    fn problem(&mut self, row: usize, column: Option<usize>, message: String);
}

/// Reads a CSV file given in pieces; see the module's doc.
#[derive(Debug)]
pub struct Reader {
    /// Bytes read beyond this are counted and not read.
    limit: usize,
    /// Every byte given, read or not.
    bytes: usize,
    /// Bytes not yet decoded: the file's start while it may be a byte
    /// order mark, or a character cut between two pieces.
    undecoded: Vec<u8>,
    /// Whether the byte order mark question is settled.
    started: bool,
    /// Not UTF-8, or over the limit: nothing more is read.
    stopped: bool,
    /// The first line while it has not ended, and what it has so far.
    head: Option<Head>,
    sep: char,
    /// In a quoted field; a quoted field was closed; the last character
    /// was a carriage return ending a line (a `\n` after it is the same
    /// line end).
    quoted: bool,
    closed: bool,
    after_cr: bool,
    /// The field being read, the fields already read of this record, its
    /// row, and whether a problem with its quotes was reported.
    field: String,
    column: usize,
    row: usize,
    broken: bool,
}

#[derive(Debug, Default)]
struct Head {
    text: String,
    quoted: bool,
    commas: usize,
    semicolons: usize,
}

impl Reader {
    /// A reader that reads at most `limit` bytes of a file.
    pub fn new(limit: usize) -> Reader {
        Reader {
            limit,
            bytes: 0,
            undecoded: Vec::new(),
            started: false,
            stopped: false,
            head: Some(Head::default()),
            sep: ',',
            quoted: false,
            closed: false,
            after_cr: false,
            field: String::new(),
            column: 0,
            row: 1,
            broken: false,
        }
    }

    /// Every byte given so far, read or not.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether more than the limit was given.
    pub fn over_limit(&self) -> bool {
        self.bytes > self.limit
    }

    /// Reads the next piece of the file.
    pub fn push(&mut self, bytes: &[u8], sink: &mut impl Sink) {
        self.bytes = self.bytes.saturating_add(bytes.len());
        if self.stopped {
            return;
        }
        if self.over_limit() {
            self.stopped = true;
            return;
        }
        let joined;
        let mut data = if self.undecoded.is_empty() {
            bytes
        } else {
            self.undecoded.extend_from_slice(bytes);
            joined = std::mem::take(&mut self.undecoded);
            joined.as_slice()
        };
        if !self.started {
            if data.len() < BOM.len() && BOM.starts_with(data) {
                self.undecoded = data.to_vec();
                return;
            }
            self.started = true;
            data = data.strip_prefix(BOM).unwrap_or(data);
        }
        match std::str::from_utf8(data) {
            Ok(text) => self.text(text, sink),
            Err(e) => {
                let (good, rest) = data.split_at(e.valid_up_to());
                if let Ok(text) = std::str::from_utf8(good) {
                    self.text(text, sink);
                }
                match e.error_len() {
                    // A character cut between this piece and the next.
                    None => self.undecoded = rest.to_vec(),
                    Some(_) => self.not_utf8(sink),
                }
            }
        }
    }

    /// The file has ended: reads what is left.
    pub fn finish(mut self, sink: &mut impl Sink) {
        if self.stopped {
            return;
        }
        if !self.undecoded.is_empty() {
            return self.not_utf8(sink);
        }
        if let Some(head) = self.head.take() {
            self.sep = head.separator();
            self.chars(&head.text, sink);
        }
        if self.quoted {
            let m = "a quote opened here is never closed".to_owned();
            sink.problem(self.row, Some(self.column + 1), m);
            self.broken = true;
        }
        if !self.field.is_empty() || self.column > 0 {
            self.end_field(sink);
            sink.end(self.row, self.broken);
        }
    }

    fn not_utf8(&mut self, sink: &mut impl Sink) {
        let m = "not UTF-8 text: save the file as \"CSV UTF-8\"".to_owned();
        sink.problem(self.row, None, m);
        self.stopped = true;
    }

    /// Decoded text: held while the first line has not ended, read after.
    fn text(&mut self, text: &str, sink: &mut impl Sink) {
        let Some(head) = &mut self.head else {
            return self.chars(text, sink);
        };
        let ended = head.scan(text);
        head.text.push_str(text);
        if ended && let Some(head) = self.head.take() {
            self.sep = head.separator();
            self.chars(&head.text, sink);
        }
    }

    fn end_field(&mut self, sink: &mut impl Sink) {
        self.column += 1;
        sink.field(self.row, self.column, std::mem::take(&mut self.field));
        self.closed = false;
    }

    fn chars(&mut self, text: &str, sink: &mut impl Sink) {
        for c in text.chars() {
            let after_cr = std::mem::take(&mut self.after_cr);
            if self.quoted {
                match c {
                    '"' => (self.quoted, self.closed) = (false, true),
                    c => self.field.push(c),
                }
                continue;
            }
            match c {
                // `""` in a quoted value: the quote that closed it and this
                // one are one quote in it, and the value goes on.
                '"' if self.closed => {
                    self.field.push('"');
                    (self.quoted, self.closed) = (true, false);
                }
                '"' if self.field.is_empty() => self.quoted = true,
                '\n' if after_cr => {}
                '\n' | '\r' => {
                    self.end_field(sink);
                    sink.end(self.row, self.broken);
                    self.row += 1;
                    self.column = 0;
                    self.broken = false;
                    self.after_cr = c == '\r';
                }
                c if c == self.sep => self.end_field(sink),
                c if self.closed => {
                    let m = format!(
                        "{c:?} after a closing quote: a quoted value ends at its column's end"
                    );
                    sink.problem(self.row, Some(self.column + 1), m);
                    self.broken = true;
                    self.closed = false;
                    self.field.push(c);
                }
                '"' => {
                    let m = "a quote inside a value that does not start with one: quote the \
                             whole value and double the quotes in it (\"say \"\"hi\"\"\")"
                        .to_owned();
                    sink.problem(self.row, Some(self.column + 1), m);
                    self.broken = true;
                    self.field.push(c);
                }
                c => self.field.push(c),
            }
        }
    }
}

impl Head {
    /// Counts the separators in `text`: whether the first line ended in it.
    fn scan(&mut self, text: &str) -> bool {
        for c in text.chars() {
            match c {
                '"' => self.quoted = !self.quoted,
                ',' if !self.quoted => self.commas += 1,
                ';' if !self.quoted => self.semicolons += 1,
                '\n' | '\r' if !self.quoted => return true,
                _ => {}
            }
        }
        false
    }

    fn separator(&self) -> char {
        if self.semicolons > self.commas {
            ';'
        } else {
            ','
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a reader found: each record (its row, fields, broken) and each
    /// problem.
    #[derive(Debug, Default, PartialEq)]
    struct Found {
        records: Vec<(usize, Vec<String>, bool)>,
        fields: Vec<String>,
        problems: Vec<(usize, Option<usize>, String)>,
    }

    impl Sink for Found {
        fn field(&mut self, _row: usize, column: usize, value: String) {
            assert_eq!(column, self.fields.len() + 1);
            self.fields.push(value);
        }
        fn end(&mut self, row: usize, broken: bool) {
            let fields = std::mem::take(&mut self.fields);
            self.records.push((row, fields, broken));
        }
        fn problem(&mut self, row: usize, column: Option<usize>, message: String) {
            self.problems.push((row, column, message));
        }
    }

    /// `bytes` read in pieces of `size`.
    fn read_in(bytes: &[u8], size: usize) -> Found {
        let mut found = Found::default();
        let mut r = Reader::new(1 << 20);
        for piece in bytes.chunks(size) {
            r.push(piece, &mut found);
        }
        r.finish(&mut found);
        found
    }

    /// `bytes` read whole, after checking every way of cutting it in
    /// pieces reads the same.
    fn read(bytes: &[u8]) -> Found {
        let whole = read_in(bytes, bytes.len().max(1));
        for size in 1..bytes.len() {
            assert_eq!(read_in(bytes, size), whole, "in pieces of {size}");
        }
        whole
    }

    fn records(bytes: &[u8]) -> Vec<Vec<String>> {
        let f = read(bytes);
        assert_eq!(f.problems, [], "{f:?}");
        f.records.into_iter().map(|(_, r, _)| r).collect()
    }

    #[test]
    fn quotes_separators_and_line_ends() {
        let text = "\u{FEFF}a,b;c\r\n\"x,\"\"y\"\"\nz\",\r\n\nlast";
        assert_eq!(
            records(text.as_bytes()),
            [
                vec!["a", "b;c"],
                vec!["x,\"y\"\nz", ""],
                vec![""],
                vec!["last"],
            ]
        );
        let rows: Vec<usize> = read(text.as_bytes()).records.iter().map(|r| r.0).collect();
        assert_eq!(rows, [1, 2, 3, 4], "a quoted line break starts no row");
        // The first line has more semicolons: they separate.
        assert_eq!(
            records("Имя;Класс,x;\rИван;B1\n".as_bytes()),
            [vec!["Имя", "Класс,x", ""], vec!["Иван", "B1"]]
        );
        assert_eq!(records(b""), Vec::<Vec<String>>::new());
        assert_eq!(records(b"\xEF\xBB\xBF"), Vec::<Vec<String>>::new());
    }

    #[test]
    fn a_problem_with_quotes_breaks_its_record_only() {
        let f = read(b"a,\"b\"c,d\nA\"B\nok\n\"open,x\ny");
        assert_eq!(f.records.len(), 4);
        assert!(f.records[0].2 && f.records[1].2 && !f.records[2].2 && f.records[3].2);
        let places: Vec<(usize, Option<usize>)> = f.problems.iter().map(|p| (p.0, p.1)).collect();
        assert_eq!(places, [(1, Some(2)), (2, Some(1)), (4, Some(1))]);
        assert!(f.problems[0].2.starts_with("'c' after a closing quote"));
        assert!(f.problems[1].2.starts_with("a quote inside a value"));
        assert_eq!(f.problems[2].2, "a quote opened here is never closed");
    }

    #[test]
    fn not_utf8_is_said_at_its_row_and_stops_the_reading() {
        let f = read(b"a,b\nc,\xff\nd\n");
        assert_eq!(f.records, [(1, vec!["a".into(), "b".into()], false)]);
        assert_eq!(
            f.problems,
            [(
                2,
                None,
                "not UTF-8 text: save the file as \"CSV UTF-8\"".into()
            )]
        );
        // Cut short inside a character, or a byte order mark's start.
        assert_eq!(read(&"a,б".as_bytes()[..3]).problems.len(), 1);
        assert_eq!(read(b"\xEF\xBB").problems.len(), 1);
    }

    #[test]
    fn past_the_limit_nothing_is_read_but_the_bytes_are_counted() {
        let mut found = Found::default();
        let mut r = Reader::new(8);
        r.push(b"a,b\nc,d\n", &mut found);
        assert!(!r.over_limit());
        r.push(b"e\n", &mut found);
        r.push(b"f\n", &mut found);
        assert!(r.over_limit());
        assert_eq!(r.bytes(), 12);
        r.finish(&mut found);
        assert_eq!(found.records.len(), 2);
    }
}
