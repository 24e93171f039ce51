//! The entries as CSV (docs/programme.md, "Entries as CSV"): read as
//! spreadsheets write them (UTF-8 with or without a byte order mark, comma
//! or semicolon separated, RFC 4180 quotes), every problem by its row and
//! column; written with a byte order mark, commas and `\r\n`.
//!
//! It reads the values of each row into an [`Entry`]; whether the entries
//! make a programme is checked after, by the programme's own checks.

use super::{Issue, entry_from};
use crate::centre::programme::Entry;

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

fn at(row: usize, column: Option<usize>, field: Option<&str>, message: String) -> Issue {
    Issue {
        row: Some(row),
        column,
        field: field.map(str::to_owned),
        message,
        ..Issue::default()
    }
}

/// The records of `text`, each with the row it starts on.
fn records(text: &str, sep: char) -> Result<Vec<(usize, Vec<String>)>, Vec<Issue>> {
    let mut out = Vec::new();
    let mut issues = Vec::new();
    let mut record: Vec<String> = Vec::new();
    let mut field = String::new();
    // The field began with a quote and it is not closed yet; it was closed.
    let (mut quoted, mut closed) = (false, false);
    let mut row = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => (quoted, closed) = (false, true),
                c => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() && !closed => quoted = true,
            c if c == sep => {
                record.push(std::mem::take(&mut field));
                closed = false;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                record.push(std::mem::take(&mut field));
                out.push((row, std::mem::take(&mut record)));
                row += 1;
                closed = false;
            }
            c if closed => {
                let m =
                    format!("{c:?} after a closing quote: a quoted value ends at its column's end");
                issues.push(at(row, Some(record.len() + 1), None, m));
                closed = false;
                field.push(c);
            }
            '"' => {
                let m =
                    "a quote inside a value that does not start with one: quote the whole value \
                         and double the quotes in it (\"say \"\"hi\"\"\")"
                        .to_owned();
                issues.push(at(row, Some(record.len() + 1), None, m));
                field.push(c);
            }
            c => field.push(c),
        }
    }
    if quoted {
        let m = "a quote opened here is never closed".to_owned();
        issues.push(at(row, Some(record.len() + 1), None, m));
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        out.push((row, record));
    }
    if issues.is_empty() {
        Ok(out)
    } else {
        Err(issues)
    }
}

/// The separator of the header line: `;` when it has more of them than
/// commas (outside quotes), else `,`.
fn separator(text: &str) -> char {
    let (mut quoted, mut commas, mut semicolons) = (false, 0, 0);
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => commas += 1,
            ';' if !quoted => semicolons += 1,
            '\n' | '\r' if !quoted => break,
            _ => {}
        }
    }
    if semicolons > commas { ';' } else { ',' }
}

/// Reads a CSV file of entries: every problem, each by its row and column,
/// or the entries.
pub fn parse(bytes: &[u8]) -> Result<Parsed, Vec<Issue>> {
    if bytes.len() > MAX_CSV {
        return Err(vec![Issue::message(format!(
            "the file is {} bytes: at most {MAX_CSV} (1 MiB)",
            bytes.len()
        ))]);
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let before = &bytes[..e.valid_up_to()];
            let row = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let m = "not UTF-8 text: save the file as \"CSV UTF-8\"".to_owned();
            return Err(vec![at(row, None, None, m)]);
        }
    };
    let records = records(text, separator(text))?;
    let blank = |r: &[String]| r.iter().all(|f| f.trim().is_empty());
    let mut records = records.into_iter().filter(|(_, r)| !blank(r));
    let Some((head_row, header)) = records.next() else {
        return Err(vec![Issue::message(format!(
            "the file is empty: its first row names the columns ({})",
            COLUMNS.join(", ")
        ))]);
    };
    let mut issues = Vec::new();
    let columns: Vec<String> = header.iter().map(|h| h.trim().to_lowercase()).collect();
    for (i, c) in columns.iter().enumerate() {
        if !COLUMNS.contains(&c.as_str()) {
            let m = format!(
                "{c:?} is not a column; the columns are {}",
                COLUMNS.join(", ")
            );
            issues.push(at(head_row, Some(i + 1), None, m));
        } else if columns[..i].contains(c) {
            issues.push(at(
                head_row,
                Some(i + 1),
                Some(c),
                format!("column {c:?} is twice"),
            ));
        }
    }
    for r in REQUIRED {
        if !columns.iter().any(|c| c == r) {
            issues.push(at(
                head_row,
                None,
                Some(r),
                format!("there is no column {r:?}"),
            ));
        }
    }
    if !issues.is_empty() {
        return Err(issues);
    }
    let mut parsed = Parsed {
        entries: Vec::new(),
        rows: Vec::new(),
        columns: columns.clone(),
    };
    for (row, record) in records {
        for (i, v) in record.iter().enumerate().skip(columns.len()) {
            if !v.trim().is_empty() {
                let m = format!("{v:?} is beyond the last column");
                issues.push(at(row, Some(i + 1), None, m));
            }
        }
        let get = |name: &str| {
            let i = columns.iter().position(|c| c == name)?;
            Some(record.get(i).map_or("", |v| v.as_str()).trim().to_owned())
        };
        match entry_from(get) {
            Ok(e) => {
                parsed.entries.push(e);
                parsed.rows.push(row);
            }
            Err(list) => {
                for (field, m) in list {
                    let column = columns.iter().position(|c| c == field).map(|c| c + 1);
                    issues.push(at(row, column, Some(field), m));
                }
            }
        }
    }
    if issues.is_empty() {
        Ok(parsed)
    } else {
        Err(issues)
    }
}

fn quote(v: &str) -> String {
    let plain = !v.contains([',', ';', '"', '\n', '\r']) && v.trim() == v;
    if plain {
        v.to_owned()
    } else {
        format!("\"{}\"", v.replace('"', "\"\""))
    }
}

/// The entries as CSV: a byte order mark (so that spreadsheets read it as
/// UTF-8), the header, one row per entry, `\r\n` line ends.
pub fn write(entries: &[Entry]) -> String {
    let mut out = String::from("\u{FEFF}");
    out += &COLUMNS.join(",");
    out += "\r\n";
    for e in entries {
        let handicap = e.handicap.to_string();
        let row = [
            e.name.as_str(),
            e.class.as_str(),
            e.sex.as_str(),
            e.region.as_str(),
            e.team.as_deref().unwrap_or(""),
            &handicap,
            if e.withdrawn { "yes" } else { "" },
        ];
        out += &row.map(quote).join(",");
        out += "\r\n";
    }
    out
}
