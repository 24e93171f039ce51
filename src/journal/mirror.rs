//! `[journal] mirror`: a live second copy of the journal being written, in
//! another folder (a USB stick), so the games survive the SD card.
//!
//! The lane thread tells the mirror, after each append, how long the
//! journal's durable part is ([`Mirror::written`]); the mirror's own thread
//! copies what it has not copied yet, reading the journal by path, and
//! syncs it. The lane thread never waits for it: a notification only
//! overwrites the newest `(journal, length)` in a slot
//! ([`crate::journal::slot`]), so however far behind the mirror is, nothing
//! queues, and a failing mirror never slows or stops the scoring.
//!
//! The copy heals itself: while the folder is missing (the stick is
//! unplugged), read-only or full, the mirror reports `failed` with the
//! reason and tries again every 5 s and on every notification; once it can
//! write again it catches up from the journal, so nothing is missing. The
//! folder is never created here: with the stick unplugged, that would fill
//! the SD card under the empty mount point instead.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};
use tracing::{info, warn};

use crate::journal::backup::{FileError, copy_range, same_prefix, sync_folder};
use crate::journal::slot::{JournalSlot, Taken, lock};
use crate::journal::store::whole_len;
use crate::ports::JournalSink;
use crate::wall_clock::{rfc3339, unix_now};

/// How often a failing mirror tries again, besides on every notification.
const RETRY: Duration = Duration::from_secs(5);

/// The handle the lane thread notifies. Dropping it lets the mirror's
/// thread make one last pass and end; it is not waited for.
pub struct Mirror {
    shared: Arc<Shared>,
}

struct Shared {
    target: PathBuf,
    slot: JournalSlot,
    state: Mutex<State>,
}

/// What the mirror's thread last did, for [`Mirror::status`].
#[derive(Default)]
struct State {
    /// The newest journal and how many of its bytes are in the mirror.
    newest: Option<(PathBuf, u64)>,
    /// Bytes of older journals not copied yet.
    older_behind: u64,
    failure: Option<Failure>,
}

struct Failure {
    reason: String,
    /// When the mirror started failing (RFC 3339, wall clock).
    since: String,
}

impl Mirror {
    /// Starts the mirror's own thread, copying into `target`.
    pub fn start(target: PathBuf) -> Mirror {
        let mirror = Mirror::new(target);
        mirror.spawn(RETRY);
        mirror
    }

    fn new(target: PathBuf) -> Mirror {
        Mirror {
            shared: Arc::new(Shared {
                target,
                slot: JournalSlot::default(),
                state: Mutex::new(State::default()),
            }),
        }
    }

    fn spawn(&self, retry: Duration) {
        let shared = self.shared.clone();
        let started = thread::Builder::new()
            .name("journal-mirror".to_owned())
            .spawn(move || run(&shared, retry));
        if let Err(e) = started {
            let reason = format!("cannot start the mirror's thread: {e}");
            warn!("journal mirror: {reason}");
            lock(&self.shared.state).failure = Some(Failure {
                reason,
                since: rfc3339(unix_now()),
            });
        }
    }

    /// The journal at `journal` now holds `len` bytes of whole, durable
    /// lines. Never blocks, never fails (the lane thread calls it after
    /// every append).
    pub fn written(&self, journal: &Path, len: u64) {
        self.shared.slot.written(journal, len);
    }

    /// The mirror's state for the panel:
    /// `{"state":"ok","path":…,"file":"lane3-….jsonl","bytes":12345}` or
    /// `{"state":"failed","path":…,"reason":"…","since":"<RFC 3339>"}`,
    /// with `"behind": <bytes not yet copied>` when it is behind.
    pub fn status(&self) -> Value {
        let latest = self.shared.slot.latest();
        let state = lock(&self.shared.state);
        let (file, copied) = match (&latest, &state.newest) {
            (Some((journal, _)), Some((done, bytes))) if journal == done => (Some(journal), *bytes),
            // The thread has not come to the newest journal yet.
            (Some((journal, _)), _) => (Some(journal), 0),
            (None, _) => (None, 0),
        };
        let notified = latest.as_ref().map_or(0, |l| l.1);
        let behind = state.older_behind + notified.saturating_sub(copied);
        let path = self.shared.target.to_string_lossy();
        let mut v = match &state.failure {
            None => {
                let mut v = json!({"state": "ok", "path": path});
                if let Some(file) = file.and_then(|f| f.file_name()) {
                    v["file"] = json!(file.to_string_lossy());
                    v["bytes"] = json!(copied);
                }
                v
            }
            Some(f) => json!({
                "state": "failed",
                "path": path,
                "reason": f.reason,
                "since": f.since,
            }),
        };
        if behind > 0 {
            v["behind"] = json!(behind);
        }
        v
    }
}

impl JournalSink for Mirror {
    fn written(&mut self, journal: &Path, len: u64) {
        Mirror::written(self, journal, len);
    }

    fn status(&self) -> Option<(&'static str, Value)> {
        Some(("mirror", Mirror::status(self)))
    }
}

impl Drop for Mirror {
    fn drop(&mut self) {
        self.shared.slot.stop();
    }
}

/// One journal being mirrored.
struct Track {
    source: PathBuf,
    /// Its newest notified length.
    notified: u64,
    /// How many bytes the mirror file holds, as far as this process knows;
    /// `None` until the file found there has been compared with the
    /// journal.
    copied: Option<u64>,
    /// Whether the mirror file's name is known to be durable (its folder
    /// synced since this process opened it).
    named: bool,
}

enum SyncError {
    /// The journal is no longer there (moved aside by the daemon).
    SourceGone,
    Failed(String),
}

impl From<FileError> for SyncError {
    fn from(e: FileError) -> SyncError {
        SyncError::Failed(e.to_string())
    }
}

/// The mirror's thread: waits for a notification (or, while failing, for
/// the next retry), then brings every journal it knows up to date.
fn run(shared: &Shared, retry: Duration) {
    let mut tracks: Vec<Track> = Vec::new();
    let mut failing = false;
    loop {
        let Taken { latest, stop } = shared.slot.wait(failing.then_some(retry));
        if let Some((journal, len)) = latest {
            // The newest journal goes last; the ones before it are closed.
            let mut track = match tracks.iter().position(|t| t.source == journal) {
                Some(i) => tracks.remove(i),
                None => Track {
                    source: journal,
                    notified: 0,
                    copied: None,
                    named: false,
                },
            };
            track.notified = len;
            tracks.push(track);
        }
        failing = !pass(shared, &mut tracks);
        if stop {
            return;
        }
    }
}

/// Copies what is missing of every journal, oldest first; a closed journal
/// is dropped once it is whole in the mirror. Returns whether it all
/// worked.
fn pass(shared: &Shared, tracks: &mut Vec<Track>) -> bool {
    let mut result = Ok(());
    let mut i = 0;
    while i < tracks.len() {
        let closed = i + 1 < tracks.len();
        match sync(&mut tracks[i], &shared.target, closed) {
            Ok(()) if closed => {
                tracks.remove(i);
            }
            Ok(()) => i += 1,
            Err(SyncError::SourceGone) => {
                warn!(
                    "journal mirror: {} is gone before it was mirrored whole",
                    tracks[i].source.display()
                );
                tracks.remove(i);
            }
            Err(SyncError::Failed(reason)) => {
                // The next journals would most likely fail the same way.
                result = Err(reason);
                break;
            }
        }
    }
    let mut state = lock(&shared.state);
    state.newest = tracks
        .last()
        .map(|t| (t.source.clone(), t.copied.unwrap_or(0)));
    state.older_behind = tracks
        .iter()
        .rev()
        .skip(1)
        .map(|t| t.notified.saturating_sub(t.copied.unwrap_or(0)))
        .sum();
    match result {
        Ok(()) => {
            if state.failure.take().is_some() {
                info!(
                    "journal mirror: {} works again and has caught up",
                    shared.target.display()
                );
            }
            true
        }
        Err(reason) => {
            // Once per failure, not once per line.
            match &mut state.failure {
                Some(f) if f.reason == reason => {}
                Some(f) => {
                    warn!("journal mirror failed: {reason}; retrying");
                    f.reason = reason;
                }
                None => {
                    warn!(
                        "journal mirror failed: {reason}; retrying every {} s and on every new line",
                        RETRY.as_secs()
                    );
                    state.failure = Some(Failure {
                        reason,
                        since: rfc3339(unix_now()),
                    });
                }
            }
            false
        }
    }
}

/// Brings one journal's mirror file up to date: up to its notified length,
/// or, for a closed journal, up to its last whole line (notifications in
/// between may have been overwritten, and the daemon writes it no more).
fn sync(track: &mut Track, target: &Path, closed: bool) -> Result<(), SyncError> {
    let source = track.source.as_path();
    let at = |path: &Path| {
        let path = path.to_owned();
        move |source: io::Error| FileError { path, source }
    };
    let src = match File::open(source) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(SyncError::SourceGone),
        Err(e) => return Err(at(source)(e).into()),
    };
    let upto = if closed {
        let len = src.metadata().map_err(at(source))?.len();
        whole_len(&src, len).map_err(at(source))?
    } else {
        track.notified
    };
    match fs::metadata(target) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(SyncError::Failed(format!(
                "{} is not a folder: point [journal] mirror at a folder",
                target.display()
            )));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(SyncError::Failed(format!(
                "the folder {} is missing: plug in the USB stick, or create the folder on it",
                target.display()
            )));
        }
        Err(e) => return Err(at(target)(e).into()),
    }
    let Some(name) = source.file_name() else {
        return Err(SyncError::Failed(format!(
            "{} has no file name",
            source.display()
        )));
    };
    let path = target.join(name);
    // A mirror pointed at the journal folder itself would find the journal
    // as its own copy, and might cut it.
    if let (Ok(d), Ok(s)) = (fs::metadata(&path), src.metadata())
        && (d.dev(), d.ino()) == (s.dev(), s.ino())
    {
        return Err(SyncError::Failed(format!(
            "{} is the journal folder itself: point [journal] mirror elsewhere",
            target.display()
        )));
    }
    let dest = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(at(&path))?;
    let mut have = dest.metadata().map_err(at(&path))?.len();
    // First time here in this process, or the file changed under us (the
    // stick replugged, another program): keep it only if it is a prefix of
    // the journal.
    if track.copied != Some(have) {
        let prefix = have <= upto && same_prefix(&src, source, &dest, &path, have)?;
        if !prefix {
            warn!(
                "journal mirror: {} is not a copy of {}: writing it again from the start",
                path.display(),
                source.display()
            );
            dest.set_len(0).map_err(at(&path))?;
            have = 0;
        }
        track.copied = Some(have);
        track.named = false;
    }
    if have < upto {
        copy_range(&src, source, &dest, &path, have, upto)?;
        dest.sync_data().map_err(at(&path))?;
        track.copied = Some(upto);
    }
    if !track.named {
        sync_folder(target)?;
        track.named = true;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::Instant;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("lanecall-mirror-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Appends `n` lines to the journal and returns its length.
    fn append(journal: &Path, from: u64, n: u64) -> u64 {
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(journal)
            .unwrap();
        for i in from..from + n {
            writeln!(f, "{{\"t\":{i},\"ev\":\"ball\"}}").unwrap();
        }
        f.metadata().unwrap().len()
    }

    /// Waits up to 10 s for `done`; the test fails only if it never comes.
    fn eventually(what: &str, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !done() {
            assert!(Instant::now() < deadline, "never happened: {what}");
            thread::sleep(Duration::from_millis(10));
        }
    }

    fn same(a: &Path, b: &Path) -> bool {
        fs::read(a).ok() == fs::read(b).ok()
    }

    #[test]
    fn notified_lines_reach_the_mirror() {
        let dir = temp_dir("lines");
        let (journals, usb) = (dir.join("journal"), dir.join("usb"));
        fs::create_dir_all(&journals).unwrap();
        fs::create_dir_all(&usb).unwrap();
        let journal = journals.join("lane3-20261130T120000Z-000001.jsonl");
        let mirror = Mirror::start(usb.clone());
        let copy = usb.join(journal.file_name().unwrap());
        let mut len = 0;
        for round in 0..5 {
            len = append(&journal, round * 3, 3);
            mirror.written(&journal, len);
        }
        eventually("the mirror holds every line", || same(&journal, &copy));
        // A line on disk but not notified yet is not copied: only whole,
        // durable lines are.
        let more = append(&journal, 100, 1);
        eventually("status says ok with the bytes", || {
            mirror.status()
                == json!({"state": "ok", "path": usb.to_string_lossy(), "file": "lane3-20261130T120000Z-000001.jsonl", "bytes": len})
        });
        assert_eq!(fs::metadata(&copy).unwrap().len(), len);
        mirror.written(&journal, more);
        eventually("the new line follows", || same(&journal, &copy));

        // A new journal: the old one is finished up to its last whole line,
        // even if its last notification was overwritten, then the new one
        // is mirrored.
        let old_end = append(&journal, 200, 2);
        let next = journals.join("lane3-20261130T130000Z-000002.jsonl");
        let next_len = append(&next, 0, 4);
        mirror.written(&next, next_len);
        let next_copy = usb.join(next.file_name().unwrap());
        eventually("both journals are whole in the mirror", || {
            same(&journal, &copy) && same(&next, &next_copy)
        });
        assert_eq!(fs::metadata(&copy).unwrap().len(), old_end);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_folder_fails_then_catches_up_when_it_appears() {
        let dir = temp_dir("missing");
        let usb = dir.join("usb");
        let journal = dir.join("lane3-20261130T120000Z-000001.jsonl");
        let mirror = Mirror::new(usb.clone());
        // Short retries, so the test does not wait 5 s for the timer.
        mirror.spawn(Duration::from_millis(20));
        let len = append(&journal, 0, 10);
        mirror.written(&journal, len);
        eventually("status says failed", || {
            mirror.status()["state"] == "failed"
        });
        let status = mirror.status();
        let reason = status["reason"].as_str().unwrap();
        assert!(reason.contains(&*usb.to_string_lossy()), "{status}");
        assert!(reason.contains("plug in the USB stick"), "{status}");
        assert!(status["since"].as_str().unwrap().ends_with('Z'), "{status}");
        assert_eq!(status["behind"], json!(len), "{status}");
        assert!(!usb.exists(), "the mirror never creates its folder");

        // More lines while it fails, then the stick is back: caught up with
        // no new notification, by the retry alone.
        let len = append(&journal, 10, 10);
        mirror.written(&journal, len);
        fs::create_dir_all(&usb).unwrap();
        let copy = usb.join(journal.file_name().unwrap());
        eventually("the mirror catches up", || same(&journal, &copy));
        eventually("status says ok", || mirror.status()["state"] == "ok");
        assert_eq!(mirror.status()["bytes"], json!(len));
        assert!(mirror.status().get("behind").is_none());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_different_file_in_the_mirror_is_written_again() {
        let dir = temp_dir("different");
        let usb = dir.join("usb");
        fs::create_dir_all(&usb).unwrap();
        let journal = dir.join("lane3-20261130T120000Z-000001.jsonl");
        let copy = usb.join(journal.file_name().unwrap());
        let len = append(&journal, 0, 5);
        // Shorter than the journal but not its beginning.
        fs::write(&copy, "{\"t\":9,\"ev\":\"ball\"}\n").unwrap();
        let mirror = Mirror::start(usb.clone());
        mirror.written(&journal, len);
        eventually("the mirror file is the journal", || same(&journal, &copy));

        // A file that is the journal's beginning is kept and extended. (A
        // journal of its own: the first mirror's thread, not waited for,
        // makes its last pass on the first one.)
        drop(mirror);
        let journal = dir.join("lane3-20261130T130000Z-000002.jsonl");
        let copy = usb.join(journal.file_name().unwrap());
        let len = append(&journal, 0, 5);
        let half = fs::read(&journal).unwrap()[..len as usize / 2].to_vec();
        fs::write(&copy, &half).unwrap();
        let mirror = Mirror::start(usb.clone());
        let len = append(&journal, 5, 1);
        mirror.written(&journal, len);
        eventually("the prefix is extended", || same(&journal, &copy));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_journal_folder_itself_is_refused_and_left_alone() {
        let dir = temp_dir("itself");
        let journal = dir.join("lane3-20261130T120000Z-000001.jsonl");
        let len = append(&journal, 0, 5);
        // A line being written, beyond the notified length.
        OpenOptions::new()
            .append(true)
            .open(&journal)
            .unwrap()
            .write_all(b"{\"t\":9")
            .unwrap();
        let before = fs::read(&journal).unwrap();
        let mirror = Mirror::start(dir.clone());
        mirror.written(&journal, len);
        eventually("status says failed", || {
            mirror.status()["state"] == "failed"
        });
        let status = mirror.status();
        assert!(
            status["reason"]
                .as_str()
                .unwrap()
                .contains("the journal folder itself"),
            "{status}"
        );
        assert_eq!(
            fs::read(&journal).unwrap(),
            before,
            "the journal is untouched"
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_burst_keeps_only_the_newest_notification() {
        let dir = temp_dir("burst");
        let usb = dir.join("usb");
        fs::create_dir_all(&usb).unwrap();
        // No thread yet: everything the lane thread says waits in the slot.
        let mirror = Mirror::new(usb.clone());
        for i in 0..100_000u64 {
            mirror.written(&dir.join(format!("lane3-{i}.jsonl")), i);
        }
        let journal = dir.join("lane3-20261130T120000Z-000001.jsonl");
        let len = append(&journal, 0, 3);
        for l in 0..=len {
            mirror.written(&journal, l);
        }
        assert_eq!(mirror.shared.slot.latest(), Some((journal.clone(), len)));
        assert_eq!(mirror.status()["behind"], json!(len));
        mirror.spawn(RETRY);
        let copy = usb.join(journal.file_name().unwrap());
        eventually("the newest journal is mirrored", || same(&journal, &copy));
        let names: Vec<_> = fs::read_dir(&usb)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            [copy.file_name().unwrap()],
            "nothing else was queued"
        );
        let _ = fs::remove_dir_all(&dir);
    }
}
