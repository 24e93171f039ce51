//! Journals being published again for the centre's `resend` commands
//! (docs/mqtt.md, "command and reply").
//!
//! Asks overlap when many lanes come back at once (each lane's own sending
//! after a reconnect, the centre's ask on `online`, its ask again while a
//! gap stays open), and every copy costs the broker and the centre. So
//! they are merged, never stacked:
//!
//! - one resend per journal at a time: an ask for a journal already being
//!   resent from the same line or an earlier one is already answered by
//!   it; an ask from an earlier line moves its cursor back to there;
//! - a resend stops after its `to` line (a centre filling a gap asks for
//!   the gap only), and where the lane's ordinary sending stands in that
//!   journal ([`Lines::sends_from`]): those lines go out anyway. Merged
//!   asks run to the later `to`;
//! - at most [`MAX_RESENDS`] journals at once, the batch bounded by the
//!   link's window, and at most [`PACE_LINES`] lines every [`PACE_EVERY`]
//!   (200 a second): the broker acknowledges at once what the centre may
//!   read much later, so a lane must not resend faster than a centre
//!   with every lane resending at once can take (48 lanes: ~10,000 lines
//!   a second), or the broker's queue for the centre overflows and the
//!   lines are lost again.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::files::JournalFiles;
use super::lines::{Line, Lines, read_lines};
use crate::journal::names::journal_seq;

/// Journals being resent at once; an ask for another is refused.
pub const MAX_RESENDS: usize = 16;
/// A resend of the lane's current journals (no `file`) goes back at most
/// this many journals of the day.
pub const MAX_DAY_FILES: usize = 8;
/// Lines resent at most per [`PACE_EVERY`].
pub const PACE_LINES: usize = 20;
pub const PACE_EVERY: Duration = Duration::from_millis(100);

/// A journal being published again.
struct Resend {
    path: PathBuf,
    file: Arc<str>,
    /// Lines before this one are skipped.
    from: u64,
    /// The last line wanted (`u64::MAX`: to the end).
    to: u64,
    /// The next line read, and where it starts.
    n: u64,
    offset: u64,
}

/// The journals being resent, oldest ask first.
#[derive(Default)]
pub struct Resends {
    queue: VecDeque<Resend>,
    /// Lines that may still go before `refill`.
    allowance: usize,
    refill: Option<Instant>,
}

impl Resends {
    /// Asks for `file` (at `path`) from line `from` on, to line `to` (or
    /// to the end); merged with a resend of the same journal under way.
    /// Refused when [`MAX_RESENDS`] other journals are being resent.
    pub fn ask(
        &mut self,
        path: PathBuf,
        file: &str,
        from: u64,
        to: Option<u64>,
    ) -> Result<(), String> {
        let to = to.unwrap_or(u64::MAX);
        if let Some(r) = self.queue.iter_mut().find(|r| &*r.file == file) {
            r.to = r.to.max(to);
            if from < r.from {
                r.from = from;
                if r.n > from {
                    r.n = 1;
                    r.offset = 0;
                }
            }
            return Ok(());
        }
        if self.queue.len() >= MAX_RESENDS {
            return Err(format!(
                "{MAX_RESENDS} journals are being resent already: ask again later"
            ));
        }
        self.queue.push_back(Resend {
            path,
            file: Arc::from(file),
            from,
            to,
            n: 1,
            offset: 0,
        });
        Ok(())
    }

    /// Journals being resent.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// When more lines may go, if some wait for the pace.
    pub fn wake_at(&self) -> Option<Instant> {
        if self.queue.is_empty() || self.allowance > 0 {
            return None;
        }
        self.refill
    }

    /// The next lines to publish again at `now`, at most `room` and the
    /// pace's allowance. `lines` tells where the ordinary sending stands,
    /// and how far the journal being written is durable.
    pub fn next(
        &mut self,
        files: &dyn JournalFiles,
        lines: &Lines,
        room: usize,
        now: Instant,
    ) -> io::Result<Vec<Line>> {
        if self.refill.is_none_or(|at| now >= at) {
            self.allowance = PACE_LINES;
            self.refill = Some(now + PACE_EVERY);
        }
        let room = room.min(self.allowance);
        let out = self.read(files, lines, room)?;
        self.allowance -= out.len();
        Ok(out)
    }

    fn read(
        &mut self,
        files: &dyn JournalFiles,
        lines: &Lines,
        room: usize,
    ) -> io::Result<Vec<Line>> {
        let mut out = Vec::new();
        while out.len() < room {
            let Some(r) = self.queue.front_mut() else {
                break;
            };
            let until = lines
                .sends_from(&r.file)
                .unwrap_or(u64::MAX)
                .min(r.to.saturating_add(1));
            // The journal being written is read only as far as it is durable.
            let limit = match lines.newest() {
                Some((p, len)) if p.file_name() == r.path.file_name() => len,
                _ => u64::MAX,
            };
            let want = room - out.len();
            let batch = if r.n >= until {
                Vec::new()
            } else {
                match read_lines(files, &r.path, &r.file, r.offset, r.n, limit, want.max(64)) {
                    Ok(batch) => batch,
                    // Gone (removed by hand, say): this resend ends there,
                    // the others go on.
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {
                        tracing::warn!(
                            "centre link: {} is gone before it was resent whole",
                            r.path.display()
                        );
                        Vec::new()
                    }
                    Err(e) => return Err(e),
                }
            };
            let mut done = batch.is_empty();
            for line in batch {
                if line.n >= until {
                    done = true;
                    break;
                }
                if line.n >= r.from {
                    if out.len() == room {
                        break;
                    }
                    out.push(line.clone());
                }
                r.n = line.n + 1;
                r.offset = line.end;
            }
            if done {
                self.queue.pop_front();
            }
        }
        Ok(out)
    }
}

/// The lane's current journals for a resend without `file`: the newest
/// (`newest`, the one being written, or else the highest `seq` in `dir`)
/// and, while a journal's header carries `day` (docs/journal.md: it is not
/// the day's first), the one before it, at most [`MAX_DAY_FILES`] in all;
/// oldest first.
pub fn day_journals(
    files: &dyn JournalFiles,
    dir: &Path,
    newest: Option<&Path>,
) -> io::Result<Vec<(PathBuf, String)>> {
    let mut names: Vec<String> = files
        .names(dir)?
        .into_iter()
        .filter(|n| super::command::journal_file(files, dir, n).is_ok())
        .collect();
    names.sort_by_key(|n| (journal_seq(n), n.clone()));
    let newest_name = newest.and_then(|p| p.file_name()?.to_str());
    let end = match newest_name.and_then(|n| names.iter().position(|x| x == n)) {
        Some(i) => i + 1,
        None => names.len(),
    };
    let mut out = Vec::new();
    for name in names[..end].iter().rev() {
        let path = dir.join(name);
        let continues_day = header_has_day(files, &path);
        out.push((path, name.clone()));
        if !continues_day || out.len() >= MAX_DAY_FILES {
            break;
        }
    }
    out.reverse();
    Ok(out)
}

/// Whether the journal's header carries `day`: an earlier journal of the
/// same day comes before it. An unreadable header says no.
fn header_has_day(files: &dyn JournalFiles, path: &Path) -> bool {
    let Ok(f) = files.open_at(path, 0) else {
        return false;
    };
    let mut first = String::new();
    if BufReader::new(io::Read::take(f, 64 * 1024))
        .read_line(&mut first)
        .is_err()
    {
        return false;
    }
    serde_json::from_str::<serde_json::Value>(&first)
        .is_ok_and(|v| v.get("day").is_some_and(|d| !d.is_null()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::centre_link::files::tests::MemFiles;

    /// The journal folder of the tests (in memory).
    fn dir(_name: &str) -> (MemFiles, PathBuf) {
        (MemFiles::default(), PathBuf::from("/journal"))
    }

    fn write(files: &MemFiles, path: &Path, header: &str, lines: usize) -> u64 {
        files.remove(path);
        let rest: Vec<String> = (2..=lines).map(|i| format!("{{\"t\":{i}}}")).collect();
        let mut all = vec![header];
        all.extend(rest.iter().map(String::as_str));
        files.append(path, &all)
    }

    /// A moment `k` paces after the tests' start: the pace allows a
    /// whole allowance again.
    fn later(k: usize) -> Instant {
        use std::sync::OnceLock;
        static START: OnceLock<Instant> = OnceLock::new();
        let start = *START.get_or_init(Instant::now);
        start + PACE_EVERY * (1000 + k as u32 * 2)
    }

    fn numbers(batch: &[Line]) -> Vec<u64> {
        batch.iter().map(|l| l.n).collect()
    }

    /// Everything the resends give, `room` lines at a time, with `between`
    /// called after each batch.
    fn drain(
        files: &MemFiles,
        r: &mut Resends,
        lines: &Lines,
        room: usize,
        base: usize,
        mut between: impl FnMut(&mut Resends, usize),
    ) -> Vec<u64> {
        let mut all = Vec::new();
        for round in 0.. {
            let batch = r.next(files, lines, room, later(base + round)).unwrap();
            if batch.is_empty() {
                break;
            }
            all.extend(numbers(&batch));
            between(r, round);
        }
        all
    }

    #[test]
    fn overlapping_resends_of_a_journal_send_its_lines_once() {
        let (files, d) = dir("overlap");
        let old = d.join("lane3-20261130T090000Z-000001.jsonl");
        let cur = d.join("lane3-20261130T120000Z-000002.jsonl");
        write(&files, &old, "{\"journal\":\"lanecall\"}", 100);
        let len = write(&files, &cur, "{\"journal\":\"lanecall\"}", 10);
        let mut lines = Lines::default();
        lines.notified(cur.clone(), len);
        let name = "lane3-20261130T090000Z-000001.jsonl";
        let mut r = Resends::default();
        r.ask(old.clone(), name, 1, None).unwrap();
        // The centre asks again, from the same line and from later ones,
        // while the first resend is under way (the storm of a reconnect):
        // no line goes twice.
        let sent = drain(&files, &mut r, &lines, PACE_LINES, 0, |r, round| {
            if round < 3 {
                r.ask(old.clone(), name, 1, None).unwrap();
                r.ask(old.clone(), name, 40, None).unwrap();
            }
        });
        assert_eq!(sent, (1..=100).collect::<Vec<_>>());
        assert_eq!(r.len(), 0);

        // Asked from an earlier line than the one under way: the cursor
        // goes back, once; the lines after it are not sent a third time.
        r.ask(old.clone(), name, 50, None).unwrap();
        let first = r.next(&files, &lines, 20, later(500)).unwrap();
        assert_eq!(numbers(&first), (50..70).collect::<Vec<_>>());
        r.ask(old.clone(), name, 30, None).unwrap();
        r.ask(old.clone(), name, 45, None).unwrap();
        let rest = drain(&files, &mut r, &lines, 20, 501, |_, _| {});
        assert_eq!(rest, (30..=100).collect::<Vec<_>>());
    }

    #[test]
    fn a_resend_stops_where_the_ordinary_sending_stands() {
        let (files, d) = dir("until");
        let cur = d.join("lane3-20261130T120000Z-000002.jsonl");
        let len = write(&files, &cur, "{\"journal\":\"lanecall\"}", 30);
        let mut lines = Lines::default();
        lines.notified(cur.clone(), len);
        let name = "lane3-20261130T120000Z-000002.jsonl";
        let mut r = Resends::default();
        // Nothing sent yet: the ordinary sending will send all 30.
        r.ask(cur.clone(), name, 1, None).unwrap();
        assert!(r.next(&files, &lines, 64, later(600)).unwrap().is_empty());
        assert_eq!(r.len(), 0);
        // 12 lines sent: a resend gives 5..=12 and leaves the rest to it.
        let sent = lines.next(&files, 12).unwrap();
        assert_eq!(sent.len(), 12);
        r.ask(cur.clone(), name, 5, None).unwrap();
        assert_eq!(
            numbers(&r.next(&files, &lines, 64, later(601)).unwrap()),
            (5..=12).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_resend_stops_after_its_to_line_and_merged_asks_run_to_the_later_one() {
        let (files, d) = dir("to");
        let old = d.join("lane3-20261130T090000Z-000001.jsonl");
        write(&files, &old, "{\"journal\":\"lanecall\"}", 100);
        let lines = Lines::default();
        let name = "lane3-20261130T090000Z-000001.jsonl";
        let mut r = Resends::default();
        r.ask(old.clone(), name, 5, Some(9)).unwrap();
        assert_eq!(
            drain(&files, &mut r, &lines, 64, 700, |_, _| {}),
            (5..=9).collect::<Vec<_>>()
        );
        assert_eq!(r.len(), 0);
        // A gap further on asked while the first is under way: one run
        // from the first gap to the later end.
        r.ask(old.clone(), name, 20, Some(30)).unwrap();
        let first = r.next(&files, &lines, 4, later(720)).unwrap();
        assert_eq!(numbers(&first), [20, 21, 22, 23]);
        r.ask(old.clone(), name, 40, Some(42)).unwrap();
        let rest = drain(&files, &mut r, &lines, 64, 721, |_, _| {});
        assert_eq!(rest, (24..=42).collect::<Vec<_>>());
    }

    #[test]
    fn resent_lines_keep_to_the_pace() {
        let (files, d) = dir("pace");
        let old = d.join("lane3-20261130T090000Z-000001.jsonl");
        write(&files, &old, "{\"journal\"}", 100);
        let lines = Lines::default();
        let mut r = Resends::default();
        r.ask(old.clone(), "lane3-20261130T090000Z-000001.jsonl", 1, None)
            .unwrap();
        let t = Instant::now();
        assert_eq!(r.next(&files, &lines, 64, t).unwrap().len(), PACE_LINES);
        assert!(r.next(&files, &lines, 64, t).unwrap().is_empty());
        assert_eq!(r.wake_at(), Some(t + PACE_EVERY));
        let more = r.next(&files, &lines, 64, t + PACE_EVERY).unwrap();
        assert_eq!(more[0].n, PACE_LINES as u64 + 1);
    }

    #[test]
    fn the_current_journals_go_back_to_the_days_first() {
        let (files, d) = dir("day");
        let plain = "{\"journal\":\"lanecall\"}";
        let day = "{\"journal\":\"lanecall\",\"day\":{\"blocks\":1}}";
        let names = [
            "lane3-20261129T090000Z-000001.jsonl",
            "lane3-20261130T090000Z-000002.jsonl",
            "lane3-20261130T120000Z-000003.jsonl",
            "lane3-20261130T150000Z-000004.jsonl",
        ];
        write(&files, &d.join(names[0]), plain, 3);
        write(&files, &d.join(names[1]), plain, 3);
        write(&files, &d.join(names[2]), day, 3);
        write(&files, &d.join(names[3]), day, 3);
        files.append(
            &d.join("lane3-20261130T160000Z-000005.jsonl.damaged"),
            &["x"],
        );
        let got = day_journals(&files, &d, Some(&d.join(names[3]))).unwrap();
        let got: Vec<&str> = got.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(got, &names[1..]);
        // Being written is the day's first: it alone.
        let got = day_journals(&files, &d, Some(&d.join(names[1]))).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].1, names[1]);
    }
}
