//! Journal files on disk: where they live, how a line is made durable, and
//! how the newest one is found and continued after a restart.
//!
//! Every line is written whole and `fdatasync`ed before the lane sees its
//! input; inputs that waited together go out in one write and one sync
//! ([`JournalFile::append_all`]). So a power cut at any moment leaves at
//! most one torn last line, and the lines of the last write, whole or not,
//! are of inputs the lane never acted on (a whole one is applied at the
//! restart, as if it had come then). A torn tail is cut off (and logged)
//! before appending, so it never glues onto the next line.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::names::{file_name, journal_name, journal_seq};
use crate::atomic::sync_dir;
use crate::journal::{self, Checked, Header, HeaderError, Reader};
use crate::lane::{Event, Millis, Stamped};
use crate::replay::Replay;
use crate::wall::WallTime;

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
    #[error("state_dir {path}: {problem}")]
    StateDir { path: PathBuf, problem: String },
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_owned(),
        source,
    }
}

impl Store {
    /// The journals of lane `lane` under `state_dir/journal`. The state
    /// directory must exist and take writes: a missing or read-only one is
    /// an error that names it, before the lane starts.
    pub fn open(state_dir: &Path, lane: u32) -> Result<Store, StoreError> {
        let problem = |problem: String| StoreError::StateDir {
            path: state_dir.to_owned(),
            problem,
        };
        match fs::metadata(state_dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(problem("is not a directory".into())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(problem(
                    "does not exist: create it (systemd's StateDirectory= does) or set state_dir in the config"
                        .into(),
                ));
            }
            Err(e) => return Err(problem(e.to_string())),
        }
        let dir = state_dir.join("journal");
        match fs::create_dir(&dir) {
            Ok(()) => {
                let _ = sync_dir(state_dir);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(problem(format!("cannot create journal/: {e}"))),
        }
        let store = Store { dir, lane };
        store
            .probe()
            .map_err(|e| problem(format!("cannot write in journal/: {e}")))?;
        Ok(store)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes, syncs and removes a small file: whether the folder takes a
    /// journal line now (the disk is not full, not read-only).
    pub fn probe(&self) -> io::Result<()> {
        let path = self.dir.join(".probe");
        let written = File::create(&path).and_then(|mut f| {
            f.write_all(&[b'\n'; 4096])?;
            f.sync_data()
        });
        let removed = fs::remove_file(&path);
        written.and(removed)
    }

    /// Every journal of this lane, oldest first by sequence number.
    pub fn list(&self) -> Result<Vec<PathBuf>, StoreError> {
        let mut out: Vec<PathBuf> = self
            .entries()?
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        out.sort_by_cached_key(|p| (journal_seq(file_name(p)), file_name(p).to_owned()));
        Ok(out)
    }

    /// Every file of this lane in the folder, set-aside ones included.
    fn entries(&self) -> Result<Vec<PathBuf>, StoreError> {
        let prefix = format!("lane{}-", self.lane);
        Ok(fs::read_dir(&self.dir)
            .map_err(io_at(&self.dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| file_name(p).starts_with(&prefix))
            .collect())
    }

    pub fn newest(&self) -> Result<Option<PathBuf>, StoreError> {
        Ok(self.list()?.pop())
    }

    /// The next journal's sequence number: above every file of this lane,
    /// set-aside ones included, so a new journal is always the newest.
    pub fn next_seq(&self) -> Result<u64, StoreError> {
        Ok(self
            .entries()?
            .iter()
            .map(|p| journal_seq(file_name(p)))
            .max()
            .unwrap_or(0)
            + 1)
    }

    /// Starts a new journal, the newest of the lane: writes and syncs its
    /// header (with the next sequence number) and its name. A file that
    /// could not be written whole is removed again.
    pub fn create(&self, header: &Header, now: u64) -> Result<JournalFile, StoreError> {
        let seq = self.next_seq()?;
        let header = header.clone().with_seq(seq);
        let path = self.dir.join(journal_name(self.lane, now, seq));
        let mut file = OpenOptions::new()
            .create_new(true)
            .read(true)
            .append(true)
            .open(&path)
            .map_err(io_at(&path))?;
        let line = format!("{}\n", header.to_line());
        let written = file
            .write_all(line.as_bytes())
            .and_then(|()| file.sync_all())
            .and_then(|()| sync_dir(&self.dir));
        if let Err(e) = written {
            drop(file);
            let _ = fs::remove_file(&path);
            return Err(io_at(&path)(e));
        }
        JournalFile::new(file, path, line.len() as u64, 1, 2, 0)
    }

    /// Renames a journal that cannot be used out of the way (never deletes
    /// it): `name.jsonl.damaged`, or `.damaged-2`… if that is taken.
    pub fn set_aside(&self, path: &Path) -> Result<PathBuf, StoreError> {
        let name = file_name(path);
        let target = (1..)
            .map(|k| match k {
                1 => self.dir.join(format!("{name}.damaged")),
                k => self.dir.join(format!("{name}.damaged-{k}")),
            })
            .find(|p| !p.exists())
            .unwrap_or_else(|| self.dir.join(format!("{name}.damaged-last")));
        fs::rename(path, &target).map_err(io_at(path))?;
        let _ = sync_dir(&self.dir);
        Ok(target)
    }
}

/// A journal being appended to.
pub struct JournalFile {
    file: File,
    path: PathBuf,
    /// The bytes of whole, durable lines: where the next line starts.
    len: u64,
    /// Whole lines in the file, the header included.
    lines: u64,
    /// The next line's number `n`.
    next_n: u64,
    last_t: Millis,
    /// A failed append may have left bytes past `len`: they are cut
    /// before anything else is written.
    dirty: bool,
    /// The open file's device and inode, to notice the path pointing
    /// elsewhere (deleted, replaced).
    id: (u64, u64),
}

/// A journal read back at start-up.
pub struct Recovered {
    pub file: JournalFile,
    pub header: Header,
    pub replay: Replay,
    /// The text of a torn last line that was cut off, if any.
    pub torn: Option<String>,
}

/// What the journal's path holds compared with the open file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathState {
    Same,
    /// Nothing at the path: the file was deleted.
    Missing,
    /// Another file at the path.
    Replaced,
    /// The open file holds fewer bytes than were written to it: someone
    /// cut it. What is gone cannot be put back from it.
    Shortened {
        len: u64,
        expected: u64,
    },
}

fn file_id(m: &fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt as _;
    (m.dev(), m.ino())
}

impl JournalFile {
    fn new(
        file: File,
        path: PathBuf,
        len: u64,
        lines: u64,
        next_n: u64,
        last_t: Millis,
    ) -> Result<JournalFile, StoreError> {
        let id = file_id(&file.metadata().map_err(io_at(&path))?);
        Ok(JournalFile {
            file,
            path,
            len,
            lines,
            next_n,
            last_t,
            dirty: false,
            id,
        })
    }

    /// Reads a journal, replays it, cuts a torn last line, and opens it to
    /// go on appending. A file that is not a journal (empty, no header, a
    /// damaged one) is a [`StoreError::Header`]: the caller sets it aside.
    pub fn recover(path: &Path) -> Result<Recovered, StoreError> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(io_at(path))?;
        let size = file.metadata().map_err(io_at(path))?.len();
        let not_a_journal = |source| StoreError::Header {
            path: path.to_owned(),
            source,
        };
        let (header, mut lines) =
            Checked::new(Reader::new(BufReader::new(&file))).map_err(not_a_journal)?;
        let mut replay = Replay::new(&header);
        while let Some(item) = lines.next_item().map_err(io_at(path))? {
            replay.feed(item);
        }
        let (read, last_n) = (lines.lines_read(), lines.last_n());
        drop(lines);
        // Where the last whole line ends.
        let end = whole_len(&file, size).map_err(io_at(path))?;
        let mut torn = None;
        let mut whole = read;
        if end < size {
            let mut tail = Vec::new();
            file.seek(SeekFrom::Start(end)).map_err(io_at(path))?;
            (&file)
                .take(4096)
                .read_to_end(&mut tail)
                .map_err(io_at(path))?;
            torn = Some(String::from_utf8_lossy(&tail).into_owned());
            if end == 0 {
                // The header itself lacks its `\n` (it parsed, so it is
                // whole): end it rather than cut it.
                file.write_all(b"\n").map_err(io_at(path))?;
                torn = None;
            } else {
                file.set_len(end).map_err(io_at(path))?;
                whole -= 1;
            }
            file.sync_all().map_err(io_at(path))?;
        }
        let len = file.metadata().map_err(io_at(path))?.len();
        let next_n = whole.max(last_n) + 1;
        let last_t = replay.last_t();
        Ok(Recovered {
            file: JournalFile::new(file, path.to_owned(), len, whole, next_n, last_t)?,
            header,
            replay,
            torn,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whole lines in the file, the header included.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// The bytes of whole, durable lines.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn last_t(&self) -> Millis {
        self.last_t
    }

    /// Appends one input and makes it durable (`fdatasync`). Returns the
    /// line's number. On an error nothing of the line is left behind: the
    /// file is cut back to its last whole line (now, or before the next
    /// append if the cut fails too), so a line is never glued onto a
    /// half-written one.
    pub fn append(&mut self, e: &Stamped<Event>) -> io::Result<u64> {
        self.append_at(e, None)
    }

    /// [`JournalFile::append`], the line giving the wall-clock time of its
    /// `t` when there is one (journal.md, "Wall-clock time").
    pub fn append_at(&mut self, e: &Stamped<Event>, wall: Option<WallTime>) -> io::Result<u64> {
        self.append_all([(e, wall)])
    }

    /// Appends inputs, each a line of its own, with one write and one
    /// `fdatasync` for them all (group commit: what waited together is
    /// durable together). Returns the first line's number. On an error
    /// none of them counts, and the file is cut back as for one line.
    pub fn append_all<'a>(
        &mut self,
        inputs: impl IntoIterator<Item = (&'a Stamped<Event>, Option<WallTime>)>,
    ) -> io::Result<u64> {
        self.roll_back()?;
        let first = self.lines + 1;
        let mut text = String::new();
        let (mut n, mut last_t) = (self.next_n, self.last_t);
        for (e, wall) in inputs {
            text.push_str(&journal::sealed_line_at(e, n, wall));
            text.push('\n');
            n += 1;
            last_t = e.t;
        }
        if text.is_empty() {
            return Ok(first);
        }
        self.dirty = true;
        self.file.write_all(text.as_bytes())?;
        self.file.sync_data()?;
        self.dirty = false;
        self.len += text.len() as u64;
        self.lines += n - self.next_n;
        self.next_n = n;
        self.last_t = last_t;
        Ok(first)
    }

    /// Cuts whatever a failed append left past the last whole line.
    pub fn roll_back(&mut self) -> io::Result<()> {
        if self.dirty {
            self.file.set_len(self.len)?;
            self.file.sync_data()?;
            self.dirty = false;
        }
        Ok(())
    }

    /// Whether the journal's path still names the open file.
    pub fn path_state(&self) -> PathState {
        match fs::symlink_metadata(&self.path) {
            Ok(m) if file_id(&m) == self.id && m.len() < self.len => PathState::Shortened {
                len: m.len(),
                expected: self.len,
            },
            Ok(m) if file_id(&m) == self.id => PathState::Same,
            Ok(_) => PathState::Replaced,
            Err(_) => PathState::Missing,
        }
    }

    /// Puts the journal back at its path from the open file (which still
    /// holds every line, deleted or not): written beside it, synced, and
    /// renamed into place. A file found at the path is kept, renamed
    /// `.replaced`. Appending goes on in the restored file.
    pub fn restore(&mut self) -> Result<Option<PathBuf>, StoreError> {
        let path = self.path.clone();
        let dir = path.parent().unwrap_or(Path::new(".")).to_owned();
        let tmp = path.with_extension("jsonl.restoring");
        let mut copy = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .read(true)
            .open(&tmp)
            .map_err(io_at(&tmp))?;
        self.file.seek(SeekFrom::Start(0)).map_err(io_at(&path))?;
        let mut source = (&self.file).take(self.len);
        let copied = io::copy(&mut source, &mut copy)
            .and_then(|_| copy.sync_all())
            .map_err(io_at(&tmp));
        if let Err(e) = copied {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        let mut kept = None;
        if fs::symlink_metadata(&path).is_ok() {
            let aside = path.with_extension("jsonl.replaced");
            fs::rename(&path, &aside).map_err(io_at(&path))?;
            kept = Some(aside);
        }
        fs::rename(&tmp, &path).map_err(io_at(&path))?;
        let _ = sync_dir(&dir);
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(&path)
            .map_err(io_at(&path))?;
        self.id = file_id(&file.metadata().map_err(io_at(&path))?);
        self.file = file;
        self.dirty = false;
        Ok(kept)
    }
}

/// The length of the file's whole lines among its first `len` bytes: the
/// position after the last `\n`. Reads backwards from `len`, so it costs
/// one small read for a journal, whatever its size.
pub fn whole_len(file: &File, len: u64) -> io::Result<u64> {
    let mut buf = [0u8; 4096];
    let mut end = len;
    while end > 0 {
        let n = end.min(buf.len() as u64) as usize;
        let start = end - n as u64;
        std::os::unix::fs::FileExt::read_exact_at(file, &mut buf[..n], start)?;
        if let Some(i) = buf[..n].iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::{Rules, Sensor};
    use crate::wall_clock::rfc3339;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("lanecall-store-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn ball(t: Millis) -> Stamped<Event> {
        Stamped {
            t,
            event: Event::Sensor(Sensor::Ball),
        }
    }

    #[test]
    fn lines_appended_together_are_numbered_and_recovered_in_order() {
        let dir = temp_dir("together");
        let store = Store::open(&dir, 3).unwrap();
        let header = Header::new(3, Some(rfc3339(0)), Rules::default());
        let mut j = store.create(&header, 1_000).unwrap();
        assert_eq!(j.append(&ball(5)).unwrap(), 2);
        let run = [ball(10), ball(20), ball(30)];
        let first = j.append_all(run.iter().map(|e| (e, None))).unwrap();
        assert_eq!(first, 3, "the first of the run follows the line before");
        assert_eq!((j.lines(), j.last_t()), (5, 30));
        assert_eq!(
            j.append_all([]).unwrap(),
            6,
            "nothing to write, nothing written"
        );
        assert_eq!(j.append(&ball(40)).unwrap(), 6);
        let path = j.path().to_owned();
        let len = j.len();
        drop(j);
        assert_eq!(fs::metadata(&path).unwrap().len(), len);
        let r = JournalFile::recover(&path).unwrap();
        assert_eq!(r.torn, None);
        assert_eq!((r.file.lines(), r.replay.last_t()), (6, 40));
        let seqs: Vec<u64> = fs::read_to_string(&path)
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["n"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(
            seqs,
            [2, 3, 4, 5, 6],
            "each line sealed with its own number"
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_torn_tail_is_cut_and_appending_goes_on_cleanly() {
        let dir = temp_dir("torn");
        let store = Store::open(&dir, 3).unwrap();
        let header = Header::new(3, Some(rfc3339(0)), Rules::default());
        let mut j = store.create(&header, 1_000).unwrap();
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
        let last = text.lines().last().unwrap();
        assert_eq!(journal::unseal(last), Ok(3), "{text}");
        assert!(last.starts_with("{\"t\":30,\"ev\":\"ball\""), "{text}");
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

    /// A Pi without a clock battery may start a journal dated years ahead,
    /// then one dated right: the newest is the one started last.
    #[test]
    fn the_newest_journal_is_the_one_started_last_whatever_its_date() {
        let dir = temp_dir("seq");
        let store = Store::open(&dir, 2).unwrap();
        // From before sequence numbers: older than any numbered journal.
        fs::write(
            store.dir().join("lane2-20991231T000000Z-01.jsonl"),
            "{\"journal\":\"lanecall\",\"version\":1,\"lane\":2}\n",
        )
        .unwrap();
        let header = Header::new(2, None, Rules::default());
        let ahead = store.create(&header, 4_102_444_800).unwrap();
        let right = store.create(&header, 1_795_960_800).unwrap();
        assert!(ahead.path().to_string_lossy().contains("2100"));
        assert_eq!(store.newest().unwrap().as_deref(), Some(right.path()));
        assert_eq!(journal_seq(file_name(right.path())), 2);
        let r = JournalFile::recover(right.path()).unwrap();
        assert_eq!(r.header.seq, 2, "the header carries the number too");
        // A journal set aside still counts: the next one is above it.
        store.set_aside(right.path()).unwrap();
        assert_eq!(store.next_seq().unwrap(), 3);
        assert_eq!(store.newest().unwrap().as_deref(), Some(ahead.path()));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_state_dir_is_named() {
        let dir = temp_dir("missing").join("nowhere");
        let err = Store::open(&dir, 1).err().unwrap().to_string();
        assert!(
            err.contains("nowhere") && err.contains("does not exist"),
            "{err}"
        );
    }

    #[test]
    fn a_deleted_journal_is_put_back_from_the_open_file() {
        let dir = temp_dir("deleted");
        let store = Store::open(&dir, 4).unwrap();
        let mut j = store
            .create(&Header::new(4, None, Rules::default()), 7)
            .unwrap();
        j.append(&ball(10)).unwrap();
        let path = j.path().to_owned();
        fs::remove_file(&path).unwrap();
        assert_eq!(j.path_state(), PathState::Missing);
        j.append(&ball(20)).unwrap();
        assert_eq!(j.restore().unwrap(), None);
        assert_eq!(j.path_state(), PathState::Same);
        j.append(&ball(30)).unwrap();
        let r = JournalFile::recover(&path).unwrap();
        assert_eq!(r.replay.events(), 3, "every line, before and after");
        let text = fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            assert_eq!(journal::unseal(line), Ok(i as u64 + 1), "{text}");
        }

        // Another file put at the path is kept beside it.
        drop(r);
        let other = dir.join("other");
        fs::write(&other, "not mine\n").unwrap();
        fs::rename(&other, &path).unwrap();
        assert_eq!(j.path_state(), PathState::Replaced);
        let kept = j.restore().unwrap().expect("the other file is kept");
        assert_eq!(fs::read_to_string(kept).unwrap(), "not mine\n");
        assert_eq!(JournalFile::recover(&path).unwrap().replay.events(), 3);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn whole_len_stops_after_the_last_line_end() {
        let path = std::env::temp_dir().join(format!("lanecall-whole-{}", std::process::id()));
        let mut text = vec![b'x'; 10_000];
        text.push(b'\n');
        text.extend_from_slice(&[b'y'; 5000]);
        fs::write(&path, &text).unwrap();
        let file = File::open(&path).unwrap();
        assert_eq!(whole_len(&file, text.len() as u64).unwrap(), 10_001);
        assert_eq!(whole_len(&file, 10_001).unwrap(), 10_001);
        assert_eq!(whole_len(&file, 10_000).unwrap(), 0);
        let _ = fs::remove_file(&path);
    }
}
