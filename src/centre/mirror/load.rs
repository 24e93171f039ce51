//! The mirror read back at start: every lane's files, a last line cut
//! short removed, and each journal weighed by its header as when its lines
//! came ([`admit`]): a file that repeats another's header (a copy a centre
//! before this rule took), or whose name does not carry its header's
//! `seq`, stays on the disk but is not replayed, and raises its alarm.

use std::fs::{self, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::proof::{Identity, admit};
use super::valid_file_name;
use super::{Book, Feed, FileDisk, MAX_FILES, MAX_LANE_NUMBER, Mirror, Resend, lock};
use crate::journal::names::journal_seq;

impl Mirror {
    /// Reads the mirror under `dir` (`state_dir/lanes`) back into `book`.
    pub fn load(dir: PathBuf, book: Arc<Mutex<Book>>, resend: Resend) -> std::io::Result<Mirror> {
        Mirror::load_at(dir, book, resend, Instant::now())
    }

    /// [`Mirror::load`] at `now`.
    pub(super) fn load_at(
        dir: PathBuf,
        book: Arc<Mutex<Book>>,
        resend: Resend,
        now: Instant,
    ) -> std::io::Result<Mirror> {
        fs::create_dir_all(&dir)?;
        let mut mirror = Mirror {
            dir,
            checked: now,
            lanes: Default::default(),
            book,
            resend,
        };
        for entry in fs::read_dir(&mirror.dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let Some(n) = name
                .to_str()
                .filter(|s| s.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|s| s.parse::<u32>().ok())
                .filter(|n| (1..=MAX_LANE_NUMBER).contains(n))
            else {
                continue;
            };
            mirror.load_lane(n, &entry.path(), now)?;
        }
        Ok(mirror)
    }

    fn load_lane(&mut self, n: u32, dir: &Path, now: Instant) -> std::io::Result<()> {
        let mut book = lock(&self.book);
        if book.lane(n).is_none() {
            return Ok(());
        }
        let mut found = Vec::new();
        for entry in fs::read_dir(dir)? {
            let path = entry?.path();
            let Some(name) = path.file_name().and_then(|s| s.to_str()).map(str::to_owned) else {
                continue;
            };
            if !valid_file_name(&name) || found.len() >= MAX_FILES {
                continue;
            }
            let bytes = read_whole_lines(&path)?;
            let id = (bytes.split(|&b| b == b'\n').next())
                .filter(|_| !bytes.is_empty())
                .map(|first| Identity::of(&String::from_utf8_lossy(first)));
            found.push((name, path, bytes, id));
        }
        // Which of two files with one header is the journal: the one under
        // its own name, then the longer, then by name.
        found.sort_by_cached_key(|(name, _, bytes, id)| {
            let misnamed = id.as_ref().is_some_and(|id| journal_seq(name) != id.seq);
            (misnamed, std::cmp::Reverse(bytes.len()), name.clone())
        });
        let lane = self.lanes.entry(n).or_default();
        for (name, path, bytes, id) in found {
            let mut disk = FileDisk::new(path.clone(), now);
            disk.len = bytes.len() as u64;
            disk.crcs = bytes
                .split(|&b| b == b'\n')
                .take(bytes.iter().filter(|&&b| b == b'\n').count())
                .map(crc32c::crc32c)
                .collect();
            disk.file = Some(OpenOptions::new().append(true).open(&path)?);
            if let Some(id) = &id {
                let others = (lane.files.iter())
                    .filter(|(_, f)| !f.refused)
                    .filter_map(|(name, f)| Some((name.as_str(), f.id.as_ref()?)));
                if let Err(refusal) = admit(n, &name, id, others) {
                    tracing::warn!(
                        lane = n,
                        file = name,
                        why = refusal.why,
                        "a mirrored journal not replayed"
                    );
                    disk.refused = true;
                    if let Some((kind, detail)) = refusal.alarm {
                        book.alarm(kind, n, detail);
                    }
                }
            }
            disk.id = id;
            if !disk.refused {
                let mut feed = Feed::from_bytes(&bytes);
                feed.settle();
                if let Some(lb) = book.lanes.get_mut(&n) {
                    lb.journals.insert(name.clone(), feed);
                }
            }
            lane.files.insert(name, disk);
        }
        if let Some(lb) = book.lanes.get_mut(&n) {
            lb.mirror = lane.stats();
        }
        book.journals_changed += 1;
        Ok(())
    }
}

/// The whole lines of the file at `path`; a last line cut short (a power
/// loss) is cut off the file too.
fn read_whole_lines(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = fs::read(path)?;
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if whole < bytes.len() {
        tracing::warn!(file = %path.display(), "the mirror's last line was cut short: removed, it will be asked for again");
        bytes.truncate(whole);
        OpenOptions::new()
            .write(true)
            .open(path)?
            .set_len(whole as u64)?;
    }
    Ok(bytes)
}
