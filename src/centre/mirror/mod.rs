//! The mirror of every lane's journals on the centre's disk:
//! `state_dir/lanes/<n>/<file>`, each line appended in `n` order exactly as
//! the lane wrote it, so each file is byte-identical to the lane's and
//! `lanecall replay` reads it.
//!
//! - Only lines [`check_journal`] proved come here.
//! - A journal is known by its header (line 1, sealed: its `seq`, its
//!   `started_at`, its bytes), never by its file's name alone
//!   ([`proof::admit`]): a journal whose header repeats one mirrored, sent
//!   again under another name, is refused (`journal_copy`, an alarm); one
//!   with a `seq` mirrored already is a second history of the lane
//!   (`duplicate_lane`), refused too; a format 2 header under a name
//!   without its `seq` is refused. No line of a refused journal is taken.
//! - A line already written comes again: the same text is a duplicate
//!   (ignored), another text a conflict (counted, never written, an alarm,
//!   and the line asked for again).
//! - A line after a gap is held, up to [`MAX_HELD`] lines per lane, and
//!   the missing lines are asked for with a `resend` command (`from` the
//!   gap `to` the line before the first held one), again after
//!   [`RESEND_AGAIN`] if the gap is still open and no line has filled it
//!   since (while lines come, the resend is being answered: asking again
//!   would only stack copies); once that gap is filled, the next one at
//!   once. Past [`MAX_HELD`] a line is dropped (counted): the next ask
//!   has no `to`, so it brings the dropped lines again once the gap is
//!   filled.
//! - A lane's state says how many lines its journal has (`journal.file`,
//!   `journal.lines`). When the mirror has fewer and no line of the lane
//!   has come for [`QUIET`] (nor since the mirror first saw the lane), the
//!   rest of that file is asked for; a lane the mirror has no line of at
//!   all (a centre started after the lanes), for its current journals from
//!   their first line (a `resend` without
//!   `file`, which brings the day's earlier journals too). A lane without
//!   that state (a flooded broker skips messages) is asked for what
//!   follows its newest file, or for its current journals, [`QUIET`]
//!   after it says `online` or the link connects; a `resend` makes the
//!   lane publish its state again, so it is asked again, at most
//!   [`check::UNSURE_ASKS`] times, only until that state comes. Either is asked
//!   again only after [`RESEND_AGAIN`]. A lane back, or one that just
//!   started, sends its lines by itself: asking at once would bring them
//!   all twice.
//! - Files are fdatasync'ed in batches: after each run of messages that
//!   were waiting together. A line reaches the replay (and so the
//!   standings) only once its sync succeeded: only what is on the
//!   centre's disk is shown.
//! - A write or sync that fails (a full or read-only disk) cuts the file
//!   back to its last line on disk, so it stays a valid journal; the
//!   lines not written are held again (within [`MAX_HELD`]), the lane's
//!   mirror shows `failed` with the OS's reason, and the held lines are
//!   asked for again every [`RESEND_AGAIN`]: the first that comes back
//!   is written again, and once the disk takes it the rest follows.
//! - At start the mirror reads its files back (a torn last line is cut
//!   off; a copy is kept on the disk but not replayed, `load.rs`) and,
//!   once connected, asks each lane for what comes after, as above.
//!
//! It runs on its own thread; the MQTT link hands it lines through a
//! bounded channel, and it updates the shared [`Book`] briefly per line.
//! Its clock is read in [`Mirror::run`] (and at [`Mirror::load`]) only:
//! every rule above takes the time as a parameter, so the tests hold
//! the clock.

use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde::Deserialize;
use tokio::sync::mpsc;

use super::book::{Book, MirrorFailure, MirrorStats};
use super::feed::Feed;
use super::{MAX_FILES, MAX_LANE_NUMBER};
use crate::wall_clock::{rfc3339, unix_now};

/// Lines held after gaps, per lane.
pub const MAX_HELD: usize = 4096;
/// How long a `resend` may go without a line answering it before it is
/// sent again.
pub const RESEND_AGAIN: Duration = Duration::from_secs(5);
/// How long no line of a lane comes before the mirror, behind what the
/// lane says it has, asks for the rest.
pub const QUIET: Duration = Duration::from_secs(3);
/// How often the mirror compares itself with what the lanes say.
const CHECK_EVERY: Duration = Duration::from_secs(1);
/// How long a journal is quiet before its replay is settled (see
/// `feed.rs`): a lane's lines of one moment come together, and a ball's
/// pin report is often its journal's last line for seconds, so this is
/// most of the time from a ball to the standings (BENCHMARKS.md).
pub const SETTLE: Duration = Duration::from_millis(20);
/// How often the mirror's thread looks for journals to settle.
pub const TICK: Duration = Duration::from_millis(10);

/// What the mirror's thread is told.
pub enum ToMirror {
    /// One journal line, already checked ([`check_journal`]).
    Line(u32, JournalLine),
    /// The link (re)connected: check every lane for what comes after.
    Connected,
    /// A lane said `online` (it is back): check it for what comes after.
    Online(u32),
    Tick,
}

/// One message of a lane's journal topic.
#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct JournalLine {
    pub file: String,
    pub n: u64,
    pub line: String,
}

/// Whether `name` is a journal file's name (docs/journal.md, "Files"):
/// `lane<N>-<stamp>-<seq>.jsonl`, nothing else (no `/`, no `..`).
pub fn valid_file_name(name: &str) -> bool {
    name.strip_suffix(".jsonl")
        .is_some_and(crate::web::history::valid_id)
}

/// Sends a `resend` command: lane, file (`None`: the lane's current
/// journals), first line wanted, last line wanted (`None`: to the end).
pub type Resend = Box<dyn Fn(u32, Option<&str>, u64, Option<u64>) + Send>;

struct FileDisk {
    path: PathBuf,
    file: Option<File>,
    /// CRC32C of each line written, line `n` at `n - 1`.
    crcs: Vec<u32>,
    /// Bytes of the whole lines written.
    len: u64,
    /// Lines written since the last sync, from line `synced + 1` on; the
    /// replay gets them once the sync succeeded.
    unsynced: Vec<String>,
    /// The file may hold a part of a line after `len`: cut it first.
    torn: bool,
    /// Why the last write or sync failed, until one succeeds.
    failed: Option<String>,
    held: BTreeMap<u64, String>,
    asked_at: Option<Instant>,
    /// The next line wanted when it was asked for: a line beyond it since
    /// is progress.
    asked_next: u64,
    /// The last line asked for, if not to the end: once the mirror has it,
    /// the next gap is asked for at once.
    asked_to: Option<u64>,
    /// A line after the gap was dropped ([`MAX_HELD`]): the next ask is
    /// for all that follows.
    dropped: bool,
    /// When a conflicting line last made the mirror ask for it again.
    conflict_asked: Option<Instant>,
    /// A line of this file came with two texts: two journals share its
    /// name, and no line is added to it any more (until the centre starts
    /// again), lest the two be spliced.
    conflicted: bool,
    /// What its line 1 says it is, once taken ([`proof::admit`]).
    id: Option<proof::Identity>,
    /// Its line 1 was refused (a journal mirrored already, sent again):
    /// no line of it is taken, until a line 1 that is admitted.
    refused: bool,
    last_line: Instant,
    dirty: bool,
    settled: bool,
}

impl FileDisk {
    fn new(path: PathBuf, now: Instant) -> FileDisk {
        FileDisk {
            path,
            file: None,
            crcs: Vec::new(),
            len: 0,
            unsynced: Vec::new(),
            torn: false,
            failed: None,
            held: BTreeMap::new(),
            asked_at: None,
            asked_next: 0,
            asked_to: None,
            dropped: false,
            conflict_asked: None,
            conflicted: false,
            id: None,
            refused: false,
            last_line: now,
            dirty: false,
            settled: true,
        }
    }
    fn next(&self) -> u64 {
        self.crcs.len() as u64 + 1
    }
    /// Asks lane `n` for the lines of this file (`name`) missing before
    /// the first held one (that one itself when it is the next, held
    /// after a failed write); for all that follows when a line after
    /// them was dropped.
    fn ask(&mut self, resend: &Resend, n: u32, name: &str, now: Instant) {
        let next = self.next();
        let dropped = std::mem::take(&mut self.dropped);
        let to = (self.held.keys().next())
            .filter(|_| !dropped)
            .map(|first| (first - 1).max(next));
        resend(n, Some(name), next, to);
        self.asked(now, to);
    }
    /// Records an ask, sent `now`, for the lines from the next one to `to`.
    fn asked(&mut self, now: Instant, to: Option<u64>) {
        self.asked_at = Some(now);
        self.asked_next = self.next();
        self.asked_to = to;
    }
}

#[derive(Default)]
struct LaneDisk {
    files: HashMap<String, FileDisk>,
    duplicates: u64,
    conflicts: u64,
    dropped: u64,
    last_line_at: Option<String>,
    /// When the last journal message of the lane came (a duplicate too).
    heard: Option<Instant>,
    /// When the mirror's check first saw the lane: one never heard is
    /// quiet only [`QUIET`] after that (its first lines may be on the
    /// way, behind other lanes' at a busy start).
    seen: Option<Instant>,
    /// When it was last asked for what follows (not for a gap).
    asked_rest: Option<Instant>,
    /// When it said `online` (or the link connected), until its state
    /// says where it stands or it was asked [`UNSURE_ASKS`] times.
    online_at: Option<Instant>,
    /// Asks since `online_at` without its state.
    unsure_asks: u32,
}

impl LaneDisk {
    /// Whether no line of the lane is mirrored.
    fn empty(&self) -> bool {
        self.files.values().all(|f| f.crcs.is_empty() || f.refused)
    }
    fn held(&self) -> usize {
        self.files.values().map(|f| f.held.len()).sum()
    }
    fn stats(&self) -> MirrorStats {
        MirrorStats {
            files: (self.files.values())
                .filter(|f| !f.crcs.is_empty() && !f.refused)
                .count(),
            lines: (self.files.values())
                .filter(|f| !f.refused)
                .map(|f| f.crcs.len() as u64)
                .sum(),
            gaps: self.files.values().filter(|f| !f.held.is_empty()).count(),
            held: self.held(),
            duplicates: self.duplicates,
            conflicts: self.conflicts,
            dropped: self.dropped,
            last_line_at: self.last_line_at.clone(),
            failed: self
                .files
                .iter()
                .filter_map(|(name, f)| {
                    f.failed.as_ref().map(|reason| MirrorFailure {
                        file: name.clone(),
                        reason: reason.clone(),
                    })
                })
                .min_by(|a, b| a.file.cmp(&b.file)),
        }
    }
}

/// The mirror: the files on disk and what is held.
pub struct Mirror {
    dir: PathBuf,
    checked: Instant,
    lanes: HashMap<u32, LaneDisk>,
    book: Arc<Mutex<Book>>,
    resend: Resend,
}

fn lock(book: &Mutex<Book>) -> MutexGuard<'_, Book> {
    book.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Mirror {
    /// Runs the mirror until the channel closes. The clock is read here
    /// only: the rest takes its time as a parameter.
    pub fn run(mut self, mut rx: mpsc::Receiver<ToMirror>) {
        while let Some(msg) = rx.blocking_recv() {
            self.handle(msg, Instant::now());
            // What waited together is one batch: one sync for all of it.
            for _ in 0..1024 {
                match rx.try_recv() {
                    Ok(msg) => self.handle(msg, Instant::now()),
                    Err(_) => break,
                }
            }
            self.sync(Instant::now());
        }
        self.sync(Instant::now());
        for lane in self.lanes.values_mut() {
            for f in lane.files.values_mut() {
                f.settled = true;
            }
        }
    }

    /// One message, at `now`.
    fn handle(&mut self, msg: ToMirror, now: Instant) {
        match msg {
            ToMirror::Line(lane, line) => self.line(lane, line, now),
            ToMirror::Connected => {
                for lane in self.lanes.values_mut() {
                    lane.online_at = Some(now);
                    lane.unsure_asks = 0;
                }
            }
            ToMirror::Online(n) => {
                let lane = self.lanes.entry(n).or_default();
                lane.online_at = Some(now);
                lane.unsure_asks = 0;
            }
            ToMirror::Tick => self.tick(now),
        }
    }

    fn tick(&mut self, now: Instant) {
        let book = Arc::clone(&self.book);
        let mut book = lock(&book);
        if now - self.checked >= CHECK_EVERY {
            self.checked = now;
            self.check(&book, now);
        }
        for (&n, lane) in &mut self.lanes {
            for (name, f) in &mut lane.files {
                if !f.held.is_empty() || f.dropped {
                    let why = match f.asked_at {
                        Some(_) if f.asked_to.is_some_and(|to| f.next() > to) => {
                            Some("a gap filled: asking for the next")
                        }
                        Some(_) if f.next() > f.asked_next => {
                            // Lines are filling the gap: the resend is being
                            // answered. Wait from here.
                            f.asked_at = Some(now);
                            f.asked_next = f.next();
                            None
                        }
                        Some(at) if now - at < RESEND_AGAIN => None,
                        _ => Some("no line came after a gap: asking again"),
                    };
                    if let Some(why) = why {
                        tracing::info!(lane = n, file = name, from = f.next(), "{why}");
                        f.ask(&self.resend, n, name, now);
                    }
                }
                if !f.settled && now - f.last_line >= SETTLE {
                    f.settled = true;
                    if let Some(feed) = book
                        .lanes
                        .get_mut(&n)
                        .and_then(|l| l.journals.get_mut(name))
                    {
                        feed.settle();
                        book.journals_changed += 1;
                    }
                }
            }
        }
    }

    /// Syncs each file written since the last sync and gives its new
    /// lines to the replay; a file that cannot be synced is cut back to
    /// its last synced line and those lines are held again.
    fn sync(&mut self, now: Instant) {
        let mut outcomes = self.sync_files();
        for (&n, lane) in &mut self.lanes {
            let mut changed = false;
            let mut held = lane.held();
            for (name, f) in &mut lane.files {
                if !f.dirty {
                    continue;
                }
                f.dirty = false;
                changed = true;
                let synced = outcomes.remove(&(n, name.clone())).unwrap_or(Ok(()));
                let lines = std::mem::take(&mut f.unsynced);
                let first = f.crcs.len() - lines.len();
                if let Err(e) = synced {
                    tracing::error!(lane = n, file = name, "cannot sync the mirror: {e}");
                    // What was written since the last sync may not be on
                    // the disk: cut it off and hold it again.
                    let len = f.len - lines.iter().map(|l| l.len() as u64 + 1).sum::<u64>();
                    f.crcs.truncate(first);
                    f.len = len;
                    f.torn = true;
                    cut_torn(f);
                    f.failed = Some(e.to_string());
                    f.asked_at = Some(now);
                    f.asked_to = None;
                    let dropped = lane.dropped;
                    for (i, line) in lines.into_iter().enumerate() {
                        let at = first as u64 + 1 + i as u64;
                        hold(&mut lane.dropped, &mut held, &mut f.held, at, line);
                    }
                    f.dropped |= lane.dropped > dropped;
                    continue;
                }
                f.failed = None;
                if lines.is_empty() {
                    continue;
                }
                f.last_line = now;
                f.settled = false;
                let mut book = lock(&self.book);
                book.journals_changed += 1;
                if let Some(l) = book.lanes.get_mut(&n) {
                    let feed = l.journals.entry(name.clone()).or_default();
                    for line in &lines {
                        feed.push_line(line);
                    }
                    if feed.is_stale() {
                        // The settled line's time was the damaged one: read
                        // the journal again from the mirror, as `lanecall
                        // replay` reads it.
                        match fs::read(&f.path) {
                            Ok(bytes) => {
                                let mut again = Feed::from_bytes(&bytes);
                                again.settle();
                                *feed = again;
                            }
                            Err(e) => tracing::error!(
                                lane = n,
                                file = name,
                                "cannot read the mirror back: {e}"
                            ),
                        }
                    }
                }
            }
            if changed {
                let stats = lane.stats();
                if let Some(b) = lock(&self.book).lanes.get_mut(&n) {
                    b.mirror = stats;
                }
            }
        }
    }

    fn line(&mut self, n: u32, msg: JournalLine, now: Instant) {
        let lane = self.lanes.entry(n).or_default();
        lane.heard = Some(now);
        if !lane.files.contains_key(&msg.file) {
            if lane.files.len() >= MAX_FILES {
                lock(&self.book).refuse("too_many_files");
                return;
            }
            let path = self.dir.join(n.to_string()).join(&msg.file);
            lane.files
                .insert(msg.file.clone(), FileDisk::new(path, now));
        }
        // A journal is known by its header: a copy is never taken.
        if let Err(why) = self.identify(n, &msg) {
            let mut book = lock(&self.book);
            book.refuse(why);
            if let (Some(lane), Some(b)) = (self.lanes.get(&n), book.lanes.get_mut(&n)) {
                b.mirror = lane.stats();
            }
            return;
        }
        let Some(lane) = self.lanes.get_mut(&n) else {
            return;
        };
        let held_now = lane.held();
        let Some(f) = lane.files.get_mut(&msg.file) else {
            return;
        };
        if f.conflicted {
            lock(&self.book).refuse("journal_file_in_conflict");
            return;
        }
        let next = f.next();
        let crc = crc32c::crc32c(msg.line.as_bytes());
        if msg.n < next {
            if f.crcs[(msg.n - 1) as usize] == crc {
                lane.duplicates += 1;
            } else {
                lane.conflicts += 1;
                conflict(&self.book, &self.resend, n, f, &msg, now);
            }
        } else if msg.n > next {
            match f.held.get(&msg.n) {
                Some(text) if *text == msg.line => lane.duplicates += 1,
                Some(_) => {
                    lane.conflicts += 1;
                    conflict(&self.book, &self.resend, n, f, &msg, now);
                }
                None => {
                    let held: usize = lane.files.values().map(|f| f.held.len()).sum();
                    let f = lane.files.get_mut(&msg.file).expect("present");
                    if held >= MAX_HELD {
                        lane.dropped += 1;
                        f.dropped = true;
                    } else {
                        f.held.insert(msg.n, msg.line);
                    }
                    if f.asked_at.is_none() {
                        tracing::info!(
                            lane = n,
                            file = msg.file,
                            from = next,
                            got = msg.n,
                            "a gap: asking for the missing lines"
                        );
                        f.ask(&self.resend, n, &msg.file, now);
                    }
                }
            }
        } else {
            // A line held after a failed write may come again from a resend.
            f.held.remove(&msg.n);
            let mut line = msg.line;
            loop {
                if let Err(e) = append(n, &self.dir, f, &line) {
                    tracing::error!(lane = n, file = msg.file, "cannot write the mirror: {e}");
                    f.failed = Some(e.to_string());
                    f.asked_at = Some(now);
                    f.asked_to = None;
                    let at = f.next();
                    let mut total = held_now;
                    hold(&mut lane.dropped, &mut total, &mut f.held, at, line);
                    break;
                }
                let next = f.next();
                match f.held.remove(&next) {
                    Some(l) => line = l,
                    None => break,
                }
            }
            if f.held.is_empty() {
                f.asked_at = None;
            }
            lane.last_line_at = Some(rfc3339(unix_now()));
        }
        let stats = lane.stats();
        if let Some(b) = lock(&self.book).lanes.get_mut(&n) {
            b.mirror = stats;
        }
    }
}

/// A line that came again with other text than the mirror's: never
/// written over the first; the file takes no more lines (two journals
/// share its name: what follows could be either's); an alarm for the
/// judges; and the lane asked for the line again (at most once per
/// [`RESEND_AGAIN`] a file), so its log shows the answer.
fn conflict(
    book: &Mutex<Book>,
    resend: &Resend,
    n: u32,
    f: &mut FileDisk,
    msg: &JournalLine,
    now: Instant,
) {
    f.conflicted = true;
    f.held.clear();
    f.dropped = false;
    lock(book).alarm(
        "conflict",
        n,
        format!(
            "line {} of {} came again with other text: two journals with one name? The \
             mirror of that file stops at line {} until the centre is started again",
            msg.n,
            msg.file,
            f.crcs.len()
        ),
    );
    if f.conflict_asked.is_none_or(|at| now - at >= RESEND_AGAIN) {
        f.conflict_asked = Some(now);
        resend(n, Some(&msg.file), msg.n, Some(msg.n));
    }
}

/// Holds line `n` again after a failed write, within [`MAX_HELD`] for
/// the lane (`total` held now); past it the line is dropped (counted) and
/// asked for again once the lines before it are written.
fn hold(
    dropped: &mut u64,
    total: &mut usize,
    held: &mut BTreeMap<u64, String>,
    n: u64,
    line: String,
) {
    if *total >= MAX_HELD {
        *dropped += 1;
    } else if held.insert(n, line).is_none() {
        *total += 1;
    }
}

/// Cuts a file whose last write may have left a part of a line back to
/// its whole lines.
fn cut_torn(f: &mut FileDisk) {
    if f.torn
        && let Some(file) = &f.file
        && file.set_len(f.len).is_ok()
    {
        f.torn = false;
    }
}

/// Writes one line at the end of the file; the replay gets it once it is
/// synced. A failed write leaves the file with its whole lines only.
fn append(lane: u32, dir: &Path, f: &mut FileDisk, line: &str) -> std::io::Result<()> {
    if f.file.is_none() {
        fs::create_dir_all(dir.join(lane.to_string()))?;
        f.file = Some(OpenOptions::new().create(true).append(true).open(&f.path)?);
    }
    cut_torn(f);
    if f.torn {
        return Err(std::io::Error::other(format!(
            "cannot cut {} back to its last whole line",
            f.path.display()
        )));
    }
    let file = f.file.as_mut().expect("opened");
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    if let Err(e) = file.write_all(&bytes) {
        // A part of the line may be in the file: cut it off now, or
        // before the next write.
        f.torn = true;
        cut_torn(f);
        return Err(e);
    }
    f.len += bytes.len() as u64;
    f.crcs.push(crc32c::crc32c(line.as_bytes()));
    f.unsynced.push(line.to_owned());
    f.dirty = true;
    Ok(())
}

mod check;
mod load;
mod proof;
mod sync;
#[cfg(test)]
mod tests;

pub use proof::check_journal;
