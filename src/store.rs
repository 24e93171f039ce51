//! Journal files on disk: where they live, how a line is made durable, and
//! how the newest one is found and continued after a restart.
//!
//! Every line is written whole and `fdatasync`ed before the lane sees its
//! input, so a power cut at any moment leaves at most one torn last line,
//! whose input the lane never acted on. A torn tail is cut off (and logged)
//! before appending, so it never glues onto the next line.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::journal::{self, Header, HeaderError};
use crate::lane::{Event, Millis, Stamped};
use crate::replay::Replay;

/// The folder of journals under the state directory.
pub struct Store {
    dir: PathBuf,
    lane: u32,
}

/// Why a journal file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}: {source}")]
    Header { path: PathBuf, source: HeaderError },
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Seconds since 1970 now, from the wall clock (only for file names and
/// the header's `started_at`; lane time never comes from it).
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `2026-11-29T14:00:00Z` for seconds since 1970 (UTC, proleptic
/// Gregorian: Howard Hinnant's civil-from-days).
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

impl Store {
    /// The journals of lane `lane` under `state_dir/journal`, created if
    /// missing.
    pub fn open(state_dir: &Path, lane: u32) -> Result<Store, StoreError> {
        let dir = state_dir.join("journal");
        fs::create_dir_all(&dir).map_err(io_at(&dir))?;
        Ok(Store { dir, lane })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every journal, oldest first (the names sort by time).
    pub fn list(&self) -> Result<Vec<PathBuf>, StoreError> {
        let mut out: Vec<PathBuf> = fs::read_dir(&self.dir)
            .map_err(io_at(&self.dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|e| e == "jsonl")
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(&format!("lane{}-", self.lane)))
            })
            .collect();
        out.sort();
        Ok(out)
    }

    pub fn newest(&self) -> Result<Option<PathBuf>, StoreError> {
        Ok(self.list()?.pop())
    }

    /// Starts a new journal: writes and syncs its header.
    pub fn create(&self, header: &Header, now: u64) -> Result<JournalFile, StoreError> {
        // Names sort by time: the stamp, then a count for journals started
        // within the same second.
        let stamp = rfc3339(now).replace([':', '-'], "");
        let name = |n: u32| {
            self.dir
                .join(format!("lane{}-{stamp}-{n:02}.jsonl", self.lane))
        };
        let mut n = 1;
        while name(n).exists() {
            n += 1;
        }
        let path = name(n);
        let mut file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(&path)
            .map_err(io_at(&path))?;
        writeln!(file, "{}", header.to_line()).map_err(io_at(&path))?;
        file.sync_all().map_err(io_at(&path))?;
        // The new name must survive a power cut too.
        if let Ok(dir) = File::open(&self.dir) {
            let _ = dir.sync_all();
        }
        Ok(JournalFile {
            file,
            path,
            lines: 1,
            last_t: 0,
        })
    }
}

/// A journal being appended to.
pub struct JournalFile {
    file: File,
    path: PathBuf,
    /// Lines in the file, the header included.
    lines: u64,
    last_t: Millis,
}

/// A journal read back at start-up.
pub struct Recovered {
    pub file: JournalFile,
    pub header: Header,
    pub replay: Replay,
    /// The text of a torn last line that was cut off, if any.
    pub torn: Option<String>,
}

impl JournalFile {
    /// Reads a journal, replays it, cuts a torn last line, and opens it to
    /// go on appending.
    pub fn recover(path: &Path) -> Result<Recovered, StoreError> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(io_at(path))?;
        let len = file.metadata().map_err(io_at(path))?.len();
        let mut reader = journal::Reader::new(BufReader::new(&file));
        let header = reader.header().map_err(|source| StoreError::Header {
            path: path.to_owned(),
            source,
        })?;
        let mut replay = Replay::new(&header);
        let mut lines = 1;
        let mut good_len = None;
        while let Some(line) = reader.next_line().map_err(io_at(path))? {
            match line {
                journal::Line::Whole(n, Ok(text)) => {
                    replay.apply_line(n, text);
                    lines = n;
                }
                journal::Line::Whole(n, Err(e)) => {
                    replay.reject(n, e);
                    lines = n;
                }
                journal::Line::Torn(_) => {}
            }
        }
        drop(reader);
        // Find where the last whole line ends.
        let mut torn = None;
        if len > 0 {
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(len - 1)).map_err(io_at(path))?;
            file.read_exact(&mut last).map_err(io_at(path))?;
            if last[0] != b'\n' {
                let text = fs::read(path).map_err(io_at(path))?;
                let end = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                torn = Some(String::from_utf8_lossy(&text[end..]).into_owned());
                good_len = Some(end as u64);
            }
        }
        if let Some(end) = good_len {
            file.set_len(end).map_err(io_at(path))?;
            file.sync_all().map_err(io_at(path))?;
        }
        let last_t = replay.last_t();
        Ok(Recovered {
            file: JournalFile {
                file,
                path: path.to_owned(),
                lines,
                last_t,
            },
            header,
            replay,
            torn,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Lines in the file, the header included: the next line's number
    /// less one.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    pub fn last_t(&self) -> Millis {
        self.last_t
    }

    /// Appends one input and makes it durable (`fdatasync`). Returns the
    /// line's number.
    pub fn append(&mut self, e: &Stamped<Event>) -> io::Result<u64> {
        let mut line = journal::event_line(e);
        line.push('\n');
        self.file.write_all(line.as_bytes())?;
        self.file.sync_data()?;
        self.lines += 1;
        self.last_t = e.t;
        Ok(self.lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::{Rules, Sensor};

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("lanecall-store-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn dates_are_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_960_800), "2026-11-29T14:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn a_torn_tail_is_cut_and_appending_goes_on_cleanly() {
        let dir = temp_dir("torn");
        let store = Store::open(&dir, 3).unwrap();
        let header = Header::new(3, Some(rfc3339(0)), Rules::default());
        let mut j = store.create(&header, 1_000).unwrap();
        let ball = |t| Stamped {
            t,
            event: Event::Sensor(Sensor::Ball),
        };
        j.append(&ball(10)).unwrap();
        let path = j.path().to_owned();
        drop(j);
        // A power cut in the middle of the next line.
        OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"t\":20,\"ev\":\"ba")
            .unwrap();
        let r = JournalFile::recover(&path).unwrap();
        assert_eq!(r.torn.as_deref(), Some("{\"t\":20,\"ev\":\"ba"));
        assert_eq!(r.file.lines(), 2);
        assert_eq!(r.file.last_t(), 10);
        let mut j = r.file;
        assert_eq!(j.append(&ball(30)).unwrap(), 3);
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3);
        assert!(text.ends_with("{\"t\":30,\"ev\":\"ball\"}\n"), "{text}");
        assert_eq!(store.newest().unwrap().as_deref(), Some(path.as_path()));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn journals_of_the_same_second_get_distinct_names() {
        let dir = temp_dir("names");
        let store = Store::open(&dir, 1).unwrap();
        let header = Header::new(1, None, Rules::default());
        let a = store.create(&header, 5).unwrap();
        let b = store.create(&header, 5).unwrap();
        assert_ne!(a.path(), b.path());
        assert_eq!(store.list().unwrap().len(), 2);
        assert_eq!(store.newest().unwrap().as_deref(), Some(b.path()));
        let _ = fs::remove_dir_all(&dir);
    }
}
