//! `lanecall backup DIR`: copies the journal folder into another folder,
//! typically on a USB stick, and checks the copies.
//!
//! - Only whole lines of a journal are copied: the open journal's last line
//!   may be a write in progress.
//! - Each copy is written under a temporary name in DIR, synced, renamed to
//!   its real name and DIR synced, so an interrupted backup never leaves a
//!   half file under a journal's name.
//! - A file DIR already holds is skipped when it has the same bytes and
//!   replaced when it is a prefix of the journal (an earlier backup of it);
//!   a file that differs otherwise is never overwritten: the copy goes
//!   beside it (`….conflict-2.jsonl`).
//! - The copies of format 2 journals are read back from DIR and every
//!   line's seal is checked. A damaged line is still copied: the backup
//!   keeps what there is.
//! - Files that are not journals (`*.jsonl.damaged`, set aside by the
//!   daemon) are copied as they are: they are evidence.
//!
//! Files are streamed, never loaded whole. The byte helpers here
//! (`same_prefix`, `copy_range`, and the store's `whole_len`) serve the live
//! [`crate::journal::mirror`] too.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufReader};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::atomic::sync_dir;
use crate::journal::store::whole_len;
use crate::journal::{self, Header, HeaderError, Line};

/// How many damaged lines a report names.
const LISTED: usize = 10;
/// The buffer for streamed copies and comparisons.
const CHUNK: usize = 64 * 1024;

/// An I/O error on a file, with the file and a hint for the technician.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}{}", .path.display(), advice(.source))]
pub struct FileError {
    pub path: PathBuf,
    pub source: io::Error,
}

/// What to do about the errors a technician can fix.
fn advice(e: &io::Error) -> &'static str {
    match e.kind() {
        io::ErrorKind::StorageFull => ": the disk is full: free some space or use a bigger stick",
        io::ErrorKind::ReadOnlyFilesystem => {
            ": the disk is read-only: check the stick's lock switch, or mount it writable"
        }
        io::ErrorKind::PermissionDenied => {
            ": not allowed: the folder must be writable by the user running lanecall"
        }
        _ => "",
    }
}

fn at(path: &Path) -> impl FnOnce(io::Error) -> FileError + '_ {
    move |source| FileError {
        path: path.to_owned(),
        source,
    }
}

/// Why the backup could not start at all.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("{}: no such folder: create it or mount the USB stick", .0.display())]
    NoTarget(PathBuf),
    #[error("{}: not a folder: give the folder to copy into", .0.display())]
    TargetNotAFolder(PathBuf),
    #[error(
        "{}: no journal folder here: check state_dir in the config, or give the folder with --journal-dir",
        .0.display()
    )]
    NoJournals(PathBuf),
    #[error("{} is the journal folder itself: give a folder elsewhere (on a USB stick)", .0.display())]
    SameFolder(PathBuf),
    #[error(transparent)]
    File(#[from] FileError),
}

/// What happened to one file of the journal folder.
#[derive(Debug)]
pub struct FileReport {
    /// The file's name in the journal folder.
    pub name: OsString,
    pub result: Result<Done, FileError>,
}

/// A file that is in DIR now.
#[derive(Debug)]
pub struct Done {
    pub outcome: Outcome,
    /// The copy's name in DIR: the file's own, or a `.conflict-N` name
    /// when DIR holds a different file under its own.
    pub name_in_dir: OsString,
    /// Whole lines in the copy (0 for a file that is not a journal).
    pub lines: u64,
    pub bytes: u64,
    /// Bytes after the last whole line, not copied: a line being written.
    pub left_out: u64,
    pub verified: Verified,
}

/// What the backup did with the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// DIR had no copy: a new one.
    New,
    /// DIR's copy had the same bytes: untouched.
    UpToDate,
    /// DIR's copy was a prefix of the journal: replaced by a longer one.
    Extended,
}

/// What reading the copy back found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verified {
    /// Format 2, every seal good.
    Good,
    /// Format 2, lines whose seal fails: how many, and the first ten
    /// line numbers.
    Damaged { count: u64, first: Vec<u64> },
    /// Format 1: nothing to check.
    Format1,
    /// No whole line at all.
    Empty,
    /// Line 1 is not a journal header this lanecall reads.
    NoHeader(String),
    /// Not a journal: copied as it is.
    NotAJournal,
}

impl FileReport {
    /// Whether the file is safely in DIR with no damaged line.
    pub fn ok(&self) -> bool {
        self.result.as_ref().is_ok_and(|done| {
            !matches!(
                done.verified,
                Verified::Damaged { .. } | Verified::NoHeader(_)
            )
        })
    }
}

impl fmt::Display for FileReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = Path::new(&self.name).display();
        let done = match &self.result {
            Ok(done) => done,
            Err(e) => return write!(f, "{name}: NOT COPIED: {e}"),
        };
        write!(f, "{name}: ")?;
        if done.name_in_dir != self.name {
            write!(
                f,
                "the folder holds a different file by this name, left as it is; this one is {}, ",
                Path::new(&done.name_in_dir).display()
            )?;
        }
        let copy = match done.outcome {
            Outcome::New => "copied",
            Outcome::UpToDate => "up to date",
            Outcome::Extended => "extended",
        };
        if done.verified == Verified::NotAJournal {
            return write!(
                f,
                "{copy} as it is, {} bytes (not a journal: kept as evidence, not checked)",
                done.bytes
            );
        }
        write!(f, "{copy}, {} lines, {} bytes, ", done.lines, done.bytes)?;
        match &done.verified {
            Verified::Good => write!(f, "checksums good")?,
            Verified::Damaged { count, first } => {
                let lines: Vec<String> = first.iter().map(|n| format!("line {n}")).collect();
                let more = if *count > first.len() as u64 {
                    ", ..."
                } else {
                    ""
                };
                write!(f, "{count} damaged line(s): {}{more}", lines.join(", "))?;
            }
            Verified::Format1 => write!(f, "format 1: no checksums")?,
            Verified::Empty => write!(f, "empty: nothing to check")?,
            Verified::NoHeader(why) => write!(f, "not checked: {why}")?,
            Verified::NotAJournal => {}
        }
        if done.left_out > 0 {
            write!(
                f,
                " ({} bytes after the last whole line left out: a line being written)",
                done.left_out
            )?;
        }
        Ok(())
    }
}

/// Copies every file of `journal_dir` into `dir`, calling `on_file` as
/// each one is done (they are sorted by name). Fails only when it cannot
/// start; a file that cannot be copied is reported and the others go on.
pub fn backup(
    journal_dir: &Path,
    dir: &Path,
    mut on_file: impl FnMut(&FileReport),
) -> Result<(), BackupError> {
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(BackupError::TargetNotAFolder(dir.to_owned())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(BackupError::NoTarget(dir.to_owned()));
        }
        Err(e) => return Err(at(dir)(e).into()),
    }
    let entries = match fs::read_dir(journal_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(BackupError::NoJournals(journal_dir.to_owned()));
        }
        Err(e) => return Err(at(journal_dir)(e).into()),
    };
    if fs::canonicalize(dir).ok() == fs::canonicalize(journal_dir).ok() {
        return Err(BackupError::SameFolder(dir.to_owned()));
    }
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(at(journal_dir))?;
        // Sub-folders are not the daemon's: only its files are copied.
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            files.push(entry.file_name());
        }
    }
    files.sort();
    for name in files {
        let result = back_up(&journal_dir.join(&name), &name, dir);
        on_file(&FileReport { name, result });
    }
    Ok(())
}

/// Whether a file is a journal, by its name.
fn is_journal(name: &OsStr) -> bool {
    Path::new(name).extension().is_some_and(|e| e == "jsonl")
}

/// Backs up one file of the journal folder.
fn back_up(source: &Path, name: &OsStr, dir: &Path) -> Result<Done, FileError> {
    let src = File::open(source).map_err(at(source))?;
    let journal = is_journal(name);
    let whole = |src: &File| -> Result<(u64, u64), FileError> {
        let len = src.metadata().map_err(at(source))?.len();
        let end = if journal {
            whole_len(src, len).map_err(at(source))?
        } else {
            len
        };
        Ok((end, len))
    };
    let (mut end, mut len) = whole(&src)?;
    // The file's own name first; when DIR holds something else under it,
    // the conflict names in turn, so running again finds the same one.
    let mut k = 1;
    loop {
        let name_in_dir = if k == 1 {
            name.to_owned()
        } else {
            conflict_name(name, k)
        };
        let path = dir.join(&name_in_dir);
        let existing = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                write_copy(&src, source, end, dir, &name_in_dir)?;
                return finish(Outcome::New, name_in_dir, &path, end, len, journal);
            }
            Err(e) => return Err(at(&path)(e)),
        };
        let have = existing.metadata().map_err(at(&path))?.len();
        if have > end {
            // The live mirror may write to the same folder and be ahead of
            // this backup's first look at the journal.
            (end, len) = whole(&src)?;
        }
        let prefix = have <= end && same_prefix(&src, source, &existing, &path, have)?;
        if !prefix {
            k += 1;
            continue;
        }
        let outcome = if have == end {
            Outcome::UpToDate
        } else {
            write_copy(&src, source, end, dir, &name_in_dir)?;
            Outcome::Extended
        };
        return finish(outcome, name_in_dir, &path, end, len, journal);
    }
}

/// `lane3-….jsonl` → `lane3-….conflict-2.jsonl`; `x.jsonl.damaged` →
/// `x.jsonl.conflict-2.damaged`.
fn conflict_name(name: &OsStr, k: u32) -> OsString {
    let path = Path::new(name);
    let mut out = path.file_stem().unwrap_or(name).to_owned();
    out.push(format!(".conflict-{k}"));
    if let Some(ext) = path.extension() {
        out.push(".");
        out.push(ext);
    }
    out
}

/// Writes the first `end` bytes of `src` to `dir/name`: under a temporary
/// name, synced, renamed, and the folder synced.
fn write_copy(
    src: &File,
    source: &Path,
    end: u64,
    dir: &Path,
    name: &OsStr,
) -> Result<(), FileError> {
    let mut part = OsString::from(".");
    part.push(name);
    part.push(".part");
    let part = dir.join(part);
    let path = dir.join(name);
    let result = File::create(&part)
        .map_err(at(&part))
        .and_then(|out| {
            copy_range(src, source, &out, &part, 0, end)?;
            out.sync_all().map_err(at(&part))
        })
        .and_then(|()| fs::rename(&part, &path).map_err(at(&path)))
        .and_then(|()| sync_folder(dir));
    if result.is_err() {
        let _ = fs::remove_file(&part);
    }
    result
}

/// Makes a new or renamed name in `dir` durable.
pub(crate) fn sync_folder(dir: &Path) -> Result<(), FileError> {
    sync_dir(dir).map_err(at(dir))
}

/// Reads the copy back from DIR and checks it.
fn finish(
    outcome: Outcome,
    name_in_dir: OsString,
    path: &Path,
    end: u64,
    len: u64,
    journal: bool,
) -> Result<Done, FileError> {
    let (lines, verified) = if journal {
        verify(path)?
    } else {
        (0, Verified::NotAJournal)
    };
    Ok(Done {
        outcome,
        name_in_dir,
        lines,
        bytes: end,
        left_out: len - end,
        verified,
    })
}

/// Counts a journal's whole lines and checks their seals (format 2).
pub fn verify(path: &Path) -> Result<(u64, Verified), FileError> {
    let file = File::open(path).map_err(at(path))?;
    let mut reader = journal::Reader::new(BufReader::with_capacity(CHUNK, file));
    let mut lines = 0;
    let mut damaged = Vec::new();
    let mut count = 0;
    let mut damage = |n: u64| {
        count += 1;
        if damaged.len() < LISTED {
            damaged.push(n);
        }
    };
    let sealed = match reader.next_line().map_err(at(path))? {
        None | Some(Line::Torn(_)) => return Ok((0, Verified::Empty)),
        Some(Line::Whole(_, text)) => {
            lines += 1;
            let header = text
                .map_err(|e| HeaderError::NotAHeader(e.to_string()))
                .and_then(Header::parse);
            match header {
                Ok(h) => h.version >= 2,
                // A sealed header whose seal fails: a damaged format 2 line 1.
                Err(HeaderError::Damaged(_)) => {
                    damage(1);
                    true
                }
                Err(e) => {
                    while let Some(Line::Whole(..)) = reader.next_line().map_err(at(path))? {
                        lines += 1;
                    }
                    return Ok((lines, Verified::NoHeader(e.to_string())));
                }
            }
        }
    };
    while let Some(line) = reader.next_line().map_err(at(path))? {
        // The copy ends at a line end, so a torn line is not there.
        let Line::Whole(n, text) = line else { break };
        lines += 1;
        if sealed && !text.is_ok_and(|t| journal::unseal(t).is_ok()) {
            damage(n);
        }
    }
    let verified = match (sealed, count) {
        (false, _) => Verified::Format1,
        (true, 0) => Verified::Good,
        (true, count) => Verified::Damaged {
            count,
            first: damaged,
        },
    };
    Ok((lines, verified))
}

// ---------------------------------------------------------------------------
// Streaming byte helpers, shared with the mirror
// ---------------------------------------------------------------------------

/// Whether the first `len` bytes of two files are the same (both hold at
/// least `len`).
pub(crate) fn same_prefix(
    a: &File,
    a_path: &Path,
    b: &File,
    b_path: &Path,
    len: u64,
) -> Result<bool, FileError> {
    let mut x = vec![0u8; CHUNK];
    let mut y = vec![0u8; CHUNK];
    let mut at_byte = 0;
    while at_byte < len {
        let n = (len - at_byte).min(CHUNK as u64) as usize;
        a.read_exact_at(&mut x[..n], at_byte).map_err(at(a_path))?;
        b.read_exact_at(&mut y[..n], at_byte).map_err(at(b_path))?;
        if x[..n] != y[..n] {
            return Ok(false);
        }
        at_byte += n as u64;
    }
    Ok(true)
}

/// Copies bytes `from..to` of `src` to the same place in `dst`.
pub(crate) fn copy_range(
    src: &File,
    src_path: &Path,
    dst: &File,
    dst_path: &Path,
    from: u64,
    to: u64,
) -> Result<(), FileError> {
    let mut buf = vec![0u8; CHUNK];
    let mut pos = from;
    while pos < to {
        let n = (to - pos).min(CHUNK as u64) as usize;
        src.read_exact_at(&mut buf[..n], pos)
            .map_err(at(src_path))?;
        dst.write_all_at(&buf[..n], pos).map_err(at(dst_path))?;
        pos += n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflict_names_keep_the_extension_last() {
        assert_eq!(
            conflict_name(OsStr::new("lane3-20261130T120000Z-000012.jsonl"), 2),
            "lane3-20261130T120000Z-000012.conflict-2.jsonl"
        );
        assert_eq!(
            conflict_name(OsStr::new("lane3-x.jsonl.damaged"), 3),
            "lane3-x.jsonl.conflict-3.damaged"
        );
        assert_eq!(conflict_name(OsStr::new("notes"), 2), "notes.conflict-2");
    }
}
