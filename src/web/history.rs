//! The lane's journals as the panel lists and downloads them: one summary
//! per journal for the list, the replay-output.md result of one journal,
//! its score sheet as CSV, and the journal file itself.
//!
//! Everything here reads files and replays journals, so it runs on the
//! blocking pool. A journal is named by its file stem
//! (`lane7-20261129T100000Z-000012`, or `…-01` from before sequence
//! numbers); any other name is simply not found, so a
//! request never reaches a file outside the journal folder.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, BufReader, Seek};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use serde::Serialize;
use serde_json::Value;

use crate::journal::names::journal_seq;
use crate::journal::{self, HeaderError};
use crate::replay::{EntryView, Replay, bowler_entries};

/// The longest journal id taken, in bytes.
const MAX_ID_LEN: usize = 80;

/// The CSV score sheet's first line.
pub const CSV_HEADER: &str = "block,position,bowler,class,team,handicap,game,frame,marks,balls,cumulative,game_total,complete,series,series_with_handicap";

/// Whether `id` has the shape of a journal's file stem:
/// `^lane\d+-[0-9TZ]+-\d+$`, and no longer than [`MAX_ID_LEN`].
pub fn valid_id(id: &str) -> bool {
    id.len() <= MAX_ID_LEN && parts(id).is_some()
}

/// The lane, stamp and count of a journal id.
fn parts(id: &str) -> Option<(&str, &str, &str)> {
    let rest = id.strip_prefix("lane")?;
    let mut it = rest.split('-');
    let (lane, stamp, n) = (it.next()?, it.next()?, it.next()?);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let stamp_ok = !stamp.is_empty()
        && stamp
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'T' || b == b'Z');
    (it.next().is_none() && digits(lane) && stamp_ok && digits(n)).then_some((lane, stamp, n))
}

/// Orders ids by when the journal started: its sequence number (which
/// the wall clock cannot disturb), then, for journals from before those,
/// its stamp and count (journals started within the same second), then
/// its lane.
fn age_key(id: &str) -> (u64, &str, usize, &str, usize, &str) {
    let (lane, stamp, n) = parts(id).unwrap_or(("", "", ""));
    (journal_seq(id), stamp, n.len(), n, lane.len(), lane)
}

/// `2026-11-29T10:00:00Z` from a file name's `20261129T100000Z`, or the
/// stamp as it is if it has another shape.
fn stamp_time(stamp: &str) -> String {
    let b = stamp.as_bytes();
    let shaped = b.len() == 16
        && b[8] == b'T'
        && b[15] == b'Z'
        && b[..8].iter().chain(&b[9..15]).all(u8::is_ascii_digit);
    if !shaped {
        return stamp.to_owned();
    }
    let s = |r: std::ops::Range<usize>| stamp.get(r).unwrap_or("");
    format!(
        "{}-{}-{}T{}:{}:{}Z",
        s(0..4),
        s(4..6),
        s(6..8),
        s(9..11),
        s(11..13),
        s(13..15)
    )
}

/// One journal in the list.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The file stem: what the other routes take.
    pub id: String,
    /// The header's `started_at`, or the time in the file name.
    pub started_at: String,
    pub lane: u32,
    /// Event lines applied.
    pub events: u64,
    /// Blocks started.
    pub blocks: usize,
    /// Every bowler named in the journal, in sheet order, each once.
    pub bowlers: Vec<String>,
    /// The file's size.
    pub bytes: u64,
    /// The lane's newest journal: the one it writes now.
    pub current: bool,
}

/// A summary as read, with what the file looked like then.
struct Cached {
    len: u64,
    modified: Option<SystemTime>,
    /// `None`: the file is not a journal (logged once).
    summary: Option<Summary>,
}

/// The journal folder, with the summaries read so far.
pub struct History {
    dir: PathBuf,
    cache: Mutex<HashMap<String, Cached>>,
}

/// Why a history request failed.
#[derive(Debug)]
pub enum HistoryError {
    /// No journal by that id.
    NotFound,
    /// The folder or the file could not be read.
    Io(io::Error),
    /// The file is not a journal this build can replay.
    NotAJournal(HeaderError),
}

impl From<io::Error> for HistoryError {
    fn from(e: io::Error) -> HistoryError {
        HistoryError::Io(e)
    }
}

impl From<HeaderError> for HistoryError {
    fn from(e: HeaderError) -> HistoryError {
        match e {
            HeaderError::Io(e) => HistoryError::Io(e),
            other => HistoryError::NotAJournal(other),
        }
    }
}

impl History {
    pub fn new(dir: PathBuf) -> History {
        History {
            dir,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The file of journal `id`, if `id` is a journal's name and the file
    /// is there.
    pub fn path_of(&self, id: &str) -> Result<PathBuf, HistoryError> {
        if !valid_id(id) {
            return Err(HistoryError::NotFound);
        }
        let path = self.dir.join(format!("{id}.jsonl"));
        match fs::metadata(&path) {
            Ok(m) if m.is_file() => Ok(path),
            _ => Err(HistoryError::NotFound),
        }
    }

    /// Every journal, newest first. A file read before and unchanged since
    /// (same length and modification time) is not read again. Blocking.
    pub fn list(&self) -> Result<Vec<Summary>, HistoryError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            // No journal written yet.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut found: Vec<(String, PathBuf, fs::Metadata)> = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".jsonl")) else {
                continue;
            };
            if !valid_id(id) {
                continue;
            }
            let path = entry.path();
            if let Ok(meta) = fs::metadata(&path)
                && meta.is_file()
            {
                found.push((id.to_owned(), path, meta));
            }
        }

        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        cache.retain(|id, _| found.iter().any(|(f, _, _)| f == id));
        let mut list = Vec::with_capacity(found.len());
        for (id, path, meta) in found {
            let len = meta.len();
            let modified = meta.modified().ok();
            let fresh = cache
                .get(&id)
                .is_some_and(|c| c.len == len && c.modified == modified);
            if !fresh {
                let summary = match summarize(&id, &path, len) {
                    Ok(s) => Some(s),
                    Err(e) => {
                        tracing::warn!(journal = %path.display(), "not listed: {}", describe(&e));
                        None
                    }
                };
                cache.insert(
                    id.clone(),
                    Cached {
                        len,
                        modified,
                        summary,
                    },
                );
            }
            if let Some(s) = cache.get(&id).and_then(|c| c.summary.clone()) {
                list.push(s);
            }
        }
        drop(cache);

        list.sort_by(|a, b| age_key(&b.id).cmp(&age_key(&a.id)));
        // Newest first: the first of each lane is the one it writes.
        let mut lanes_seen: Vec<&str> = Vec::new();
        for s in &mut list {
            let lane = parts(&s.id).map_or("", |(lane, _, _)| lane);
            s.current = !lanes_seen.contains(&lane);
            if s.current {
                lanes_seen.push(lane);
            }
        }
        Ok(list)
    }

    /// Journal `id` replayed. Blocking.
    pub fn replay(&self, id: &str) -> Result<Replay, HistoryError> {
        let path = self.path_of(id)?;
        Ok(read(&path)?.1)
    }
}

/// Words for a history error, for a log or an answer.
pub fn describe(e: &HistoryError) -> String {
    match e {
        HistoryError::NotFound => "no such journal".to_owned(),
        HistoryError::Io(e) => format!("cannot read the journal: {e}"),
        HistoryError::NotAJournal(e) => e.to_string(),
    }
}

/// Reads and replays a journal: its header's `started_at` and the replay.
fn read(path: &Path) -> Result<(Option<String>, Replay), HistoryError> {
    let mut file = BufReader::new(File::open(path)?);
    let header = journal::Reader::new(&mut file).header()?;
    file.rewind()?;
    let replay = Replay::from_reader(file)?;
    Ok((header.started_at, replay))
}

fn summarize(id: &str, path: &Path, bytes: u64) -> Result<Summary, HistoryError> {
    let (started_at, replay) = read(path)?;
    let lane = replay.lane();
    let mut bowlers: Vec<String> = Vec::new();
    for entry in bowler_entries(lane) {
        let name = match entry {
            EntryView::Bowled(e) => &e.bowler.name,
            EntryView::Waiting(b, _, _) => &b.name,
        };
        if !bowlers.iter().any(|n| n == name) {
            bowlers.push(name.clone());
        }
    }
    let stamp = parts(id).map_or("", |(_, stamp, _)| stamp);
    Ok(Summary {
        id: id.to_owned(),
        started_at: started_at.unwrap_or_else(|| stamp_time(stamp)),
        lane: lane.number(),
        events: replay.events(),
        blocks: lane.blocks().len(),
        bowlers,
        bytes,
        current: false,
    })
}

// ----- CSV --------------------------------------------------------------------

/// A JSON value as CSV text: `null` is empty.
fn plain(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The items of a JSON array; nothing for anything else.
fn items(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

/// The score sheet as CSV: [`CSV_HEADER`], then one row per frame bowled,
/// written by the one [`crate::csv::Writer`] (a name
/// or team a spreadsheet would take for a formula gets a leading `'`).
/// Made from the replay-output.md object, so the sheet and `GET
/// /api/history/{id}` always agree.
pub fn sheet_csv(report: &Value) -> String {
    let mut out = crate::csv::Writer::new(',');
    out.row(CSV_HEADER.split(','));
    for b in items(&report["bowlers"]) {
        for g in items(&b["games"]) {
            for f in items(&g["frames"]) {
                let marks = f["marks"].as_str().unwrap_or("");
                let balls: Vec<String> = marks.chars().map(String::from).collect();
                let row = [
                    plain(&b["block"]),
                    plain(&b["position"]),
                    plain(&b["name"]),
                    plain(&b["class"]),
                    plain(&b["team"]),
                    plain(&b["handicap"]),
                    plain(&g["game"]),
                    plain(&f["frame"]),
                    marks.to_owned(),
                    balls.join(" "),
                    plain(&f["cumulative"]),
                    plain(&g["total"]),
                    plain(&g["complete"]),
                    plain(&b["series"]),
                    plain(&b["series_with_handicap"]),
                ];
                out.row(row);
            }
        }
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_journal_names_are_ids() {
        for good in [
            "lane7-20261129T100000Z-01",
            "lane12-20261129T100000Z-100",
            "lane0-0-0",
        ] {
            assert!(valid_id(good), "{good}");
        }
        for bad in [
            "",
            "lane7",
            "lane7-20261129T100000Z",
            "lane7-20261129T100000Z-01-02",
            "lane7-20261129T100000Z-01.jsonl",
            "../lane7-20261129T100000Z-01",
            "lane7-2026/../x-01",
            "lane7-..-01",
            "lanex-20261129T100000Z-01",
            "Lane7-20261129T100000Z-01",
            "lane7--01",
            "lane7-20261129t100000z-01",
            "lane7-20261129T100000Z-",
            "lane7-20261129T100000Z-01\n",
        ] {
            assert!(!valid_id(bad), "{bad:?}");
        }
        assert!(!valid_id(&format!("lane7-{}-01", "1".repeat(100))));
    }

    #[test]
    fn newest_sorts_first_by_sequence_then_stamp_then_count() {
        let mut ids = vec![
            "lane7-20990101T000000Z-000002",
            "lane7-20261129T100000Z-02",
            "lane7-20261128T000000Z-000003",
            "lane7-20261130T090000Z-01",
            "lane7-20261129T100000Z-01",
            "lane7-20261129T100000Z-100",
        ];
        ids.sort_by(|a, b| age_key(b).cmp(&age_key(a)));
        assert_eq!(
            ids,
            [
                "lane7-20261128T000000Z-000003",
                "lane7-20990101T000000Z-000002",
                "lane7-20261130T090000Z-01",
                "lane7-20261129T100000Z-100",
                "lane7-20261129T100000Z-02",
                "lane7-20261129T100000Z-01",
            ]
        );
    }

    #[test]
    fn a_file_stamp_reads_as_a_time() {
        assert_eq!(stamp_time("20261129T100000Z"), "2026-11-29T10:00:00Z");
        assert_eq!(stamp_time("0"), "0");
    }

    #[test]
    fn the_sheet_writes_each_cell_as_data() {
        let report = serde_json::json!({ "bowlers": [{
            "block": 1, "position": 1, "name": "=HYPERLINK(\"http://x\",\"Anna\")",
            "class": "B1", "team": "+cmd|' /C calc'!A0", "handicap": -5, "series": 9,
            "series_with_handicap": 4,
            "games": [{ "game": 1, "total": 9, "complete": false,
                        "frames": [{ "frame": 1, "marks": "-/", "cumulative": null }] }],
        }]});
        let csv = sheet_csv(&report);
        let row = csv.lines().nth(1).unwrap();
        assert_eq!(
            row,
            "1,1,\"'=HYPERLINK(\"\"http://x\"\",\"\"Anna\"\")\",B1,'+cmd|' /C calc'!A0,-5,1,1,'-/,'- /,,9,false,9,4"
        );
    }
}
