//! CSV as lanecall writes and reads it: every CSV file the lane and the
//! centre hand out (a lane's score sheet, the centre's entries and results
//! protocol) is written by the one [`Writer`], each cell through [`cell`],
//! and the centre's import reads with [`read`].
//!
//! A CSV file is data, but a spreadsheet opening it takes a cell that
//! starts with `=`, `+`, `-` or `@` (or with a tab or a carriage return,
//! after which some do the same) for a formula and runs it:
//! `=HYPERLINK(…)`, `+cmd|' /C calc'!A0`. [`cell`] writes such a cell
//! with a leading `'`, the spreadsheets' mark for "text, not a formula",
//! so opening a file never runs what a person typed into a name or a
//! region. A plain number (`-5`, `12`, `0.5`) is not touched: it is no
//! formula, and a negative number stays a number. [`plain`] is the
//! inverse, for reading back a file written so.

use std::borrow::Cow;

pub mod read;

/// The characters a spreadsheet takes a cell starting with for a
/// formula (or, a tab or a carriage return, skips before one).
const FORMULA_START: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// Whether `s` is a plain decimal number: an optional `-`, digits, and
/// optionally a `.` and digits.
fn is_number(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
    let all_digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    all_digits(whole) && all_digits(fraction)
}

/// Whether a spreadsheet could take `s` for a formula: it starts with one
/// of [`FORMULA_START`], after any spaces and line breaks, and it is not a
/// plain number.
fn is_formula(s: &str) -> bool {
    let t = s.trim_start_matches([' ', '\n', '\u{a0}']);
    t.starts_with(FORMULA_START) && !is_number(s)
}

/// Whether [`cell`] marks `s` with a `'`: a formula, or a value that
/// starts with `'` before one (so that [`plain`] gives it back whole).
fn needs_mark(s: &str) -> bool {
    is_formula(s) || s.strip_prefix('\'').is_some_and(needs_mark)
}

/// One CSV cell, for every CSV lanecall writes: a cell a spreadsheet
/// could take for a formula gets a leading `'`; then one that holds a
/// comma, a semicolon (a spreadsheet in a Russian locale separates with
/// them), a quote or a line break, or starts or ends with a space, is
/// quoted (RFC 4180) with its quotes doubled. Anything else, plain
/// numbers included, is written as it is.
pub fn cell(s: &str) -> Cow<'_, str> {
    let s: Cow<'_, str> = if needs_mark(s) {
        Cow::Owned(format!("'{s}"))
    } else {
        Cow::Borrowed(s)
    };
    let quote = s.contains([',', ';', '"', '\r', '\n']) || s.trim() != s;
    if quote {
        Cow::Owned(format!("\"{}\"", s.replace('"', "\"\"")))
    } else {
        s
    }
}

/// The byte order mark a file starts with so that a spreadsheet reads it
/// as UTF-8 (Excel in a Russian locale takes a file without it for
/// cp1251).
pub const BOM: &str = "\u{feff}";

/// The one CSV writer: every CSV file lanecall hands out (the lane's score
/// sheet, the centre's entries and results protocol) is written row by
/// row through it. Each cell goes through [`cell`] (formulas neutralised,
/// quoted where it must be); cells are separated by the writer's
/// separator, `,`, or `;` for a spreadsheet in a locale whose decimal mark
/// is a comma (a Russian one: [`cell`] quotes a cell holding either
/// separator, so a row reads the same with both); each row ends with
/// `\r\n`.
///
/// A hand-written writer rather than the `csv` crate: that crate quotes a
/// cell only for its own separator, a quote or a line break, where these
/// files also quote the other separator and a leading or trailing space,
/// and every byte of the files stays as it was.
#[derive(Debug)]
pub struct Writer {
    out: String,
    sep: char,
}

impl Writer {
    /// A file with `sep` between its cells and no byte order mark.
    pub fn new(sep: char) -> Writer {
        Writer {
            out: String::with_capacity(4096),
            sep,
        }
    }

    /// A file that starts with the [`BOM`].
    pub fn with_bom(sep: char) -> Writer {
        let mut w = Writer::new(sep);
        w.out.push_str(BOM);
        w
    }

    /// One row: each cell through [`cell`], the separator between them,
    /// `\r\n` after.
    pub fn row<S: AsRef<str>>(&mut self, cells: impl IntoIterator<Item = S>) {
        for (i, c) in cells.into_iter().enumerate() {
            if i > 0 {
                self.out.push(self.sep);
            }
            self.out.push_str(&cell(c.as_ref()));
        }
        self.out.push_str("\r\n");
    }

    /// An empty row, between two tables of one file.
    pub fn blank(&mut self) {
        self.out.push_str("\r\n");
    }

    /// The file written.
    pub fn finish(self) -> String {
        self.out
    }
}

/// A value as [`cell`] wrote it, read back: the `'` it put before a
/// formula (or before a `'` and a formula) is taken off; a value read from
/// a file is unquoted already. Any other value is as it is.
pub fn plain(s: &str) -> &str {
    match s.strip_prefix('\'') {
        Some(rest) if needs_mark(rest) => rest,
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_is_quoted_only_when_it_must_be() {
        assert_eq!(cell("Anna"), "Anna");
        assert_eq!(cell("Анна Кузнецова"), "Анна Кузнецова");
        assert_eq!(cell("Kuznetsova, Anna"), "\"Kuznetsova, Anna\"");
        assert_eq!(cell("Tula; TOS"), "\"Tula; TOS\"");
        assert_eq!(cell("Anna \"K\""), "\"Anna \"\"K\"\"\"");
        assert_eq!(cell("a\nb"), "\"a\nb\"");
        assert_eq!(cell(" Anna"), "\" Anna\"");
        assert_eq!(cell(""), "");
        assert!(matches!(cell("Anna"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_cell_a_spreadsheet_would_run_is_text() {
        assert_eq!(cell("=1+1"), "'=1+1");
        assert_eq!(
            cell("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""
        );
        assert_eq!(cell("+cmd|' /C calc'!A0"), "'+cmd|' /C calc'!A0");
        assert_eq!(cell("-2+3+cmd|' /C calc'!A0"), "'-2+3+cmd|' /C calc'!A0");
        assert_eq!(cell("@SUM(A1:A9)"), "'@SUM(A1:A9)");
        assert_eq!(cell("\t=1"), "'\t=1");
        assert_eq!(cell("\r=1"), "\"'\r=1\"");
        assert_eq!(cell("=A1,B1"), "\"'=A1,B1\"");
        // After spaces or a line break, some spreadsheets still see one.
        assert_eq!(cell(" =1+1"), "' =1+1");
        assert_eq!(cell("\n=1+1"), "\"'\n=1+1\"");
        // Not at the start: text already.
        assert_eq!(cell("Anna=1"), "Anna=1");
        // Starts like a number but is not one.
        assert_eq!(cell("-1e5"), "'-1e5");
        assert_eq!(cell("-"), "'-");
        assert_eq!(cell("-/"), "'-/");
        assert_eq!(cell("+5"), "'+5");
        // A `'` before a formula is marked too, so that it reads back.
        assert_eq!(cell("'=1"), "''=1");
        assert_eq!(cell("'Anna"), "'Anna");
    }

    #[test]
    fn a_number_stays_a_number() {
        for n in ["0", "12", "300", "-5", "-300", "0.5", "-12.25"] {
            assert_eq!(cell(n), n);
            assert!(matches!(cell(n), Cow::Borrowed(_)));
        }
        for not in ["-", "-.5", "5.", "--5", "-5-", "1-1", "-0x5", "- 5"] {
            assert!(!is_number(not), "{not:?}");
        }
    }

    fn row(sep: char, cells: &[&str]) -> String {
        let mut w = Writer::new(sep);
        w.row(cells);
        w.finish()
    }

    #[test]
    fn a_row_ends_with_crlf() {
        assert_eq!(row(',', &["a", "=b", "-3", "c,d"]), "a,'=b,-3,\"c,d\"\r\n");
        assert_eq!(row(',', &[]), "\r\n");
        assert_eq!(row(';', &["a", "b;c", "d,e"]), "a;\"b;c\";\"d,e\"\r\n");
    }

    #[test]
    fn a_file_is_its_mark_then_its_rows() {
        let mut w = Writer::with_bom(';');
        w.row(["name", "team"]);
        w.blank();
        w.row(vec!["Anna".to_owned(), "=1".to_owned()]);
        assert_eq!(w.finish(), "\u{feff}name;team\r\n\r\nAnna;'=1\r\n");
    }

    #[test]
    fn plain_reads_back_what_cell_wrote() {
        let values = [
            "=1+1",
            "+cmd|' /C calc'!A0",
            "-x",
            "@a",
            "-5",
            "Anna",
            "'quoted'",
            "'",
            "'=1",
            "''-x",
            "'-5",
        ];
        for s in values {
            let written = cell(s);
            let unquoted = if written.starts_with('"') {
                written[1..written.len() - 1].replace("\"\"", "\"")
            } else {
                written.into_owned()
            };
            assert_eq!(plain(&unquoted), s, "{s:?}");
        }
        // A `'` before anything a spreadsheet would not run is kept.
        assert_eq!(plain("'Anna"), "'Anna");
        assert_eq!(plain("'-5"), "'-5");
    }
}
