//! The entries as CSV (docs/programme.md, "Entries as CSV"): read as
//! spreadsheets write them ([`crate::csv::read`]: UTF-8 with or without a
//! byte order mark, comma or semicolon separated, RFC 4180 quotes), a
//! piece at a time as the file arrives, every problem by its row and
//! column (the first [`SHOWN`], and how many more); written with a byte
//! order mark, commas and `\r\n`, each cell by [`crate::csv::cell`].
//!
//! It reads the values of each row into an [`Entry`]; whether the entries
//! make a programme is checked after, by the programme's own checks.
//!
//! What a file costs is bounded whatever it holds: the value being read,
//! at most [`MAX_ENTRIES`] entries, and [`SHOWN`] problems of at most
//! [`MAX_QUOTED`] characters each (a long value quoted in one is cut).

use std::borrow::Cow;

use super::{Issue, MAX_ENTRIES, entry_from};
use crate::centre::programme::Entry;
use crate::csv::read::{Reader, Sink};

/// The largest CSV file taken.
pub const MAX_CSV: usize = 1 << 20;
/// The columns, in the order an export writes them.
pub const COLUMNS: [&str; 7] = [
    "name",
    "class",
    "sex",
    "region",
    "team",
    "handicap",
    "withdrawn",
];
/// The columns every file must have.
pub const REQUIRED: [&str; 4] = ["name", "class", "sex", "region"];
/// The Russian headers a secretary's spreadsheet has, and the column each
/// is (after [`column_name`]'s forgiving of case and spaces).
pub const RUSSIAN: [(&str, &str); 10] = [
    ("фамилия имя", "name"),
    ("фамилия, имя", "name"),
    ("имя", "name"),
    ("фио", "name"),
    ("класс", "class"),
    ("пол", "sex"),
    ("регион", "region"),
    ("команда", "team"),
    ("гандикап", "handicap"),
    ("снят", "withdrawn"),
];

/// The column a first row's cell names: its text lowercase, its spaces
/// trimmed and runs of them one; a Russian header ([`RUSSIAN`]) is the
/// column it means.
pub fn column_name(header: &str) -> String {
    let h = header
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .replace('ё', "е");
    match RUSSIAN.iter().find(|(ru, _)| *ru == h) {
        Some((_, column)) => (*column).to_owned(),
        None => h,
    }
}
/// Problems an import lists; any more are counted.
pub const SHOWN: usize = 100;
/// The columns of a first row that are read: a good one has at most
/// [`COLUMNS`]`.len()`.
const MAX_HEADER: usize = 64;
/// The longest problem in characters: a longer one (a long value quoted
/// in it) is cut in the middle.
pub const MAX_QUOTED: usize = 300;

/// A CSV file read: its entries, and for each the row it is on (the
/// header is row 1) and the columns by their number (from 1).
#[derive(Debug)]
pub struct Parsed {
    pub entries: Vec<Entry>,
    pub rows: Vec<usize>,
    pub columns: Vec<String>,
}

impl Parsed {
    /// `issue` of the `n`th entry (from 1), placed at its row and column.
    pub fn place(&self, mut issue: Issue) -> Issue {
        if let Some(n) = issue.entry.take() {
            issue.row = self.rows.get(n.wrapping_sub(1)).copied();
        }
        if let Some(field) = &issue.field {
            issue.column = self.columns.iter().position(|c| c == field).map(|c| c + 1);
        }
        issue
    }
}

/// The problems found: the first [`SHOWN`], and how many more.
#[derive(Debug, Default)]
pub struct Problems {
    pub shown: Vec<Issue>,
    pub more: usize,
}

impl Problems {
    /// Lists `issue` while fewer than [`SHOWN`] are, else counts it; a
    /// message over [`MAX_QUOTED`] characters is cut in the middle.
    pub fn push(&mut self, mut issue: Issue) {
        if self.shown.len() >= SHOWN {
            self.more += 1;
            return;
        }
        if let Cow::Owned(m) = shorten(&issue.message) {
            issue.message = m;
        }
        self.shown.push(issue);
    }

    pub fn is_empty(&self) -> bool {
        self.shown.is_empty()
    }

    /// Every problem shown, one a line, then how many more there are.
    pub fn text(&self) -> String {
        let mut lines: Vec<String> = self.shown.iter().map(Issue::to_string).collect();
        if self.more > 0 {
            lines.push(self.more_text());
        }
        lines.join("\n")
    }

    fn more_text(&self) -> String {
        format!(
            "… and {} more problems, not listed: mend these and import again",
            self.more
        )
    }
}

impl FromIterator<Issue> for Problems {
    fn from_iter<I: IntoIterator<Item = Issue>>(issues: I) -> Problems {
        let mut p = Problems::default();
        for i in issues {
            p.push(i);
        }
        p
    }
}

/// `m` cut to at most [`MAX_QUOTED`] characters: its start and its end
/// (where a problem says what to do), ` … ` between.
fn shorten(m: &str) -> Cow<'_, str> {
    let n = m.chars().count();
    if n <= MAX_QUOTED {
        return Cow::Borrowed(m);
    }
    let head: String = m.chars().take(MAX_QUOTED * 2 / 3).collect();
    let tail: String = m.chars().skip(n - MAX_QUOTED / 3 + 3).collect();
    Cow::Owned(format!("{head} … {tail}"))
}

fn at(row: usize, column: Option<usize>, field: Option<&str>, message: String) -> Issue {
    Issue {
        row: Some(row),
        column,
        field: field.map(str::to_owned),
        message,
        ..Issue::default()
    }
}

/// An import's file, read a piece at a time as it arrives
/// ([`Import::push`]), then [`Import::finish`].
pub struct Import {
    reader: Reader,
    rows: Rows,
}

/// What the reader's records make: the header, then the entries.
#[derive(Default)]
struct Rows {
    /// The first row's columns, lowercase, once it is read.
    columns: Option<Vec<String>>,
    /// The first row has a problem: the rows after are not checked.
    bad_header: bool,
    /// The values of the record being read that are kept (the header's
    /// first [`MAX_HEADER`], a row's up to its last column).
    record: Vec<String>,
    /// How many values the record has, and whether one is not blank.
    values: usize,
    filled: bool,
    parsed: Vec<Entry>,
    rows: Vec<usize>,
    /// Good rows, counted past [`MAX_ENTRIES`].
    good: usize,
    /// Each name read, with the first row it is on: a name twice is
    /// found with the rows' other problems.
    names: std::collections::HashMap<String, usize>,
    problems: Problems,
}

impl Sink for Rows {
    fn field(&mut self, row: usize, column: usize, value: String) {
        self.values = column;
        let blank = value.trim().is_empty();
        self.filled |= !blank;
        match &self.columns {
            None if column <= MAX_HEADER => self.record.push(value),
            None => {}
            Some(columns) if column <= columns.len() => self.record.push(value),
            Some(_) if blank || self.bad_header => {}
            Some(_) => {
                let m = format!("{value:?} is beyond the last column");
                self.problems.push(at(row, Some(column), None, m));
            }
        }
    }

    fn end(&mut self, row: usize, broken: bool) {
        let record = std::mem::take(&mut self.record);
        let values = std::mem::take(&mut self.values);
        if !std::mem::take(&mut self.filled) {
            return;
        }
        if self.columns.is_none() {
            return self.header(row, &record, values, broken);
        }
        if self.bad_header || broken {
            return;
        }
        self.entry(row, &record);
    }

    fn problem(&mut self, row: usize, column: Option<usize>, message: String) {
        self.problems.push(at(row, column, None, message));
    }
}

impl Rows {
    fn header(&mut self, row: usize, record: &[String], values: usize, broken: bool) {
        let columns: Vec<String> = record.iter().map(|h| column_name(h)).collect();
        let before = self.problems.shown.len() + self.problems.more;
        for (i, c) in columns.iter().enumerate() {
            if !COLUMNS.contains(&c.as_str()) {
                let m = format!(
                    "{c:?} is not a column; the columns are {} (or in Russian: Фамилия Имя, \
                     Класс, Пол, Регион, Команда, Гандикап, Снят)",
                    COLUMNS.join(", ")
                );
                self.problems.push(at(row, Some(i + 1), None, m));
            } else if columns[..i].contains(c) {
                let m = format!("column {c:?} is twice");
                self.problems.push(at(row, Some(i + 1), Some(c), m));
            }
        }
        if values > MAX_HEADER {
            let m = format!(
                "the first row has {values} columns: the columns are {}",
                COLUMNS.join(", ")
            );
            self.problems.push(at(row, Some(MAX_HEADER + 1), None, m));
        }
        for r in REQUIRED {
            if !columns.iter().any(|c| c == r) {
                let m = format!("there is no column {r:?}");
                self.problems.push(at(row, None, Some(r), m));
            }
        }
        self.bad_header = broken || self.problems.shown.len() + self.problems.more > before;
        self.columns = Some(columns);
    }

    fn entry(&mut self, row: usize, record: &[String]) {
        let columns = self.columns.as_deref().unwrap_or_default();
        let get = |name: &str| {
            let i = columns.iter().position(|c| c == name)?;
            let v = record.get(i).map_or("", |v| v.trim());
            // A value the export marked as text (`'=…`) as it was.
            Some(crate::csv::plain(v).trim().to_owned())
        };
        let mut more = Vec::new();
        let name = get("name").unwrap_or_default();
        if !name.is_empty() {
            if let Some(first) = self.names.get(&name) {
                more.push((
                    "name",
                    format!("{name:?} is entered twice: on row {first} too"),
                ));
            } else if self.names.len() <= MAX_ENTRIES {
                self.names.insert(name, row);
            }
        }
        if get("region").is_some_and(|r| r.is_empty()) {
            more.push((
                "region",
                "the region is empty: write the bowler's region".to_owned(),
            ));
        }
        let read = match entry_from(get) {
            Ok(e) if more.is_empty() => Ok(e),
            Ok(_) => Err(more),
            Err(mut list) => {
                list.extend(more);
                Err(list)
            }
        };
        match read {
            Ok(e) => {
                self.good += 1;
                if self.good <= MAX_ENTRIES {
                    self.parsed.push(e);
                    self.rows.push(row);
                } else if self.good == MAX_ENTRIES + 1 {
                    let m = format!(
                        "more than {MAX_ENTRIES} entries: a competition has at most {MAX_ENTRIES}"
                    );
                    self.problems.push(at(row, None, None, m));
                }
            }
            Err(list) => {
                for (field, m) in list {
                    let column = columns.iter().position(|c| c == field).map(|c| c + 1);
                    self.problems.push(at(row, column, Some(field), m));
                }
            }
        }
    }
}

impl Default for Import {
    fn default() -> Import {
        Import::new()
    }
}

impl Import {
    pub fn new() -> Import {
        Import {
            reader: Reader::new(MAX_CSV),
            rows: Rows::default(),
        }
    }

    /// Reads the file's next piece. Past [`MAX_CSV`] bytes nothing more is
    /// read (the bytes are counted, to say how large the file was).
    pub fn push(&mut self, bytes: &[u8]) {
        self.reader.push(bytes, &mut self.rows);
    }

    /// Every byte given.
    pub fn bytes(&self) -> usize {
        self.reader.bytes()
    }

    /// Whether more than [`MAX_CSV`] bytes were given.
    pub fn too_large(&self) -> bool {
        self.reader.over_limit()
    }

    /// The file has ended: its entries, or its problems.
    pub fn finish(self) -> Result<Parsed, Problems> {
        if self.too_large() {
            return Err([too_large(self.bytes())].into_iter().collect());
        }
        let Import { reader, mut rows } = self;
        reader.finish(&mut rows);
        let Some(columns) = rows.columns else {
            if rows.problems.is_empty() {
                rows.problems.push(Issue::message(format!(
                    "the file is empty: its first row names the columns ({})",
                    COLUMNS.join(", ")
                )));
            }
            return Err(rows.problems);
        };
        if !rows.problems.is_empty() {
            return Err(rows.problems);
        }
        Ok(Parsed {
            entries: rows.parsed,
            rows: rows.rows,
            columns,
        })
    }
}

/// The problem of a file of `bytes` bytes, over [`MAX_CSV`].
pub fn too_large(bytes: usize) -> Issue {
    Issue::message(format!(
        "the file is {bytes} bytes: at most {MAX_CSV} (1 MiB)"
    ))
}

/// Reads a whole CSV file of entries ([`Import`] in one piece): the
/// entries, or the problems shown (the last saying how many more, if
/// any).
pub fn parse(bytes: &[u8]) -> Result<Parsed, Vec<Issue>> {
    let mut import = Import::new();
    import.push(bytes);
    import.finish().map_err(|p| {
        let more = (p.more > 0).then(|| Issue::message(p.more_text()));
        p.shown.into_iter().chain(more).collect()
    })
}

/// The entries as CSV: a byte order mark (so that spreadsheets read it as
/// UTF-8), the header, one row per entry, by the one
/// [`crate::csv::Writer`], so that no name or region is a formula to a
/// spreadsheet.
pub fn write(entries: &[Entry]) -> String {
    let mut out = crate::csv::Writer::with_bom(',');
    out.row(COLUMNS);
    for e in entries {
        let handicap = e.handicap.to_string();
        out.row([
            e.name.as_str(),
            e.class.as_str(),
            e.sex.as_str(),
            e.region.as_str(),
            e.team.as_deref().unwrap_or(""),
            &handicap,
            if e.withdrawn { "yes" } else { "" },
        ]);
    }
    out.finish()
}

#[cfg(test)]
#[path = "csv_tests.rs"]
mod tests;
